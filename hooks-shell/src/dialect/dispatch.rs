//! [`ImportedHooks`]: the imported hooks of a home as one [`Dispatcher`].
//!
//! Consent is the shell hooks' own: an imported hook is a shell hook to the
//! allowlist, keyed on its Hermes event and [`ImportedHook::consent_command`];
//! nothing runs before consent, and safe mode registers none. A fail-closed
//! hook that may not run (no consent, its script changed, a type that cannot
//! run here) blocks the calls it matches instead (`dialect/withheld.rs`). The
//! hooks of one event run in parallel (as Claude Code runs them) and their
//! replies merge deny > ask > allow (see [`super::reply::merge`]).

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use hermes_hooks_core::catalog::EVENT_COUNT;
use hermes_hooks_core::{
    Config, ConfigWarning, Dispatcher, Event, EventName, HookEvent, HookRun, Reply, RunStatus,
};
use hermes_hooks_process::runtime::Background;
use serde_json::{Map, Value};

use super::discover::{Discovery, discover};
use super::events::{ToolFilter, ToolOutcome, their_args, their_tool};
use super::exec::run_command;
use super::http::run_http;
use super::matcher::{Condition, DialectMatcher};
use super::record::{MECHANISM, record};
use super::reply::{Contribution, Gate, interpret, merge};
use super::stdin::stdin_document;
use super::withheld::{NOT_APPROVED_REASON, Why, Withheld};
use super::{EventMapping, Handler, ImportedHook};
use crate::consent::{changed_message, not_allowlisted_message};
use crate::consent_book::{ConsentBook, Verdict};
use crate::dispatcher::RegisterOptions;
use crate::run::RunResult;

/// What [`ImportedHooks::register`] did.
#[derive(Debug)]
#[non_exhaustive]
pub struct ImportRegistration {
    /// The registered hooks.
    pub hooks: ImportedHooks,
    /// What `hooks_from:` found (every hook, unsupported ones, the files).
    pub discovery: Discovery,
    /// Hooks left out because consent was not given.
    pub denied: Vec<ImportedHook>,
}

impl ImportRegistration {
    /// Every problem met, each naming file and field.
    pub fn warnings(&self) -> &[ConfigWarning] {
        &self.discovery.warnings
    }
}

/// The registered imported hooks. Cheap to clone (shared).
#[derive(Clone, Debug, Default)]
pub struct ImportedHooks {
    shared: Arc<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    hooks: Vec<ImportedHook>,
    sources: Vec<Arc<str>>,
    by_event: Vec<Vec<usize>>,
    /// Hooks that are matched but never run (see [`Withheld`]).
    withheld: Vec<Withheld>,
    /// Where `async` hooks run; `None`: the process default.
    runtime: Option<Background>,
}

impl ImportedHooks {
    /// Discovers `hooks_from:` of `config` (project directory `project`) and
    /// registers every hook of a Hermes event the user consents to; safe mode
    /// registers none (the discovery is still reported).
    pub fn register(
        config: &Config,
        project: &Path,
        options: RegisterOptions,
    ) -> ImportRegistration {
        let user_home = hermes_hooks_core::home::user_home();
        let discovery = discover(config, project, user_home.as_deref());
        ImportedHooks::register_discovered(config, discovery, options)
    }

