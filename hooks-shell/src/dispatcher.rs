//! [`ShellHooks`]: the registered shell hooks of one Hermes home, as a
//! [`Dispatcher`].
//!
//! Hooks of an observer event are spawned together; those of any other event
//! run one after another in config order, as the reference runs them (see
//! [`crate::schedule`]); records and replies are in config order either way.
//! Each is bounded by its own `timeout` and judged by its own
//! `fail_closed`: no outer timeout turns a fail-open hook into a block. The
//! stdin document is serialised once per event and shared by every hook.
//! Queued events (the streaming observers) go to per-hook queues instead, so
//! the caller never waits (see [`crate::queue`]).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use hermes_hooks_core::catalog::EVENT_COUNT;
use hermes_hooks_core::wire::WireContext;
use hermes_hooks_core::{
    Config, ConfigWarning, Dispatcher, Event, EventName, HookEvent, HookRun, Reply, RunStatus,
};
use serde_json::Value;

mod refusal;

use crate::allowlist::Allowlist;
use hermes_hooks_process::runtime::Background;
use refusal::{blocking, refuse};

use crate::binding::{Subject, TreeCache};
use crate::config::{LostGuard, ShellHookSpec, parse_config};
use crate::consent::{changed_message, not_allowlisted_message};

/// Why a fail-closed hook whose matcher does not compile blocks every call.
pub const UNUSABLE_MATCHER_REASON: &str = "its matcher is not a valid regex, so every call is blocked; fix the matcher in config.yaml (`hooks doctor` shows it)";
use crate::consent_book::{ConsentBook, Verdict};
use crate::gate::{Asker, Pass, RunGate, SharedAsker};
use crate::launch::Launch;
use crate::queue::{DEFAULT_QUEUE_CAPACITY, HookQueue};
use crate::record::{MECHANISM, record_spec_run};
pub use crate::register_options::RegisterOptions;
use crate::reply::{evaluate_call, failed_closed};
use crate::run::{RunResult, run_with_input, stdin_bytes};
use crate::schedule::{run_all, runs_together};

/// What [`ShellHooks::register`] did.
#[derive(Debug)]
#[non_exhaustive]
pub struct Registration {
    /// The registered hooks.
    pub hooks: ShellHooks,
    /// Config problems (each entry skipped or defaulted).
    pub warnings: Vec<ConfigWarning>,
    /// Valid hooks left out because consent was not given.
    pub denied: Vec<ShellHookSpec>,
    /// Fail-closed hooks that block every call they match because their
    /// consent failed (not approved, changed): each names file and key.
    pub refusals: Vec<ConfigWarning>,
}

/// The registered shell hooks of one Hermes home. Cheap to clone (shared).
#[derive(Clone)]
pub struct ShellHooks {
    shared: Arc<Shared>,
}

struct Shared {
    home: PathBuf,
    context: WireContext,
    hooks: Vec<RegisteredHook>,
    /// Indices into `hooks` per catalog event, in config order.
    by_event: Vec<Vec<usize>>,
    /// Valid hooks left out for want of consent (reported as skipped runs).
    denied: Vec<ShellHookSpec>,
    /// Who is asked when an approved hook changed before a run.
    asker: Option<SharedAsker>,
}

struct RegisteredHook {
    spec: ShellHookSpec,
    source: Arc<str>,
    queue: Option<HookQueue>,
    /// Why this fail-closed hook blocks instead of running (its approval no
    /// longer holds); `None` for a hook that runs.
    refused: Option<Arc<str>>,
    /// The check before each run (`None`: approved by the caller).
    gate: Option<Arc<RunGate>>,
}

impl std::fmt::Debug for ShellHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShellHooks")
            .field("home", &self.shared.home)
            .field("hooks", &self.shared.hooks.len())
            .finish()
    }
}

