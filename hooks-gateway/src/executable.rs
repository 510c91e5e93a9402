//! Executable handlers: a file named `handler` in any language, run once per
//! event with `{"event_type": ..., "context": {...}}` on stdin (the names of
//! `handle(event_type, context)`) and its reply JSON on stdout.
//!
//! Exit status 0 with empty stdout means "no reply"; a non-zero exit, stdout that
//! is not JSON, or a timeout is an error (logged, no reply). Stderr lines are
//! shown as warnings naming the hook.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use tokio::process::Command;

use crate::discovery::GatewayHookInfo;
use crate::error::HandlerError;
use crate::process::{RunLimits, log_stderr_line, run};

/// The most stdout or stderr kept from one run; more stdout is an error.
const MAX_OUTPUT_BYTES: usize = 4 * 1024 * 1024;
/// How long the pipes may stay open after the handler exits (a background
/// child holding them) before the reply is taken and the tree is killed.
const PIPE_GRACE: Duration = Duration::from_millis(100);

/// An executable hook: the file to run and what it is called.
pub(crate) struct ExecutableHook {
    name: String,
    handler: PathBuf,
    home: PathBuf,
}

impl ExecutableHook {
    pub(crate) fn new(info: &GatewayHookInfo, home: PathBuf) -> Self {
        ExecutableHook {
            name: info.name.clone(),
            handler: info.handler_path(),
            home,
        }
    }

    /// Runs the handler once for `request` (`{"event_type": ..., "context": ...}`).
    ///
    /// The reply is taken as soon as the handler exits (plus a short grace for
    /// its pipes); then, or at `timeout`, everything it started is killed.
    pub(crate) async fn call(
        &self,
        request: &[u8],
        timeout: Duration,
    ) -> Result<Value, HandlerError> {
        let mut command = Command::new(&self.handler);
        command.env("HERMES_HOME", &self.home);
        let limits = RunLimits::new(timeout, MAX_OUTPUT_BYTES, PIPE_GRACE);
        let output =
            run(command, request, &limits)
                .await
                .map_err(|source| HandlerError::Spawn {
                    program: self.handler.display().to_string(),
                    handler: self.handler.clone(),
                    source,
                })?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        for line in stderr.lines() {
            log_stderr_line(&self.name, line.as_bytes(), false);
        }
        if output.timed_out {
            return Err(HandlerError::Timeout {
                handler: self.handler.clone(),
                timeout,
            });
        }
        if output.exit_code != Some(0) {
            let status = match (output.exit_code, output.signal) {
                (Some(code), _) => format!("exit status {code}"),
                (None, Some(signal)) => format!("killed by signal {signal}"),
                (None, None) => "unknown exit status".to_owned(),
            };
            let detail = last_chars(stderr.trim(), 500);
            return Err(HandlerError::Failed {
                handler: self.handler.clone(),
                message: if detail.is_empty() {
                    status
                } else {
                    format!("{status}: {detail}")
                },
            });
        }
        if output.stdout_truncated {
            return Err(HandlerError::Protocol {
                handler: self.handler.clone(),
                message: format!("stdout larger than {MAX_OUTPUT_BYTES} bytes"),
            });
        }
        parse_reply(&self.handler, &output.stdout)
    }
}

/// The reply in a handler's stdout: nothing (or only whitespace) is `null`.
fn parse_reply(handler: &Path, stdout: &[u8]) -> Result<Value, HandlerError> {
    let text = String::from_utf8_lossy(stdout);
    let text = text.trim();
    if text.is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_str(text).map_err(|error| HandlerError::Failed {
        handler: handler.to_path_buf(),
        message: format!("stdout is not JSON ({error}); write logs to stderr"),
    })
}

fn last_chars(text: &str, count: usize) -> &str {
    let start = text
        .char_indices()
        .rev()
        .nth(count.saturating_sub(1))
        .map_or(0, |(index, _)| index);
    &text[start..]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn replies_are_json_or_nothing() {
        let path = Path::new("/h/hooks/x/handler");
        assert_eq!(parse_reply(path, b"  \n").ok(), Some(Value::Null));
        assert_eq!(
            parse_reply(path, b"{\"decision\": \"deny\"}\n").ok(),
            Some(json!({"decision": "deny"}))
        );
        let error = parse_reply(path, b"hello").err().map(|e| e.to_string());
        assert!(error.is_some_and(|e| e.contains("/h/hooks/x/handler") && e.contains("not JSON")));
    }

    #[test]
    fn last_chars_respects_char_boundaries() {
        assert_eq!(last_chars("héllo", 3), "llo");
        assert_eq!(last_chars("hé", 10), "hé");
        assert_eq!(last_chars("", 3), "");
    }
}
