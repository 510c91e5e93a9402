//! Serving every hook's lane on the background runtime the gateway was given
//! (a host's, else the process default), one task per lane, started on the
//! first event. Hooks run there, never on the host's executor, so `emit`
//! works under any executor and a busy hook cannot starve the host. Stopping
//! aborts every lane task and waits (bounded by [`STOP_BOUND`]) until they are
//! dropped, and with them the workers and every process they started.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError, mpsc};
use std::time::Duration;

use hermes_hooks_process::runtime::Background;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::lanes::{Job, Lane, Runner, Shared};

/// The most a stop waits for the lane tasks to be dropped (their workers and
/// handler processes killed with their trees).
pub(crate) const STOP_BOUND: Duration = Duration::from_secs(10);

enum EngineState {
    /// Not started yet: the runners wait here (nothing runs until the first event).
    Idle(Vec<Runner>),
    Running(Engine),
    /// Shut down, or the runtime could not start: events are dropped.
    Stopped,
}

/// Every hook's lane, and the runtime that serves them.
pub(crate) struct Lanes {
    lanes: Vec<Arc<Lane>>,
    shared: Arc<Shared>,
    state: Mutex<EngineState>,
    handler_timeout: Duration,
    runtime: Option<Background>,
}

impl Lanes {
    /// One lane per runner, in the same order; nothing starts yet.
    pub(crate) fn new(
        lanes: Vec<Arc<Lane>>,
        runners: Vec<Runner>,
        shared: Arc<Shared>,
        handler_timeout: Duration,
        runtime: Option<Background>,
    ) -> Self {
        Lanes {
            lanes,
            shared,
            state: Mutex::new(EngineState::Idle(runners)),
            handler_timeout,
            runtime,
        }
    }

    /// Lane `index` (a hook's, in discovery order).
    pub(crate) fn lane(&self, index: usize) -> &Lane {
        &self.lanes[index]
    }

    /// Jobs queued or running in any lane.
    pub(crate) fn pending(&self) -> usize {
        self.shared.pending()
    }

    /// The counters shared by the lanes (to wait for them to drain).
    pub(crate) fn shared(&self) -> Arc<Shared> {
        self.shared.clone()
    }

    /// Queues `job` on lane `index`, starting the runtime on first use. When
    /// the gateway is stopped the job is dropped (an awaiting caller sees its
    /// reply channel close).
    pub(crate) fn push(&self, index: usize, job: Job) {
        if !self.ensure_started() {
            tracing::debug!(event = %job.event, "[hooks] gateway hooks are stopped; event dropped");
            return;
        }
        self.lanes[index].push(job);
    }

    /// Stops every lane now: workers and every process they started are
    /// killed (waited for, at most [`STOP_BOUND`]), queued jobs are dropped,
    /// later jobs are ignored.
    pub(crate) fn shutdown(&self) {
        let state = std::mem::replace(&mut *self.lock(), EngineState::Stopped);
        // Dropped outside the lock: waiting for the lane tasks takes a moment.
        drop(state);
    }

    /// Runs `future` on the gateway runtime; `None` when it is not running.
    pub(crate) async fn run<F>(&self, future: F) -> Option<F::Output>
    where
        F: std::future::Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let receiver = match &*self.lock() {
            EngineState::Running(engine) => engine.run(future),
            EngineState::Idle(_) | EngineState::Stopped => return None,
        };
        receiver.await.ok()
    }

    fn lock(&self) -> MutexGuard<'_, EngineState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn ensure_started(&self) -> bool {
        let mut state = self.lock();
        if let EngineState::Idle(runners) = &mut *state {
            let lanes = self
                .lanes
                .iter()
                .cloned()
                .zip(std::mem::take(runners))
                .collect();
            *state = match self.runtime.clone().or_else(Background::process_default) {
                Some(runtime) => {
                    EngineState::Running(Engine::start(runtime, lanes, self.handler_timeout))
                }
                None => {
                    tracing::error!(
                        "[hooks] no runtime to run the gateway hooks on; events are dropped"
                    );
                    EngineState::Stopped
                }
            };
        }
        matches!(*state, EngineState::Running(_))
    }
}

/// The lane tasks on the background runtime. Dropping it stops every lane
/// and kills every worker.
struct Engine {
    runtime: Background,
    tasks: Vec<JoinHandle<()>>,
}

impl Engine {
    /// One task per lane on `runtime`.
    fn start(runtime: Background, lanes: Vec<(Arc<Lane>, Runner)>, timeout: Duration) -> Engine {
        let tasks = lanes
            .into_iter()
            .map(|(lane, runner)| runtime.handle().spawn(lane.serve(runner, timeout)))
            .collect();
        Engine { runtime, tasks }
    }

    /// Runs `future` on the runtime; the result arrives on the receiver
    /// (closed if the engine stops first).
    fn run<F>(&self, future: F) -> oneshot::Receiver<F::Output>
    where
        F: std::future::Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let (sender, receiver) = oneshot::channel();
        self.runtime.handle().spawn(async move {
            let _ = sender.send(future.await);
        });
        receiver
    }

    /// Aborts every lane task and waits, at most `bound`, until each one is
    /// dropped (its runner's workers and processes killed with their trees).
    /// Whether they all were.
    fn stop(&mut self, bound: Duration) -> bool {
        let tasks = std::mem::take(&mut self.tasks);
        if tasks.is_empty() {
            return true;
        }
        tasks.iter().for_each(JoinHandle::abort);
        let (done, dropped) = mpsc::channel::<()>();
        // An aborted task's handle resolves once its future has been dropped.
        self.runtime.handle().spawn(async move {
            for task in tasks {
                let _ = task.await;
            }
            let _ = done.send(());
        });
        let wait = || dropped.recv_timeout(bound);
        let waited = if self.runtime.is_current() {
            // On one of the runtime's own workers: let the others run the drops.
            tokio::task::block_in_place(wait)
        } else {
            wait()
        };
        match waited {
            Ok(()) => true,
            // The runtime stopped first: its shutdown dropped the tasks.
            Err(mpsc::RecvTimeoutError::Disconnected) => !self.runtime.is_running(),
            Err(mpsc::RecvTimeoutError::Timeout) => false,
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if !self.stop(STOP_BOUND) {
            tracing::warn!(
                "[hooks] gateway hooks still stopping after {STOP_BOUND:?}: a handler blocks its thread"
            );
        }
    }
}
