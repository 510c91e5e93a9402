//! Delivery: [`Callbacks`] as a [`Dispatcher`]. Picks each event's run policy
//! from the catalog and turns results, failures and skips into replies.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arc_swap::Guard;
use futures::FutureExt;
use hermes_hooks_core::async_trait;
use serde_json::Value;

use super::batch::{Ticket, run_all};
use super::registry::{CallbackFn, Entry, SyncFn};
use super::report::truncate_message;
use super::runner::{Bounded, Limits, Skip, admit};
use super::stream::StreamQueue;
use super::{CallbackError, CallbackResult, Callbacks, SettlePauses, timer};
use hermes_hooks_core::catalog::{FailMode, HookEvent, RunPolicy};
use hermes_hooks_core::dispatch::Dispatcher;
use hermes_hooks_core::event::{Event, EventName};
use hermes_hooks_core::reply::Reply;
use hermes_hooks_core::runs::{HookRun, RunStatus};

#[async_trait]
impl Dispatcher for Callbacks {
    fn name(&self) -> &str {
        "plugins"
    }

    fn interest(&self, event: &EventName) -> bool {
        self.registry.has(event)
    }

    async fn dispatch(&self, event: &Event) -> Vec<Reply> {
        self.deliver(event, None).await
    }

    async fn dispatch_recorded(&self, event: &Event, runs: &mut Vec<HookRun>) -> Vec<Reply> {
        self.deliver(event, Some(runs)).await
    }

    fn dispatch_now(&self, event: &Event, replies: &mut Vec<Reply>) -> bool {
        let (plan, fail_closed) = self.plan(event);
        // A bounded call waits for a worker: that is the async path's job
        // (which looks the callbacks up itself).
        if matches!(plan, Plan::Bounded(_)) {
            return false;
        }
        let entries = self.registry.entries(event.name());
        if entries.is_empty() {
            return true;
        }
        match plan {
            Plan::Queue => {
                self.enqueue(&entries, event);
                true
            }
            Plan::Bounded(_) => false,
            // An async callback has to be awaited.
            Plan::Inline if !entries.all_sync() => false,
            Plan::Inline => {
                for entry in entries.iter() {
                    if let CallbackFn::Sync(function) = &entry.callback {
                        let result = run_sync(&**function, event);
                        self.absorb(entry, event, result, fail_closed, replies, None);
                    }
                }
                true
            }
        }
    }

    async fn flush(&self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        let queues = self.registry.queues();
        let mut pauses = SettlePauses::default();
        while !(queues.iter().all(|queue| queue.is_settled()) && self.owners_settled()) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            timer::sleep(left.min(pauses.next())).await;
        }
    }
}

/// How the callbacks of one event run.
enum Plan {
    /// Handed to each callback's observer queue.
    Queue,
    /// On a worker, each call bounded by the limits.
    Bounded(Limits),
    /// On the caller, in order.
    Inline,
}

/// Runs a synchronous callback, turning a panic into a failure.
fn run_sync(function: &SyncFn, event: &Event) -> CallbackResult {
    std::panic::catch_unwind(AssertUnwindSafe(|| function(event)))
        .unwrap_or_else(|payload| Err(CallbackError::from_panic(payload.as_ref())))
}

impl Callbacks {
    /// Delivers `event` on the async path, recording a run per callback when `runs` is given.
    async fn deliver(&self, event: &Event, runs: Option<&mut Vec<HookRun>>) -> Vec<Reply> {
        // Held across awaits: a full reference, not a borrowed hot-path slot.
        let entries = Guard::into_inner(self.registry.entries(event.name()));
        if entries.is_empty() {
            return Vec::new();
        }
        let (plan, fail_closed) = self.plan(event);
        match plan {
            Plan::Queue => {
                let queued = self.enqueue(&entries, event);
                if let Some(runs) = runs {
                    let status = if queued {
                        RunStatus::Queued
                    } else {
                        RunStatus::Skipped("reasoning deltas are not streamed".into())
                    };
                    runs.extend(entries.iter().map(|entry| {
                        HookRun::new(
                            entry.origin.mechanism(),
                            entry.source.clone(),
                            event.name(),
                            status.clone(),
                        )
                    }));
                }
                Vec::new()
            }
            Plan::Bounded(limits) => {
                self.run_bounded(&entries, event, &limits, fail_closed, runs)
                    .await
            }
            Plan::Inline => self.run_inline(&entries, event, fail_closed, runs).await,
        }
    }

