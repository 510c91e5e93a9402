//! All unsafe code of the crate: opening a library, reading its table, calling it.
//!
//! Everything a library hands over is checked here before safe code sees it:
//! the ABI version (before the entry symbol is even called), the table pointer,
//! its declared size, null fields and UTF-8. Libraries are never unloaded: once
//! opened, a `Library` is leaked, so every function pointer copied out of it
//! stays valid for the life of the process.

use std::ffi::{CStr, c_char, c_void};
use std::path::Path;

use libloading::Library;

use crate::abi::{
    ABI_VERSION, ABI_VERSION_SYMBOL, AbiVersionFn, CallFn, ENTRY_SYMBOL_V1, EntryFnV1,
    FreeBufferFn, PluginBuffer, PluginTableV1, TABLE_V1_SIZE,
};
use crate::error::LoadError;

/// What a validated table offers, copied into owned values.
#[derive(Debug)]
pub(crate) struct RawTable {
    /// The name the library declares.
    pub name: String,
    /// The `hooks_json` text (not yet parsed).
    pub hooks_json: String,
    /// The callable half of the table.
    pub entry: PluginEntry,
}

/// The function pointers and context of a loaded plugin.
#[derive(Debug)]
pub(crate) struct PluginEntry {
    ctx: *mut c_void,
    call: CallFn,
    free_buffer: FreeBufferFn,
}

// SAFETY: the ABI contract (ABI.md, "Threads") requires `call` and
// `free_buffer` to be callable from any thread, concurrently, with the same
// `ctx`, and `ctx` to stay valid for the life of the process (the library is
// never unloaded). The host never dereferences `ctx` itself.
unsafe impl Send for PluginEntry {}
// SAFETY: see `Send` above; `PluginEntry` holds no interior mutability.
unsafe impl Sync for PluginEntry {}

/// The raw result of one call: the status and a copy of the reply bytes.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct RawReply {
    /// 0 = ok, anything else = error.
    pub status: i32,
    /// The bytes of `out` (reply JSON or error message), copied.
    pub bytes: Vec<u8>,
}

/// Opens `library`, checks its ABI and reads its table.
pub(crate) fn open_library(library: &Path) -> Result<RawTable, LoadError> {
    if !library.exists() {
        return Err(LoadError::NotFound {
            library: library.to_owned(),
        });
    }
    // SAFETY: loading a library runs its initialisers. Native plugins are
    // trusted code by design (ABI.md, "Trust"): the user enabled this plugin
    // in config.yaml. The path was checked to exist and is passed verbatim.
    let opened = unsafe { Library::new(library) }.map_err(|error| LoadError::Open {
        library: library.to_owned(),
        message: error.to_string(),
    })?;
    // Never unload: a library whose initialisers ran may have started threads
    // or registered destructors; unloading it under them is undefined.
    let opened: &'static Library = Box::leak(Box::new(opened));

    let version_fn: AbiVersionFn = symbol(opened, library, ABI_VERSION_SYMBOL)?;
    // SAFETY: the symbol is declared by the ABI as `extern "C" fn() -> u32`,
    // takes no arguments and touches no host memory.
    let version = unsafe { version_fn() };
    if version != ABI_VERSION {
        // The entry symbol of another ABI version may have another signature:
        // do not call it.
        return Err(LoadError::AbiVersion {
            library: library.to_owned(),
            source_of_version: ABI_VERSION_SYMBOL,
            found: version,
            expected: ABI_VERSION,
        });
    }
    let entry_fn: EntryFnV1 = symbol(opened, library, ENTRY_SYMBOL_V1)?;
    // SAFETY: version 1 declares the entry as `extern "C" fn() -> *const
    // PluginTableV1`, with no arguments; the pointer is validated below.
    let table = unsafe { entry_fn() };
    // SAFETY: `table` comes from the entry symbol of a library that reported
    // ABI version 1, whose contract says it points at a table (or is null,
    // which `read_table` checks) that lives as long as the (leaked) library.
    unsafe { read_table(library, table) }
}

/// Copies the function pointer exported as `name`.
fn symbol<T: Copy>(
    opened: &'static Library,
    library: &Path,
    name: &'static str,
) -> Result<T, LoadError> {
    let mut with_nul = Vec::with_capacity(name.len() + 1);
    with_nul.extend_from_slice(name.as_bytes());
    with_nul.push(0);
    // SAFETY: `T` is one of the ABI's function pointer types for exactly this
    // symbol name (see the callers); the library is leaked, so the pointer
    // outlives the `Symbol` borrow it is copied from.
    let found = unsafe { opened.get::<T>(&with_nul) };
    found
        .map(|found| *found)
        .map_err(|error| LoadError::MissingSymbol {
            library: library.to_owned(),
            symbol: name,
            message: error.to_string(),
        })
}

