//! # hermes-hooks
//!
//! Embed Hermes-compatible agent hooks in one call: [`Host::load`] reads a
//! Hermes home (`config.yaml`, the shell-hook allowlist, `plugins/`,
//! `hooks/`) and returns one bus with every mechanism registered — the
//! home's plugins and the host's own Rust closures, shell hooks (and hooks
//! written for Claude Code, Codex, Cursor), outbound webhooks, gateway hooks.
//! The host emits an event at each lifecycle point and acts on the one
//! merged [`Outcome`]; [`Report`] says which hook decided.
//!
//! ```
//! use std::time::Duration;
//! use hermes_hooks::payloads::PreToolCall;
//! use hermes_hooks::{Event, Host, HostOptions, ToolGate};
//! use serde_json::json;
//!
//! # let dir = tempfile::tempdir()?;
//! # let home = dir.path();
//! // A plain `fn main` needs no async runtime: `load_blocking` + `block_on`.
//! let host = Host::load_blocking(HostOptions::new().home(home))?;
//! for warning in host.warnings() {
//!     eprintln!("warning: {warning}");
//! }
//! // The host's own rule, next to the home's hooks (`host:no-etc` in reports).
//! host.register("pre_tool_call", "no-etc", |event: &Event| {
//!     let args = event.get("args").map(|args| args.to_string()).unwrap_or_default();
//!     Ok(args.contains("/etc").then(|| json!({"action": "block", "message": "/etc is off limits"})))
//! })?;
//!
//! let mut args = serde_json::Map::new();
//! args.insert("command".into(), json!("cat /etc/passwd"));
//! let call: Event = PreToolCall::default().with_tool_name("terminal").with_args(args).into();
//! // `emit` gives the outcome; `emit_with_report` also says who decided.
//! let report = host.block_on(host.hooks().emit_with_report(&call));
//! let blocker = report.blocked_by().expect("the rule blocks");
//! assert_eq!(&*blocker.source, "host:no-etc");
//! match report.outcome.tool_gate() {
//!     ToolGate::Block { message, .. } => println!("blocked by {}: {message}", blocker.source),
//!     _ => println!("runs"),
//! }
//! host.block_on(host.shutdown(Duration::from_secs(5)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! - [`host`]: [`Host::load`] — the bus, its typed [`Warning`]s,
//!   per-mechanism status, [`Host::register`] (the host's closures), and
//!   [`Host::shutdown`] (flush webhooks, stop workers); [`HostOptions`]
//!   chooses mechanisms, timeouts, the [`ConsentPolicy`] and run observers
//!   ([`HostOptions::on_run`]: every [`HookRun`] of every mechanism); every
//!   mechanism loads through one shape, [`Load`].
//! - What happened: [`Report`] ([`Report::blocked_by`],
//!   [`Report::modified_by`]), [`HookRun`], [`RunStatus`], [`BlockSource`].
//! - [`home`]: which home, and its `config.yaml`.
//! - [`consent`]: who decides hooks not in the allowlist yet.
//! - `inspect` (feature `inspect`, opt-in): what a home configures, every
//!   mechanism's hooks with source, scope, consent and problems, read without
//!   running them (what `hooks list` and `hooks doctor` print).
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

#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod consent;
pub mod home;
pub mod host;
#[cfg(feature = "inspect")]
#[cfg_attr(docsrs, doc(cfg(feature = "inspect")))]
pub mod inspect;
#[cfg(feature = "otlp")]
#[cfg_attr(docsrs, doc(cfg(feature = "otlp")))]
pub mod otlp;
pub mod warning;

#[cfg(feature = "shell")]
#[cfg_attr(docsrs, doc(cfg(feature = "shell")))]
pub use consent::TerminalPrompt;
pub use consent::{AcceptAll, ConsentAnswer, ConsentPolicy, ConsentRequest, DenyAll};
/// Sandbox profiles, for [`HostOptions::sandbox_source`] and friends.
#[cfg(feature = "shell")]
pub use hermes_hooks_process::sandbox::{CustomRules, Profile, Sandbox};
pub use home::Home;
pub use host::{
    CallbackFuture, DEFAULT_FLUSH_BOUND, DEFAULT_SUPPRESSION_WINDOW, FlushReport, Host, HostError,
    HostOptions, Load, Loaded, Mechanism, MechanismStatus, ShutdownReport,
};
pub use warning::Warning;

/// In-process Rust callbacks (`hermes-hooks-callbacks`): [`Callbacks`],
/// [`CallbackError`], their limits.
pub use hermes_hooks_callbacks as callbacks;
pub use hermes_hooks_callbacks::{CallbackError, CallbackId, CallbackResult, Callbacks};
/// The contract every mechanism speaks (events, payloads, outcomes, the
/// bus), re-exported so a host needs no second dependency to emit events.
pub use hermes_hooks_core as core;
/// An event name [`Host::register`] refused, with the nearest catalog name.
pub use hermes_hooks_core::catalog::UnknownEvent;
pub use hermes_hooks_core::{
    BlockSource, Event, EventName, HookEvent, HookRun, Hooks, Outcome, Reply, Report, RunObserver,
    RunStatus, ToolGate, payloads,
};
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