    /// The run plan of `event` (from its catalog run policy and the current
    /// timeout) and whether its failures fail closed.
    fn plan(&self, event: &Event) -> (Plan, bool) {
        let meta = event.hook().map(HookEvent::meta);
        let fail_closed = meta.is_some_and(|meta| meta.fail == FailMode::Closed);
        let plan = match meta.map_or(RunPolicy::Inline, |meta| meta.run) {
            RunPolicy::Queued => Plan::Queue,
            RunPolicy::Bounded => match self.callback_timeout() {
                Some(timeout) => Plan::Bounded(Limits {
                    timeout,
                    suppression: self.suppression_window,
                }),
                None => Plan::Inline,
            },
            // `Inline`, `CallerThread`, and a policy this crate does not know
            // yet (the catalog's enum is non-exhaustive): on the caller.
            _ => Plan::Inline,
        };
        (plan, fail_closed)
    }

    /// Runs every callback on the caller, in order (sync ones on the caller's thread).
    async fn run_inline(
        &self,
        entries: &[Arc<Entry>],
        event: &Event,
        fail_closed: bool,
        mut runs: Option<&mut Vec<HookRun>>,
    ) -> Vec<Reply> {
        let mut replies = Vec::new();
        for entry in entries.iter() {
            // The clock is read only for run records.
            let started = runs.is_some().then(Instant::now);
            let result = match &entry.callback {
                CallbackFn::Sync(function) => run_sync(&**function, event),
                CallbackFn::Async(function) => {
                    let started = std::panic::catch_unwind(AssertUnwindSafe(|| {
                        AssertUnwindSafe(function(event.clone())).catch_unwind()
                    }));
                    match started {
                        Ok(future) => future.await.unwrap_or_else(|payload| {
                            Err(CallbackError::from_panic(payload.as_ref()))
                        }),
                        Err(payload) => Err(CallbackError::from_panic(payload.as_ref())),
                    }
                }
            };
            let run = runs
                .as_deref_mut()
                .zip(started.map(|started| started.elapsed()));
            self.absorb(entry, event, result, fail_closed, &mut replies, run);
        }
        replies
    }