/// Validates and copies the table at `table`.
///
/// # Safety
/// `table` is null, or points at memory of at least `size_of::<usize>()`
/// readable bytes whose first word is the table size, and, when that size is
/// at least [`TABLE_V1_SIZE`], at a readable [`PluginTableV1`] whose non-null
/// `name`/`hooks_json` point at NUL-terminated strings, all alive for the rest
/// of the process.
pub(crate) unsafe fn read_table(
    library: &Path,
    table: *const PluginTableV1,
) -> Result<RawTable, LoadError> {
    let bad_pointer = |problem| LoadError::BadTablePointer {
        library: library.to_owned(),
        problem,
    };
    if table.is_null() {
        return Err(bad_pointer("null"));
    }
    if !table.is_aligned() {
        return Err(bad_pointer("misaligned"));
    }
    // SAFETY: non-null and aligned; the caller guarantees the first word is
    // readable. Only `size` is read until it is known to cover the table.
    let size = unsafe { table.cast::<usize>().read() };
    if size < TABLE_V1_SIZE {
        return Err(LoadError::ShortTable {
            library: library.to_owned(),
            size,
            expected: TABLE_V1_SIZE,
        });
    }
    // SAFETY: the table declares at least a whole version-1 table; fields a
    // later version appends beyond it are not read.
    let fields = unsafe { table.read() };
    if fields.abi_version != ABI_VERSION {
        return Err(LoadError::AbiVersion {
            library: library.to_owned(),
            source_of_version: "abi_version",
            found: fields.abi_version,
            expected: ABI_VERSION,
        });
    }
    let null = |field| LoadError::NullField {
        library: library.to_owned(),
        field,
    };
    let call = fields.call.ok_or_else(|| null("call"))?;
    let free_buffer = fields.free_buffer.ok_or_else(|| null("free_buffer"))?;
    // SAFETY: the caller guarantees non-null text fields are NUL-terminated
    // strings alive for the process.
    let name = unsafe { table_text(library, "name", fields.name) }?;
    // SAFETY: as for `name`.
    let hooks_json = unsafe { table_text(library, "hooks_json", fields.hooks_json) }?;
    Ok(RawTable {
        name,
        hooks_json,
        entry: PluginEntry {
            ctx: fields.ctx,
            call,
            free_buffer,
        },
    })
}

/// Copies a NUL-terminated UTF-8 field of the table.
///
/// # Safety
/// `text` is null or points at a NUL-terminated string.
unsafe fn table_text(
    library: &Path,
    field: &'static str,
    text: *const c_char,
) -> Result<String, LoadError> {
    if text.is_null() {
        return Err(LoadError::NullField {
            library: library.to_owned(),
            field,
        });
    }
    // SAFETY: non-null, and NUL-terminated by the caller's guarantee.
    let text = unsafe { CStr::from_ptr(text) };
    text.to_str()
        .map(str::to_owned)
        .map_err(|error| LoadError::InvalidField {
            library: library.to_owned(),
            field,
            message: format!("not UTF-8 ({error})"),
        })
}

impl PluginEntry {
    /// Calls the plugin with an event name and a JSON payload.
    ///
    /// Returns `Err` with a reason when the plugin filled `out` inconsistently;
    /// whatever it allocated is given back to its `free_buffer` either way.
    pub(crate) fn call(&self, event: &[u8], payload: &[u8]) -> Result<RawReply, String> {
        let mut out = PluginBuffer::empty();
        // SAFETY: the pointers and lengths describe live host slices that
        // outlive the call; `out` points at a valid empty buffer; `call` and
        // `ctx` come from a validated table of a never-unloaded library, and
        // the ABI requires `call` to be thread-safe and to catch its panics.
        let status = unsafe {
            (self.call)(
                self.ctx,
                event.as_ptr(),
                event.len(),
                payload.as_ptr(),
                payload.len(),
                &mut out,
            )
        };
        let copied = if out.data.is_null() {
            if out.len == 0 {
                Ok(Vec::new())
            } else {
                Err(format!("null data with length {}", out.len))
            }
        } else if out.len > isize::MAX as usize {
            Err(format!("length {} exceeds isize::MAX", out.len))
        } else {
            // SAFETY: the ABI requires a non-null `data` to point at `len`
            // initialised bytes owned by the plugin until `free_buffer`,
            // which runs only after this copy.
            Ok(unsafe { std::slice::from_raw_parts(out.data, out.len) }.to_vec())
        };
        if !out.data.is_null() {
            // SAFETY: the buffer was filled by this plugin's `call` and is
            // handed back exactly once, unchanged, as the ABI requires.
            unsafe { (self.free_buffer)(out) };
        }
        copied.map(|bytes| RawReply { status, bytes })
    }
}

#[cfg(test)]
mod tests {
    //! The validation and call paths, against tables built in this process.

    use std::ffi::c_void;
    use std::path::Path;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    static FREED: AtomicUsize = AtomicUsize::new(0);

