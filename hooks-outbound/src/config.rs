//! `hooks.outbound:` in `config.yaml`: validation of webhook targets.
//!
//! A broken entry is skipped (or a bad field defaulted) with a [`ConfigWarning`]
//! naming `hooks.outbound[<i>]` and the key; the rest keeps working. Secrets are
//! resolved here, at parse time, from the environment (`secret_env` wins over an
//! inline `secret`).

use std::collections::HashSet;
use std::time::Duration;

use hermes_hooks_core::catalog::{self, HookEvent, VALID_HOOKS};
use hermes_hooks_core::config::json_type;
use hermes_hooks_core::matcher::ToolMatcher;
use hermes_hooks_core::pyvalue::{python_int, repr};
use hermes_hooks_core::{Config, ConfigWarning};
use serde_json::{Map, Value};

use crate::signing::Secret;

mod concurrency;
mod debug;
mod durable;
mod nats;
pub use concurrency::{CONCURRENCY_RANGE, DEFAULT_CONCURRENCY, DURABLE_CONCURRENCY};
pub use durable::{DEFAULT_MAX_AGE, DEFAULT_MAX_SPOOL, DeliveryMode, Durability};
pub use nats::{
    DEFAULT_NATS_STREAM, DEFAULT_NATS_SUBJECT, NatsCredential, NatsTarget, is_nats_url,
};

/// The config key holding the target list.
pub const OUTBOUND_KEY: &str = "hooks.outbound";

/// The per-attempt timeout when none is configured, in seconds.
pub const DEFAULT_TIMEOUT_SECS: u64 = 10;

/// The smallest and largest per-attempt timeouts, in seconds (values are clamped).
pub const TIMEOUT_RANGE_SECS: (u64, u64) = (1, 60);

/// One validated webhook target. Its `Debug` shows the url redacted.
#[derive(Clone)]
#[non_exhaustive]
pub struct TargetSpec {
    /// The optional label from `name:`.
    pub name: Option<String>,
    /// The endpoint, `http://` or `https://` (or `nats://` / `tls://` with [`TargetSpec::nats`]).
    pub url: String,
    /// The catalog events it receives, in config order, without duplicates.
    pub events: Vec<HookEvent>,
    /// The tool-name filter, applied to tool-scoped events only (`Any` otherwise).
    pub matcher: ToolMatcher,
    /// The time limit of one attempt.
    pub timeout: Duration,
    /// The HMAC secret; `None` sends unsigned deliveries.
    pub secret: Option<Secret>,
    /// Whether Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
    /// `webhook-signature`) are added to signed deliveries.
    pub standard_webhooks: bool,
    /// How deliveries are kept: in memory (`best_effort`, the doc's
    /// semantics) or in the SQLite spool until a 2xx (`durable`).
    pub delivery: DeliveryMode,
    /// `durable` only: how long a delivery is retried before it becomes a dead letter.
    pub max_age: Duration,
    /// `durable` only: how many of this target's deliveries the spool holds;
    /// past it a new one is refused with a warning.
    pub max_spool: u64,
    /// `durable` only: what a spooled row survives (`durability:`): a
    /// process crash (the default) or a power loss (fsync per commit).
    pub durability: Durability,
    /// A NATS JetStream target: where it publishes (`None`: an HTTP webhook).
    pub nats: Option<NatsTarget>,
    /// How many of its best-effort deliveries may be in flight at once
    /// (`concurrency:`, 1–64, default [`DEFAULT_CONCURRENCY`]). Above 1 they
    /// may arrive out of order (the doc promises no order; receivers dedupe
    /// on the delivery id); 1 sends them one at a time, in order. A durable
    /// target's rows are sent one at a time by the spool worker: the config
    /// parser gives it [`DURABLE_CONCURRENCY`] (and warns about the key).
    pub concurrency: usize,
}