    /// Registers the hooks of an existing `discovery` of `config`'s home, with
    /// consent as [`ImportedHooks::register`] (tests give their own user home this way).
    pub fn register_discovered(
        config: &Config,
        mut discovery: Discovery,
        mut options: RegisterOptions,
    ) -> ImportRegistration {
        for hook in &mut discovery.hooks {
            options.sandbox.apply_to_imported(hook);
        }
        for warning in &discovery.warnings {
            tracing::warn!("{warning}");
        }
        if options.safe_mode {
            if !discovery.hooks.is_empty() {
                tracing::info!("HERMES_SAFE_MODE=1 — imported hook registration skipped");
            }
            let guards = discovery
                .hooks
                .iter()
                .filter(|hook| hook.fail_closed)
                .count()
                + discovery
                    .unsupported
                    .iter()
                    .filter(|e| e.fail_closed)
                    .count()
                + discovery.guards_down.len();
            if guards > 0 {
                // Safe mode turns every hook off on purpose; its guards going too must not be silent.
                tracing::warn!(
                    "HERMES_SAFE_MODE=1: {guards} fail-closed imported hook(s) are off; tool calls they guard run unguarded"
                );
            }
            return ImportRegistration {
                hooks: ImportedHooks::default(),
                discovery,
                denied: Vec::new(),
            };
        }
        let accept = options.consent.accept || config.hooks_auto_accept();
        let mut book = ConsentBook::open(config.home(), accept);
        let mut accepted = Vec::new();
        let mut denied = Vec::new();
        let mut withheld = Vec::new();
        for hook in discovery.hooks.iter().filter(|hook| hook.event().is_some()) {
            let event = hook.event().map(HookEvent::as_str).unwrap_or("");
            let command = hook.consent_command();
            if let Verdict::Denied { changed } = book.decide(&mut options.consent, event, &command)
            {
                let why = if changed {
                    tracing::warn!("{}", changed_message(event, &command, hook.fail_closed));
                    Why::Changed
                } else {
                    if hook.fail_closed {
                        tracing::warn!("{}", not_approved_blocks_message(event, &command));
                    } else {
                        tracing::warn!("{}", not_allowlisted_message(event, &command));
                    }
                    Why::NotApproved
                };
                withheld.push(Withheld::denied(hook, source_of(hook), why));
                denied.push(hook.clone());
                continue;
            }
            accepted.push(hook.clone());
        }
        withheld.extend(
            discovery
                .unsupported
                .iter()
                .filter_map(Withheld::unsupported),
        );
        withheld.extend(discovery.guards_down.iter().map(Withheld::guard_down));
        ImportRegistration {
            hooks: ImportedHooks::build(accepted, withheld, options.runtime),
            discovery,
            denied,
        }
    }

    /// Hooks whose consent the caller has already settled (tests, benchmarks).
    pub fn from_approved(hooks: Vec<ImportedHook>) -> ImportedHooks {
        ImportedHooks::build(hooks, Vec::new(), None)
    }

    fn build(
        hooks: Vec<ImportedHook>,
        withheld: Vec<Withheld>,
        runtime: Option<Background>,
    ) -> ImportedHooks {
        let mut by_event = vec![Vec::new(); EVENT_COUNT];
        for (index, hook) in hooks.iter().enumerate() {
            if let Some(event) = hook.event() {
                by_event[event.index()].push(index);
            }
        }
        let sources = hooks.iter().map(source_of).collect();
        ImportedHooks {
            shared: Arc::new(Shared {
                hooks,
                sources,
                by_event,
                withheld,
                runtime,
            }),
        }
    }

    /// The registered hooks, in file order.
    pub fn hooks(&self) -> &[ImportedHook] {
        &self.shared.hooks
    }

    /// How many hooks are registered.
    pub fn len(&self) -> usize {
        self.shared.hooks.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.shared.hooks.is_empty()
    }

    fn hooks_of(&self, event: HookEvent) -> &[usize] {
        self.shared
            .by_event
            .get(event.index())
            .map_or(&[], Vec::as_slice)
    }
}

/// The source replies and records of `hook` name: `<format>:<command>`.
fn source_of(hook: &ImportedHook) -> Arc<str> {
    format!("{}:{}", hook.dialect, hook.consent_command()).into()
}

/// The warning when a fail-closed imported hook has no consent (config text escaped).
fn not_approved_blocks_message(event: &str, command: &str) -> String {
    let shown = hermes_hooks_core::display::escape(command);
    format!(
        "imported hook for {event} ({shown}) not allowlisted — it fails closed, so the tool \
         calls it matches are blocked until it is approved: {NOT_APPROVED_REASON}."
    )
}

