//! [`LineError`], why a request has no answer, and [`LineOptions`], a worker's bounds.

use std::fmt;
use std::time::Duration;

/// Why a request has no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LineError {
    /// The worker exited or closed its output: how (`exited (signal: 9)`).
    Exited(String),
    /// No answer within the deadline (the worker may still be running it).
    TimedOut(Duration),
    /// The request could not be written: the worker is broken and was killed.
    Send(String),
    /// The request could not be encoded.
    Encode(String),
    /// The answer line was longer than the cap, in bytes.
    TooLarge(usize),
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::Exited(how) => write!(f, "the worker {how}"),
            LineError::TimedOut(limit) => {
                write!(f, "no answer within {}s", limit.as_secs_f64())
            }
            LineError::Send(why) => write!(f, "cannot send the request to the worker: {why}"),
            LineError::Encode(why) => write!(f, "cannot encode the request: {why}"),
            LineError::TooLarge(cap) => write!(f, "the worker's answer is larger than {cap} bytes"),
        }
    }
}

impl std::error::Error for LineError {}

/// Bounds and names of a [`super::LineWorker`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct LineOptions {
    /// What log lines call the worker (`Python plugin worker`).
    pub label: String,
    /// The longest answer line read; a longer one is dropped.
    pub max_line_bytes: usize,
    /// The longest stderr line handed to the sink; the rest of it is cut.
    pub max_stderr_line_bytes: usize,
}

impl LineOptions {
    /// Options for a worker named `label` in errors and warnings, with the
    /// default caps.
    pub fn new(label: impl Into<String>) -> Self {
        LineOptions {
            label: label.into(),
            ..LineOptions::default()
        }
    }

    /// Sets the longest protocol line read from the worker.
    #[must_use]
    pub fn with_max_line_bytes(mut self, bytes: usize) -> Self {
        self.max_line_bytes = bytes;
        self
    }

    /// Sets the longest stderr line kept in a warning.
    #[must_use]
    pub fn with_max_stderr_line_bytes(mut self, bytes: usize) -> Self {
        self.max_stderr_line_bytes = bytes;
        self
    }
}

impl Default for LineOptions {
    fn default() -> Self {
        LineOptions {
            label: "worker".to_owned(),
            max_line_bytes: 32 * 1024 * 1024,
            max_stderr_line_bytes: 8 * 1024,
        }
    }
}
