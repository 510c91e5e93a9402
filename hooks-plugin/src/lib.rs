//! # hooks-plugin
//!
//! Native plugins for Hermes-compatible agents: shared libraries (`.so`,
//! `.dylib`, `.dll`) that register in-process hook callbacks, loaded with
//! `libloading` through a small, versioned C ABI.
//!
//! A plugin lives in `$HERMES_HOME/plugins/<name>/` with a `plugin.yaml`
//! naming its `library`, and loads only when config.yaml lists it in
//! `plugins.enabled` (`plugins.disabled` always wins, `HERMES_SAFE_MODE=1`
//! loads none). [`discover()`] finds, orders (`requires_plugins` first) and
//! loads them; each [`NativePlugin`] says which events it registers and runs
//! one with [`NativePlugin::call`]:
//!
//! ```no_run
//! use std::path::Path;
//! use hermes_hooks_core::{Config, Event, HookEvent};
//! use serde_json::json;
//!
//! let home = Path::new("/home/me/.hermes");
//! let config = Config::load(home).unwrap_or_else(|_| Config::empty(home));
//! let discovery = hermes_hooks_plugin::discover(home, &config);
//! for problem in &discovery.warnings {
//!     eprintln!("warning: {problem}");
//! }
//! let event = Event::from_json(HookEvent::PreLlmCall, json!({"user_message": "hi"}));
//! for plugin in &discovery.plugins {
//!     if plugin.registers("pre_llm_call") {
//!         match plugin.call(&event) {
//!             Ok(reply) => println!("{}: {reply:?}", plugin.name()),
//!             Err(error) => eprintln!("{error}"),
//!         }
//!     }
//! }
//! ```
//!
//! ## Python plugins
//!
//! The same discovery finds a Hermes user's Python plugins (`__init__.py` with
//! `register(ctx)`; user, project and pip-installed ones) and runs them in one
//! long-lived worker per home ([`python`]). [`register_plugins`] registers
//! every loaded plugin, native and Python, into a host's `Callbacks` and
//! `PromptSections`, and returns each plugin's status; a plugin listed in
//! `plugins.required` that is not running blocks every `pre_tool_call`.
//!
//! ## The ABI (version 1; `ABI.md` has the full contract)
//!
//! Plugins are written with `hermes-hooks-plugin-sdk`, which owns the one
//! `#[repr(C)]` definition of the ABI ([`abi`] re-exports it). A library
//! exports `hermes_hooks_abi_version() -> u32`, checked first (another
//! version is refused, naming the library and both versions, before anything
//! else is called), and `hermes_hooks_plugin_v1() -> *const PluginTable`. The
//! table starts with its own byte `size` and grows by appending fields: the
//! host reads only what `size` covers, so plugins that predate prompt
//! sections (the 56-byte base table) still load. `call` receives the event
//! name and the payload as JSON bytes and fills a [`abi::PluginBuffer`] with
//! the reply JSON (empty = no reply, at most 16 MiB) or, with a non-zero
//! status, an error message; the host copies it and hands it back to
//! `free_buffer`. Libraries are never unloaded.
//!
//! ## Trust
//!
//! A native plugin runs inside the host process with its full rights: it is
//! trusted code, as the user's opt-in in `plugins.enabled` says
//! ([`NATIVE_TRUST_NOTE`] says so for operator views). The host validates
//! everything the library hands over (version, table, strings, reply JSON
//! and size) but cannot protect itself from a library that corrupts memory
//! or hangs. For isolation, use shell hooks, which run in their own process.
//!
//! All unsafe code of this crate is in one private module (`ffi`), each
//! block with a `SAFETY` comment; the rest of the crate denies `unsafe_code`.

// docs.rs (`--cfg docsrs`, nightly) marks each item with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(unsafe_code)]

pub mod abi;
pub mod discover;
pub mod error;
#[allow(unsafe_code)]
mod ffi;
pub mod inspect;
mod json;
// Checks around opening a library: only `native` opens any.
#[cfg_attr(not(feature = "native"), allow(dead_code))]
mod libfile;
mod load;
pub mod manifest;
pub mod order;
pub mod plugin;
pub mod python;
pub mod register;
mod scan;
pub mod settings;

pub use discover::{
    DiscoverOptions, Discovery, PLUGINS_DIR, PROJECT_PLUGINS_ENV, PluginInfo, PluginKind,
    PluginSource, PluginStatus, PythonPlugin, discover, discover_with, list_only,
};
pub use error::{LoadError, PluginCallError};
pub use inspect::{NATIVE_TRUST_NOTE, NativePluginInfo, inspect_native};
pub use plugin::{NativePlugin, PromptSection};
pub use python::{InterpreterStatus, PythonHost};
pub use register::{
    PluginRegistration, register_discovery, register_plugins, register_plugins_with,
};
