//! # hooks-cli
//!
//! The `hooks` command for operators, and the library it is built on: one
//! call that loads a Hermes home and returns the bus with every mechanism
//! registered, as a host embeds it.
//!
//! - [`host`]: [`host::Host::load`] — the bus, its warnings, per-mechanism
//!   status, and [`host::Host::shutdown`] (flush webhooks, stop workers).
//! - [`home`]: which home, and its `config.yaml`.
//! - [`inventory`]: what a home configures, read without running any of it
//!   here (what `hooks list` prints and `hooks doctor` checks).
//! - [`inspect`]: native plugins described by a child process, so a library
//!   that crashes while loading is a finding, not the end of the caller.
//!
//! - [`otlp`] (feature `otlp`, default): every hook run as an OTLP/HTTP span
//!   when `OTEL_EXPORTER_OTLP_ENDPOINT` is set.
//!
//! Build it with `default-features = false` to leave out the command line
//! (clap, the log formatter): the library needs neither.

pub mod home;
pub mod host;
pub mod inspect;
pub mod inventory;
#[cfg(feature = "otlp")]
pub mod otlp;

pub use home::Home;
pub use host::{Host, HostError, HostOptions};

/// A path as a person should read it: displayed, then escaped.
pub fn show_path(path: &std::path::Path) -> String {
    hermes_hooks_core::display::escape(&path.display().to_string()).into_owned()
}
