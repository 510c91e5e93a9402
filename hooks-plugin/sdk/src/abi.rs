//! The C ABI between a hooks host and a native plugin: one `#[repr(C)]`
//! definition, shared by the host (`hermes-hooks-plugin`) and by plugins.
//!
//! These are plain declarations: nothing here touches a pointer. The SDK's
//! exports live in the private `export` module; the host's reads in
//! `hermes-hooks-plugin`'s `ffi` module.
//!
//! # The contract
//!
//! A plugin library exports two `extern "C"` symbols:
//!
//! - [`ABI_VERSION_SYMBOL`] (`hermes_hooks_abi_version() -> u32`), which must
//!   return [`ABI_VERSION`]. The host calls it **first** and refuses a library
//!   reporting another version, naming both, without calling anything else:
//!   another version's entry may have another signature.
//! - [`ENTRY_SYMBOL`] (`hermes_hooks_plugin_v1() -> *const PluginTable`),
//!   returning a table that lives for the rest of the process (libraries are
//!   never unloaded).
//!
//! ## A table that grows by size
//!
//! [`PluginTable::size`] comes first and says how many bytes of the table the
//! plugin filled. The host reads only the fields that `size` covers, so
//! fields are only ever **appended** and never change meaning; the version
//! number changes only for an incompatible ABI. Revisions so far:
//!
//! | size (64-bit) | fields | |
//! |---|---|---|
//! | [`TABLE_SIZE_BASE`] (56) | `size` … `ctx` | hooks only; the table every ABI-1 plugin has had |
//! | [`TABLE_SIZE`] (80) | + `prompt_sections_json`, `render_section`, `load_error` | system-prompt sections and registration errors |
//!
//! A table smaller than [`TABLE_SIZE_BASE`] is refused. A base-size table
//! (a plugin built before prompt sections existed) loads with no prompt
//! sections. A table larger than the host knows is read up to what the host
//! knows: a newer plugin on an older host keeps its hooks.
//!
//! ## Calls: JSON bytes in and out
//!
//! `call(ctx, event, payload, out)` receives the event name (UTF-8) and the
//! event's keyword arguments as one JSON object (UTF-8); neither is
//! NUL-terminated and both are valid only during the call. `out` points at an
//! empty [`PluginBuffer`]. Status 0 is success: `out` holds the reply JSON, or
//! stays empty for "no reply" (JSON `null` means the same). Any other status
//! is the plugin's failure, with a UTF-8 message in `out`; for `pre_tool_call`
//! a failure blocks the tool call. The host copies `out` and hands it back to
//! `free_buffer` exactly once, so memory is freed by the allocator that made
//! it. The host refuses replies over [`MAX_REPLY_BYTES`].
//!
//! `render_section(ctx, id, session_info, out)` has the same shape: the
//! section id, the session info as a JSON object (`session_id`, `model`,
//! `provider`, `platform`, `profile_name`, `cwd`), and the section text as a
//! JSON string in `out`.
//!
//! The host may call `call` and `render_section` from several threads at
//! once. Nothing may unwind out of them: a panic crossing `extern "C"` aborts
//! the host. The SDK's [`export_plugin!`](crate::export_plugin) catches every
//! panic and refuses to build with `panic = "abort"`.

use std::ffi::{c_char, c_void};

/// The ABI version of this SDK; a host refuses a library reporting another one.
pub const ABI_VERSION: u32 = 1;

/// The exported symbol returning the library's ABI version (`extern "C" fn() -> u32`).
pub const ABI_VERSION_SYMBOL: &str = "hermes_hooks_abi_version";

/// The exported entry symbol returning the table (`extern "C" fn() -> *const PluginTable`).
pub const ENTRY_SYMBOL: &str = "hermes_hooks_plugin_v1";

/// The most reply bytes a host accepts from one call (16 MiB).
pub const MAX_REPLY_BYTES: usize = 16 * 1024 * 1024;

/// The signature of [`ABI_VERSION_SYMBOL`].
pub type AbiVersionFn = unsafe extern "C" fn() -> u32;

/// The signature of [`ENTRY_SYMBOL`].
pub type EntryFn = unsafe extern "C" fn() -> *const PluginTable;

