//! Claude Code's `type: http` hooks: POST the stdin document, read a 2xx
//! response body as the hook's stdout. Nothing is spawned. A status code
//! cannot block (as in Claude Code): non-2xx, a connection failure or a
//! timeout is a non-blocking error, unless the hook fails closed.

use std::sync::OnceLock;
use std::time::Instant;

use super::{Handler, ImportedHook};
use crate::run::{OUTPUT_CAP_BYTES, RunResult};

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
        let response = request.send().await?;
        let status = response.status();
        let body = response.bytes().await?;
        Ok::<_, reqwest::Error>((status, body))
    };
    let mut result = match response.await {
        Ok((status, body)) if status.is_success() => {
            let body = &body[..body.len().min(OUTPUT_CAP_BYTES)];
            RunResult {
                exit_code: Some(0),
                stdout: String::from_utf8_lossy(body).into_owned(),
                ..RunResult::default()
            }
        }
        Ok((status, _)) => failed(format!("HTTP {status}")),
        Err(error) if error.is_timeout() => RunResult {
            timed_out: true,
            ..RunResult::default()
        },
        Err(error) => failed(format!("POST failed: {}", without_url(&error))),
    };
    result.elapsed = started.elapsed();
    result
}

fn failed(error: String) -> RunResult {
    RunResult {
        error: Some(error),
        ..RunResult::default()
    }
}

/// The error without its URL (which may carry credentials).
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
    use super::expand_header;

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
