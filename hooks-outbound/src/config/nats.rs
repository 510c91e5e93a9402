//! NATS JetStream targets: `url: nats://HOST:PORT` (or `tls://`), `subject:`,
//! `stream:`, and credentials from environment variables named in config
//! (`user_env` + `password_env`, or `token_env`), never written in it.

use std::fmt;

use serde_json::{Map, Value};

use super::EntryParser;

/// The subject prefix when none is configured: events go to `hermes.hooks.<event>`.
pub const DEFAULT_NATS_SUBJECT: &str = "hermes.hooks";
/// The stream when none is configured (created when missing).
pub const DEFAULT_NATS_STREAM: &str = "HERMES_HOOKS";

/// A credential read from the environment: shown as `***`, never printed.
#[derive(Clone, PartialEq, Eq)]
pub struct NatsCredential(String);

impl NatsCredential {
    /// A credential holding `text` (read from the environment, never from config).
    pub fn new(text: impl Into<String>) -> NatsCredential {
        NatsCredential(text.into())
    }

    /// The credential's text, for the connection only.
    #[cfg_attr(not(feature = "nats"), allow(dead_code))]
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for NatsCredential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Where a NATS target publishes, and as whom.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NatsTarget {
    /// The subject prefix; each delivery goes to `<subject>.<event>`.
    pub subject: String,
    /// The JetStream stream, created with subjects `<subject>.>` when missing.
    pub stream: String,
    /// The user name (`user_env`), with `password`.
    pub user: Option<NatsCredential>,
    /// The password (`password_env`).
    pub password: Option<NatsCredential>,
    /// The token (`token_env`).
    pub token: Option<NatsCredential>,
}

impl Default for NatsTarget {
    fn default() -> Self {
        NatsTarget {
            subject: DEFAULT_NATS_SUBJECT.to_owned(),
            stream: DEFAULT_NATS_STREAM.to_owned(),
            user: None,
            password: None,
            token: None,
        }
    }
}

/// Whether `url` names a NATS server (`nats://` or `tls://`).
pub fn is_nats_url(url: &str) -> bool {
    let lower = url.trim().to_ascii_lowercase();
    lower.starts_with("nats://") || lower.starts_with("tls://")
}

/// A subject token: no spaces, no wildcards, no empty parts.
fn valid_subject(subject: &str) -> bool {
    !subject.is_empty()
        && subject
            .split('.')
            .all(|part| !part.is_empty() && !part.contains(['*', '>', ' ', '\t', '\r', '\n']))
}

/// A stream name: no spaces, dots, wildcards or path separators.
fn valid_stream(stream: &str) -> bool {
    !stream.is_empty() && !stream.contains(['.', '*', '>', ' ', '/', '\\', '\t', '\r', '\n'])
}

impl EntryParser<'_> {
    /// The NATS settings of entry `entry` (its url is a NATS url); `None`
    /// (with a warning) when a credential variable is named but unset: the
    /// server would refuse the connection, or take it as someone else.
    pub(super) fn nats(
        &mut self,
        entry: &Map<String, Value>,
        lookup_env: &dyn Fn(&str) -> Option<String>,
    ) -> Option<NatsTarget> {
        let key = self.key.clone();
        let mut nats = NatsTarget::default();
        if let Some(subject) = self.text(entry, "subject") {
            if valid_subject(&subject) {
                nats.subject = subject;
            } else {
                self.warn(
                    Some("subject"),
                    format!("{key}.subject must be a NATS subject without wildcards; using '{DEFAULT_NATS_SUBJECT}'"),
                );
            }
        }
        if let Some(stream) = self.text(entry, "stream") {
            if valid_stream(&stream) {
                nats.stream = stream;
            } else {
                self.warn(
                    Some("stream"),
                    format!("{key}.stream must be a stream name (no dots, spaces or wildcards); using '{DEFAULT_NATS_STREAM}'"),
                );
            }
        }
        for (field, slot) in [
            ("user_env", &mut nats.user),
            ("password_env", &mut nats.password),
            ("token_env", &mut nats.token),
        ] {
            let Some(name) = self.text(entry, field) else {
                continue;
            };
            match lookup_env(&name).filter(|value| !value.is_empty()) {
                Some(value) => *slot = Some(NatsCredential(value)),
                None => {
                    self.warn(
                        Some(field),
                        format!(
                            "{key}.{field}='{name}' is not set in the environment — target skipped"
                        ),
                    );
                    return None;
                }
            }
        }
        if nats.user.is_some() != nats.password.is_some() {
            self.warn(
                Some("user_env"),
                format!("{key}: user_env and password_env go together — target skipped"),
            );
            return None;
        }
        Some(nats)
    }

    fn text(&mut self, entry: &Map<String, Value>, field: &str) -> Option<String> {
        match entry.get(field) {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) if !text.trim().is_empty() => Some(text.trim().to_owned()),
            Some(_) => {
                let key = self.key.clone();
                self.warn(
                    Some(field),
                    format!("{key}.{field} must be a non-empty string; ignored"),
                );
                None
            }
        }
    }
}

setters!(NatsTarget {
    with_subject => subject: String,
    with_stream => stream: String,
    with_user => user: Option<NatsCredential>,
    with_password => password: Option<NatsCredential>,
    with_token => token: Option<NatsCredential>,
});