impl TargetSpec {
    /// A target for `url` and `events` with the defaults: no name, no matcher,
    /// 10 s timeout, unsigned, no Standard Webhooks headers, best effort,
    /// [`DEFAULT_CONCURRENCY`] deliveries in flight.
    pub fn new(url: impl Into<String>, events: impl IntoIterator<Item = HookEvent>) -> Self {
        TargetSpec {
            name: None,
            url: url.into(),
            events: events.into_iter().collect(),
            matcher: ToolMatcher::Any,
            timeout: Duration::from_secs(DEFAULT_TIMEOUT_SECS),
            secret: None,
            standard_webhooks: false,
            delivery: DeliveryMode::BestEffort,
            max_age: DEFAULT_MAX_AGE,
            max_spool: DEFAULT_MAX_SPOOL,
            durability: Durability::ProcessCrash,
            nats: None,
            concurrency: DEFAULT_CONCURRENCY,
        }
    }

    /// The label used in logs and reports: the name, else the url's host and
    /// path with secret-looking segments masked (never its credentials or query).
    ///
    /// Computed on each call (the url is parsed and redacted, some µs):
    /// [`crate::Outbound`] computes it once per target and keeps it.
    pub fn label(&self) -> String {
        match &self.name {
            // Shown in logs and tables: control characters escaped.
            Some(name) => hermes_hooks_core::display::escape(name).into_owned(),
            None => crate::redact::url_label(&self.url),
        }
    }

    /// The url with credentials, query values and secret path segments masked,
    /// for showing to people.
    pub fn redacted_url(&self) -> String {
        crate::redact::redact_url(&self.url)
    }

    /// Whether deliveries carry a signature.
    pub fn is_signed(&self) -> bool {
        self.secret.is_some()
    }

    /// Whether this target wants `event` fired with `tool_name`: the event is
    /// listed, and for tool-scoped events the matcher accepts the tool.
    pub fn wants(&self, event: HookEvent, tool_name: Option<&str>) -> bool {
        self.events.contains(&event)
            && (!event.meta().tool_matcher || self.matcher.matches(tool_name))
    }
}

/// The validated `hooks.outbound:` section.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct OutboundConfig {
    /// The usable targets, in config order.
    pub targets: Vec<TargetSpec>,
    /// What was skipped or defaulted, and why.
    pub warnings: Vec<ConfigWarning>,
}

/// Validates `hooks.outbound` of `config`, resolving `secret_env` from the process environment.
pub fn parse_config(config: &Config) -> OutboundConfig {
    parse_config_with_env(config, &|name| std::env::var(name).ok())
}

/// Validates `hooks.outbound` of `config`, resolving `secret_env` names with `lookup_env`.
///
/// Hosts that keep a per-profile environment (or tests) pass their own lookup.
pub fn parse_config_with_env(
    config: &Config,
    lookup_env: &dyn Fn(&str) -> Option<String>,
) -> OutboundConfig {
    let mut parsed = OutboundConfig::default();
    let entries = match config.get(OUTBOUND_KEY) {
        None | Some(Value::Null) => return parsed,
        Some(Value::Array(entries)) => entries,
        Some(other) => {
            parsed.warnings.push(config.warning(
                OUTBOUND_KEY,
                format!(
                    "{OUTBOUND_KEY} must be a list of webhook targets; got {}",
                    json_type(other)
                ),
            ));
            return parsed;
        }
    };
    let mut wired: HashSet<(String, HookEvent)> = HashSet::new();
    for (index, entry) in entries.iter().enumerate() {
        let mut entry_parser = EntryParser {
            config,
            key: format!("{OUTBOUND_KEY}[{index}]"),
            warnings: &mut parsed.warnings,
        };
        let Some(mut target) = entry_parser.parse(entry, lookup_env) else {
            continue;
        };
        // One delivery per url per event, like the reference's registration key
        // (home, event, url); said out loud instead of silently.
        let key = entry_parser.key.clone();
        target.events.retain(|event| {
            let fresh = wired.insert((target.url.clone(), *event));
            if !fresh {
                parsed.warnings.push(config.warning(
                    &key,
                    format!(
                        "{key}: '{}' already receives {} from an earlier entry — not wired twice",
                        crate::redact::redact_url(&target.url),
                        event.as_str()
                    ),
                ));
            }
            fresh
        });
        if !target.events.is_empty() {
            parsed.targets.push(target);
        }
    }
    parsed
}

struct EntryParser<'a> {
    config: &'a Config,
    key: String,
    warnings: &'a mut Vec<ConfigWarning>,
}

