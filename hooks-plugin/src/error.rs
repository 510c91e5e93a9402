//! Errors of loading a native plugin and of calling one.

use std::path::PathBuf;

/// A library that could not be loaded as a plugin. Every message names the library.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The file does not exist.
    #[error("{library}: library not found")]
    NotFound {
        /// The library path.
        library: PathBuf,
    },
    /// The dynamic loader refused the file (not a library, wrong architecture, missing dependency).
    #[error("{library}: cannot load library: {message}")]
    Open {
        /// The library path.
        library: PathBuf,
        /// The loader's message.
        message: String,
    },
    /// A required symbol is not exported.
    #[error("{library}: not a hooks plugin: symbol `{symbol}` not found ({message})")]
    MissingSymbol {
        /// The library path.
        library: PathBuf,
        /// The missing symbol.
        symbol: &'static str,
        /// The loader's message.
        message: String,
    },
    /// The library speaks another ABI version.
    #[error(
        "{library}: plugin ABI version {found} is not supported (this host speaks version {expected})"
    )]
    AbiVersion {
        /// The library path.
        library: PathBuf,
        /// Where the version was read: the exported symbol or the table's field.
        source_of_version: &'static str,
        /// The version the library reported.
        found: u32,
        /// The version this host speaks.
        expected: u32,
    },
    /// The entry symbol returned a null or misaligned table pointer.
    #[error("{library}: the plugin table pointer is {problem}")]
    BadTablePointer {
        /// The library path.
        library: PathBuf,
        /// `null` or `misaligned`.
        problem: &'static str,
    },
    /// The table's `size` is smaller than the base table every ABI-1 plugin fills.
    #[error(
        "{library}: the plugin table is too short: size {size} bytes, the base table needs {expected}"
    )]
    ShortTable {
        /// The library path.
        library: PathBuf,
        /// The size the table declared.
        size: usize,
        /// The size of the base table.
        expected: usize,
    },
    /// The plugin's own registration failed (its `register` returned an
    /// error or panicked, e.g. an invalid prompt section).
    #[error("{library}: the plugin's registration failed: {message}")]
    Registration {
        /// The library path.
        library: PathBuf,
        /// The plugin's message.
        message: String,
    },
    /// A required table field is null.
    #[error("{library}: the plugin table field `{field}` is null")]
    NullField {
        /// The library path.
        library: PathBuf,
        /// The field.
        field: &'static str,
    },
    /// A text field of the table is not valid UTF-8 or not valid content.
    #[error("{library}: the plugin table field `{field}` is invalid: {message}")]
    InvalidField {
        /// The library path.
        library: PathBuf,
        /// The field.
        field: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The library file (or a directory it resolves through) can be written
    /// by users other than its owner: whoever can replace it runs code in
    /// the host. It is not loaded.
    #[error(
        "{library}: refusing to load a library that is writable by group or others (mode {mode:04o}); run `chmod go-w {library}`"
    )]
    Writable {
        /// The library path.
        library: PathBuf,
        /// The file's permission bits.
        mode: u32,
    },
    /// The library file changed (size, modification time or inode) while it
    /// was being loaded: what is mapped is not what is on disk, and copying
    /// over a mapped library crashes the host. It is not used.
    #[error(
        "{library}: the library file changed while it was being loaded ({what}); refusing to use it. Replace a plugin library with an atomic `mv` of a new file, never `cp` over it"
    )]
    Changed {
        /// The library path.
        library: PathBuf,
        /// What changed.
        what: String,
    },
}

/// A hook call into a plugin that did not give a usable reply. Every message names the plugin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PluginCallError {
    /// The plugin returned a non-zero status (its own error, or a panic it caught).
    #[error("plugin '{plugin}' failed on {event} (status {status}): {message}")]
    Failed {
        /// The plugin's name.
        plugin: String,
        /// The event name.
        event: String,
        /// The status the plugin returned.
        status: i32,
        /// The plugin's error message (truncated).
        message: String,
    },
    /// The plugin replied with bytes that are not JSON.
    #[error("plugin '{plugin}' replied to {event} with invalid JSON: {message}")]
    InvalidReply {
        /// The plugin's name.
        plugin: String,
        /// The event name.
        event: String,
        /// The parser's message.
        message: String,
    },
    /// The plugin filled the reply buffer inconsistently (null data with a length).
    #[error("plugin '{plugin}' returned a malformed buffer for {event}: {message}")]
    BadBuffer {
        /// The plugin's name.
        plugin: String,
        /// The event name.
        event: String,
        /// What is wrong.
        message: String,
    },
    /// The reply is larger than the host accepts (`abi::MAX_REPLY_BYTES`, 16 MiB).
    #[error(
        "plugin '{plugin}' replied to {event} with {len} bytes, more than the {limit}-byte cap; reply refused"
    )]
    ReplyTooLarge {
        /// The plugin's name.
        plugin: String,
        /// The event name (or `system prompt section <id>`).
        event: String,
        /// The reply's size.
        len: usize,
        /// The cap.
        limit: usize,
    },
    /// The payload could not be serialised to JSON.
    #[error("plugin '{plugin}': cannot serialise the {event} payload: {message}")]
    Payload {
        /// The plugin's name.
        plugin: String,
        /// The event name.
        event: String,
        /// The serialiser's message.
        message: String,
    },
}
