//! Per-hook delivery queues for queued events (`on_stream_delta` and the other
//! streaming observers): the caller never waits for a subprocess.
//!
//! Each hook of a queued event gets a bounded queue and one worker task that
//! runs the hook for one event at a time, in order. When the queue is full the
//! oldest waiting event is dropped (counted and logged): a slow hook loses
//! deltas, it never slows the stream or grows memory. The worker is started on
//! the first event, on the runtime the hooks were registered with (a host's,
//! else the process default), and ends when the [`crate::ShellHooks`] is dropped.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hermes_hooks_process::runtime::Background;
use tokio::sync::Notify;

use crate::binding::TreeCache;
use crate::config::ShellHookSpec;
use crate::gate::{Pass, RunGate, SharedAsker};
use crate::reply::evaluate;
use crate::run::run_launched;

/// Events waiting per hook before the oldest is dropped.
pub const DEFAULT_QUEUE_CAPACITY: usize = 1024;

/// The queue and worker of one hook.
pub(crate) struct HookQueue {
    state: Arc<QueueState>,
    /// Where the worker runs; `None`: the process default.
    runtime: Option<Background>,
}

struct QueueState {
    spec: ShellHookSpec,
    /// The check before each run (none for hooks approved by the caller).
    check: Option<(Arc<RunGate>, SharedAsker)>,
    capacity: usize,
    items: Mutex<VecDeque<Arc<[u8]>>>,
    /// Events queued or running; zero means idle.
    pending: AtomicUsize,
    dropped: AtomicU64,
    worker_started: AtomicBool,
    closed: AtomicBool,
    wake: Notify,
    idle: Notify,
}

impl HookQueue {
    pub(crate) fn new(
        spec: ShellHookSpec,
        capacity: usize,
        runtime: Option<Background>,
        check: Option<(Arc<RunGate>, SharedAsker)>,
    ) -> Self {
        HookQueue {
            runtime,
            state: Arc::new(QueueState {
                spec,
                check,
                capacity: capacity.max(1),
                items: Mutex::new(VecDeque::new()),
                pending: AtomicUsize::new(0),
                dropped: AtomicU64::new(0),
                worker_started: AtomicBool::new(false),
                closed: AtomicBool::new(false),
                wake: Notify::new(),
                idle: Notify::new(),
            }),
        }
    }

    /// Queues one event's stdin bytes; never waits.
    pub(crate) fn push(&self, input: Arc<[u8]>) {
        let state = &self.state;
        {
            let mut items = state.items.lock().unwrap_or_else(|e| e.into_inner());
            if items.len() >= state.capacity {
                items.pop_front();
                let dropped = state.dropped.fetch_add(1, Ordering::Relaxed) + 1;
                if dropped.is_power_of_two() {
                    tracing::warn!(
                        "shell hook queue full (event={} command={}); {dropped} events dropped so far",
                        state.spec.event,
                        state.spec.command
                    );
                }
            } else {
                state.pending.fetch_add(1, Ordering::AcqRel);
            }
            items.push_back(input);
        }
        self.start_worker();
        state.wake.notify_one();
    }

    fn start_worker(&self) {
        if self.state.worker_started.swap(true, Ordering::AcqRel) {
            return;
        }
        match self.runtime.clone().or_else(Background::process_default) {
            Some(runtime) => {
                runtime.handle().spawn(work(Arc::clone(&self.state)));
            }
            None => {
                self.state.worker_started.store(false, Ordering::Release);
                tracing::warn!("shell hook queue has no runtime to run on; events wait");
            }
        }
    }

    /// Events dropped because the queue was full.
    pub(crate) fn dropped(&self) -> u64 {
        self.state.dropped.load(Ordering::Relaxed)
    }

    /// Waits until nothing is queued or running, at most `timeout`. Works
    /// under any executor: the timer is the caller's runtime's, else the
    /// queue's.
    pub(crate) async fn flush(&self, timeout: Duration) {
        let state = &self.state;
        let idle = async {
            loop {
                let idle = state.idle.notified();
                if state.pending.load(Ordering::Acquire) == 0 {
                    return;
                }
                idle.await;
            }
        };
        let bounded = {
            // The timer registers with the runtime entered when it is made.
            let fallback = match tokio::runtime::Handle::try_current() {
                Ok(_) => None,
                Err(_) => match self.runtime.clone().or_else(Background::process_default) {
                    Some(runtime) => Some(runtime),
                    // No runtime at all: no worker ever ran, nothing to wait for.
                    None => return,
                },
            };
            let _entered = fallback.as_ref().map(|runtime| runtime.handle().enter());
            tokio::time::timeout(timeout, idle)
        };
        let _ = bounded.await;
    }
}

impl Drop for HookQueue {
    fn drop(&mut self) {
        self.state.closed.store(true, Ordering::Release);
        self.state.wake.notify_one();
    }
}

async fn work(state: Arc<QueueState>) {
    loop {
        let next = state
            .items
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop_front();
        match next {
            Some(input) => {
                let pass = match &state.check {
                    Some((gate, asker)) => gate.check(asker, &TreeCache::new()),
                    None => Pass::Run(None),
                };
                match pass {
                    Pass::Run(launch) => {
                        let result = run_launched(&state.spec, input, launch.as_ref()).await;
                        // Queued events are observers: the evaluation only logs.
                        let _ = evaluate(&state.spec, &result);
                    }
                    Pass::Refuse(why) => tracing::warn!(
                        "shell hook for {} ({}) not run: {why}",
                        state.spec.event,
                        crate::shown_hook_command(&state.spec.command)
                    ),
                }
                if state.pending.fetch_sub(1, Ordering::AcqRel) == 1 {
                    state.idle.notify_waiters();
                }
            }
            None if state.closed.load(Ordering::Acquire) => return,
            None => state.wake.notified().await,
        }
    }
}
