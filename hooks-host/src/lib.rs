//! # hermes-hooks
//!
//! The facade a host embeds: one call that loads a Hermes home and returns
//! the Hermes-compatible bus with every mechanism registered.
//!
//! - [`host`]: [`Host::load`] — the bus, its typed [`Warning`]s,
//!   per-mechanism status, and [`Host::shutdown`] (flush webhooks, stop
//!   workers); [`HostOptions`] chooses mechanisms, timeouts and the
//!   [`ConsentPolicy`]; every mechanism loads through one shape, [`Load`].
//! - [`home`]: which home, and its `config.yaml`.
//! - [`consent`]: who decides hooks not in the allowlist yet.
//! - `otlp` (feature `otlp`, opt-in): every hook run as an OTLP/HTTP span
//!   when `OTEL_EXPORTER_OTLP_ENDPOINT` is set.
//!
//! ## Features
//!
//! `shell` (shell hooks and imported hooks), `http` (Claude Code `type:
//! http` imported hooks: an HTTP client), `plugins` (native plugin libraries:
//! libloading), `python` (Python plugins), `gateway`, `outbound`: all on by
//! default. A host that only needs shell hooks and its own Rust closures
//! takes `default-features = false, features = ["shell"]` and builds no HTTP
//! stack and no dynamic loader. A mechanism the home configures but the
//! build leaves out is a warning, never silence.

pub mod consent;
pub mod home;
pub mod host;
#[cfg(feature = "otlp")]
pub mod otlp;
pub mod warning;

#[cfg(feature = "shell")]
pub use consent::TerminalPrompt;
pub use consent::{AcceptAll, ConsentAnswer, ConsentPolicy, ConsentRequest, DenyAll};
pub use home::Home;
pub use host::{
    FlushReport, Host, HostError, HostOptions, Load, Loaded, Mechanism, MechanismStatus,
    ShutdownReport,
};
pub use warning::Warning;

/// In-process Rust callbacks (`hermes-hooks-callbacks`): [`Callbacks`],
/// [`CallbackError`](callbacks::CallbackError), their limits.
pub use hermes_hooks_callbacks as callbacks;
pub use hermes_hooks_callbacks::Callbacks;
/// The contract every mechanism speaks (events, payloads, outcomes, the
/// bus), re-exported so a host needs no second dependency to emit events.
pub use hermes_hooks_core as core;
pub use hermes_hooks_core::{Event, Hooks, Outcome, ToolGate, payloads};
/// The process supervisor and the background runtime (`hermes-hooks-process`):
/// `process::run`, `process::ChildTree`, `process::LineWorker`, and
/// `process::runtime` (also as [`runtime`]).
pub use hermes_hooks_process as process;
/// The background runtime a host hands every mechanism ([`Background`]);
/// `hermes_hooks_core::runtime` before the split.
pub use hermes_hooks_process::runtime;
/// The host's background runtime and how it stopped ([`ShutdownReport::runtime`]).
pub use hermes_hooks_process::runtime::{Background, Stopped};
/// The PyYAML-compatible reader `config.yaml` is read with (`hermes-hooks-yaml`).
pub use hermes_hooks_yaml as yaml;

/// A path as a person should read it: displayed, then escaped.
pub fn show_path(path: &std::path::Path) -> String {
    hermes_hooks_core::display::escape(&path.display().to_string()).into_owned()
}
