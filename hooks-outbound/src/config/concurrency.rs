//! `concurrency:` of an outbound target: how many of its deliveries may be in
//! flight at once.
//!
//! Several in flight keep a fast receiver busy (one request at a time stops at
//! one loopback round trip per delivery) and let a retry's wait hold only its
//! own slot. The doc promises no delivery order and receivers dedupe on the
//! delivery id, so the lane's order is not kept once two are in flight; `1`
//! keeps it (FIFO, one request at a time). A durable target's rows are sent
//! by the spool worker, one at a time per target, so there the key is ignored
//! with a warning and the target's concurrency is 1 ([`DURABLE_CONCURRENCY`]).

use hermes_hooks_core::pyvalue::repr;
use serde_json::{Map, Value};

use super::{DeliveryMode, EntryParser};

/// Deliveries in flight per target when none is configured.
pub const DEFAULT_CONCURRENCY: usize = 4;

/// Deliveries in flight per durable target: the spool worker sends a
/// target's rows one at a time, whatever the config says.
pub const DURABLE_CONCURRENCY: usize = 1;

/// The smallest and largest `concurrency` accepted (a larger value is
/// lowered to the largest, with a warning).
pub const CONCURRENCY_RANGE: (usize, usize) = (1, 64);

impl EntryParser<'_> {
    /// Reads `concurrency`: a whole number from 1 to 64; anything else is a
    /// warning naming the key, and the default (or, above 64, 64).
    pub(super) fn concurrency(
        &mut self,
        entry: &Map<String, Value>,
        delivery: DeliveryMode,
    ) -> usize {
        let key = self.key.clone();
        let (low, high) = CONCURRENCY_RANGE;
        let value = entry.get("concurrency").filter(|value| !value.is_null());
        if delivery == DeliveryMode::Durable {
            // What the spool worker does, so `hooks list` shows it, and the
            // best-effort fallback (no spool) keeps the order too.
            if value.is_some() {
                self.warn(
                    Some("concurrency"),
                    format!(
                        "{key}.concurrency only applies to 'delivery: best_effort' (the spool sends a durable target's deliveries one at a time); ignored"
                    ),
                );
            }
            return DURABLE_CONCURRENCY;
        }
        let Some(value) = value else {
            return DEFAULT_CONCURRENCY;
        };
        // Strict: `true` or `2.5` is a mistake, not a count (no Python `int()` here:
        // the reference has no such key to agree with).
        let number = match value {
            Value::Number(number) => number.as_u64(),
            Value::String(text) => text.trim().parse::<u64>().ok(),
            _ => None,
        };
        match number {
            Some(n) if (low as u64..=high as u64).contains(&n) => n as usize,
            Some(n) if n > high as u64 => {
                self.warn(
                    Some("concurrency"),
                    format!(
                        "{key}.concurrency={n} is above the limit of {high} deliveries in flight; using {high}"
                    ),
                );
                high
            }
            _ => {
                self.warn(
                    Some("concurrency"),
                    format!(
                        "{key}.concurrency must be a whole number from {low} to {high} (got {}); using {DEFAULT_CONCURRENCY}",
                        repr(value)
                    ),
                );
                DEFAULT_CONCURRENCY
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use hermes_hooks_core::Config;
    use serde_json::{Value, json};

    use super::*;
    use crate::config::{OUTBOUND_KEY, parse_config_with_env};

    fn parse(concurrency: Value) -> crate::OutboundConfig {
        let entry = json!({"url": "https://x.example/h", "events": ["on_session_end"],
                           "concurrency": concurrency});
        let config = Config::from_value(Path::new("/h"), json!({"hooks": {"outbound": [entry]}}));
        parse_config_with_env(&config, &|_| None)
    }

    #[test]
    fn absent_or_null_is_the_default_without_a_warning() {
        let config = Config::from_value(
            Path::new("/h"),
            json!({"hooks": {"outbound": [{"url": "https://x.example/h", "events": ["on_session_end"]}]}}),
        );
        let parsed = parse_config_with_env(&config, &|_| None);
        assert_eq!(parsed.targets[0].concurrency, DEFAULT_CONCURRENCY);
        assert!(parsed.warnings.is_empty());
        let parsed = parse(Value::Null);
        assert_eq!(parsed.targets[0].concurrency, DEFAULT_CONCURRENCY);
        assert!(parsed.warnings.is_empty());
    }

    #[test]
    fn whole_numbers_in_range_are_taken() {
        for (value, expected) in [
            (json!(1), 1),
            (json!(16), 16),
            (json!(64), 64),
            (json!("8"), 8),
        ] {
            let parsed = parse(value.clone());
            assert_eq!(parsed.targets[0].concurrency, expected, "{value}");
            assert!(parsed.warnings.is_empty(), "{value}: {:?}", parsed.warnings);
        }
    }

    #[test]
    fn a_bad_value_is_a_warning_naming_the_file_and_key_and_the_default() {
        for value in [
            json!(0),
            json!(-3),
            json!(2.5),
            json!(true),
            json!("many"),
            json!([4]),
            json!({"n": 4}),
        ] {
            let parsed = parse(value.clone());
            assert_eq!(parsed.targets.len(), 1, "{value}: the target is kept");
            assert_eq!(
                parsed.targets[0].concurrency, DEFAULT_CONCURRENCY,
                "{value}"
            );
            assert_eq!(parsed.warnings.len(), 1, "{value}");
            let warning = &parsed.warnings[0];
            assert_eq!(warning.key, format!("{OUTBOUND_KEY}[0].concurrency"));
            assert_eq!(warning.file, Path::new("/h/config.yaml"));
            assert!(
                warning.message.starts_with(
                    "hooks.outbound[0].concurrency must be a whole number from 1 to 64"
                ),
                "{}",
                warning.message
            );
            assert!(
                warning.to_string().starts_with("/h/config.yaml: "),
                "{warning}"
            );
        }
    }

    #[test]
    fn a_durable_target_ignores_it_with_a_warning() {
        let entry = json!({"url": "https://x.example/h", "events": ["on_session_end"],
                           "delivery": "durable", "concurrency": 8});
        let config = Config::from_value(Path::new("/h"), json!({"hooks": {"outbound": [entry]}}));
        let parsed = parse_config_with_env(&config, &|_| None);
        assert_eq!(parsed.targets.len(), 1);
        assert_eq!(parsed.targets[0].concurrency, DURABLE_CONCURRENCY);
        assert_eq!(parsed.warnings.len(), 1);
        assert_eq!(parsed.warnings[0].key, "hooks.outbound[0].concurrency");
        assert_eq!(parsed.warnings[0].file, Path::new("/h/config.yaml"));
        assert!(
            parsed.warnings[0]
                .message
                .contains("only applies to 'delivery: best_effort'")
        );
    }

    #[test]
    fn a_durable_target_is_one_at_a_time_without_a_warning_when_unset() {
        // NATS too: a durable `nats://` target is sent by the spool worker.
        for url in ["https://x.example/h", "nats://127.0.0.1:4222"] {
            let entry = json!({"url": url, "events": ["on_session_end"], "delivery": "durable"});
            let config =
                Config::from_value(Path::new("/h"), json!({"hooks": {"outbound": [entry]}}));
            let parsed = parse_config_with_env(&config, &|_| None);
            assert_eq!(parsed.targets.len(), 1, "{url}");
            assert_eq!(parsed.targets[0].concurrency, DURABLE_CONCURRENCY, "{url}");
            assert!(parsed.warnings.is_empty(), "{url}: {:?}", parsed.warnings);
        }
    }

    #[test]
    fn a_best_effort_nats_target_takes_it() {
        let entry = json!({"url": "nats://127.0.0.1:4222", "events": ["on_session_end"],
                           "concurrency": 8});
        let config = Config::from_value(Path::new("/h"), json!({"hooks": {"outbound": [entry]}}));
        let parsed = parse_config_with_env(&config, &|_| None);
        assert_eq!(parsed.targets[0].concurrency, 8);
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    }

    #[test]
    fn above_the_limit_is_lowered_to_it_with_a_warning() {
        let parsed = parse(json!(10_000));
        assert_eq!(parsed.targets[0].concurrency, CONCURRENCY_RANGE.1);
        assert_eq!(parsed.warnings.len(), 1);
        assert!(
            parsed.warnings[0].message.contains("above the limit of 64"),
            "{}",
            parsed.warnings[0].message
        );
    }
}
