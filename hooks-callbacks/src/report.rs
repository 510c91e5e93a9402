//! Warn-once failure reporting: the first distinct failure of a callback is a
//! warning, identical repeats go to DEBUG so a broken plugin cannot flood the log.

use std::collections::HashSet;
use std::sync::Mutex;

use super::CallbackId;

/// How many characters of a failure message identify it (and appear in blocks).
pub const FAILURE_MESSAGE_CHARS: usize = 200;

/// Past this many remembered failures the memory is reset (a plugin producing
/// endless distinct messages would otherwise grow it without bound).
const MAX_REMEMBERED_FAILURES: usize = 4096;

/// Remembers which failures were already reported at WARN.
#[derive(Default)]
pub(crate) struct FailureReporter {
    seen: Mutex<HashSet<FailureKey>>,
}

#[derive(Hash, PartialEq, Eq)]
struct FailureKey {
    hook: Box<str>,
    callback: CallbackId,
    kind: Box<str>,
    message: Box<str>,
}

/// The first `FAILURE_MESSAGE_CHARS` characters of `message`.
pub(crate) fn truncate_message(message: &str) -> &str {
    match message.char_indices().nth(FAILURE_MESSAGE_CHARS) {
        Some((end, _)) => &message[..end],
        None => message,
    }
}

impl FailureReporter {
    /// Reports that `callback` (of `owner`) failed on `hook` with `kind: message`.
    pub(crate) fn report(
        &self,
        hook: &str,
        callback: CallbackId,
        owner: &str,
        kind: &str,
        message: &str,
    ) {
        let key = FailureKey {
            hook: hook.into(),
            callback,
            kind: kind.into(),
            message: truncate_message(message).into(),
        };
        let first = {
            let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
            if seen.len() >= MAX_REMEMBERED_FAILURES && !seen.contains(&key) {
                seen.clear();
            }
            seen.insert(key)
        };
        if first {
            tracing::warn!(
                "Hook '{hook}' callback {owner} raised: {message} (identical failures are logged at DEBUG from now on)"
            );
        } else {
            tracing::debug!("Hook '{hook}' callback {owner} raised again: {message}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_counts_characters_not_bytes() {
        let long = "é".repeat(300);
        assert_eq!(
            truncate_message(&long).chars().count(),
            FAILURE_MESSAGE_CHARS
        );
        assert_eq!(truncate_message("short"), "short");
    }

    #[test]
    fn identical_failures_are_remembered_once() {
        let reporter = FailureReporter::default();
        reporter.report("post_tool_call", CallbackId(1), "p", "Error", "boom");
        reporter.report("post_tool_call", CallbackId(1), "p", "Error", "boom");
        reporter.report("post_tool_call", CallbackId(2), "p", "Error", "boom");
        let seen = reporter.seen.lock().map(|s| s.len()).unwrap_or(0);
        assert_eq!(seen, 2);
    }
}