impl EntryParser<'_> {
    fn warn(&mut self, field: Option<&str>, message: String) {
        let key = match field {
            Some(field) => format!("{}.{field}", self.key),
            None => self.key.clone(),
        };
        self.warnings.push(self.config.warning(key, message));
    }

    fn parse(
        &mut self,
        entry: &Value,
        lookup_env: &dyn Fn(&str) -> Option<String>,
    ) -> Option<TargetSpec> {
        let key = self.key.clone();
        let Value::Object(entry) = entry else {
            self.warn(
                None,
                format!(
                    "{key} must be a mapping with 'url' and 'events' keys; got {}",
                    json_type(entry)
                ),
            );
            return None;
        };
        let url = self.url(entry)?;
        let events = self.events(entry)?;
        let mut target = TargetSpec::new(url, events);
        target.name = non_empty_string(entry.get("name")).map(str::to_owned);
        target.matcher = self.matcher(entry, &target.events);
        target.timeout = self.timeout(entry);
        target.secret = self.secret(entry, lookup_env);
        target.standard_webhooks = self.standard_webhooks(entry);
        self.durability(entry, &mut target);
        target.concurrency = self.concurrency(entry, target.delivery);
        if is_nats_url(&target.url) {
            target.nats = Some(self.nats(entry, lookup_env)?);
        }
        Some(target)
    }

    fn url(&mut self, entry: &Map<String, Value>) -> Option<String> {
        let key = self.key.clone();
        let Some(url) = non_empty_string(entry.get("url")) else {
            self.warn(Some("url"), format!("{key} is missing a non-empty 'url'"));
            return None;
        };
        let lower = url.to_ascii_lowercase();
        if is_nats_url(url) {
            return self.nats_url(url);
        }
        if !(lower.starts_with("http://") || lower.starts_with("https://")) {
            self.warn(
                Some("url"),
                format!(
                    "{key}.url must be http(s); got '{}' — skipped",
                    crate::redact::redact_url(url)
                ),
            );
            return None;
        }
        if let Err(error) = reqwest::Url::parse(url) {
            self.warn(
                Some("url"),
                format!("{key}.url is not a valid URL ({error}) — skipped"),
            );
            return None;
        }
        if lower.starts_with("http://") {
            self.warn(
                Some("url"),
                format!(
                    "{key}.url uses plain http:// — payloads (including tool inputs) travel unencrypted. Prefer https."
                ),
            );
        }
        Some(url.to_owned())
    }

    /// A `nats://` / `tls://` url: usable when this build has NATS support.
    fn nats_url(&mut self, url: &str) -> Option<String> {
        let key = self.key.clone();
        if !cfg!(feature = "nats") {
            self.warn(
                Some("url"),
                format!(
                    "{key}.url '{}' is a NATS server, and this build has no NATS support (feature nats) — skipped",
                    crate::redact::redact_url(url)
                ),
            );
            return None;
        }
        if let Err(error) = reqwest::Url::parse(url) {
            self.warn(
                Some("url"),
                format!("{key}.url is not a valid URL ({error}) — skipped"),
            );
            return None;
        }
        Some(url.to_owned())
    }

    fn events(&mut self, entry: &Map<String, Value>) -> Option<Vec<HookEvent>> {
        let key = self.key.clone();
        let valid = VALID_HOOKS.join(", ");
        let names = match entry.get("events") {
            Some(Value::Array(names)) if !names.is_empty() => names,
            _ => {
                self.warn(
                    Some("events"),
                    format!("{key} needs a non-empty 'events' list (valid: {valid})"),
                );
                return None;
            }
        };
        let mut events = Vec::with_capacity(names.len());
        for name in names {
            let text = match name {
                Value::String(text) => text.trim().to_owned(),
                other => other.to_string(),
            };
            match text.parse::<HookEvent>() {
                Ok(event) if !events.contains(&event) => events.push(event),
                Ok(_) => {}
                Err(_) => {
                    let hint = catalog::suggest(&text)
                        .map(|close| format!("did you mean '{close}'? "))
                        .unwrap_or_default();
                    self.warn(
                        Some("events"),
                        format!("{key}: unknown event '{text}' ignored ({hint}valid: {valid})"),
                    );
                }
            }
        }
        if events.is_empty() {
            self.warn(
                Some("events"),
                format!("{key} has no valid events — skipped"),
            );
            return None;
        }
        Some(events)
    }

    fn matcher(&mut self, entry: &Map<String, Value>, events: &[HookEvent]) -> ToolMatcher {
        let key = self.key.clone();
        let pattern = match entry.get("matcher") {
            None | Some(Value::Null) => return ToolMatcher::Any,
            Some(Value::String(pattern)) => pattern,
            Some(_) => {
                self.warn(
                    Some("matcher"),
                    format!("{key}.matcher must be a string regex; ignoring"),
                );
                return ToolMatcher::Any;
            }
        };
        if pattern.trim().is_empty() {
            return ToolMatcher::Any;
        }
        if !events.iter().any(|event| event.meta().tool_matcher) {
            self.warn(
                Some("matcher"),
                format!(
                    "{key}.matcher='{pattern}' will be ignored — matcher is only honored for pre_tool_call / post_tool_call."
                ),
            );
            return ToolMatcher::Any;
        }
        let built = ToolMatcher::build(Some(pattern));
        if let Some(warning) = built.warning {
            self.warn(
                Some("matcher"),
                format!("{key}: outbound webhook {warning}"),
            );
        }
        built.matcher
    }

    fn timeout(&mut self, entry: &Map<String, Value>) -> Duration {
        let key = self.key.clone();
        let (low, high) = TIMEOUT_RANGE_SECS;
        // Python's int() semantics, as the reference; clamping is silent.
        let seconds = match entry.get("timeout") {
            None | Some(Value::Null) => DEFAULT_TIMEOUT_SECS,
            Some(value) => match python_int(value) {
                Some(seconds) => seconds.clamp(i128::from(low), i128::from(high)) as u64,
                None => {
                    self.warn(
                        Some("timeout"),
                        format!(
                            "{key}.timeout must be an int (got {}); using default {DEFAULT_TIMEOUT_SECS}s",
                            repr(value)
                        ),
                    );
                    DEFAULT_TIMEOUT_SECS
                }
            },
        };
        Duration::from_secs(seconds)
    }

    fn secret(
        &mut self,
        entry: &Map<String, Value>,
        lookup_env: &dyn Fn(&str) -> Option<String>,
    ) -> Option<Secret> {
        let key = self.key.clone();
        let secret = if let Some(name) = non_empty_string(entry.get("secret_env")) {
            match lookup_env(name).filter(|value| !value.is_empty()) {
                Some(value) => Some(Secret::new(&value)),
                None => {
                    self.warn(
                        Some("secret_env"),
                        format!(
                            "{key}.secret_env='{name}' is not set in the environment — deliveries will be UNSIGNED"
                        ),
                    );
                    None
                }
            }
        } else {
            non_empty_string(entry.get("secret")).map(Secret::new)
        };
        if secret
            .as_ref()
            .is_some_and(Secret::has_malformed_whsec_prefix)
        {
            self.warn(
                Some("secret"),
                format!(
                    "{key}: the secret starts with 'whsec_' but the rest is not base64; Standard Webhooks signatures use the raw text"
                ),
            );
        }
        secret
    }

    fn standard_webhooks(&mut self, entry: &Map<String, Value>) -> bool {
        let key = self.key.clone();
        match entry.get("standard_webhooks") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(flag)) => *flag,
            Some(other) => {
                self.warn(
                    Some("standard_webhooks"),
                    format!(
                        "{key}.standard_webhooks must be true or false (got {other}); using false"
                    ),
                );
                false
            }
        }
    }
}

fn non_empty_string(value: Option<&Value>) -> Option<&str> {
    value
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|text| !text.is_empty())
}

#[cfg(test)]
mod tests;

setters!(TargetSpec {
    with_name => name: Option<String>,
    with_matcher => matcher: ToolMatcher,
    with_timeout => timeout: Duration,
    with_secret => secret: Option<Secret>,
    with_standard_webhooks => standard_webhooks: bool,
    with_delivery => delivery: DeliveryMode,
    with_max_age => max_age: Duration,
    with_max_spool => max_spool: u64,
    with_durability => durability: Durability,
    with_nats => nats: Option<NatsTarget>,
    with_concurrency => concurrency: usize,
});
