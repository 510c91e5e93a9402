//! One background tokio runtime for every mechanism: [`Background`].
//!
//! A host owns one `Background` (the facade's `Host` does) and hands clones of
//! it to every mechanism: gateway lanes, the shell hooks' streaming queues,
//! webhook lanes and the process supervisor's bookkeeping all run on its
//! threads, whatever executor (or none) the host itself uses. A mechanism used
//! alone, without being given one, uses [`Background::process_default`]: one
//! per process, started on first use, never stopped.
//!
//! Stopping is bounded and never panics or deadlocks: the runtime is dropped
//! on a thread of its own (so [`Background::shutdown`] may be called, and the
//! last clone dropped, from inside another async runtime or from one of its
//! own tasks), and the caller waits for that at most the bound it gives.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, Weak, mpsc};
use std::time::Duration;

use tokio::runtime::{Handle, Runtime};

mod policy;
pub use policy::is_batch;
pub(crate) use policy::take_the_process_policy;

/// The thread name of a host's runtime threads (workers and blocking pool).
pub const DEFAULT_THREAD_NAME: &str = "hooks-runtime";

/// The thread name of [`Background::process_default`]'s threads.
pub const PROCESS_DEFAULT_THREAD_NAME: &str = "hooks-default";

/// Worker threads of a [`Background`] unless told otherwise.
pub const DEFAULT_WORKER_THREADS: usize = 2;

/// How long dropping the last clone of a running [`Background`] waits for its
/// threads (and the tasks they drop: processes are killed as tasks drop).
pub const DROP_STOP_BOUND: Duration = Duration::from_secs(5);

thread_local! {
    /// The id of the `Background` this thread belongs to (0: none).
    static OWNER: Cell<u64> = const { Cell::new(0) };
    /// The id of the `Background` this thread entered with [`Background::enter`] (0: none).
    static ENTERED: Cell<u64> = const { Cell::new(0) };
}

/// Every running `Background`, oldest first, for [`ambient`].
static LIVE: Mutex<Vec<(u64, Weak<Inner>)>> = Mutex::new(Vec::new());

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A tokio runtime on threads of its own, shared by cloning (clones are cheap
/// and share the one runtime). It stops at [`Background::shutdown`] or when
/// the last clone is dropped (bounded by [`DROP_STOP_BOUND`]).
#[derive(Clone)]
pub struct Background {
    inner: Arc<Inner>,
}

struct Inner {
    id: u64,
    name: String,
    handle: Handle,
    runtime: Mutex<Option<Runtime>>,
    /// Threads of this runtime alive now (workers and blocking pool).
    threads: Arc<AtomicUsize>,
}

/// A [`Background`] entered on this thread ([`Background::enter`]).
#[must_use = "the runtime is entered only while the guard lives"]
pub struct Entered<'a> {
    _tokio: tokio::runtime::EnterGuard<'a>,
    previous: u64,
}

impl Drop for Entered<'_> {
    fn drop(&mut self) {
        ENTERED.with(|entered| entered.set(self.previous));
    }
}

impl std::fmt::Debug for Entered<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entered").finish_non_exhaustive()
    }
}

/// What [`Background::shutdown`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Stopped {
    /// Every thread ended within the bound (its tasks were dropped).
    Clean,
    /// The bound passed first: this many threads were still running (a task
    /// that blocks its thread); they end, detached, when it returns.
    BoundHit {
        /// Threads still alive at the bound.
        threads: usize,
    },
    /// Called from one of the runtime's own threads, which cannot wait for
    /// itself: the runtime stops once the calling task yields.
    NotWaited,
    /// It was already stopped.
    AlreadyStopped,
}

impl Stopped {
    /// Whether the stop finished within its bound (or nothing was left to stop).
    pub fn is_clean(self) -> bool {
        matches!(self, Stopped::Clean | Stopped::AlreadyStopped)
    }
}

impl Background {
    /// Starts a runtime named [`DEFAULT_THREAD_NAME`] with
    /// [`DEFAULT_WORKER_THREADS`] workers.
    pub fn start() -> std::io::Result<Background> {
        Background::with_threads(DEFAULT_THREAD_NAME, DEFAULT_WORKER_THREADS)
    }