/// The value an event's matcher is compared with (Claude Code's match field).
fn match_value(event: &Event) -> Option<String> {
    let text = |key: &str| event.get(key).and_then(Value::as_str).map(str::to_owned);
    match event.hook()? {
        HookEvent::PreToolCall | HookEvent::PostToolCall | HookEvent::TransformToolResult => {
            Some(their_tool(event.tool_name().unwrap_or("")).to_owned())
        }
        HookEvent::OnSessionStart => Some(text("source").unwrap_or_else(|| "startup".to_owned())),
        HookEvent::OnSessionFinalize => Some(text("reason").unwrap_or_else(|| "other".to_owned())),
        HookEvent::SubagentStart | HookEvent::SubagentStop => Some(
            text("agent_type")
                .or_else(|| text("child_role"))
                .unwrap_or_else(|| "general-purpose".to_owned()),
        ),
        HookEvent::PreApprovalRequest => Some("Bash".to_owned()),
        _ => None,
    }
}

/// Whether `hook` runs for `event`: its event's tool and outcome filters,
/// its matcher on the event's match field, its `if` rule.
pub fn applies(hook: &ImportedHook, event: &Event) -> bool {
    applies_to(&hook.mapping, &hook.matcher, hook.condition.as_ref(), event)
}

/// [`applies`] from the parts of a hook.
pub(crate) fn applies_to(
    mapping: &EventMapping,
    matcher: &DialectMatcher,
    condition: Option<&Condition>,
    event: &Event,
) -> bool {
    let tool = event.tool_name().unwrap_or("");
    if let ToolFilter::Only(tools) = mapping.tools
        && !tools.contains(&tool)
        && !tools.iter().any(|t| their_tool(t) == tool)
    {
        return false;
    }
    let failed = event.get("status").and_then(Value::as_str) == Some("error");
    match mapping.outcome {
        ToolOutcome::Succeeded if failed => return false,
        ToolOutcome::Failed if !failed => return false,
        _ => {}
    }
    if let Some(value) = match_value(event)
        && !matcher.matches(&value)
    {
        return false;
    }
    match condition {
        None | Some(Condition::Unparsed(_)) => true,
        Some(condition) => {
            let tool_event = matches!(
                event.hook(),
                Some(
                    HookEvent::PreToolCall
                        | HookEvent::PostToolCall
                        | HookEvent::TransformToolResult
                )
            );
            // On other events a handler with `if` never runs (as in Claude Code).
            tool_event && {
                let args = match event.get("args") {
                    Some(Value::Object(args)) => their_args(args),
                    _ => Map::new(),
                };
                condition.allows(their_tool(tool), &args)
            }
        }
    }
}

/// Runs `hook` once for `event` (no consent or matcher check): the raw run and
/// what it contributes, for `hooks test` and `hooks doctor`.
pub async fn run_imported_once(hook: &ImportedHook, event: &Event) -> (RunResult, Vec<Value>) {
    let (result, replies, _) = run_imported_recorded(hook, event).await;
    (result, replies)
}

/// [`run_imported_once`], and the run's record as the dispatcher writes it
/// (mechanism `imported`, source `<format>:<command>`).
pub async fn run_imported_recorded(
    hook: &ImportedHook,
    event: &Event,
) -> (RunResult, Vec<Value>, HookRun) {
    let input = stdin_document(hook, event);
    let result = match hook.handler {
        Handler::Command { .. } => run_command(hook, &input).await,
        Handler::Http { .. } => run_http(hook, &input).await,
    };
    let contribution = match hook.event().or(event.hook()) {
        Some(hook_event) => interpret(hook, hook_event, &result),
        None => Contribution::default(),
    };
    let run = record(&source_of(hook), hook, event, &contribution, &result);
    (result, merge(event, &[contribution]), run)
}

async fn contribute(hook: &ImportedHook, event: &Event, hook_event: HookEvent) -> Contribution {
    run_and_read(hook, event, hook_event).await.0
}

/// Runs `hook` once and reads its answer: what it contributes, and the raw run.
async fn run_and_read(
    hook: &ImportedHook,
    event: &Event,
    hook_event: HookEvent,
) -> (Contribution, RunResult) {
    let input = stdin_document(hook, event);
    let result = match hook.handler {
        Handler::Command { .. } => run_command(hook, &input).await,
        Handler::Http { .. } => run_http(hook, &input).await,
    };
    let contribution = interpret(hook, hook_event, &result);
    (contribution, result)
}

