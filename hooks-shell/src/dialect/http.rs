//! Claude Code's `type: http` hooks: POST the stdin document, read a 2xx
//! response body as the hook's stdout, read while it streams with the 1 MiB
//! cap (an endless answer is cut, never buffered whole). Nothing is spawned. A status code
//! cannot block (as in Claude Code): non-2xx, a connection failure or a
//! timeout is a non-blocking error, unless the hook fails closed.
//!
//! Without the crate's `http` feature (no reqwest), such a hook is still
//! discovered and listed, and every run of it fails like any failing hook
//! ([`NEEDS_HTTP_FEATURE`]): a non-blocking error, or a block when it fails
//! closed. It is never skipped silently.

#[cfg(feature = "http")]
use std::sync::OnceLock;
#[cfg(feature = "http")]
use std::time::Instant;

use super::{Handler, ImportedHook};
#[cfg(feature = "http")]
use crate::run::OUTPUT_CAP_BYTES;
use crate::run::RunResult;

/// Whether this build can run `type: http` hooks (the `http` feature).
pub const HTTP_HOOKS: bool = cfg!(feature = "http");

/// The error of every run of a `type: http` hook in a build without the `http` feature.
pub const NEEDS_HTTP_FEATURE: &str =
    "this build cannot run `type: http` hooks: they need the `http` feature of hermes-hooks-shell";

#[cfg(feature = "http")]
fn client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        reqwest::Client::builder()
            // A hook's URL is configured, never taken from a redirect.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default()
    })
}

