//! Joint callbacks: callbacks that one host runs together, such as every
//! Python callback of one plugin worker.
//!
//! Each member is an ordinary callback (its own entry, gates, timeout, run
//! record and reply), registered with [`crate::Callbacks::register_joint`].
//! On a bounded event the worker running the event's batch starts a run of
//! consecutive admitted members of one [`Joint`] with one
//! [`Joint::start`] (one request to the host), then collects each member's
//! result in order with [`JointRun::result`], each under its own deadline
//! as any callback: a member past its deadline is given up and the members
//! after it are collected on another worker from the same run (never
//! started again). Elsewhere (inline and queued events) a member runs
//! alone through [`Joint::call`].

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, OnceLock};

use super::{CallbackError, CallbackResult};
use hermes_hooks_core::event::Event;

/// A host that runs several callbacks of one event with one request.
pub trait Joint: Send + Sync + 'static {
    /// Runs `member` alone on `event` (inline and queued events).
    fn call(&self, member: &str, event: &Event) -> CallbackResult;

    /// Starts `members`, in this order, on `event`: the host runs them one
    /// after another; their results are collected with [`JointRun::result`].
    /// Returns without waiting for any of them.
    fn start(&self, event: &Event, members: &[Arc<str>]) -> Box<dyn JointRun>;
}

/// The members of one [`Joint::start`] running on the host.
pub trait JointRun: Send + Sync {
    /// Blocks until member `index` (its place in the `members` started)
    /// finished, and returns its result. Called once per index, in order,
    /// possibly from different threads (after a member timed out, the ones
    /// after it are collected on another worker).
    fn result(&self, index: usize) -> CallbackResult;
}

/// What makes an entry a member of a joint.
pub(crate) struct JointMember {
    pub(crate) joint: Arc<dyn Joint>,
    pub(crate) member: Arc<str>,
}

impl JointMember {
    /// Whether `other` belongs to the same joint (the same host object).
    pub(crate) fn same_joint(&self, other: &JointMember) -> bool {
        std::ptr::addr_eq(Arc::as_ptr(&self.joint), Arc::as_ptr(&other.joint))
    }
}

/// A run being started: set once [`Joint::start`] returned (the batch lock
/// is not held meanwhile, so a caller can give up on the first member while
/// the host starts, or restarts, its worker).
pub(crate) type RunCell = Arc<OnceLock<Arc<dyn JointRun>>>;

/// One member of a run: the run and the member's place in it.
pub(crate) struct Started {
    pub(crate) run: RunCell,
    pub(crate) index: usize,
}

impl Started {
    /// The member's result (once the run started), a panic in the host's
    /// code turned into a failure.
    pub(crate) fn result(&self) -> CallbackResult {
        let run = self.run.wait();
        std::panic::catch_unwind(AssertUnwindSafe(|| run.result(self.index)))
            .unwrap_or_else(|payload| Err(CallbackError::from_panic(payload.as_ref())))
    }
}

/// [`Joint::start`], a panic in the host's code turned into a run whose
/// every member failed with it.
pub(crate) fn start(joint: &dyn Joint, event: &Event, members: &[Arc<str>]) -> Arc<dyn JointRun> {
    match std::panic::catch_unwind(AssertUnwindSafe(|| joint.start(event, members))) {
        Ok(run) => Arc::from(run),
        Err(payload) => Arc::new(Failed(CallbackError::from_panic(payload.as_ref()))),
    }
}

/// A run that could not start: every member fails with the same error.
struct Failed(CallbackError);

impl JointRun for Failed {
    fn result(&self, _index: usize) -> CallbackResult {
        Err(self.0.clone())
    }
}