impl ShellHooks {
    /// Parses the `hooks:` section of `config` and registers every valid hook
    /// the user consents to (safe mode registers nothing).
    ///
    /// Consent, per `(event, command)` not yet in the allowlist: an accept
    /// (`options.consent.accept` or `hooks_auto_accept: true` in `config`)
    /// records the approval; else the prompter is asked; without one the hook
    /// is denied with a warning. An approval whose recorded script hash no
    /// longer matches is new code and is decided the same way; denied, the hook
    /// is skipped with a warning, or, when it fails closed (`pre_tool_call`
    /// with `fail_closed: true`), registered as a block of every tool call it
    /// matches. The same `(event, matcher, command)` listed
    /// twice registers once. Every registration builds an independent set:
    /// a host keeps the one it got.
    pub fn register(config: &Config, mut options: RegisterOptions) -> Registration {
        let empty = |warnings| Registration {
            hooks: ShellHooks::from_approved_specs(
                config.home(),
                options.context.clone(),
                Vec::new(),
            ),
            warnings,
            denied: Vec::new(),
            refusals: Vec::new(),
        };
        if options.safe_mode {
            crate::safe_mode::skip_registration(config);
            return empty(Vec::new());
        }
        let parsed = parse_config(config);
        for warning in &parsed.warnings {
            tracing::warn!("{warning}");
        }
        let accept = options.consent.accept || config.hooks_auto_accept();
        let mut book = ConsentBook::open(config.home(), accept);
        let mut seen = HashSet::new();
        // Guards config.yaml lost without being taken out block in their place (R10-5).
        let mut accepted = LostGuard::stand_ins(&parsed.lost_guards, config.home());
        let mut denied = Vec::new();
        let mut refusals = Vec::new();
        for mut spec in parsed.specs {
            options.apply_to_spec(&mut spec);
            let identity = (
                spec.event,
                spec.matcher.pattern().map(str::to_owned),
                spec.command.clone(),
            );
            if !seen.insert(identity) {
                continue;
            }
            if spec.unusable_matcher.is_some() && spec.blocks_on_failure() {
                // Blocks without running: no consent is asked for what never runs.
                accepted.push((spec, Some(Arc::from(UNUSABLE_MATCHER_REASON)), None));
                continue;
            }
            let (event, command) = (spec.event.as_str(), spec.command.as_str());
            let subject = Subject::native(event, command, Some(config.path()));
            let approved = match book.decide(&mut options.consent, &subject) {
                Verdict::Approved(approved) => approved,
                Verdict::Denied {
                    changed,
                    why,
                    unbindable,
                } => {
                    let changed = changed && !unbindable;
                    let blocks = spec.blocks_on_failure();
                    let message = if changed {
                        changed_message(event, command, blocks)
                    } else {
                        not_allowlisted_message(event, command)
                    };
                    if changed || !blocks {
                        tracing::warn!("{message} ({why})");
                    }
                    if blocks {
                        // Skipping it would let the tool run unguarded; this is its one warning.
                        let state = (changed, unbindable);
                        let (warning, reason) = blocking(config.path(), &subject, state, &why);
                        refusals.push(warning);
                        accepted.push((spec.clone(), Some(reason), None));
                    }
                    denied.push(spec);
                    continue;
                }
            };
            tracing::info!(
                "shell hook registered: {} -> {} (matcher={}, timeout={}s, fail_closed={})",
                spec.event,
                spec.command,
                spec.matcher.pattern().unwrap_or("None"),
                spec.timeout.as_secs(),
                spec.fail_closed
            );
            accepted.push((spec, None, Some(Arc::new(RunGate::new(subject, approved)))));
        }
        let asker = Asker::shared(options.consent, book.accepts(), book.allowlist().clone());
        let mut shared = Shared::new(
            config.home(),
            options.context,
            accepted,
            options.queue_capacity,
            (options.runtime, Some(asker)),
        );
        shared.denied = denied.clone();
        let hooks = ShellHooks {
            shared: Arc::new(shared),
        };
        Registration {
            hooks,
            warnings: parsed.warnings,
            denied,
            refusals,
        }
    }

    /// Hooks from specs whose consent the caller has already settled (hosts
    /// with their own policy, tests, benchmarks). No allowlist is consulted.
    pub fn from_approved_specs(
        home: &Path,
        context: WireContext,
        specs: Vec<ShellHookSpec>,
    ) -> Self {
        let specs = specs.into_iter().map(|spec| (spec, None, None)).collect();
        ShellHooks {
            shared: Arc::new(Shared::new(
                home,
                context,
                specs,
                DEFAULT_QUEUE_CAPACITY,
                (None, None),
            )),
        }
    }

