//! All unsafe code of the crate: opening a library, reading its table, calling it.
//!
//! Everything a library hands over is checked here before safe code sees it:
//! the ABI version (before the entry symbol is even called), the table pointer,
//! its declared size (fields beyond it are never read), null fields, UTF-8,
//! and the size of every reply. Libraries are never unloaded: once opened, a
//! `Library` is leaked, so every function pointer copied out of it stays valid
//! for the life of the process.

// Without `native` only `open_library`'s refusal is reachable.
#![cfg_attr(not(feature = "native"), allow(dead_code, unused_imports))]

use std::ffi::{CStr, c_char, c_void};
use std::path::Path;

#[cfg(feature = "native")]
use libloading::Library;

use crate::abi::{
    ABI_VERSION, ABI_VERSION_SYMBOL, AbiVersionFn, CallFn, ENTRY_SYMBOL, EntryFn, FreeBufferFn,
    MAX_REPLY_BYTES, PluginBuffer, PluginTable, TABLE_SIZE, TABLE_SIZE_BASE,
};
use crate::error::LoadError;
use crate::libfile;

/// What a validated table offers, copied into owned values.
#[derive(Debug)]
pub(crate) struct RawTable {
    /// The table size the library declared.
    pub size: usize,
    /// The name the library declares.
    pub name: String,
    /// The `hooks_json` text (not yet parsed).
    pub hooks_json: String,
    /// The `prompt_sections_json` text, when the table has the field and it is set.
    pub sections_json: Option<String>,
    /// The callable half of the table.
    pub entry: PluginEntry,
}

/// The function pointers and context of a loaded plugin.
#[derive(Debug)]
pub(crate) struct PluginEntry {
    ctx: *mut c_void,
    call: CallFn,
    render_section: Option<CallFn>,
    free_buffer: FreeBufferFn,
}

// SAFETY: the ABI contract requires `call`, `render_section` and
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

/// A reply buffer the host refused to copy.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum BufferProblem {
    /// The buffer is inconsistent (null data with a length, ...).
    Malformed(String),
    /// The reply is larger than [`MAX_REPLY_BYTES`].
    TooLarge(usize),
}

/// Without the `native` feature no library is opened: the plugin fails to
/// load, saying why (the caller turns it into a warning naming the plugin).
#[cfg(not(feature = "native"))]
pub(crate) fn open_library(library: &Path) -> Result<RawTable, LoadError> {
    Err(LoadError::Open {
        library: library.to_owned(),
        message: NEEDS_NATIVE_FEATURE.to_owned(),
    })
}

/// The load error of every native plugin in a build without the `native` feature.
#[cfg_attr(feature = "native", allow(dead_code))]
pub(crate) const NEEDS_NATIVE_FEATURE: &str =
    "this build cannot load native plugins: they need the `native` feature of hermes-hooks-plugin";

/// Opens `library`, checks its ABI and reads its table.
#[cfg(feature = "native")]
pub(crate) fn open_library(library: &Path) -> Result<RawTable, LoadError> {
    if !library.exists() {
        return Err(LoadError::NotFound {
            library: library.to_owned(),
        });
    }
    // Before any of its code runs: a file others may write is refused.
    let before = libfile::check_before_load(library)?;
    // SAFETY: loading a library runs its initialisers. Native plugins are
    // trusted code by design (see `NATIVE_TRUST_NOTE`): the user enabled this
    // plugin in config.yaml. The path was checked to exist and is passed verbatim.
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
    let entry_fn: EntryFn = symbol(opened, library, ENTRY_SYMBOL)?;
    // SAFETY: version 1 declares the entry as `extern "C" fn() -> *const
    // PluginTable`, with no arguments; the pointer is validated below.
    let table = unsafe { entry_fn() };
    // SAFETY: `table` comes from the entry symbol of a library that reported
    // ABI version 1, whose contract says it points at a table of `size`
    // bytes (or is null, which `read_table` checks) that lives as long as the
    // (leaked) library.
    let raw = unsafe { read_table(library, table) }?;
    // What was mapped must be what is on disk: a library copied over while it
    // loaded is never called again.
    libfile::check_after_load(library, before)?;
    Ok(raw)
}

/// Copies the function pointer exported as `name`.
#[cfg(feature = "native")]
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

