//! The gateway's own runtime: a single-threaded tokio runtime on a thread of
//! its own, started on the first event, serving every hook's lane. Hooks run
//! there, never on the host's executor, so `emit` works under any executor and
//! a busy hook cannot starve the host. Stopping it drops every lane task, and
//! with them the workers and every process they started.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::runtime::Handle;
use tokio::sync::oneshot;

use crate::lanes::{Job, Lane, Runner, Shared};

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
}

impl Lanes {
    /// One lane per runner, in the same order; nothing starts yet.
    pub(crate) fn new(
        lanes: Vec<Arc<Lane>>,
        runners: Vec<Runner>,
        shared: Arc<Shared>,
        handler_timeout: Duration,
    ) -> Self {
        Lanes {
            lanes,
            shared,
            state: Mutex::new(EngineState::Idle(runners)),
            handler_timeout,
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
    /// killed, queued jobs are dropped, later jobs are ignored.
    pub(crate) fn shutdown(&self) {
        let state = std::mem::replace(&mut *self.lock(), EngineState::Stopped);
        // Dropped outside the lock: joining the runtime thread takes a moment.
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
            *state = match Engine::start(lanes, self.handler_timeout) {
                Ok(engine) => EngineState::Running(engine),
                Err(error) => {
                    tracing::error!("[hooks] could not start the gateway hook runtime: {error}");
                    EngineState::Stopped
                }
            };
        }
        matches!(*state, EngineState::Running(_))
    }
}

/// The gateway's runtime thread. Dropping it stops every lane and kills every worker.
struct Engine {
    handle: Handle,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Engine {
    /// Starts the runtime thread and one task per lane.
    fn start(lanes: Vec<(Arc<Lane>, Runner)>, timeout: Duration) -> std::io::Result<Engine> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .thread_name("hooks-gateway")
            .build()?;
        let handle = runtime.handle().clone();
        for (lane, runner) in lanes {
            handle.spawn(lane.serve(runner, timeout));
        }
        let (stop, stopped) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("hooks-gateway".into())
            .spawn(move || {
                runtime.block_on(async {
                    let _ = stopped.await;
                });
                // Dropping the runtime drops every task: workers and handler
                // processes are killed with their whole tree.
                drop(runtime);
            })?;
        Ok(Engine {
            handle,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// Runs `future` on the gateway runtime; the result arrives on the receiver
    /// (closed if the engine stops first).
    fn run<F>(&self, future: F) -> oneshot::Receiver<F::Output>
    where
        F: std::future::Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let (sender, receiver) = oneshot::channel();
        self.handle.spawn(async move {
            let _ = sender.send(future.await);
        });
        receiver
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take()
            && thread.thread().id() != std::thread::current().id()
        {
            let _ = thread.join();
        }
    }
}
