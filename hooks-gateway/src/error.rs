//! The ways one handler call can fail. None of them reaches the agent: the
//! dispatcher logs them and the handler contributes no reply.

use std::path::PathBuf;
use std::time::Duration;

/// Why a handler gave no result.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HandlerError {
    /// The handler process (or the Python interpreter) could not be started.
    #[error("could not start {program} for {handler}: {source}")]
    Spawn {
        /// The program that was run (`python3`, or the handler itself).
        program: String,
        /// The handler file.
        handler: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// `handler.py` could not be imported or has no `handle` function; the hook
    /// stays off until the gateway restarts.
    #[error("{handler}: could not load the handler: {reason}")]
    Unloadable {
        /// The handler file.
        handler: PathBuf,
        /// The import error, or "no 'handle' function found".
        reason: String,
    },
    /// The handler raised an exception (Python) or exited unsuccessfully (executable).
    #[error("{handler}: {message}")]
    Failed {
        /// The handler file.
        handler: PathBuf,
        /// The exception (`ValueError: boom`) or exit status and stderr tail.
        message: String,
    },
    /// The handler did not answer within the per-handler timeout; it was killed.
    #[error("{handler}: timed out after {timeout:?}")]
    Timeout {
        /// The handler file.
        handler: PathBuf,
        /// The timeout that expired.
        timeout: Duration,
    },
    /// The worker or process broke the protocol, died, or its pipes failed.
    #[error("{handler}: {message}")]
    Protocol {
        /// The handler file.
        handler: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The event could not be serialised for the handler.
    #[error("could not serialise the event: {0}")]
    Request(#[from] serde_json::Error),
}

impl HandlerError {
    /// Whether the worker that produced this error can no longer be trusted to
    /// speak the protocol and must be replaced.
    pub(crate) fn poisons_worker(&self) -> bool {
        matches!(
            self,
            HandlerError::Protocol { .. } | HandlerError::Timeout { .. }
        )
    }
}