/// Validates and copies the table at `table`, reading only the fields its
/// `size` covers.
///
/// # Safety
/// `table` is null, or points at memory of at least `size_of::<usize>()`
/// readable bytes whose first word is the table size, and at that many
/// readable bytes laid out as the prefix of a [`PluginTable`], whose non-null
/// string fields point at NUL-terminated strings, all alive for the rest of
/// the process.
pub(crate) unsafe fn read_table(
    library: &Path,
    table: *const PluginTable,
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
    // readable. Only `size` is read until it is known to cover more.
    let size = unsafe { table.cast::<usize>().read() };
    if size < TABLE_SIZE_BASE {
        return Err(LoadError::ShortTable {
            library: library.to_owned(),
            size,
            expected: TABLE_SIZE_BASE,
        });
    }
    // SAFETY: `size` covers the base table, so every base field is readable;
    // fields are read one by one through raw places, never as a whole table.
    let (abi_version, name, hooks_json, call, free_buffer, ctx) = unsafe {
        (
            (&raw const (*table).abi_version).read(),
            (&raw const (*table).name).read(),
            (&raw const (*table).hooks_json).read(),
            (&raw const (*table).call).read(),
            (&raw const (*table).free_buffer).read(),
            (&raw const (*table).ctx).read(),
        )
    };
    // The prompt-section revision appended three fields at once.
    let (sections_json, render_section, load_error) = if size >= TABLE_SIZE {
        // SAFETY: `size` covers the whole table this host knows.
        unsafe {
            (
                (&raw const (*table).prompt_sections_json).read(),
                (&raw const (*table).render_section).read(),
                (&raw const (*table).load_error).read(),
            )
        }
    } else {
        (std::ptr::null(), None, std::ptr::null())
    };
    if abi_version != ABI_VERSION {
        return Err(LoadError::AbiVersion {
            library: library.to_owned(),
            source_of_version: "abi_version",
            found: abi_version,
            expected: ABI_VERSION,
        });
    }
    if !load_error.is_null() {
        // SAFETY: non-null string field of a table the caller vouches for.
        let message = unsafe { CStr::from_ptr(load_error) };
        return Err(LoadError::Registration {
            library: library.to_owned(),
            message: message.to_string_lossy().into_owned(),
        });
    }
    let null = |field| LoadError::NullField {
        library: library.to_owned(),
        field,
    };
    let call = call.ok_or_else(|| null("call"))?;
    let free_buffer = free_buffer.ok_or_else(|| null("free_buffer"))?;
    // SAFETY: the caller guarantees non-null text fields are NUL-terminated
    // strings alive for the process.
    let name = unsafe { table_text(library, "name", name) }?;
    // SAFETY: as for `name`.
    let hooks_json = unsafe { table_text(library, "hooks_json", hooks_json) }?;
    let sections_json = if sections_json.is_null() {
        None
    } else {
        // SAFETY: as for `name`.
        Some(unsafe { table_text(library, "prompt_sections_json", sections_json) }?)
    };
    Ok(RawTable {
        size,
        name,
        hooks_json,
        sections_json,
        entry: PluginEntry {
            ctx,
            call,
            render_section,
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
    /// Calls the plugin's hook with an event name and a JSON payload.
    ///
    /// Whatever the plugin allocated is given back to its `free_buffer`,
    /// whether the buffer was accepted or not.
    #[cfg(test)]
    pub(crate) fn call(&self, event: &[u8], payload: &[u8]) -> Result<RawReply, BufferProblem> {
        self.call_with(event, payload, |status, bytes| RawReply {
            status,
            bytes: bytes.to_vec(),
        })
    }

    /// [`PluginEntry::call`] that hands the reply to `read` while it is still
    /// in the plugin's buffer (no copy), before the buffer is given back.
    pub(crate) fn call_with<R>(
        &self,
        event: &[u8],
        payload: &[u8],
        read: impl FnOnce(i32, &[u8]) -> R,
    ) -> Result<R, BufferProblem> {
        self.invoke(self.call, event, payload, read)
    }

    /// Whether the plugin can render prompt sections.
    pub(crate) fn renders_sections(&self) -> bool {
        self.render_section.is_some()
    }

    /// Asks the plugin for the text of section `id`, given the session info as JSON.
    pub(crate) fn render_section(
        &self,
        id: &[u8],
        session_info: &[u8],
    ) -> Result<RawReply, BufferProblem> {
        match self.render_section {
            Some(render) => self.invoke(render, id, session_info, |status, bytes| RawReply {
                status,
                bytes: bytes.to_vec(),
            }),
            None => Err(BufferProblem::Malformed(
                "the table has no render_section".to_owned(),
            )),
        }
    }

    fn invoke<R>(
        &self,
        function: CallFn,
        name: &[u8],
        json: &[u8],
        read: impl FnOnce(i32, &[u8]) -> R,
    ) -> Result<R, BufferProblem> {
        let mut out = PluginBuffer::empty();
        // SAFETY: the pointers and lengths describe live host slices that
        // outlive the call; `out` points at a valid empty buffer; `function`
        // and `ctx` come from a validated table of a never-unloaded library,
        // and the ABI requires the function to be thread-safe and to catch
        // its panics.
        let status = unsafe {
            function(
                self.ctx,
                name.as_ptr(),
                name.len(),
                json.as_ptr(),
                json.len(),
                &mut out,
            )
        };
        let outcome = if out.data.is_null() {
            if out.len == 0 {
                Ok(read(status, &[]))
            } else {
                Err(BufferProblem::Malformed(format!(
                    "null data with length {}",
                    out.len
                )))
            }
        } else if out.len > MAX_REPLY_BYTES {
            // Refused unread: a runaway plugin cannot make the host copy or parse it.
            Err(BufferProblem::TooLarge(out.len))
        } else {
            // SAFETY: the ABI requires a non-null `data` to point at `len`
            // initialised bytes owned by the plugin until `free_buffer`,
            // which runs only after `read` returned (the slice does not
            // outlive this block); `len` is at most 16 MiB.
            let bytes = unsafe { std::slice::from_raw_parts(out.data, out.len) };
            Ok(read(status, bytes))
        };
        if !out.data.is_null() {
            // SAFETY: the buffer was filled by this plugin and is handed back
            // exactly once, unchanged, as the ABI requires.
            unsafe { (self.free_buffer)(out) };
        }
        outcome
    }
}

#[cfg(test)]
mod tests;
