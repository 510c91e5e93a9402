//! # hooks-plugin-sdk
//!
//! Write native hooks plugins for Hermes-compatible agents in safe Rust. A
//! plugin is a `cdylib` with a `register` function; [`export_plugin!`] exports
//! it through the C ABI the host (`hermes-hooks-plugin`) loads. Hooks borrow
//! the catalog's typed payloads (decoded into a struct each thread keeps, so
//! a payload shaped like the previous one allocates nothing) and return the
//! typed reply of their event's merge rule ([`events`] lists them);
//! system-prompt sections are registered the same way. Plugin authors write
//! no `unsafe`: the exports, the pointer work
//! and the panic guard live in this crate.
//!
//! ```
//! use hermes_hooks_plugin_sdk::{PluginContext, RegisterError, ToolDecision, events};
//!
//! /// Blocks terminal commands that delete recursively.
//! fn register(ctx: &mut PluginContext) -> Result<(), RegisterError> {
//!     ctx.register_hook(events::PRE_TOOL_CALL, |call| {
//!         let command = call.args.get("command").and_then(|c| c.as_str()).unwrap_or("");
//!         if call.tool_name == "terminal" && command.contains("rm -rf") {
//!             ToolDecision::block("my-guard: refusing rm -rf")
//!         } else {
//!             ToolDecision::Allow
//!         }
//!     })?;
//!     ctx.register_system_prompt_section("my-guard.rules", "Never delete recursively.")
//! }
//!
//! hermes_hooks_plugin_sdk::export_plugin!(register);
//!
//! // The same registrations, called in-process as a host would call them:
//! # fn main() {
//! use hermes_hooks_plugin_sdk::TestPlugin;
//! use serde_json::json;
//!
//! let plugin = TestPlugin::new(register).expect("registers");
//! assert_eq!(plugin.hooks(), ["pre_tool_call"]);
//! let blocked = plugin.call("pre_tool_call", json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}}));
//! assert_eq!(blocked, Ok(Some(json!({"action": "block", "message": "my-guard: refusing rm -rf"}))));
//! let allowed = plugin.call("pre_tool_call", json!({"tool_name": "terminal", "args": {"command": "ls"}}));
//! assert_eq!(allowed, Ok(None));
//! # }
//! ```
//!
//! Build it with `crate-type = ["cdylib"]`, copy the library into
//! `$HERMES_HOME/plugins/<name>/` next to a `plugin.yaml` naming it
//! (`library: libmy_guard.so`), and list the plugin in `plugins.enabled`.
//!
//! ## What happens at the boundary
//!
//! - The host calls `register` once, when it loads the library. An `Err`
//!   from it (or a panic) refuses the whole plugin with that message.
//! - A hook's `Err`, a panic inside it, or a payload that does not decode
//!   into the typed struct is "the callback failed": observers and
//!   transforms are skipped, and `pre_tool_call` **blocks** the tool call,
//!   as a raising Python callback does. The plugin keeps working afterwards.
//! - Hooks run on the host's worker threads, possibly several at once, so
//!   closures are `Send + Sync`; share state through `Arc`, atomics or locks.
//! - A hook that never returns is abandoned at `plugins.hook_callback_timeout`
//!   (for `pre_tool_call`: blocked), but its thread stays stuck: native
//!   plugins are trusted code (below).
//! - Building with `panic = "abort"` is a compile error: an aborting panic
//!   cannot be caught and would take the whole agent down.
//!
//! ## Trust
//!
//! A native plugin runs inside the agent's process with all its rights. The
//! host checks everything the library hands over, but it cannot defend
//! against a library that corrupts memory, hangs, or exits. When you need
//! isolation, write a shell hook: it runs in its own process under a timeout.
//!
//! ## The ABI
//!
//! [`abi`] holds the one `#[repr(C)]` definition of the ABI, which the host
//! imports from here, and documents the contract for plugins written in
//! other languages: the version check first, a table that grows by size,
//! JSON bytes in and out.