/// `value` with `$VAR` / `${VAR}` expanded for the names in `allowed` only;
/// any other variable becomes empty (no secret leaks into a header by accident).
pub fn expand_header(value: &str, allowed: &[String]) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, tail) = if let Some(inner) = after.strip_prefix('{') {
            match inner.split_once('}') {
                Some((name, tail)) => (name, tail),
                None => ("", after),
            }
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        if name.is_empty() {
            out.push('$');
            rest = after;
            continue;
        }
        if allowed.iter().any(|allowed| allowed == name) {
            out.push_str(&std::env::var(name).unwrap_or_default());
        }
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// POSTs `input` to `hook`'s URL, bounded by its timeout.
#[cfg(feature = "http")]
pub async fn run_http(hook: &ImportedHook, input: &[u8]) -> RunResult {
    let Handler::Http {
        url,
        headers,
        allowed_env_vars,
    } = &hook.handler
    else {
        return failed("not an http hook".to_owned());
    };
    let started = Instant::now();
    let mut request = client()
        .post(url)
        .timeout(hook.timeout)
        .header("content-type", "application/json")
        .body(input.to_vec());
    for (name, value) in headers {
        request = request.header(name, expand_header(value, allowed_env_vars));
    }
    let response = async {
        let mut response = request.send().await?;
        let status = response.status();
        // Read while streaming, never whole first: past the cap the
        // connection is dropped (an endless answer costs at most the cap).
        let mut body = Vec::new();
        let mut truncated = false;
        while status.is_success()
            && let Some(chunk) = response.chunk().await?
        {
            let room = OUTPUT_CAP_BYTES - body.len();
            body.extend_from_slice(&chunk[..chunk.len().min(room)]);
            if chunk.len() >= room {
                truncated = chunk.len() > room || response.content_length().is_none();
                break;
            }
        }
        Ok::<_, reqwest::Error>((status, body, truncated))
    };
    let mut result = match response.await {
        Ok((status, body, truncated)) if status.is_success() => {
            if truncated {
                tracing::warn!(
                    "http hook response exceeded {OUTPUT_CAP_BYTES} bytes; the rest was not read"
                );
            }
            RunResult {
                exit_code: Some(0),
                stdout: String::from_utf8_lossy(&body).into_owned(),
                stdout_truncated: truncated,
                ..RunResult::default()
            }
        }
        Ok((status, ..)) => failed(format!("HTTP {status}")),
        Err(error) if error.is_timeout() => RunResult {
            timed_out: true,
            ..RunResult::default()
        },
        Err(error) => failed(format!("POST failed: {}", without_url(&error))),
    };
    result.elapsed = started.elapsed();
    result
}

/// Without the `http` feature: the run fails with [`NEEDS_HTTP_FEATURE`].
#[cfg(not(feature = "http"))]
pub async fn run_http(hook: &ImportedHook, _input: &[u8]) -> RunResult {
    without_client(hook)
}

/// The run of `hook` in a build that has no HTTP client: it fails (so a
/// hook that fails closed blocks), never succeeds with nothing.
#[cfg_attr(feature = "http", allow(dead_code))]
fn without_client(hook: &ImportedHook) -> RunResult {
    match hook.handler {
        Handler::Http { .. } => failed(NEEDS_HTTP_FEATURE.to_owned()),
        Handler::Command { .. } => failed("not an http hook".to_owned()),
    }
}

fn failed(error: String) -> RunResult {
    RunResult {
        error: Some(error),
        ..RunResult::default()
    }
}

/// The error without its URL (which may carry credentials).
#[cfg(feature = "http")]
fn without_url(error: &reqwest::Error) -> String {
    let mut text = String::new();
    let mut source: Option<&dyn std::error::Error> = Some(error);
    while let Some(current) = source {
        text = current.to_string();
        source = current.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::{NEEDS_HTTP_FEATURE, expand_header, without_client};
    use crate::dialect::discover;
    use crate::dialect::reply::{Gate, interpret};
    use hermes_hooks_core::Config;
    use serde_json::json;

    /// Without an HTTP client an http hook fails like any failing hook: no
    /// decision when it fails open, a block when it fails closed.
    #[test]
    fn without_the_http_feature_an_http_hook_fails_and_a_fail_closed_one_blocks() {
        let home = tempfile::tempdir().expect("home");
        let project = tempfile::tempdir().expect("project");
        let user = tempfile::tempdir().expect("user");
        let settings = project.path().join(".claude/settings.json");
        std::fs::create_dir_all(settings.parent().expect("parent")).expect("mkdir");
        let hook = |fail_closed: bool| json!({"type": "http", "url": format!("http://127.0.0.1:9/{fail_closed}"), "failClosed": fail_closed});
        let text = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook(false), hook(true)]}]}});
        std::fs::write(&settings, text.to_string()).expect("write");
        let config = Config::from_value(home.path(), json!({"hooks_from": ["claude"]}));
        let discovery = discover(&config, project.path(), Some(user.path()));
        assert_eq!(discovery.hooks.len(), 2, "{:?}", discovery.warnings);
        let mut gates = Vec::new();
        for hook in &discovery.hooks {
            let result = without_client(hook);
            assert_eq!(result.error.as_deref(), Some(NEEDS_HTTP_FEATURE));
            assert_eq!(result.exit_code, None, "never a success");
            let event = hook.event().expect("PreToolUse fires");
            gates.push(interpret(hook, event, &result).gate);
        }
        assert_eq!(gates[0], None, "fails open: no decision");
        assert!(
            matches!(&gates[1], Some(Gate::Deny(reason)) if reason.contains("failed closed") && reason.contains("`http` feature")),
            "{gates:?}"
        );
    }

    #[test]
    fn only_allowed_variables_expand() {
        // PATH is always set; HOME may not be in a sandbox, so use PATH for both.
        let path = std::env::var("PATH").unwrap_or_default();
        let allowed = vec!["PATH".to_owned()];
        assert_eq!(
            expand_header("Bearer $PATH", &allowed),
            format!("Bearer {path}")
        );
        assert_eq!(expand_header("x ${PATH}y", &allowed), format!("x {path}y"));
        assert_eq!(expand_header("Bearer $PATH", &[]), "Bearer ");
        assert_eq!(expand_header("cost $ 5", &allowed), "cost $ 5");
    }
}
