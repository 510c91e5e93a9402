//! [`ImportedHooks`]: the imported hooks of a home as one [`Dispatcher`].
//!
//! Consent is the shell hooks' own: an imported hook is a shell hook to the
//! allowlist, keyed on its Hermes event and [`ImportedHook::consent_command`];
//! nothing runs before consent, and safe mode registers none. The hooks of
//! one event run in parallel (as Claude Code runs them) and their replies
//! merge deny > ask > allow (see [`super::reply::merge`]).

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use hermes_hooks_core::catalog::EVENT_COUNT;
use hermes_hooks_core::{
    Config, ConfigWarning, Dispatcher, Event, EventName, HookEvent, HookRun, Reply, RunStatus,
};
use serde_json::{Map, Value};

use super::discover::{Discovery, discover};
use super::events::{ToolFilter, ToolOutcome, their_args, their_tool};
use super::exec::run_command;
use super::http::run_http;
use super::matcher::Condition;
use super::reply::{Contribution, interpret, merge};
use super::stdin::stdin_document;
use super::{Handler, ImportedHook};
use crate::consent::{changed_message, not_allowlisted_message};
use crate::consent_book::{ConsentBook, Verdict};
use crate::dispatcher::RegisterOptions;
use crate::run::RunResult;

/// The mechanism name of imported hooks' run records.
const MECHANISM: &str = "imported";