// docs.rs (`--cfg docsrs`, nightly) marks each item with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod abi;
mod context;
pub mod events;
#[allow(unsafe_code)]
mod export;
pub mod reply;
mod runtime;
mod scratch;
mod testing;

pub use context::{
    AFTER_MEMORY, HookResult, MAX_SECTION_CHARS, PluginContext, RegisterError, SectionContent,
    SectionSpec, SessionInfo, is_valid_section_id,
};
pub use hermes_hooks_core::payloads;
pub use reply::{DispatchReply, ToolDecision, TranscriptionReply};
pub use runtime::RegisterOutcome;
pub use testing::TestPlugin;

/// What the expansion of [`export_plugin!`] needs; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::export::Exported;
    pub use crate::runtime::RegisterOutcome;
}

/// Exports a plugin from its `register` function.
///
/// `register` is a `fn(&mut PluginContext)` returning `()` or
/// `Result<(), E: Display>`. The plugin's name is the package name
/// (`CARGO_PKG_NAME`), or the one given. Use it once per library.
///
/// ```
/// use hermes_hooks_plugin_sdk::{PluginContext, events};
///
/// // A `register` that cannot fail may return `()`; a failed registration
/// // inside it is then a panic, which the SDK also reports to the host.
/// fn register(ctx: &mut PluginContext) {
///     ctx.register_hook(events::ON_SESSION_START, |session| {
///         eprintln!("session {} started", session.session_id);
///     })
///     .expect("one hook per event");
/// }
///
/// hermes_hooks_plugin_sdk::export_plugin!(register, name = "session-logger");
/// # fn main() {}
/// ```
///
/// The expansion defines the two exported symbols of the ABI
/// ([`abi::ABI_VERSION_SYMBOL`], [`abi::ENTRY_SYMBOL`]). Their
/// `#[no_mangle]` is an unsafe attribute, allowed locally in the expansion
/// (so `#![deny(unsafe_code)]` in the plugin stays satisfied; a crate-wide
/// `#![forbid(unsafe_code)]` cannot be overridden and rejects the export). It
/// also refuses, at compile time, a build with `panic = "abort"`.
#[macro_export]
macro_rules! export_plugin {
    ($register:path) => {
        $crate::export_plugin!($register, name = ::core::env!("CARGO_PKG_NAME"));
    };
    ($register:path, name = $name:expr $(,)?) => {
        #[cfg(panic = "abort")]
        ::core::compile_error!(
            "hooks-plugin-sdk: this plugin is being built with `panic = \"abort\"`. A native \
             plugin runs inside the agent's process: the SDK turns a panic in a hook into a \
             failed callback (a `pre_tool_call` panic blocks the tool call), but an aborting \
             panic cannot be caught and would kill the agent. Build the plugin with the default \
             `panic = \"unwind\"` (remove `panic = \"abort\"` from the profile)."
        );

        const _: () = {
            static HOOKS_PLUGIN_EXPORTED: $crate::__private::Exported =
                $crate::__private::Exported::new($name, |ctx: &mut $crate::PluginContext| {
                    $crate::__private::RegisterOutcome::into_register_result($register(ctx))
                });

            /// The ABI version this plugin speaks (the host asks first).
            // SAFETY: the name is unique to this ABI; `export_plugin!` is used once per library.
            #[allow(unsafe_code)]
            #[unsafe(no_mangle)]
            pub extern "C" fn hermes_hooks_abi_version() -> u32 {
                HOOKS_PLUGIN_EXPORTED.abi_version()
            }

            /// The plugin's table; `register` runs on the first call.
            // SAFETY: as above; the signature is `abi::EntryFn`.
            #[allow(unsafe_code)]
            #[unsafe(no_mangle)]
            pub extern "C" fn hermes_hooks_plugin_v1() -> *const $crate::abi::PluginTable {
                HOOKS_PLUGIN_EXPORTED.table()
            }
        };
    };
}

/// The README's examples, compiled as doctests so they stay true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