    /// The registered specs, in config order.
    pub fn specs(&self) -> impl Iterator<Item = &ShellHookSpec> {
        self.shared.hooks.iter().map(|hook| &hook.spec)
    }

    /// How many hooks are registered.
    pub fn len(&self) -> usize {
        self.shared.hooks.len()
    }

    /// Whether no hook is registered.
    pub fn is_empty(&self) -> bool {
        self.shared.hooks.is_empty()
    }

    /// The Hermes home these hooks belong to.
    pub fn home(&self) -> &Path {
        &self.shared.home
    }

    /// The allowlist of this home (for `hooks list`, `revoke`, `doctor`).
    pub fn allowlist(&self) -> Allowlist {
        Allowlist::in_home(&self.shared.home)
    }

    /// Events of queued events dropped so far because a hook's queue was full.
    pub fn dropped_events(&self) -> u64 {
        self.shared
            .hooks
            .iter()
            .filter_map(|hook| hook.queue.as_ref())
            .map(HookQueue::dropped)
            .sum()
    }
}

/// A spec, why it blocks instead of running (if it does), and its check before runs.
type Registered = (ShellHookSpec, Option<Arc<str>>, Option<Arc<RunGate>>);

impl Shared {
    fn new(
        home: &Path,
        context: WireContext,
        specs: Vec<Registered>,
        capacity: usize,
        (runtime, asker): (Option<Background>, Option<SharedAsker>),
    ) -> Self {
        let mut by_event = vec![Vec::new(); EVENT_COUNT];
        let hooks = specs
            .into_iter()
            .enumerate()
            .map(|(index, (spec, refused, gate))| {
                by_event[spec.event.index()].push(index);
                let check = gate.clone().zip(asker.clone());
                let queue = spec
                    .event
                    .meta()
                    .is_queued()
                    .then(|| HookQueue::new(spec.clone(), capacity, runtime.clone(), check));
                RegisteredHook {
                    source: format!("shell:{}", spec.command).into(),
                    spec,
                    queue,
                    refused,
                    gate,
                }
            })
            .collect();
        Shared {
            home: home.to_owned(),
            context,
            hooks,
            by_event,
            denied: Vec::new(),
            asker,
        }
    }

    fn hooks_of(&self, event: HookEvent) -> &[usize] {
        self.by_event.get(event.index()).map_or(&[], Vec::as_slice)
    }
}

#[async_trait]
impl Dispatcher for ShellHooks {
    fn name(&self) -> &str {
        "shell"
    }

    fn interest(&self, event: &EventName) -> bool {
        // A hook denied for want of consent counts: its skipped run must show
        // in reports (it runs nothing on the plain path).
        event.hook().is_some_and(|event| {
            !self.shared.hooks_of(event).is_empty()
                || self.shared.denied.iter().any(|spec| spec.event == event)
        })
    }

    async fn dispatch(&self, event: &Event) -> Vec<Reply> {
        self.deliver(event, None).await
    }

    async fn dispatch_recorded(&self, event: &Event, runs: &mut Vec<HookRun>) -> Vec<Reply> {
        self.deliver(event, Some(runs)).await
    }

    async fn flush(&self, timeout: Duration) {
        let deadline = tokio::time::Instant::now() + timeout;
        for queue in self
            .shared
            .hooks
            .iter()
            .filter_map(|hook| hook.queue.as_ref())
        {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            queue.flush(left).await;
        }
    }
}