/// The signature of [`PluginTable::call`] and [`PluginTable::render_section`].
///
/// `name_ptr/name_len` is the event name (or section id), UTF-8, not
/// NUL-terminated; `json_ptr/json_len` the payload (or session info) as a
/// JSON object. The host passes `out` pointing at an empty [`PluginBuffer`].
/// Returns 0 on success (reply JSON in `out`, left empty for "no reply"),
/// anything else on error (a UTF-8 message in `out`).
pub type CallFn = unsafe extern "C" fn(
    ctx: *mut c_void,
    name_ptr: *const u8,
    name_len: usize,
    json_ptr: *const u8,
    json_len: usize,
    out: *mut PluginBuffer,
) -> i32;

/// The signature of [`PluginTable::free_buffer`]: releases a buffer the plugin filled.
pub type FreeBufferFn = unsafe extern "C" fn(buffer: PluginBuffer);

/// Bytes allocated by the plugin and handed to the host.
///
/// The host copies the bytes out and then gives the buffer back to the
/// plugin's `free_buffer`. `capacity` is the plugin's own bookkeeping (the
/// SDK stores its `Vec` capacity there); the host never interprets it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct PluginBuffer {
    /// Start of the bytes; null for an empty buffer.
    pub data: *mut u8,
    /// Number of bytes at `data`.
    pub len: usize,
    /// Plugin-private: the allocation size, for the plugin's `free_buffer`.
    pub capacity: usize,
}

impl PluginBuffer {
    /// An empty buffer (null data): what the host passes in, and "no reply".
    pub const fn empty() -> Self {
        PluginBuffer {
            data: std::ptr::null_mut(),
            len: 0,
            capacity: 0,
        }
    }
}

/// The function table a plugin hands to the host, returned by [`ENTRY_SYMBOL`].
///
/// Field order and C layout are fixed; fields are only appended (see the
/// [module docs](self)). Everything the table points to must stay valid for
/// the life of the process.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct PluginTable {
    /// How many bytes of this table the plugin filled: [`TABLE_SIZE`] for
    /// this SDK, [`TABLE_SIZE_BASE`] for a plugin that predates prompt sections.
    pub size: usize,
    /// Must equal [`ABI_VERSION`].
    pub abi_version: u32,
    /// The plugin's name: NUL-terminated UTF-8, not empty.
    pub name: *const c_char,
    /// The events the plugin registers, in order: a NUL-terminated JSON array of strings.
    pub hooks_json: *const c_char,
    /// Runs one hook; must be safe to call from several threads at once.
    pub call: Option<CallFn>,
    /// Frees a buffer filled by `call` or `render_section`.
    pub free_buffer: Option<FreeBufferFn>,
    /// Opaque plugin state passed back to `call` and `render_section`.
    pub ctx: *mut c_void,
    /// Since size 80: the plugin's system-prompt sections, a NUL-terminated
    /// JSON array of `{"id", "position", "max_chars"}` objects; null for none.
    pub prompt_sections_json: *const c_char,
    /// Since size 80: computes one section's text when a session starts
    /// (see [`CallFn`]); may be null when the plugin has no sections.
    pub render_section: Option<CallFn>,
    /// Since size 80: null when registration succeeded; otherwise a
    /// NUL-terminated UTF-8 message, and the host refuses the plugin with it.
    pub load_error: *const c_char,
}

/// The size of the base table (everything up to `ctx`), which every ABI-1
/// host and plugin understands; smaller tables are refused.
pub const TABLE_SIZE_BASE: usize = std::mem::offset_of!(PluginTable, prompt_sections_json);

/// The size of the table this SDK fills.
pub const TABLE_SIZE: usize = std::mem::size_of::<PluginTable>();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn table_layout_is_the_documented_one() {
        // Plugins in other languages lay the table out from these numbers.
        assert_eq!(TABLE_SIZE_BASE, 56);
        assert_eq!(TABLE_SIZE, 80);
        assert_eq!(std::mem::offset_of!(PluginTable, abi_version), 8);
        assert_eq!(std::mem::offset_of!(PluginTable, name), 16);
        assert_eq!(std::mem::offset_of!(PluginTable, hooks_json), 24);
        assert_eq!(std::mem::offset_of!(PluginTable, call), 32);
        assert_eq!(std::mem::offset_of!(PluginTable, free_buffer), 40);
        assert_eq!(std::mem::offset_of!(PluginTable, ctx), 48);
        assert_eq!(std::mem::offset_of!(PluginTable, prompt_sections_json), 56);
        assert_eq!(std::mem::offset_of!(PluginTable, render_section), 64);
        assert_eq!(std::mem::offset_of!(PluginTable, load_error), 72);
        assert_eq!(std::mem::size_of::<PluginBuffer>(), 24);
    }
}
