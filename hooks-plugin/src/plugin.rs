//! A loaded native plugin: its identity, its hooks and prompt sections, and calls into it.

use std::cell::RefCell;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hermes_hooks_core::prompt::{PromptSections, SectionContent, SectionError, SessionInfo};
use hermes_hooks_core::{Event, EventName};
use serde_json::Value;

use crate::abi::{ABI_VERSION, MAX_REPLY_BYTES};
use crate::error::{LoadError, PluginCallError};
use crate::ffi::{self, BufferProblem, PluginEntry, RawReply};

use crate::json;

/// A system-prompt section a plugin declares: id, position and `max_chars`
/// (its text comes from the plugin when a session starts).
pub use hermes_hooks_plugin_sdk::SectionSpec as PromptSection;

/// Error messages from a plugin are cut to this many bytes (at a char boundary).
const MAX_ERROR_MESSAGE_BYTES: usize = 2000;

/// A thread's payload buffer larger than this after a call is freed.
const MAX_KEPT_PAYLOAD_BYTES: usize = 64 * 1024;

thread_local! {
    /// The buffer each thread serialises native call payloads into, reused.
    static PAYLOAD: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// A native plugin whose library is loaded and whose table was validated.
///
/// `Send + Sync`: [`NativePlugin::call`] may run on several threads at once
/// (the ABI requires plugins to allow it).
pub struct NativePlugin {
    key: String,
    name: String,
    declared_name: String,
    library: PathBuf,
    table_size: usize,
    hooks: Vec<String>,
    sections: Vec<PromptSection>,
    entry: PluginEntry,
}

impl NativePlugin {
    /// Loads the library at `library` directly, without a manifest: key and
    /// name are the name the library declares.
    pub fn load(library: &Path) -> Result<NativePlugin, LoadError> {
        NativePlugin::load_as(library, None, None)
    }

    /// Loads `library` for the plugin `key` named `name` in its manifest;
    /// `None` takes the name the library declares.
    pub(crate) fn load_as(
        library: &Path,
        key: Option<&str>,
        name: Option<&str>,
    ) -> Result<NativePlugin, LoadError> {
        let raw = ffi::open_library(library)?;
        let hooks = parse_hooks(library, &raw.hooks_json)?;
        let sections = match &raw.sections_json {
            Some(json) => parse_sections(library, json)?,
            None => Vec::new(),
        };
        if !sections.is_empty() && !raw.entry.renders_sections() {
            return Err(LoadError::NullField {
                library: library.to_owned(),
                field: "render_section",
            });
        }
        let declared_name = raw.name;
        if declared_name.trim().is_empty() {
            return Err(LoadError::InvalidField {
                library: library.to_owned(),
                field: "name",
                message: "empty".to_owned(),
            });
        }
        Ok(NativePlugin {
            key: key.unwrap_or(&declared_name).to_owned(),
            name: name.unwrap_or(&declared_name).to_owned(),
            declared_name,
            library: library.to_owned(),
            table_size: raw.size,
            hooks,
            sections,
            entry: raw.entry,
        })
    }

    /// The plugin key: its folder name under `plugins/` (what `plugins.enabled` lists).
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The plugin's name from `plugin.yaml` (the folder name when absent): the callback owner.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name the library itself declares in its table.
    pub fn declared_name(&self) -> &str {
        &self.declared_name
    }

    /// The library file.
    pub fn library(&self) -> &Path {
        &self.library
    }

    /// The event names the plugin registers, in its order, without duplicates.
    pub fn hooks(&self) -> &[String] {
        &self.hooks
    }

    /// The plugin ABI version the library speaks (a library speaking another
    /// one is refused at load, so this is the host's [`ABI_VERSION`]).
    pub fn abi_version(&self) -> u32 {
        ABI_VERSION
    }

    /// The size of the table the library filled: `abi::TABLE_SIZE_BASE` for
    /// a plugin that predates prompt sections, `abi::TABLE_SIZE` or more after.
    pub fn table_size(&self) -> usize {
        self.table_size
    }

    /// The system-prompt sections the plugin declares, in its order.
    pub fn prompt_sections(&self) -> &[PromptSection] {
        &self.sections
    }

    /// Asks the plugin for the text of its section `id` for the session
    /// `info`: normally a JSON string; a failure of the plugin's function is
    /// an error naming the plugin.
    pub fn render_section(&self, id: &str, info: &SessionInfo) -> Result<Value, PluginCallError> {
        let what = format!("system prompt section {id}");
        let info = serde_json::to_vec(info).map_err(|error| PluginCallError::Payload {
            plugin: self.name.clone(),
            event: what.clone(),
            message: error.to_string(),
        })?;
        let raw = self.entry.render_section(id.as_bytes(), &info);
        Ok(self.decode(&what, raw)?.unwrap_or(Value::Null))
    }

    /// Registers every declared section into `registry` for this plugin,
    /// each computed by [`NativePlugin::render_section`] when a session
    /// starts; returns the registrations the registry refused (a duplicate
    /// id held by another plugin, ...). The others are registered.
    pub fn register_prompt_sections(
        self: &Arc<Self>,
        registry: &PromptSections,
    ) -> Vec<SectionError> {
        let mut refused = Vec::new();
        for section in &self.sections {
            let plugin = Arc::clone(self);
            let id = section.id.clone();
            let content = SectionContent::function(move |info: &SessionInfo| {
                plugin
                    .render_section(&id, info)
                    .map_err(|error| error.to_string())
            });
            if let Err(error) = registry.register(
                &self.name,
                &section.id,
                content,
                &section.position,
                section.max_chars,
            ) {
                refused.push(error);
            }
        }
        refused
    }

    /// Whether the plugin registers `event`.
    pub fn registers(&self, event: &str) -> bool {
        self.hooks.iter().any(|hook| hook == event)
    }

    /// Runs the plugin's hook for `event`: the payload is serialised to JSON
    /// once and handed over; `Ok(None)` means no reply (empty or JSON `null`).
    ///
    /// The JSON is written into a buffer this thread keeps for its native
    /// calls, so a call allocates nothing for its payload.
    pub fn call(&self, event: &Event) -> Result<Option<Value>, PluginCallError> {
        PAYLOAD.with(|buffer| match buffer.try_borrow_mut() {
            Ok(mut buffer) => {
                let reply = self.call_serialising(event, &mut buffer);
                if buffer.capacity() > MAX_KEPT_PAYLOAD_BYTES {
                    // One huge payload must not pin its memory for the thread's life.
                    *buffer = Vec::new();
                }
                reply
            }
            // Only a plugin call nested in another on this thread gets here.
            Err(_) => self.call_serialising(event, &mut Vec::new()),
        })
    }

    /// Serialises the payload of `event` into `buffer` (emptied first) and calls the hook.
    fn call_serialising(
        &self,
        event: &Event,
        buffer: &mut Vec<u8>,
    ) -> Result<Option<Value>, PluginCallError> {
        let event_name = event.name().as_str();
        buffer.clear();
        json::write_object(event.payload(), buffer).map_err(|error| PluginCallError::Payload {
            plugin: self.name.clone(),
            event: event_name.to_owned(),
            message: error.to_string(),
        })?;
        self.call_json(event_name, buffer)
    }

    /// Runs the plugin's hook for the event named `event_name` with a payload
    /// already serialised as a JSON object (to share one serialisation
    /// between several plugins).
    pub fn call_json(
        &self,
        event_name: &str,
        payload_json: &[u8],
    ) -> Result<Option<Value>, PluginCallError> {
        // The reply is read where the plugin left it: no copy of its bytes.
        let reply = self
            .entry
            .call_with(event_name.as_bytes(), payload_json, |status, bytes| {
                self.decode_reply(event_name, status, bytes)
            });
        self.buffer_problem(event_name, reply)?
    }

    /// Turns a raw reply into the reply JSON, or an error naming the plugin and `what`.
    fn decode(
        &self,
        what: &str,
        raw: Result<RawReply, BufferProblem>,
    ) -> Result<Option<Value>, PluginCallError> {
        let raw = self.buffer_problem(what, raw)?;
        self.decode_reply(what, raw.status, &raw.bytes)
    }

    /// A reply buffer the host refused, as an error naming the plugin and `what`.
    fn buffer_problem<T>(
        &self,
        what: &str,
        raw: Result<T, BufferProblem>,
    ) -> Result<T, PluginCallError> {
        raw.map_err(|problem| match problem {
            BufferProblem::Malformed(message) => PluginCallError::BadBuffer {
                plugin: self.name.clone(),
                event: what.to_owned(),
                message,
            },
            BufferProblem::TooLarge(len) => PluginCallError::ReplyTooLarge {
                plugin: self.name.clone(),
                event: what.to_owned(),
                len,
                limit: MAX_REPLY_BYTES,
            },
        })
    }

    /// The reply JSON of a call that ended with `status` and `bytes`, or an
    /// error naming the plugin and `what`.
    fn decode_reply(
        &self,
        what: &str,
        status: i32,
        bytes: &[u8],
    ) -> Result<Option<Value>, PluginCallError> {
        if status != 0 {
            return Err(PluginCallError::Failed {
                plugin: self.name.clone(),
                event: what.to_owned(),
                status,
                message: truncated_message(bytes),
            });
        }
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        match serde_json::from_slice::<Value>(bytes) {
            Ok(Value::Null) => Ok(None),
            Ok(reply) => Ok(Some(reply)),
            Err(error) => Err(PluginCallError::InvalidReply {
                plugin: self.name.clone(),
                event: what.to_owned(),
                message: error.to_string(),
            }),
        }
    }

    /// The registered names that are not catalog events (kept: forward compatibility).
    pub fn unknown_hooks(&self) -> impl Iterator<Item = &str> {
        self.hooks
            .iter()
            .map(String::as_str)
            .filter(|hook| !matches!(EventName::parse(hook), EventName::Hook(_)))
    }
}

impl fmt::Debug for NativePlugin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NativePlugin")
            .field("key", &self.key)
            .field("name", &self.name)
            .field("declared_name", &self.declared_name)
            .field("library", &self.library)
            .field("hooks", &self.hooks)
            .field("prompt_sections", &self.sections)
            .finish_non_exhaustive()
    }
}

