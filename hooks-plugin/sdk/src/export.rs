//! All unsafe code of the SDK: the table handed to the host and the
//! `extern "C"` functions it points at.
//!
//! [`export_plugin!`](crate::export_plugin) expands to two `#[no_mangle]`
//! functions in the plugin crate that call [`Exported::abi_version`] and
//! [`Exported::table`]; everything that touches a raw pointer is here. Every
//! call into plugin code goes through `runtime`, which catches panics, so
//! nothing unwinds across `extern "C"`.

use std::ffi::{CString, c_void};
use std::sync::OnceLock;

use crate::abi::{ABI_VERSION, PluginBuffer, PluginTable, TABLE_SIZE};
use crate::runtime::{RegisterFn, Registered, run_register};

/// A plugin exported by the macro: its name, its `register`, and the table
/// built on the host's first request.
pub struct Exported {
    name: &'static str,
    register: RegisterFn,
    built: OnceLock<Built>,
}

/// The table and everything it points at, alive as long as the static `Exported`.
struct Built {
    table: PluginTable,
    /// Owns what `table.ctx` points at (read only through that pointer).
    _registered: Box<Registered>,
    _strings: Vec<CString>,
}

// SAFETY: the table's pointers point into `_strings` (immutable CStrings
// owned by the same value) and at `registered`, whose hooks are all
// `Send + Sync`; nothing is mutated after construction, so sharing and
// moving `Built` between threads is sound.
unsafe impl Send for Built {}
// SAFETY: see `Send`: immutable after construction.
unsafe impl Sync for Built {}

impl Exported {
    /// An exported plugin called `name` whose registrations `register` makes.
    pub const fn new(name: &'static str, register: RegisterFn) -> Self {
        Exported {
            name,
            register,
            built: OnceLock::new(),
        }
    }

    /// The ABI version the plugin speaks.
    pub const fn abi_version(&self) -> u32 {
        ABI_VERSION
    }

    /// The table, running `register` on the first request (once, however
    /// many threads ask).
    pub fn table(&'static self) -> *const PluginTable {
        &self.built.get_or_init(|| self.build()).table
    }

    fn build(&self) -> Built {
        let (registered, error) = run_register(self.register);
        let registered = Box::new(registered);
        let hooks: Vec<&str> = registered.hook_names().collect();
        let sections: Vec<_> = registered.section_specs().collect();
        let mut strings = Vec::new();
        let mut keep = |text: String| {
            // Interior NULs cannot come from a package name or JSON output;
            // should one appear, the text is cut there rather than dropped.
            let text = CString::new(text).unwrap_or_else(|error| {
                let end = error.nul_position();
                let mut bytes = error.into_vec();
                bytes.truncate(end);
                CString::new(bytes).unwrap_or_default()
            });
            let pointer = text.as_ptr();
            strings.push(text);
            pointer
        };
        let name = keep(self.name.to_owned());
        let hooks_json = keep(serde_json::to_string(&hooks).unwrap_or_else(|_| "[]".into()));
        let sections_json = keep(serde_json::to_string(&sections).unwrap_or_else(|_| "[]".into()));
        let load_error = match error {
            Some(message) => keep(message),
            None => std::ptr::null(),
        };
        let ctx: *const Registered = &*registered;
        Built {
            table: PluginTable {
                size: TABLE_SIZE,
                abi_version: ABI_VERSION,
                name,
                hooks_json,
                call: Some(call),
                free_buffer: Some(free_buffer),
                ctx: ctx.cast_mut().cast::<c_void>(),
                prompt_sections_json: sections_json,
                render_section: Some(render_section),
                load_error,
            },
            _registered: registered,
            _strings: strings,
        }
    }
}

/// `PluginTable::call`.
///
/// # Safety
/// `ctx` is the table's `ctx`; the name and JSON ranges are readable (or
/// null with length 0); `out` is null or writable. The host guarantees all of
/// it (ABI contract).
unsafe extern "C" fn call(
    ctx: *mut c_void,
    name_ptr: *const u8,
    name_len: usize,
    json_ptr: *const u8,
    json_len: usize,
    out: *mut PluginBuffer,
) -> i32 {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        answer(
            ctx,
            name_ptr,
            name_len,
            json_ptr,
            json_len,
            out,
            |registered, name, json| registered.call(name, json),
        )
    }
}

/// `PluginTable::render_section`.
///
/// # Safety
/// As for [`call`].
unsafe extern "C" fn render_section(
    ctx: *mut c_void,
    name_ptr: *const u8,
    name_len: usize,
    json_ptr: *const u8,
    json_len: usize,
    out: *mut PluginBuffer,
) -> i32 {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        answer(
            ctx,
            name_ptr,
            name_len,
            json_ptr,
            json_len,
            out,
            |registered, id, json| registered.render_section(id, json),
        )
    }
}

/// The status when the host passes a null `ctx` or `out` (nothing can be reported).
const STATUS_BAD_ARGUMENTS: i32 = 3;