impl ShellHooks {
    /// Runs the hooks of `event` (together for an observer event); with `runs`, records each
    /// one touched (run, queued, or left out for want of consent).
    async fn deliver(&self, event: &Event, mut runs: Option<&mut Vec<HookRun>>) -> Vec<Reply> {
        let Some(hook_event) = event.hook() else {
            return Vec::new();
        };
        let shared = &self.shared;
        let tool_name = event.tool_name();
        let touched: Vec<&RegisteredHook> = shared
            .hooks_of(hook_event)
            .iter()
            .map(|&index| &shared.hooks[index])
            .filter(|hook| hook.spec.matches_tool(tool_name))
            .collect();
        let input: Option<Arc<[u8]>> = touched
            .iter()
            .any(|hook| hook.refused.is_none())
            .then(|| stdin_bytes(event, &shared.context));
        // Each hook that runs now is checked right before it runs (its
        // consent and the bytes it will run), in config order; the ones that
        // pass run (together, for an observer event), the others are refused.
        // A tree several hooks bind is hashed once for this run.
        let trees = TreeCache::new();
        let passes: Vec<Option<Pass>> = touched
            .iter()
            .map(|hook| {
                (hook.refused.is_none() && hook.queue.is_none()).then(|| {
                    match (&hook.gate, &shared.asker) {
                        (Some(gate), Some(asker)) => gate.check(asker, &trees),
                        _ => Pass::Run(None),
                    }
                })
            })
            .collect();
        let jobs: Vec<(&ShellHookSpec, Option<&Launch>)> = touched
            .iter()
            .zip(&passes)
            .filter_map(|(hook, pass)| match pass {
                Some(Pass::Run(launch)) => Some((&hook.spec, launch.as_ref())),
                _ => None,
            })
            .collect();
        let mut results = match &input {
            Some(input) if !jobs.is_empty() => {
                run_all(&jobs, input, runs_together(hook_event)).await
            }
            _ => Vec::new(),
        }
        .into_iter();
        let mut replies = Vec::new();
        // Records and replies in config order, however the hooks ran.
        for (hook, pass) in touched.into_iter().zip(&passes) {
            if let Some(Pass::Refuse(why)) = pass {
                refuse(hook, event, why, runs.as_deref_mut(), &mut replies);
                continue;
            }
            if let Some(reason) = hook.refused.as_deref() {
                let value = failed_closed(&hook.spec, reason);
                if let Some(runs) = runs.as_deref_mut() {
                    runs.push(
                        HookRun::new(
                            MECHANISM,
                            Arc::clone(&hook.source),
                            event.name(),
                            RunStatus::Blocked,
                        )
                        .decision(Some(value.clone()))
                        .diagnostic(reason),
                    );
                }
                replies.push(Reply::new(Arc::clone(&hook.source), value));
                continue;
            }
            if let (Some(queue), Some(input)) = (&hook.queue, &input) {
                queue.push(Arc::clone(input));
                if let Some(runs) = runs.as_deref_mut() {
                    runs.push(HookRun::new(
                        MECHANISM,
                        Arc::clone(&hook.source),
                        event.name(),
                        RunStatus::Queued,
                    ));
                }
                continue;
            }
            let Some(result) = results.next() else {
                continue;
            };
            let reply = evaluate_call(&hook.spec, &result, event.get("args"));
            if let Some(runs) = runs.as_deref_mut() {
                runs.push(record_spec_run(
                    &hook.spec,
                    &hook.source,
                    &result,
                    reply.as_ref(),
                ));
            }
            if let Some(value) = reply {
                replies.push(Reply::new(Arc::clone(&hook.source), value));
            }
        }
        if let Some(runs) = runs {
            // Configured but not consented to: never run, but a guard the
            // user wrote that does not guard must show.
            for spec in shared
                .denied
                .iter()
                .filter(|spec| spec.event == hook_event && spec.matches_tool(tool_name))
                // A changed fail-closed hook blocks instead: its run is above.
                .filter(|spec| {
                    !shared.hooks.iter().any(|hook| {
                        hook.refused.is_some()
                            && hook.spec.event == spec.event
                            && hook.spec.command == spec.command
                    })
                })
            {
                runs.push(
                    HookRun::new(
                        MECHANISM,
                        format!("shell:{}", spec.command),
                        event.name(),
                        RunStatus::Skipped("not allowlisted".into()),
                    )
                    .diagnostic(not_allowlisted_message(spec.event.as_str(), &spec.command)),
                );
            }
        }
        replies
    }
}

/// Runs `spec` once for `event`, as `hooks test` and `hooks doctor` do: the
/// production spawn and evaluation (exit 2, `fail_closed`), without consent or
/// matcher checks. Returns the raw run and the reply in the Hermes wire shape.
pub async fn run_once(
    spec: &ShellHookSpec,
    event: &Event,
    context: &WireContext,
) -> (RunResult, Option<Value>) {
    let result = run_with_input(spec, stdin_bytes(event, context)).await;
    let parsed = evaluate_call(spec, &result, event.get("args"));
    (result, parsed)
}