/// Parses the table's `hooks_json`: a JSON array of non-empty strings; duplicates are dropped.
fn parse_hooks(library: &Path, hooks_json: &str) -> Result<Vec<String>, LoadError> {
    let invalid = |message: String| LoadError::InvalidField {
        library: library.to_owned(),
        field: "hooks_json",
        message,
    };
    let value: Value =
        serde_json::from_str(hooks_json).map_err(|error| invalid(format!("not JSON ({error})")))?;
    let Value::Array(items) = value else {
        return Err(invalid("not a JSON array of event names".to_owned()));
    };
    let mut hooks: Vec<String> = Vec::with_capacity(items.len());
    for (index, item) in items.into_iter().enumerate() {
        match item {
            Value::String(hook) if !hook.trim().is_empty() => {
                if !hooks.contains(&hook) {
                    hooks.push(hook);
                }
            }
            _ => return Err(invalid(format!("item {index} is not a non-empty string"))),
        }
    }
    Ok(hooks)
}

/// Parses the table's `prompt_sections_json`: a JSON array of `{"id", "position", "max_chars"}`.
fn parse_sections(library: &Path, json: &str) -> Result<Vec<PromptSection>, LoadError> {
    serde_json::from_str(json).map_err(|error| LoadError::InvalidField {
        library: library.to_owned(),
        field: "prompt_sections_json",
        message: format!("not a JSON array of sections ({error})"),
    })
}

