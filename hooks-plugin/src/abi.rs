//! The C ABI a native plugin exports, version 1 (see `ABI.md` for the contract).
//!
//! These are plain `#[repr(C)]` declarations: no code here touches a pointer.
//! Reading what a library hands over happens in `ffi.rs` only.

use std::ffi::{c_char, c_void};

/// The ABI version this host speaks; a library reporting another one is refused.
pub const ABI_VERSION: u32 = 1;

/// The exported symbol returning the library's ABI version (`extern "C" fn() -> u32`).
pub const ABI_VERSION_SYMBOL: &str = "hermes_hooks_abi_version";

/// The exported entry symbol returning the table (`extern "C" fn() -> *const PluginTableV1`).
pub const ENTRY_SYMBOL_V1: &str = "hermes_hooks_plugin_v1";

/// The signature of [`ABI_VERSION_SYMBOL`].
pub type AbiVersionFn = unsafe extern "C" fn() -> u32;

/// The signature of [`ENTRY_SYMBOL_V1`].
pub type EntryFnV1 = unsafe extern "C" fn() -> *const PluginTableV1;

/// The signature of [`PluginTableV1::call`].
///
/// `event_ptr/event_len` is the event name (UTF-8, not NUL-terminated),
/// `payload_ptr/payload_len` the payload as a JSON object (UTF-8). The host
/// passes `out` pointing at an empty [`PluginBuffer`]. Returns 0 on success
/// (reply JSON in `out`, left empty for "no reply"), anything else on error
/// (a UTF-8 message in `out`).
pub type CallFn = unsafe extern "C" fn(
    ctx: *mut c_void,
    event_ptr: *const u8,
    event_len: usize,
    payload_ptr: *const u8,
    payload_len: usize,
    out: *mut PluginBuffer,
) -> i32;

/// The signature of [`PluginTableV1::free_buffer`]: releases a buffer the plugin filled.
pub type FreeBufferFn = unsafe extern "C" fn(buffer: PluginBuffer);

/// Bytes allocated by the plugin and handed to the host.
///
/// The host copies the bytes out and then gives the buffer back to the
/// plugin's `free_buffer`, so memory is always freed by the allocator that
/// made it. `capacity` is the plugin's own bookkeeping (a Rust plugin stores
/// its `Vec` capacity there); the host never interprets it.
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

/// The function table of an ABI-1 plugin, returned by [`ENTRY_SYMBOL_V1`].
///
/// The table and everything it points to must stay valid for the life of the
/// process (the host never unloads a library). `size` comes first so later
/// versions can append fields: the host reads only fields within `size`, and
/// requires at least `size_of::<PluginTableV1>()`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct PluginTableV1 {
    /// `size_of::<PluginTableV1>()` as the plugin was compiled (or more, for a grown table).
    pub size: usize,
    /// Must equal [`ABI_VERSION`].
    pub abi_version: u32,
    /// The plugin's name: NUL-terminated UTF-8.
    pub name: *const c_char,
    /// The events the plugin registers, in order: a NUL-terminated JSON array of strings.
    pub hooks_json: *const c_char,
    /// Runs one hook; must be safe to call from several threads at once.
    pub call: Option<CallFn>,
    /// Frees a buffer filled by `call`.
    pub free_buffer: Option<FreeBufferFn>,
    /// Opaque plugin state passed back to `call`.
    pub ctx: *mut c_void,
}

/// The byte size of a complete ABI-1 table.
pub const TABLE_V1_SIZE: usize = std::mem::size_of::<PluginTableV1>();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn table_layout_matches_abi_md() {
        // ABI.md promises this layout to plugin authors in other languages.
        assert_eq!(TABLE_V1_SIZE, 56);
        assert_eq!(std::mem::offset_of!(PluginTableV1, abi_version), 8);
        assert_eq!(std::mem::offset_of!(PluginTableV1, name), 16);
        assert_eq!(std::mem::offset_of!(PluginTableV1, call), 32);
        assert_eq!(std::mem::offset_of!(PluginTableV1, ctx), 48);
        assert_eq!(std::mem::size_of::<PluginBuffer>(), 24);
    }
}
