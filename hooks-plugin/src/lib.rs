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
//! use hooks_core::{Config, Event, HookEvent};
//! use serde_json::json;
//!
//! let home = Path::new("/home/me/.hermes");
//! let config = Config::load(home).unwrap_or_else(|_| Config::empty(home));
//! let discovery = hooks_plugin::discover(home, &config);
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
//! ## The ABI (version 1; `ABI.md` has the full contract)
//!
//! A library exports two `extern "C"` symbols: `hermes_hooks_abi_version() ->
//! u32` (must return [`abi::ABI_VERSION`]) and `hermes_hooks_plugin_v1() ->
//! *const PluginTableV1`. The [`abi::PluginTableV1`] starts with its own byte
//! `size` (so later versions can append fields; the host reads only what
//! `size` covers), then `abi_version`, the NUL-terminated UTF-8 `name`, the
//! registered events as a NUL-terminated JSON array `hooks_json`, `call`,
//! `free_buffer` and an opaque `ctx`. `call` receives the event name and the
//! payload as JSON bytes and fills a [`abi::PluginBuffer`] with the reply JSON
//! (empty = no reply) or, with a non-zero status, an error message; the host
//! copies it and hands it back to `free_buffer`. Plugins must catch their own
//! panics (a panic crossing `extern "C"` aborts the host) and allow concurrent
//! calls. Libraries are never unloaded.
//!
//! ## Trust
//!
//! A native plugin runs inside the host process with its full rights: it is
//! trusted code, as the user's opt-in in `plugins.enabled` says. The host
//! validates everything the library hands over (version, table, strings,
//! reply JSON) but cannot protect itself from a library that corrupts memory
//! or hangs. For isolation, use shell hooks, which run in their own process.
//!
//! All unsafe code of this crate is in one private module (`ffi`), each
//! block with a `SAFETY` comment; the rest of the crate denies `unsafe_code`.

#![deny(unsafe_code)]

pub mod abi;
pub mod discover;
pub mod error;
#[allow(unsafe_code)]
mod ffi;
pub mod manifest;
pub mod order;
pub mod plugin;
pub mod settings;

pub use discover::{
    DiscoverOptions, Discovery, PLUGINS_DIR, PluginInfo, PluginStatus, discover, discover_with,
};
pub use error::{LoadError, PluginCallError};
pub use plugin::NativePlugin;
