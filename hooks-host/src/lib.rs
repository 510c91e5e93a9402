//! # hermes-hooks
//!
//! The facade a host embeds: one call that loads a Hermes home and returns
//! the Hermes-compatible bus with every mechanism registered.
//!
//! - [`host`]: [`host::Host::load`] — the bus, its warnings, per-mechanism
//!   status, and [`host::Host::shutdown`] (flush webhooks, stop workers).
//! - [`home`]: which home, and its `config.yaml`.
//! - [`otlp`] (feature `otlp`, opt-in): every hook run as an OTLP/HTTP span
//!   when `OTEL_EXPORTER_OTLP_ENDPOINT` is set.

pub mod home;
pub mod host;
#[cfg(feature = "otlp")]
pub mod otlp;

pub use home::Home;
pub use host::{Host, HostError, HostOptions};

/// A path as a person should read it: displayed, then escaped.
pub fn show_path(path: &std::path::Path) -> String {
    hermes_hooks_core::display::escape(&path.display().to_string()).into_owned()
}