    /// Runs every callback on a worker, in order, each bounded by `limits`:
    /// all of them handed over at once (see `batch.rs`).
    async fn run_bounded(
        &self,
        entries: &[Arc<Entry>],
        event: &Event,
        limits: &Limits,
        fail_closed: bool,
        mut runs: Option<&mut Vec<HookRun>>,
    ) -> Vec<Reply> {
        let mut ends: Vec<Option<Bounded>> = Vec::with_capacity(entries.len());
        let mut tickets = Vec::with_capacity(entries.len());
        for (index, entry) in entries.iter().enumerate() {
            match admit(entry, event, limits) {
                Ok(seq) => {
                    tickets.push(Ticket::new(index, Arc::clone(entry), seq));
                    ends.push(None);
                }
                Err(why) => ends.push(Some(Bounded::Skipped(why))),
            }
        }
        if !tickets.is_empty() {
            for (index, end) in run_all(tickets, entries, event, &self.workers, limits).await {
                if let Some(slot) = ends.get_mut(index) {
                    *slot = Some(end);
                }
            }
        }
        let mut replies = Vec::new();
        for (entry, end) in entries.iter().zip(ends) {
            let mut elapsed = Duration::ZERO;
            let (status, diagnostic) = match end {
                Some(Bounded::Finished(result, took)) => {
                    let run = runs.as_deref_mut().map(|runs| (runs, took));
                    self.absorb(entry, event, result, fail_closed, &mut replies, run);
                    continue;
                }
                Some(Bounded::TimedOut) => {
                    elapsed = limits.timeout;
                    let why = format!(
                        "timed out after {}s (plugins.hook_callback_timeout)",
                        limits.timeout.as_secs_f64()
                    );
                    (RunStatus::TimedOut, why)
                }
                Some(Bounded::Skipped(skip)) => (
                    RunStatus::Skipped(skip.to_string()),
                    format!("was not run: {skip}"),
                ),
                // Every admitted call ends one way or another (see `run_all`).
                None => {
                    let skip = Skip::NoWorker;
                    (
                        RunStatus::Skipped(skip.to_string()),
                        format!("was not run: {skip}"),
                    )
                }
            };
            // Says what happened to this call: a timeout of its own, or a
            // skip (the callback never saw it) and why.
            let block = fail_closed.then(|| {
                Reply::block(
                    entry.source.clone(),
                    format!(
                        "{} {} callback {} {diagnostic}",
                        event.name(),
                        entry.origin.word(),
                        entry.owner
                    ),
                )
            });
            if let Some(runs) = runs.as_deref_mut() {
                let mechanism = entry.origin.mechanism();
                let mut run = HookRun::new(mechanism, entry.source.clone(), event.name(), status)
                    .elapsed(elapsed)
                    .decision(block.as_ref().map(|reply| reply.value.clone()))
                    .diagnostic(diagnostic);
                if fail_closed {
                    run = run.diagnostic("failed closed: the tool call is blocked");
                }
                runs.push(run);
            }
            replies.extend(block);
        }
        replies
    }

    /// Turns one callback's result into a reply, a reported failure, or
    /// nothing; with `run` (the records and how long the call took), also its record.
    fn absorb(
        &self,
        entry: &Entry,
        event: &Event,
        result: CallbackResult,
        fail_closed: bool,
        replies: &mut Vec<Reply>,
        run: Option<(&mut Vec<HookRun>, Duration)>,
    ) {
        let (reply, failure) = match result {
            Ok(None | Some(Value::Null)) => (None, None),
            Ok(Some(value)) => (Some(Reply::new(entry.source.clone(), value)), None),
            Err(error) => {
                let hook = event.name().as_str();
                self.reporter
                    .report(hook, entry.id, &entry.owner, error.kind(), error.message());
                let failure = format!(
                    "raised {}: {}",
                    error.kind(),
                    truncate_message(error.message())
                );
                let block = fail_closed.then(|| {
                    Reply::block(
                        entry.source.clone(),
                        format!(
                            "{hook} {} callback {} {failure}",
                            entry.origin.word(),
                            entry.owner
                        ),
                    )
                });
                (block, Some(failure))
            }
        };
        if let Some((runs, elapsed)) = run {
            let decision = reply.as_ref().map(|reply| reply.value.clone());
            let status = match &failure {
                Some(_) => RunStatus::Failed,
                None => RunStatus::of_reply(decision.as_ref()),
            };
            let mechanism = entry.origin.mechanism();
            let mut record = HookRun::new(mechanism, entry.source.clone(), event.name(), status)
                .elapsed(elapsed)
                .decision(decision);
            if let Some(failure) = failure {
                record = record.diagnostic(failure);
                if fail_closed {
                    record = record.diagnostic("failed closed: the tool call is blocked");
                }
            }
            runs.push(record);
        }
        replies.extend(reply);
    }

    /// Hands `event` to each callback's queue; never waits. False when the
    /// event is not streamed (reasoning deltas while they are off).
    fn enqueue(&self, entries: &[Arc<Entry>], event: &Event) -> bool {
        if event.hook() == Some(HookEvent::OnStreamDelta)
            && event.get("kind").and_then(Value::as_str) == Some("reasoning")
            && !self.settings().stream_reasoning_deltas
        {
            return false;
        }
        for entry in entries.iter() {
            entry
                .queue
                .get_or_init(|| {
                    StreamQueue::start(entry, self.queue_capacity, self.reporter.clone())
                })
                .enqueue(event);
        }
        true
    }
}
