//! Executable handlers: a file named `handler` in any language, run once per
//! event with the request JSON on stdin and its reply JSON on stdout.
//!
//! Exit status 0 with empty stdout means "no reply"; a non-zero exit, stdout that
//! is not JSON, or a timeout is an error (logged, no reply). Stderr lines are
//! logged with the hook's name.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::process::Command;

use crate::discovery::GatewayHookInfo;
use crate::error::HandlerError;
use crate::process::{GroupChild, kill_group, prepare, read_all_capped};

/// The most stdout kept from one run; more is an error.
const MAX_STDOUT_BYTES: usize = 4 * 1024 * 1024;
/// The most stderr kept from one run for the log and the error message.
const MAX_STDERR_BYTES: usize = 64 * 1024;

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

    /// Runs the handler once for `request`, killing its process group after `timeout`.
    pub(crate) async fn call(
        &self,
        request: &[u8],
        timeout: Duration,
    ) -> Result<Value, HandlerError> {
        let mut command = Command::new(&self.handler);
        command.env("HERMES_HOME", &self.home);
        prepare(&mut command);
        let mut child = command
            .spawn()
            .map(GroupChild)
            .map_err(|source| HandlerError::Spawn {
                program: self.handler.display().to_string(),
                handler: self.handler.clone(),
                source,
            })?;
        let (Some(mut stdin), Some(stdout), Some(stderr)) = (
            child.0.stdin.take(),
            child.0.stdout.take(),
            child.0.stderr.take(),
        ) else {
            return Err(self.protocol("missing stdio pipe"));
        };
        let request = request.to_vec();
        // Written from its own task: a handler that never reads stdin must not block us.
        let writer = tokio::spawn(async move {
            let _ = stdin.write_all(&request).await;
        });
        let run = async {
            let (stdout, stderr, status) = tokio::join!(
                read_all_capped(stdout, MAX_STDOUT_BYTES),
                read_all_capped(stderr, MAX_STDERR_BYTES),
                child.0.wait(),
            );
            (stdout, stderr, status)
        };
        let outcome = tokio::time::timeout(timeout, run).await;
        writer.abort();
        let Ok(((stdout, stdout_overflowed), (stderr, _), status)) = outcome else {
            kill_group(&mut child.0);
            let _ = child.0.wait().await;
            return Err(HandlerError::Timeout {
                handler: self.handler.clone(),
                timeout,
            });
        };
        let stderr = String::from_utf8_lossy(&stderr);
        for line in stderr.lines() {
            tracing::info!(target: "hooks_gateway::handler", hook = %self.name, "{line}");
        }
        let status = status
            .map_err(|error| self.protocol(format!("could not wait for the handler: {error}")))?;
        if !status.success() {
            let detail = stderr.trim();
            let detail = last_chars(detail, 500);
            return Err(HandlerError::Failed {
                handler: self.handler.clone(),
                message: if detail.is_empty() {
                    status.to_string()
                } else {
                    format!("{status}: {detail}")
                },
            });
        }
        if stdout_overflowed {
            return Err(self.protocol(format!("stdout larger than {MAX_STDOUT_BYTES} bytes")));
        }
        parse_reply(&self.handler, &stdout)
    }

    fn protocol(&self, message: impl Into<String>) -> HandlerError {
        HandlerError::Protocol {
            handler: self.handler.clone(),
            message: message.into(),
        }
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