/// The body shared by [`call`] and [`render_section`]: borrow the inputs,
/// run `body` (which never unwinds), hand the bytes over in `out`.
///
/// # Safety
/// As for [`call`].
unsafe fn answer(
    ctx: *mut c_void,
    name_ptr: *const u8,
    name_len: usize,
    json_ptr: *const u8,
    json_len: usize,
    out: *mut PluginBuffer,
    body: impl FnOnce(&Registered, &[u8], &[u8]) -> (i32, Vec<u8>),
) -> i32 {
    if ctx.is_null() || out.is_null() {
        return STATUS_BAD_ARGUMENTS;
    }
    // SAFETY: `ctx` is the pointer `Exported::build` stored: a `Registered`
    // owned by a `Built` inside a static `OnceLock`, never dropped or mutated.
    let registered = unsafe { &*ctx.cast_const().cast::<Registered>() };
    // SAFETY: the host passes readable ranges valid for the call.
    let (name, json) = unsafe { (bytes(name_ptr, name_len), bytes(json_ptr, json_len)) };
    let (status, reply) = body(registered, name, json);
    // SAFETY: `out` is non-null and writable (the host's contract); it holds
    // an empty buffer, so nothing is overwritten that needed freeing.
    unsafe { out.write(into_buffer(reply)) };
    status
}

/// The bytes at `pointer`, or none for a null pointer or a zero length.
///
/// # Safety
/// A non-null `pointer` is readable for `len` bytes for the returned lifetime.
unsafe fn bytes<'a>(pointer: *const u8, len: usize) -> &'a [u8] {
    if pointer.is_null() || len == 0 {
        return &[];
    }
    // SAFETY: non-null and readable for `len` bytes by the caller's guarantee.
    unsafe { std::slice::from_raw_parts(pointer, len) }
}

/// Hands `bytes` over as a buffer the host gives back to [`free_buffer`].
fn into_buffer(bytes: Vec<u8>) -> PluginBuffer {
    if bytes.is_empty() {
        return PluginBuffer::empty();
    }
    let mut bytes = std::mem::ManuallyDrop::new(bytes);
    PluginBuffer {
        data: bytes.as_mut_ptr(),
        len: bytes.len(),
        capacity: bytes.capacity(),
    }
}

/// `PluginTable::free_buffer`.
///
/// # Safety
/// `buffer` was filled by [`into_buffer`] and is freed once (the host's contract).
unsafe extern "C" fn free_buffer(buffer: PluginBuffer) {
    if !buffer.data.is_null() {
        // SAFETY: the parts are those of a `Vec<u8>` leaked by `into_buffer`.
        drop(unsafe { Vec::from_raw_parts(buffer.data, buffer.len, buffer.capacity) });
    }
}

/// Pointer-level helpers for the SDK's own tests.
#[cfg(test)]
pub(crate) mod tests {
    use std::ffi::{CStr, c_char};

    use super::*;

    fn register(ctx: &mut crate::PluginContext) -> Result<(), String> {
        ctx.register_hook(crate::events::PRE_TOOL_CALL, |call| {
            if call.tool_name == "boom" {
                panic!("asked to panic");
            }
            crate::ToolDecision::block(format!("no {}", call.tool_name))
        })
        .map_err(|error| error.to_string())?;
        ctx.register_system_prompt_section("unit.rules", "be careful")
            .map_err(|error| error.to_string())
    }

    static PLUGIN: Exported = Exported::new("unit", register);

    /// Calls `function` through its C signature and returns the status and bytes.
    fn through_abi(
        table: &PluginTable,
        function: crate::abi::CallFn,
        name: &str,
        json: &str,
    ) -> (i32, String) {
        let mut out = PluginBuffer::empty();
        // SAFETY: live slices, a valid empty `out`, the table's own ctx.
        let status = unsafe {
            function(
                table.ctx,
                name.as_ptr(),
                name.len(),
                json.as_ptr(),
                json.len(),
                &mut out,
            )
        };
        let text = if out.data.is_null() {
            String::new()
        } else {
            // SAFETY: `data` holds `len` bytes until `free_buffer`.
            let copied = unsafe { std::slice::from_raw_parts(out.data, out.len) }.to_vec();
            if let Some(free) = table.free_buffer {
                // SAFETY: handed back once, unchanged.
                unsafe { free(out) };
            }
            String::from_utf8_lossy(&copied).into_owned()
        };
        (status, text)
    }

    #[test]
    fn the_table_answers_through_the_c_signatures() {
        // SAFETY: `table()` points into the static `PLUGIN`.
        let table = unsafe { &*PLUGIN.table() };
        assert_eq!((table.size, table.abi_version), (TABLE_SIZE, ABI_VERSION));
        assert!(table.load_error.is_null());
        // SAFETY: NUL-terminated strings owned by the static table.
        let text = |pointer: *const c_char| unsafe { CStr::from_ptr(pointer) }.to_string_lossy();
        assert_eq!(text(table.name), "unit");
        assert_eq!(text(table.hooks_json), r#"["pre_tool_call"]"#);
        assert_eq!(
            text(table.prompt_sections_json),
            r#"[{"id":"unit.rules","position":"after_memory","max_chars":4000}]"#
        );
        let call = table.call.expect("call");
        assert_eq!(
            through_abi(table, call, "pre_tool_call", r#"{"tool_name": "ls"}"#),
            (0, r#"{"action":"block","message":"no ls"}"#.to_owned())
        );
        let (status, message) =
            through_abi(table, call, "pre_tool_call", r#"{"tool_name": "boom"}"#);
        assert_eq!((status, message.as_str()), (2, "panicked: asked to panic"));
        let (status, message) = through_abi(table, call, "post_tool_call", "{}");
        assert_eq!(
            (status, message.as_str()),
            (1, "no hook is registered for 'post_tool_call'")
        );
        let render = table.render_section.expect("render_section");
        assert_eq!(
            through_abi(table, render, "unit.rules", r#"{"session_id": "s"}"#),
            (0, r#""be careful""#.to_owned())
        );
    }
}