#[async_trait]
impl Dispatcher for ImportedHooks {
    fn name(&self) -> &str {
        "imported"
    }

    fn interest(&self, event: &EventName) -> bool {
        // A withheld hook counts: its block, or its skipped run, must show.
        event.hook().is_some_and(|event| {
            !self.hooks_of(event).is_empty()
                || self
                    .shared
                    .withheld
                    .iter()
                    .any(|w| w.event() == Some(event))
        })
    }

    async fn dispatch(&self, event: &Event) -> Vec<Reply> {
        self.deliver(event, None).await
    }

    async fn dispatch_recorded(&self, event: &Event, runs: &mut Vec<HookRun>) -> Vec<Reply> {
        self.deliver(event, Some(runs)).await
    }
}

impl ImportedHooks {
    /// Runs the hooks `event` applies to (in parallel) and merges their answers
    /// with the blocks of withheld fail-closed hooks; with `runs`, also one
    /// record per hook (an `async` one as queued, a withheld one as blocked or skipped).
    async fn deliver(&self, event: &Event, runs: Option<&mut Vec<HookRun>>) -> Vec<Reply> {
        let Some(hook_event) = event.hook() else {
            return Vec::new();
        };
        let shared = &self.shared;
        let running: Vec<usize> = self
            .hooks_of(hook_event)
            .iter()
            .copied()
            .filter(|&index| applies(&shared.hooks[index], event))
            .collect();
        let withheld: Vec<&Withheld> = shared
            .withheld
            .iter()
            .filter(|withheld| withheld.applies(event))
            .collect();
        if running.is_empty() && withheld.is_empty() {
            return Vec::new();
        }
        // `async` hooks are started and left to run (bounded by their own
        // timeout); their decisions are ignored, as in Claude Code.
        let (background, running): (Vec<usize>, Vec<usize>) = running
            .into_iter()
            .partition(|&index| shared.hooks[index].is_async);
        let mut runs = runs;
        for index in background {
            if let Some(runs) = runs.as_deref_mut() {
                let source = Arc::clone(&shared.sources[index]);
                runs.push(HookRun::new(
                    MECHANISM,
                    source,
                    event.name(),
                    RunStatus::Queued,
                ));
            }
            let (hook, event) = (shared.hooks[index].clone(), event.clone());
            match shared.runtime.clone().or_else(Background::process_default) {
                Some(runtime) => {
                    runtime.handle().spawn(async move {
                        let _ = contribute(&hook, &event, hook_event).await;
                    });
                }
                None => {
                    tracing::warn!("async hook {} has no runtime to run on; skipped", hook.key)
                }
            }
        }
        let started = running
            .iter()
            .map(|&index| run_and_read(&shared.hooks[index], event, hook_event));
        let (mut contributions, results): (Vec<Contribution>, Vec<RunResult>) =
            futures::future::join_all(started).await.into_iter().unzip();
        let mut sources: Vec<&Arc<str>> = running.iter().map(|&i| &shared.sources[i]).collect();
        if let Some(runs) = runs {
            for ((&index, contribution), result) in running.iter().zip(&contributions).zip(&results)
            {
                let source = &shared.sources[index];
                runs.push(record(
                    source,
                    &shared.hooks[index],
                    event,
                    contribution,
                    result,
                ));
            }
            runs.extend(withheld.iter().map(|w| w.record(event.name(), MECHANISM)));
        }
        for withheld in withheld {
            let message = withheld.block.as_ref().and_then(|b| b.get("message"));
            if let Some(Value::String(message)) = message {
                contributions.push(Contribution {
                    gate: Some(Gate::Deny(message.clone())),
                    ..Contribution::default()
                });
                sources.push(&withheld.source);
            }
        }
        // The merged replies are attributed to one hook (one source per
        // reply): the one whose deny wins, else the first that ran.
        let Some(first) = sources.first() else {
            return Vec::new();
        };
        let source = contributions
            .iter()
            .position(|c| matches!(c.gate, Some(Gate::Deny(_))))
            .map_or(*first, |at| sources[at]);
        merge(event, &contributions)
            .into_iter()
            .map(|value| Reply::new(Arc::clone(source), value))
            .collect()
    }
}
