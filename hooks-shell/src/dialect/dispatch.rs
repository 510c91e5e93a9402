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
use serde_json::Value;

use super::ImportedHook;
pub use super::applies::applies;
pub(crate) use super::applies::applies_to;
use super::call_parts::run_split;
use super::discover::Discovery;
use super::events::also_fires_on;
use super::record::{MECHANISM, record};
use super::reply::{Contribution, Gate, interpret, merge};
use super::stop::StopTurns;
use super::withheld::{NOT_APPROVED_REASON, Why, Withheld};
use crate::binding::TreeCache;
use crate::consent::{changed_message, not_allowlisted_message};
use crate::consent_book::{ConsentBook, Verdict};
use crate::dispatcher::RegisterOptions;
use crate::gate::{Asker, Pass, RunGate, SharedAsker};
use crate::run::RunResult;

mod recheck;

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
    /// Fail-closed hooks that block every call they match because their
    /// consent failed (not approved, changed), each naming file and key.
    pub refusals: Vec<ConfigWarning>,
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
    /// Each hook's check before a run (`None`: approved by the caller).
    gates: Vec<Option<RunGate>>,
    /// Who is asked when an approved hook changed.
    asker: Option<SharedAsker>,
    sources: Vec<Arc<str>>,
    by_event: Vec<Vec<usize>>,
    /// Hooks that are matched but never run (see [`Withheld`]).
    withheld: Vec<Withheld>,
    /// Where `async` hooks run; `None`: the process default.
    runtime: Option<Background>,
    /// Stop hooks run once per turn (see [`also_fires_on`]).
    stop_turns: StopTurns,
    /// The host's other dispatchers (the user's config.yaml hooks, the
    /// plugins' callbacks), run again on a rewritten input
    /// ([`ImportedHooks::recheck_with_all`]).
    others: recheck::Others,
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
        let user = super::UserDirs::from_env();
        let discovery = super::discover_in(config, project, &user);
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
                refusals: Vec::new(),
            };
        }
        let accept = options.consent.accept || config.hooks_auto_accept();
        let mut book = ConsentBook::open(config.home(), accept);
        let mut accepted = Vec::new();
        let mut denied = Vec::new();
        let mut withheld = Vec::new();
        let mut refusals = Vec::new();
        for hook in discovery.hooks.iter().filter(|hook| hook.event().is_some()) {
            let subject = hook.subject();
            let (event, command) = (subject.event.as_str(), subject.command.as_str());
            let (changed, why, unbindable) = match book.decide(&mut options.consent, &subject) {
                Verdict::Approved(approved) => {
                    accepted.push((hook.clone(), Some(RunGate::new(subject, approved))));
                    continue;
                }
                Verdict::Denied {
                    changed,
                    why,
                    unbindable,
                } => (changed && !unbindable, why, unbindable),
            };
            let message = match (changed, hook.fail_closed) {
                (true, blocks) => format!("{} ({why})", changed_message(event, command, blocks)),
                // No approval can be given as it is: never "until it is approved".
                (false, true) if unbindable => format!(
                    "imported hook for {event} ({}) fails closed and cannot be approved as it \
                     is, so the tool calls it matches are blocked: {why}",
                    crate::shown_hook_command(command)
                ),
                (false, true) => format!("{} ({why})", not_approved_blocks_message(event, command)),
                (false, false) => format!("{} ({why})", not_allowlisted_message(event, command)),
            };
            tracing::warn!("{message}");
            if hook.fail_closed {
                refusals.push(ConfigWarning::new(
                    hook.source.clone(),
                    hook.key.clone(),
                    message,
                ));
            }
            let detail = why;
            let why = if changed {
                Why::Changed
            } else {
                Why::NotApproved
            };
            withheld.push(Withheld::denied(hook, source_of(hook), why, &detail));
            denied.push(hook.clone());
        }
        let asker = Asker::shared(options.consent, book.accepts(), book.allowlist().clone());
        withheld.extend(
            discovery
                .unsupported
                .iter()
                .filter_map(Withheld::unsupported),
        );
        withheld.extend(discovery.guards_down.iter().map(Withheld::guard_down));
        ImportRegistration {
            hooks: ImportedHooks::build(accepted, withheld, options.runtime, Some(asker)),
            discovery,
            denied,
            refusals,
        }
    }

    /// Hooks whose consent the caller has already settled (tests, benchmarks).
    pub fn from_approved(hooks: Vec<ImportedHook>) -> ImportedHooks {
        let hooks = hooks.into_iter().map(|hook| (hook, None)).collect();
        ImportedHooks::build(hooks, Vec::new(), None, None)
    }

    fn build(
        hooks: Vec<(ImportedHook, Option<RunGate>)>,
        withheld: Vec<Withheld>,
        runtime: Option<Background>,
        asker: Option<SharedAsker>,
    ) -> ImportedHooks {
        let (hooks, gates): (Vec<ImportedHook>, Vec<Option<RunGate>>) = hooks.into_iter().unzip();
        let mut by_event = vec![Vec::new(); EVENT_COUNT];
        for (index, hook) in hooks.iter().enumerate() {
            if let Some(event) = hook.event() {
                by_event[event.index()].push(index);
            }
            if let Some(second) = also_fires_on(&hook.mapping) {
                by_event[second.index()].push(index);
            }
        }
        let sources = hooks.iter().map(source_of).collect();
        ImportedHooks {
            shared: Arc::new(Shared {
                hooks,
                gates,
                asker,
                sources,
                by_event,
                withheld,
                runtime,
                stop_turns: StopTurns::default(),
                others: recheck::Others::default(),
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

    /// Runs the hook at `index` (checked first when it has a gate).
    async fn run_one(
        &self,
        index: usize,
        event: &Event,
        hook_event: HookEvent,
        trees: &TreeCache,
    ) -> (Contribution, RunResult) {
        let shared = &self.shared;
        let check = shared.gates[index].as_ref().zip(shared.asker.as_ref());
        run_and_read(&shared.hooks[index], event, hook_event, check, trees).await
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
    format!("{}:{}", hook.dialect, hook.shown_command()).into()
}

/// The warning when a fail-closed imported hook has no consent (config text escaped).
fn not_approved_blocks_message(event: &str, command: &str) -> String {
    let shown = crate::shown_hook_command(command);
    format!(
        "imported hook for {event} ({shown}) not allowlisted — it fails closed, so the tool \
         calls it matches are blocked until it is approved: {NOT_APPROVED_REASON}."
    )
}

/// Runs `hook` once for `event` (no consent or matcher check): the raw run and
/// what it contributes, for `hooks test` and `hooks doctor`.
// Not API: the facade's `hermes_hooks::inspect::run` (the run side of `hooks
// test`/`doctor`/`approve`) re-exports it; nothing else outside this crate uses it.
#[doc(hidden)]
pub async fn run_imported_once(hook: &ImportedHook, event: &Event) -> (RunResult, Vec<Value>) {
    let (result, replies, _) = run_imported_recorded(hook, event).await;
    (result, replies)
}

/// [`run_imported_once`], and the run's record as the dispatcher writes it
/// (mechanism `imported`, source `<format>:<command>`).
// Not API: the facade's `hermes_hooks::inspect::run` (the run side of `hooks
// test`/`doctor`/`approve`) re-exports it; nothing else outside this crate uses it.
#[doc(hidden)]
pub async fn run_imported_recorded(
    hook: &ImportedHook,
    event: &Event,
) -> (RunResult, Vec<Value>, HookRun) {
    let hook_event = hook.event().or(event.hook());
    let (contribution, result) = run_split(hook, event, hook_event, None).await;
    let run = record(&source_of(hook), hook, event, &contribution, &result);
    (result, merge(event, &[contribution]), run)
}

/// Runs `hook` once and reads its answer: what it contributes, and the raw
/// run. With a `check`, the hook is checked right before (see
/// [`crate::gate`]): refused, it does not run, and fails as a hook that could
/// not run (a block when it fails closed).
async fn run_and_read(
    hook: &ImportedHook,
    event: &Event,
    hook_event: HookEvent,
    check: Option<(&RunGate, &SharedAsker)>,
    trees: &TreeCache,
) -> (Contribution, RunResult) {
    let launch = match check.map(|(gate, asker)| gate.check(asker, trees)) {
        None => None,
        Some(Pass::Run(launch)) => launch,
        Some(Pass::Refuse(why)) => {
            let result = RunResult::failed(format!("not run: {why}"));
            return (interpret(hook, hook_event, &result), result);
        }
    };
    run_split(hook, event, Some(hook_event), launch.as_ref()).await
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
                || super::session_env::ends_with(event, &self.shared.hooks)
                || self
                    .shared
                    .withheld
                    .iter()
                    .any(|w| w.event() == Some(event))
        })
    }

    async fn dispatch(&self, event: &Event) -> Vec<Reply> {
        let replies = self.deliver(event, None).await;
        super::session_env::finalize(event, &self.shared.hooks);
        replies
    }

    async fn dispatch_recorded(&self, event: &Event, runs: &mut Vec<HookRun>) -> Vec<Reply> {
        let replies = self.deliver(event, Some(runs)).await;
        super::session_env::finalize(event, &self.shared.hooks);
        replies
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
        let mut running: Vec<usize> = self
            .hooks_of(hook_event)
            .iter()
            .copied()
            .filter(|&index| applies(&shared.hooks[index], event))
            .collect();
        shared
            .stop_turns
            .filter(&shared.hooks, hook_event, event, &mut running);
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
            let (this, event) = (self.clone(), event.clone());
            match shared.runtime.clone().or_else(Background::process_default) {
                Some(runtime) => {
                    runtime.handle().spawn(async move {
                        let _ = this
                            .run_one(index, &event, hook_event, &TreeCache::new())
                            .await;
                    });
                }
                None => tracing::warn!(
                    "async hook {} has no runtime to run on; skipped",
                    shared.hooks[index].key
                ),
            }
        }
        // A tree several hooks bind is hashed once for this run.
        let trees = TreeCache::new();
        let started = running
            .iter()
            .map(|&index| self.run_one(index, event, hook_event, &trees));
        let (mut contributions, results): (Vec<Contribution>, Vec<RunResult>) =
            futures::future::join_all(started).await.into_iter().unzip();
        let mut sources: Vec<&Arc<str>> = running.iter().map(|&i| &shared.sources[i]).collect();
        if let Some(runs) = runs.as_deref_mut() {
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
        let rechecked = self.recheck(event, &running, &contributions, runs).await;
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
        for (decision, source) in &rechecked {
            contributions.push(decision.clone());
            sources.push(source);
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