    /// Starts a multi-thread runtime whose threads are all named `name`, with
    /// `workers` worker threads (at least one), IO and timers enabled.
    pub fn with_threads(name: &str, workers: usize) -> std::io::Result<Background> {
        Background::build(name, workers, true)
    }

    /// `listed`: [`ambient`] may hand it out (every runtime but the process default).
    fn build(name: &str, workers: usize, listed: bool) -> std::io::Result<Background> {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let threads = Arc::new(AtomicUsize::new(0));
        let (started, stopped) = (threads.clone(), threads.clone());
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers.max(1))
            .thread_name(name)
            .on_thread_start(move || {
                OWNER.with(|owner| owner.set(id));
                policy::run_as_batch();
                started.fetch_add(1, Ordering::SeqCst);
            })
            .on_thread_stop(move || {
                stopped.fetch_sub(1, Ordering::SeqCst);
            })
            .enable_all()
            .build()?;
        let inner = Arc::new(Inner {
            id,
            name: name.to_owned(),
            handle: runtime.handle().clone(),
            runtime: Mutex::new(Some(runtime)),
            threads,
        });
        if listed {
            live().push((id, Arc::downgrade(&inner)));
        }
        Ok(Background { inner })
    }

    /// The calling thread's, the entered or the newest listed `Background`.
    fn listed() -> Option<Background> {
        Background::owned_or_entered().or_else(|| {
            live()
                .iter()
                .rev()
                .find_map(|(_, inner)| inner.upgrade())
                .map(|inner| Background { inner })
        })
    }

    /// What [`block_on`] runs on: the calling thread's own `Background`, else
    /// the one it entered ([`Background::enter`]), else
    /// [`Background::process_default`]; never another host's. A caller that
    /// starts threads of its own enters this on each, so their blocking
    /// calls land where its own would.
    pub fn own_or_default() -> Option<Background> {
        Background::owned_or_entered().or_else(Background::process_default)
    }

    /// The calling thread's own `Background`, else the one it entered.
    fn owned_or_entered() -> Option<Background> {
        let (owner, entered) = (OWNER.with(Cell::get), ENTERED.with(Cell::get));
        let live = live();
        let find = |wanted: u64| {
            live.iter()
                .filter(|(id, _)| wanted != 0 && *id == wanted)
                .find_map(|(_, inner)| inner.upgrade())
        };
        find(owner)
            .or_else(|| find(entered))
            .map(|inner| Background { inner })
    }

    /// The one runtime of this process for mechanisms used without a host's
    /// (threads named [`PROCESS_DEFAULT_THREAD_NAME`]): started on first use,
    /// never stopped. `None` when it could not start (logged once).
    pub fn process_default() -> Option<Background> {
        static DEFAULT: OnceLock<Option<Background>> = OnceLock::new();
        DEFAULT
            .get_or_init(|| {
                Background::build(PROCESS_DEFAULT_THREAD_NAME, 1, false)
                    .inspect_err(|error| {
                        tracing::error!("[hooks] could not start a background runtime: {error}");
                    })
                    .ok()
            })
            .clone()
    }

    /// A handle to spawn on (spawning after the stop does nothing: the task is dropped).
    pub fn handle(&self) -> &Handle {
        &self.inner.handle
    }

    /// Its threads' name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// Whether the calling thread is one of this runtime's.
    pub fn is_current(&self) -> bool {
        OWNER.with(Cell::get) == self.inner.id
    }

    /// Whether it still runs (not shut down).
    pub fn is_running(&self) -> bool {
        lock(&self.inner.runtime).is_some()
    }

    /// Threads of this runtime alive now.
    pub fn threads(&self) -> usize {
        self.inner.threads.load(Ordering::SeqCst)
    }

    /// Enters the runtime on this thread until the guard drops: tokio
    /// finds it as the current runtime (`Handle::current`, `tokio::spawn`)
    /// and [`ambient`] names it first. A host enters its own while it builds
    /// the mechanisms, so whatever they start lands here.
    pub fn enter(&self) -> Entered<'_> {
        let previous = ENTERED.with(|entered| entered.replace(self.inner.id));
        Entered {
            _tokio: self.inner.handle.enter(),
            previous,
        }
    }

    /// Stops the runtime: every task is dropped (a task's drop kills what it
    /// owns) and the threads end. Waits at most `bound` for that; safe from
    /// any thread, inside another runtime or in one of its own tasks (which
    /// does not wait: [`Stopped::NotWaited`]). Later spawns are dropped.
    pub fn shutdown(&self, bound: Duration) -> Stopped {
        self.inner.stop(bound, self.is_current())
    }
}