/// A plugin's error bytes as text, lossily decoded and cut to a bounded length.
fn truncated_message(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim();
    if text.is_empty() {
        return "no message".to_owned();
    }
    if text.len() <= MAX_ERROR_MESSAGE_BYTES {
        return text.to_owned();
    }
    let mut end = MAX_ERROR_MESSAGE_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hooks_json_rules() {
        let lib = Path::new("/lib/x.so");
        assert_eq!(
            parse_hooks(lib, r#"["a", "b", "a"]"#),
            Ok(vec!["a".to_owned(), "b".to_owned()])
        );
        let error = |text| parse_hooks(lib, text).err().map(|e| e.to_string());
        assert!(error("{}").is_some_and(|e| e.contains("not a JSON array")));
        assert!(error("[1]").is_some_and(|e| e.contains("item 0 is not")));
        assert!(error("[\"\"]").is_some());
        assert!(error("nope").is_some_and(|e| e.starts_with("/lib/x.so: ")));
    }

    #[test]
    fn the_sdk_checks_section_ids_as_the_host_registry_does() {
        // The SDK cannot use hooks-core's prompt runtime, so it has its own
        // copy of the rule; this keeps the two the same.
        let long = "a".repeat(128);
        let too_long = "a".repeat(129);
        for id in [
            "a", "0", "a.b-c_d", "Ab", ".a", "-a", "_a", "a b", "a/b", "é", "", &long, &too_long,
        ] {
            assert_eq!(
                hermes_hooks_plugin_sdk::is_valid_section_id(id),
                hermes_hooks_core::prompt::is_valid_section_id(id),
                "{id:?}"
            );
        }
    }

    #[test]
    fn long_messages_are_cut_at_a_char_boundary() {
        let long = "é".repeat(MAX_ERROR_MESSAGE_BYTES);
        let cut = truncated_message(long.as_bytes());
        assert!(cut.ends_with('…') && cut.len() <= MAX_ERROR_MESSAGE_BYTES + '…'.len_utf8());
        assert_eq!(truncated_message(b"  "), "no message");
        assert_eq!(truncated_message(b"bad \xff"), "bad \u{fffd}");
    }
}
