//! The validation and call paths, against tables built in this process.

use std::cell::Cell;
use std::ffi::c_void;
use std::path::Path;

use super::*;

thread_local! {
    /// Buffers freed on this thread: per thread, so tests running in
    /// parallel (and calling `counting_free` too) do not disturb the count.
    static FREED: Cell<usize> = const { Cell::new(0) };
}

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
    if event == b"huge" {
        // Claims one byte more than the cap over a one-byte allocation: the
        // host must refuse it without reading.
        let mut reply = std::mem::ManuallyDrop::new(vec![b'x']);
        *out = PluginBuffer {
            data: reply.as_mut_ptr(),
            len: MAX_REPLY_BYTES + 1,
            capacity: reply.capacity(),
        };
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
    FREED.with(|freed| freed.set(freed.get() + 1));
    // SAFETY: every buffer handed out by `echo_call` is a leaked `Vec<u8>`
    // with this pointer and capacity; a length of 0 is valid for any of them
    // (bytes need no drop), including the one that lies about its length.
    drop(unsafe { Vec::from_raw_parts(buffer.data, 0, buffer.capacity) });
}

fn table() -> PluginTable {
    PluginTable {
        size: TABLE_SIZE,
        abi_version: ABI_VERSION,
        name: c"fake".as_ptr(),
        hooks_json: c"[\"pre_tool_call\"]".as_ptr(),
        call: Some(echo_call),
        free_buffer: Some(counting_free),
        ctx: std::ptr::null_mut(),
        prompt_sections_json:
            c"[{\"id\": \"fake.rules\", \"position\": \"after_memory\", \"max_chars\": 10}]"
                .as_ptr(),
        render_section: Some(echo_call),
        load_error: std::ptr::null(),
    }
}

fn read(table: &PluginTable) -> Result<RawTable, LoadError> {
    // SAFETY: `table` is a live, complete table whose strings are 'static literals.
    unsafe { read_table(Path::new("/lib/fake.so"), table) }
}

fn error(table: &PluginTable) -> String {
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
    assert_eq!(raw.size, TABLE_SIZE);
    assert!(
        raw.sections_json
            .is_some_and(|json| json.contains("fake.rules"))
    );
    assert!(raw.entry.renders_sections());
}

#[test]
fn a_base_size_table_is_read_without_its_later_fields() {
    // A plugin built before prompt sections: the fields after `ctx` are not
    // part of its table and must not be read, whatever the memory there holds.
    let mut base = table();
    base.size = TABLE_SIZE_BASE;
    base.load_error = c"garbage that must not be read".as_ptr();
    let raw = read(&base).expect("a base table loads");
    assert_eq!(raw.size, TABLE_SIZE_BASE);
    assert_eq!(raw.sections_json, None);
    assert!(!raw.entry.renders_sections());
}

#[test]
fn a_registration_error_refuses_the_plugin_with_its_message() {
    let mut failed = table();
    failed.load_error = c"register failed: bad section id".as_ptr();
    assert_eq!(
        error(&failed),
        "/lib/fake.so: the plugin's registration failed: register failed: bad section id"
    );
}

#[test]
fn a_reply_over_the_cap_is_refused_unread_and_still_freed() {
    let raw = read(&table()).expect("valid table");
    let before = FREED.with(Cell::get);
    assert_eq!(
        raw.entry.call(b"huge", b"{}"),
        Err(BufferProblem::TooLarge(MAX_REPLY_BYTES + 1))
    );
    assert!(FREED.with(Cell::get) > before);
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
        v1: PluginTable,
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
    let before = FREED.with(Cell::get);
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
    assert_eq!(FREED.with(Cell::get), before + 2);
}

#[test]
fn null_data_with_a_length_is_an_error() {
    let raw = read(&table()).expect("valid table");
    assert_eq!(
        raw.entry.call(b"lie", b"{}"),
        Err(BufferProblem::Malformed(
            "null data with length 5".to_owned()
        ))
    );
}