/// What [`ImportedHooks::register`] did.
#[derive(Debug)]
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
        discovery: Discovery,
        mut options: RegisterOptions,
    ) -> ImportRegistration {
        for warning in &discovery.warnings {
            tracing::warn!("{warning}");
        }
        if options.safe_mode {
            if !discovery.hooks.is_empty() {
                tracing::info!("HERMES_SAFE_MODE=1 — imported hook registration skipped");
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
        for hook in discovery.hooks.iter().filter(|hook| hook.event().is_some()) {
            let event = hook.event().map(HookEvent::as_str).unwrap_or("");
            let command = hook.consent_command();
            if let Verdict::Denied { changed } = book.decide(&mut options.consent, event, &command)
            {
                if changed {
                    tracing::warn!("{}", changed_message(event, &command, false));
                } else {
                    tracing::warn!("{}", not_allowlisted_message(event, &command));
                }
                denied.push(hook.clone());
                continue;
            }
            accepted.push(hook.clone());
        }
        ImportRegistration {
            hooks: ImportedHooks::from_approved(accepted),
            discovery,
            denied,
        }
    }

    /// Hooks whose consent the caller has already settled (tests, benchmarks).
    pub fn from_approved(hooks: Vec<ImportedHook>) -> ImportedHooks {
        let mut by_event = vec![Vec::new(); EVENT_COUNT];
        for (index, hook) in hooks.iter().enumerate() {
            if let Some(event) = hook.event() {
                by_event[event.index()].push(index);
            }
        }
        let sources = hooks
            .iter()
            .map(|hook| format!("{}:{}", hook.dialect, hook.consent_command()).into())
            .collect();
        ImportedHooks {
            shared: Arc::new(Shared {
                hooks,
                sources,
                by_event,
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
    let tool = event.tool_name().unwrap_or("");
    if let ToolFilter::Only(tools) = hook.mapping.tools
        && !tools.contains(&tool)
        && !tools.iter().any(|t| their_tool(t) == tool)
    {
        return false;
    }
    let failed = event.get("status").and_then(Value::as_str) == Some("error");
    match hook.mapping.outcome {
        ToolOutcome::Succeeded if failed => return false,
        ToolOutcome::Failed if !failed => return false,
        _ => {}
    }
    if let Some(value) = match_value(event)
        && !hook.matcher.matches(&value)
    {
        return false;
    }
    match &hook.condition {
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
    let input = stdin_document(hook, event);
    let result = match hook.handler {
        Handler::Command { .. } => run_command(hook, &input).await,
        Handler::Http { .. } => run_http(hook, &input).await,
    };
    let Some(hook_event) = hook.event().or(event.hook()) else {
        return (result, Vec::new());
    };
    let contribution = interpret(hook, hook_event, &result);
    (result, merge(event, &[contribution]))
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

/// The run record of one imported hook: its own answer, read alone (the
/// merge of all of them is the event's reply).
fn record(
    source: &Arc<str>,
    event: &Event,
    contribution: &Contribution,
    result: &RunResult,
) -> HookRun {
    let decision = merge(event, std::slice::from_ref(contribution))
        .into_iter()
        .next();
    let status = if result.timed_out {
        RunStatus::TimedOut
    } else if result.error.is_some() || !matches!(result.exit_code, Some(0) | Some(2)) {
        RunStatus::Failed
    } else {
        RunStatus::of_reply(decision.as_ref())
    };
    let mut run = HookRun::new(MECHANISM, Arc::clone(source), event.name(), status)
        .elapsed(result.elapsed)
        .decision(decision);
    if let Some(error) = &result.error {
        run = run.diagnostic(error.clone());
    } else if matches!(run.status, RunStatus::Failed) && !result.stderr.trim().is_empty() {
        run = run.diagnostic(result.stderr.trim().to_owned());
    }
    run
}

#[async_trait]
impl Dispatcher for ImportedHooks {
    fn name(&self) -> &str {
        "imported"
    }

    fn interest(&self, event: &EventName) -> bool {
        event
            .hook()
            .is_some_and(|event| !self.hooks_of(event).is_empty())
    }

    async fn dispatch(&self, event: &Event) -> Vec<Reply> {
        self.deliver(event, None).await
    }

    async fn dispatch_recorded(&self, event: &Event, runs: &mut Vec<HookRun>) -> Vec<Reply> {
        self.deliver(event, Some(runs)).await
    }
}

impl ImportedHooks {
    /// Runs the hooks `event` applies to (in parallel) and merges their answers;
    /// with `runs`, also one record per hook (an `async` one as queued).
    async fn deliver(&self, event: &Event, runs: Option<&mut Vec<HookRun>>) -> Vec<Reply> {
        let Some(hook_event) = event.hook() else {
            return Vec::new();
        };
        let running: Vec<usize> = self
            .hooks_of(hook_event)
            .iter()
            .copied()
            .filter(|&index| applies(&self.shared.hooks[index], event))
            .collect();
        if running.is_empty() {
            return Vec::new();
        }
        // `async` hooks are started and left to run (bounded by their own
        // timeout); their decisions are ignored, as in Claude Code.
        let (background, running): (Vec<usize>, Vec<usize>) = running
            .into_iter()
            .partition(|&index| self.shared.hooks[index].is_async);
        let mut runs = runs;
        for index in background {
            if let Some(runs) = runs.as_deref_mut() {
                let source = Arc::clone(&self.shared.sources[index]);
                runs.push(HookRun::new(
                    MECHANISM,
                    source,
                    event.name(),
                    RunStatus::Queued,
                ));
            }
            let (hook, event) = (self.shared.hooks[index].clone(), event.clone());
            match tokio::runtime::Handle::try_current() {
                Ok(runtime) => {
                    runtime.spawn(async move {
                        let _ = contribute(&hook, &event, hook_event).await;
                    });
                }
                Err(_) => {
                    tracing::warn!("async hook {} has no runtime to run on; skipped", hook.key)
                }
            }
        }
        if running.is_empty() {
            return Vec::new();
        }
        let started = running
            .iter()
            .map(|&index| run_and_read(&self.shared.hooks[index], event, hook_event));
        let (contributions, results): (Vec<Contribution>, Vec<RunResult>) =
            futures::future::join_all(started).await.into_iter().unzip();
        if let Some(runs) = runs {
            for ((&index, contribution), result) in running.iter().zip(&contributions).zip(&results)
            {
                runs.push(record(
                    &self.shared.sources[index],
                    event,
                    contribution,
                    result,
                ));
            }
        }
        // The merged replies are attributed to the first hook that ran (one source per reply).
        let source = Arc::clone(&self.shared.sources[running[0]]);
        merge(event, &contributions)
            .into_iter()
            .map(|value| Reply::new(Arc::clone(&source), value))
            .collect()
    }
}