impl Inner {
    fn stop(&self, bound: Duration, own_thread: bool) -> Stopped {
        let Some(runtime) = lock(&self.runtime).take() else {
            return Stopped::AlreadyStopped;
        };
        live().retain(|(id, _)| *id != self.id);
        let (done, finished) = mpsc::channel::<()>();
        let (give, take) = mpsc::channel::<Runtime>();
        // Dropped on a thread of its own: dropping a runtime inside an async
        // context panics, and one of its own threads cannot wait for itself.
        let stopper = std::thread::Builder::new()
            .name(format!("{}-stop", self.name))
            .spawn(move || {
                if let Ok(runtime) = take.recv() {
                    runtime.shutdown_timeout(bound);
                }
                let _ = done.send(());
            });
        if let Err(error) = stopper {
            tracing::warn!("[hooks] could not start the runtime's stop thread: {error}");
            // Safe in any context; the workers drop the tasks without us waiting.
            runtime.shutdown_background();
            return Stopped::NotWaited;
        }
        let _ = give.send(runtime);
        if own_thread {
            return Stopped::NotWaited;
        }
        // The stop thread gives up at `bound` itself; the margin only covers its start.
        let _ = finished.recv_timeout(bound.saturating_add(Duration::from_millis(200)));
        match self.threads.load(Ordering::SeqCst) {
            0 => Stopped::Clean,
            threads => Stopped::BoundHit { threads },
        }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        let own = OWNER.with(Cell::get) == self.id;
        if let Stopped::BoundHit { threads } = self.stop(DROP_STOP_BOUND, own) {
            tracing::warn!(
                "[hooks] the background runtime '{}' was dropped with {threads} thread(s) still busy after {DROP_STOP_BOUND:?}",
                self.name
            );
        }
    }
}

/// Two `Background`s are equal when they are the same runtime (clones of one).
impl PartialEq for Background {
    fn eq(&self, other: &Background) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl Eq for Background {}

impl std::fmt::Debug for Background {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Background")
            .field("name", &self.inner.name)
            .field("running", &self.is_running())
            .field("threads", &self.threads())
            .finish()
    }
}

/// The runtime process bookkeeping enters when it needs a tokio context (to
/// spawn or kill a child) and was given none: the calling thread's own
/// `Background`, else the one it entered ([`Background::enter`]), else the
/// newest running one in this process (a host's), else the caller's tokio
/// runtime, else [`Background::process_default`].
pub fn ambient() -> Option<Handle> {
    if OWNER.with(Cell::get) != 0
        && let Ok(handle) = Handle::try_current()
    {
        return Some(handle);
    }
    if let Some(background) = Background::listed() {
        return Some(background.handle().clone());
    }
    if let Ok(handle) = Handle::try_current() {
        return Some(handle);
    }
    Background::process_default().map(|background| background.handle().clone())
}

/// Runs `future` and blocks the calling thread until it is done: on the
/// calling thread's own [`Background`] (on one of its workers, the others
/// keep running meanwhile), else the one it entered, else
/// [`Background::process_default`]. Never on some other host's runtime,
/// whose shutdown would drop the work under a caller that has nothing to do
/// with it, and never on the caller's own tokio runtime (it may be a
/// current-thread one that the blocked caller is the only thread of). For
/// blocking library calls that run async work (a child process, a bounded
/// wait) from any thread, inside an executor or not, without a runtime of
/// their own. `None` when no runtime could start, or the chosen runtime was
/// shut down before the future finished.
pub fn block_on<F>(future: F) -> Option<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let background = Background::own_or_default()?;
    let (done, finished) = mpsc::channel();
    background.handle().spawn(async move {
        let _ = done.send(future.await);
    });
    let wait = move || finished.recv().ok();
    if background.is_current() {
        tokio::task::block_in_place(wait)
    } else {
        wait()
    }
}

fn live() -> MutexGuard<'static, Vec<(u64, Weak<Inner>)>> {
    LIVE.lock().unwrap_or_else(PoisonError::into_inner)
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