    /// Replies `<event>|<payload>`; status 7 for the event `fail`; for the
    /// event `lie`, claims five bytes at a null pointer.
    extern "C" fn echo_call(
        _ctx: *mut c_void,
        event_ptr: *const u8,
        event_len: usize,
        payload_ptr: *const u8,
        payload_len: usize,
        out: *mut PluginBuffer,
    ) -> i32 {
        // SAFETY: the host passes live slices and a valid `out` (ABI contract).
        let (event, payload, out) = unsafe {
            (
                std::slice::from_raw_parts(event_ptr, event_len),
                std::slice::from_raw_parts(payload_ptr, payload_len),
                &mut *out,
            )
        };
        if event == b"lie" {
            out.len = 5;
            return 0;
        }
        let mut reply = std::mem::ManuallyDrop::new([event, b"|", payload].concat());
        *out = PluginBuffer {
            data: reply.as_mut_ptr(),
            len: reply.len(),
            capacity: reply.capacity(),
        };
        if event == b"fail" { 7 } else { 0 }
    }

    extern "C" fn counting_free(buffer: PluginBuffer) {
        FREED.fetch_add(1, Ordering::SeqCst);
        // SAFETY: every buffer handed out by `echo_call` is a leaked Vec with these parts.
        drop(unsafe { Vec::from_raw_parts(buffer.data, buffer.len, buffer.capacity) });
    }

    fn table() -> PluginTableV1 {
        PluginTableV1 {
            size: TABLE_V1_SIZE,
            abi_version: ABI_VERSION,
            name: c"fake".as_ptr(),
            hooks_json: c"[\"pre_tool_call\"]".as_ptr(),
            call: Some(echo_call),
            free_buffer: Some(counting_free),
            ctx: std::ptr::null_mut(),
        }
    }

    fn read(table: &PluginTableV1) -> Result<RawTable, LoadError> {
        // SAFETY: `table` is a live, complete table whose strings are 'static literals.
        unsafe { read_table(Path::new("/lib/fake.so"), table) }
    }

    fn error(table: &PluginTableV1) -> String {
        match read(table) {
            Ok(_) => panic!("table accepted"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn valid_table_is_copied() {
        let raw = read(&table()).expect("valid table");
        assert_eq!(raw.name, "fake");
        assert_eq!(raw.hooks_json, r#"["pre_tool_call"]"#);
    }

    #[test]
    fn null_table_is_refused() {
        // SAFETY: null is explicitly allowed by `read_table`.
        let result = unsafe { read_table(Path::new("/lib/fake.so"), std::ptr::null()) };
        let message = result.err().map(|e| e.to_string()).unwrap_or_default();
        assert_eq!(message, "/lib/fake.so: the plugin table pointer is null");
    }

    #[test]
    fn short_table_is_refused_before_reading_fields() {
        let mut short = table();
        short.size = std::mem::size_of::<usize>();
        assert!(
            error(&short).contains("too short: size 8 bytes"),
            "{}",
            error(&short)
        );
    }

    #[test]
    fn grown_table_is_accepted() {
        #[repr(C)]
        struct Grown {
            v1: PluginTableV1,
            later_field: usize,
        }
        let mut grown = Grown {
            v1: table(),
            later_field: 42,
        };
        grown.v1.size = std::mem::size_of::<Grown>();
        assert!(grown.later_field == 42 && read(&grown.v1).is_ok());
    }

    #[test]
    fn wrong_table_version_is_refused() {
        let mut wrong = table();
        wrong.abi_version = 2;
        assert!(error(&wrong).contains("ABI version 2 is not supported"));
    }

    #[test]
    fn null_and_invalid_fields_are_named() {
        let mut no_name = table();
        no_name.name = std::ptr::null();
        assert!(error(&no_name).ends_with("field `name` is null"));
        let mut no_call = table();
        no_call.call = None;
        assert!(error(&no_call).ends_with("field `call` is null"));
        let mut no_free = table();
        no_free.free_buffer = None;
        assert!(error(&no_free).ends_with("field `free_buffer` is null"));
        let mut latin1 = table();
        latin1.name = c"caf\xe9".as_ptr();
        assert!(error(&latin1).contains("field `name` is invalid: not UTF-8"));
    }

    #[test]
    fn call_copies_the_reply_and_frees_it_once() {
        let raw = read(&table()).expect("valid table");
        let before = FREED.load(Ordering::SeqCst);
        let reply = raw.entry.call(b"pre_tool_call", b"{}");
        assert_eq!(
            reply,
            Ok(RawReply {
                status: 0,
                bytes: b"pre_tool_call|{}".to_vec()
            })
        );
        let failed = raw.entry.call(b"fail", b"{}");
        assert_eq!(failed.map(|reply| reply.status), Ok(7));
        assert_eq!(FREED.load(Ordering::SeqCst), before + 2);
    }

    #[test]
    fn null_data_with_a_length_is_an_error() {
        let raw = read(&table()).expect("valid table");
        assert_eq!(
            raw.entry.call(b"lie", b"{}"),
            Err("null data with length 5".to_owned())
        );
    }
}
