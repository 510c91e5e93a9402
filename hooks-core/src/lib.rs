//! # hooks-core
//!
//! The heart of the Hermes-compatible hook system: the event catalog (generated
//! from `schema/events.yaml`), the one [`Dispatcher`] trait every mechanism
//! implements, the [`Hooks`] bus that holds the mechanisms in order, and the
//! merge rules that turn many replies into one [`Outcome`] for the host.
//!
//! Mechanisms live in sibling crates that depend on this one only:
//! `hermes-hooks-shell` (subprocess hooks), `hermes-hooks-outbound` (signed webhooks),
//! `hermes-hooks-plugin` (native plugins), `hermes-hooks-gateway` (gateway hooks).
//!
//! ```
//! use hermes_hooks_core::{Event, Hooks, HookEvent, Outcome};
//! use serde_json::json;
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let hooks = Hooks::empty();
//! assert!(!hooks.is_hooked(HookEvent::PreToolCall));
//! let event = Event::from_json(HookEvent::PreToolCall, json!({"tool_name": "terminal", "args": {}}));
//! assert_eq!(hooks.emit(&event).await, Outcome::Nothing);
//! # });
//! ```
//!
//! ## Features
//!
//! - `config` (default): `Config` (`config.yaml`, read with
//!   `hermes-hooks-yaml`, re-exported as `yaml`), `HERMES_HOME`,
//!   tool-name matchers and the Python interpreter lookup.
//! - `prompt` (default): system-prompt sections.
//!
//! With `default-features = false`, hooks-core is the contract alone: the
//! catalog, events, replies, [`Dispatcher`] (with [`async_trait`](macro@async_trait) re-exported),
//! the [`Hooks`] bus, merge rules, outcomes, payloads and the wire document.
//!
//! ## The crates beside it
//!
//! - `hermes-hooks-callbacks`: `Callbacks`, in-process Rust callbacks with
//!   timeouts, isolation and streaming queues (a [`Dispatcher`] built on this crate).
//! - `hermes-hooks-process`: the one process supervisor every mechanism
//!   spawns its children through, and the background runtime (`Background`).
//! - `hermes-hooks-yaml`: the PyYAML-compatible reader `config` uses.
//!
//! hooks-core does no network IO and spawns no processes.

// docs.rs (`--cfg docsrs`, nightly) marks each item with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod bus;
pub mod catalog;
#[cfg(feature = "config")]
pub mod config;
pub mod dispatch;
pub mod display;
pub mod event;
#[cfg(feature = "config")]
pub mod home;
#[cfg(feature = "config")]
pub mod interpreter;
mod join;
#[cfg(feature = "config")]
pub mod matcher;
pub mod merge;
pub mod outcome;
pub mod payloads;
#[cfg(feature = "prompt")]
pub mod prompt;
pub mod pyvalue;
#[cfg(feature = "redact")]
pub mod redact;
pub mod regular_file;
pub mod replies;
pub mod reply;
pub mod runs;
pub mod schemas;
pub mod session_info;
pub mod wire;
/// The PyYAML-compatible reader `config` reads `config.yaml` with: the crate
/// `hermes-hooks-yaml`, re-exported.
#[cfg(feature = "config")]
pub use hermes_hooks_yaml as yaml;

/// The `#[async_trait]` attribute [`Dispatcher`] is written with, re-exported so
/// a mechanism needs no dependency of its own: `#[hermes_hooks_core::async_trait]`.
pub use async_trait::async_trait;
pub use bus::{Collect, Emit, Hooks, HooksBuilder, Report};
pub use catalog::{EventMeta, HookEvent};
#[cfg(feature = "config")]
pub use config::{Config, ConfigError, ConfigWarning};
pub use dispatch::{Dispatcher, NoopDispatcher};
pub use event::{Event, EventName, Payload};
pub use outcome::{BlockSource, Outcome, ToolGate};
pub use reply::Reply;
pub use runs::{HookRun, RunObserver, RunStatus};

/// The event reference: every event, its class, merge rule, run policy and
/// fields. Generated with the catalog from `schema/events.yaml` by
/// `cargo xtask codegen` (the file is `docs/events.md` in this package).
#[doc = include_str!("../docs/events.md")]
pub mod event_reference {}

/// The README's example, compiled and run as a doctest so it stays true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
