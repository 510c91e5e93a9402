//! What `register(ctx)` sees: [`PluginContext`], where a plugin registers its
//! hooks and system-prompt sections, and the checks each registration passes.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::events::{Hook, TypedEvent};
use crate::scratch;

/// A registered hook: JSON payload bytes in, reply JSON (or nothing) out.
pub(crate) type Handler = Box<dyn Fn(&[u8]) -> Result<Option<Value>, String> + Send + Sync>;

/// A section's text function.
pub(crate) type Render = Arc<dyn Fn(&SessionInfo) -> Result<String, String> + Send + Sync>;

/// The largest `max_chars` a section may declare (code points).
pub const MAX_SECTION_CHARS: usize = 4_000;
/// The only section position: after the memory and user-profile blocks.
pub const AFTER_MEMORY: &str = "after_memory";

/// The registrations of one plugin, filled by its `register` function.
///
/// Registration order is kept: the host registers the hooks in this order.
pub struct PluginContext {
    pub(crate) hooks: Vec<(String, Handler)>,
    pub(crate) sections: Vec<(SectionSpec, Render)>,
}

/// What a hook returns: its typed reply, or `Err` for "the callback failed"
/// (for `pre_tool_call` that blocks the tool call, as a raising callback does).
pub trait HookResult<R> {
    /// The reply, or the failure's message.
    fn into_result(self) -> Result<R, String>;
}

impl<R> HookResult<R> for R {
    fn into_result(self) -> Result<R, String> {
        Ok(self)
    }
}

impl<R, E: fmt::Display> HookResult<R> for Result<R, E> {
    fn into_result(self) -> Result<R, String> {
        self.map_err(|error| error.to_string())
    }
}

/// A registration the SDK refused; `register` fails with it and the host
/// refuses the plugin, naming the library and this message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegisterError {
    /// The event name is empty.
    EmptyEventName,
    /// The event already has a hook in this plugin.
    DuplicateHook {
        /// The event.
        event: String,
    },
    /// A system-prompt section id does not match `^[a-z0-9][a-z0-9._-]{0,127}$`.
    InvalidSectionId {
        /// The refused id.
        id: String,
    },
    /// A section position other than `after_memory`.
    InvalidSectionPosition {
        /// The refused position.
        position: String,
    },
    /// A section `max_chars` outside `1..=4000`.
    InvalidSectionMaxChars {
        /// The refused limit.
        max_chars: usize,
    },
    /// The section id is already registered by this plugin.
    DuplicateSection {
        /// The contested id.
        id: String,
    },
}

impl fmt::Display for RegisterError {
    // The section messages are the reference's `register_system_prompt_section` ones.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegisterError::EmptyEventName => f.write_str("register_hook: the event name is empty"),
            RegisterError::DuplicateHook { event } => write!(
                f,
                "register_hook: '{event}' is registered twice; do both things in one closure"
            ),
            RegisterError::InvalidSectionId { .. } => f.write_str(
                "system prompt section id must be 1-128 lowercase characters using letters, numbers, '.', '_', or '-'",
            ),
            RegisterError::InvalidSectionPosition { .. } => {
                write!(f, "system prompt section position must be one of: {AFTER_MEMORY}")
            }
            RegisterError::InvalidSectionMaxChars { .. } => write!(
                f,
                "system prompt section max_chars must be between 1 and {MAX_SECTION_CHARS}"
            ),
            RegisterError::DuplicateSection { id } => {
                write!(f, "system prompt section '{id}' is already registered by this plugin")
            }
        }
    }
}

impl std::error::Error for RegisterError {}

/// What a section function sees about the session being started: the
/// contract's type, so a host and a plugin read the same fields.
pub use hermes_hooks_core::session_info::SessionInfo;

/// A section's content: fixed text, or text computed once per new session.
pub struct SectionContent(pub(crate) Render);

impl SectionContent {
    /// Fixed text.
    pub fn text(text: impl Into<String>) -> Self {
        let text = text.into();
        SectionContent(Arc::new(move |_: &SessionInfo| Ok(text.clone())))
    }

    /// Text computed by `function` when a session starts (once per session;
    /// the host freezes it into the session's prompt).
    pub fn function<F>(function: F) -> Self
    where
        F: Fn(&SessionInfo) -> String + Send + Sync + 'static,
    {
        SectionContent(Arc::new(move |info: &SessionInfo| Ok(function(info))))
    }
}

impl From<&str> for SectionContent {
    fn from(text: &str) -> Self {
        SectionContent::text(text)
    }
}

impl From<String> for SectionContent {
    fn from(text: String) -> Self {
        SectionContent::text(text)
    }
}

/// A section as the table declares it to the host (its content comes from `render_section`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SectionSpec {
    /// The section id.
    pub id: String,
    /// Where it goes: `after_memory`.
    pub position: String,
    /// Its largest size in code points.
    pub max_chars: usize,
}

/// Whether `id` is a valid section id: `^[a-z0-9][a-z0-9._-]{0,127}$`.
pub fn is_valid_section_id(id: &str) -> bool {
    let bytes = id.as_bytes();
    let allowed = |byte: &u8| byte.is_ascii_lowercase() || byte.is_ascii_digit();
    matches!(bytes.first(), Some(first) if allowed(first))
        && bytes.len() <= 128
        && bytes[1..]
            .iter()
            .all(|byte| allowed(byte) || matches!(byte, b'.' | b'_' | b'-'))
}

impl PluginContext {
    pub(crate) fn new() -> Self {
        PluginContext {
            hooks: Vec::new(),
            sections: Vec::new(),
        }
    }

    /// Registers `hook` for the event `event` (a token from [`events`](crate::events)).
    ///
    /// The closure borrows the event's typed payload and returns the reply
    /// type of the event's merge rule, or a `Result` of it whose `Err` means
    /// "the callback failed". A payload that does not decode into the typed
    /// struct is a failure too. One hook per event and plugin.
    ///
    /// The payload is borrowed because each thread decodes into one struct it
    /// keeps across calls (strings and maps keep their capacity, so a call
    /// allocates nothing for a payload shaped like the last one); clone what
    /// must outlive the call.
    pub fn register_hook<P, F, O>(&mut self, event: Hook<P>, hook: F) -> Result<(), RegisterError>
    where
        P: TypedEvent,
        F: Fn(&P) -> O + Send + Sync + 'static,
        O: HookResult<P::Reply>,
    {
        let name = event.name();
        self.add_hook(
            name,
            Box::new(move |payload: &[u8]| {
                let does_not_decode = |error: &dyn fmt::Display| {
                    format!("the {name} payload does not decode: {error}")
                };
                // The host sends JSON text: UTF-8 is checked once here, not per string.
                let json = std::str::from_utf8(payload).map_err(|error| does_not_decode(&error))?;
                scratch::with_payload(json.len(), |place: &mut P| {
                    let mut deserializer = serde_json::Deserializer::from_str(json);
                    P::decode_in_place(&mut deserializer, place)
                        .and_then(|()| deserializer.end())
                        .map_err(|error| does_not_decode(&error))?;
                    hook(place).into_result().map(P::reply_to_wire)
                })
            }),
        )
    }

    /// Registers `hook` for the event called `event`, on raw JSON: the payload
    /// as a JSON object in, the reply in the Hermes wire shape out (`None` for
    /// no reply). For events the catalog does not know yet, or plugins that
    /// prefer JSON.
    pub fn register_hook_json<F, O>(&mut self, event: &str, hook: F) -> Result<(), RegisterError>
    where
        F: Fn(Value) -> O + Send + Sync + 'static,
        O: HookResult<Option<Value>>,
    {
        let name = event.to_owned();
        self.add_hook(
            event,
            Box::new(move |payload: &[u8]| {
                let payload: Value = serde_json::from_slice(payload)
                    .map_err(|error| format!("the {name} payload is not JSON: {error}"))?;
                hook(payload).into_result()
            }),
        )
    }

    fn add_hook(&mut self, event: &str, handler: Handler) -> Result<(), RegisterError> {
        if event.trim().is_empty() {
            return Err(RegisterError::EmptyEventName);
        }
        if self.hooks.iter().any(|(name, _)| name == event) {
            return Err(RegisterError::DuplicateHook {
                event: event.to_owned(),
            });
        }
        self.hooks.push((event.to_owned(), handler));
        Ok(())
    }

    /// Registers a cache-safe system-prompt section at `after_memory` with
    /// `max_chars` 4000 (the reference's defaults). `content` is text
    /// (`&str`, `String`) or [`SectionContent::function`].
    pub fn register_system_prompt_section(
        &mut self,
        id: &str,
        content: impl Into<SectionContent>,
    ) -> Result<(), RegisterError> {
        self.register_system_prompt_section_with(id, content, AFTER_MEMORY, MAX_SECTION_CHARS)
    }

    /// Registers a system-prompt section with an explicit position and
    /// `max_chars`. Checked in the reference's order: the id, the position
    /// (only `after_memory`), `max_chars` in `1..=4000`, then that the id is
    /// free in this plugin (the host also refuses ids other plugins hold).
    pub fn register_system_prompt_section_with(
        &mut self,
        id: &str,
        content: impl Into<SectionContent>,
        position: &str,
        max_chars: usize,
    ) -> Result<(), RegisterError> {
        if !is_valid_section_id(id) {
            return Err(RegisterError::InvalidSectionId { id: id.to_owned() });
        }
        if position != AFTER_MEMORY {
            return Err(RegisterError::InvalidSectionPosition {
                position: position.to_owned(),
            });
        }
        if !(1..=MAX_SECTION_CHARS).contains(&max_chars) {
            return Err(RegisterError::InvalidSectionMaxChars { max_chars });
        }
        if self.sections.iter().any(|(spec, _)| spec.id == id) {
            return Err(RegisterError::DuplicateSection { id: id.to_owned() });
        }
        let spec = SectionSpec {
            id: id.to_owned(),
            position: position.to_owned(),
            max_chars,
        };
        self.sections.push((spec, content.into().0));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::{POST_TOOL_CALL, PRE_TOOL_CALL};
    use crate::reply::ToolDecision;

    #[test]
    fn section_ids_follow_the_reference_pattern() {
        for good in [
            "a",
            "0",
            "kanban-advanced.worker-rules",
            "a_b",
            &"a".repeat(128),
        ] {
            assert!(is_valid_section_id(good), "{good}");
        }
        for bad in ["", "A", ".a", "-a", "a b", "a/b", "é", &"a".repeat(129)] {
            assert!(!is_valid_section_id(bad), "{bad}");
        }
    }

    #[test]
    fn section_registrations_are_checked_in_order() {
        let mut ctx = PluginContext::new();
        let error = |ctx: &mut PluginContext, id: &str, position: &str, max: usize| {
            ctx.register_system_prompt_section_with(id, "x", position, max)
                .err()
                .map(|e| e.to_string())
        };
        assert!(error(&mut ctx, "Bad", "nowhere", 0).is_some_and(|e| e.contains("section id")));
        assert_eq!(
            error(&mut ctx, "ok", "nowhere", 0).as_deref(),
            Some("system prompt section position must be one of: after_memory")
        );
        assert_eq!(
            error(&mut ctx, "ok", AFTER_MEMORY, 4001).as_deref(),
            Some("system prompt section max_chars must be between 1 and 4000")
        );
        assert_eq!(error(&mut ctx, "ok", AFTER_MEMORY, 1), None);
        assert!(error(&mut ctx, "ok", AFTER_MEMORY, 1).is_some_and(|e| e.contains("already")));
    }

    #[test]
    fn typed_hooks_decode_payloads_and_encode_replies() {
        let mut ctx = PluginContext::new();
        let registered = ctx.register_hook(PRE_TOOL_CALL, |call| {
            if call.tool_name == "terminal" {
                ToolDecision::block("no terminal")
            } else {
                ToolDecision::Allow
            }
        });
        assert_eq!(registered, Ok(()));
        let handler = &ctx.hooks[0].1;
        assert_eq!(
            handler(br#"{"tool_name": "terminal", "args": {}}"#),
            Ok(Some(
                serde_json::json!({"action": "block", "message": "no terminal"})
            ))
        );
        assert_eq!(handler(br#"{"tool_name": "ls"}"#), Ok(None));
        assert!(handler(br#"{"tool_name": 3}"#).is_err_and(|e| e.contains("does not decode")));
        assert_eq!(
            ctx.register_hook(PRE_TOOL_CALL, |_| ToolDecision::Allow),
            Err(RegisterError::DuplicateHook {
                event: "pre_tool_call".into()
            })
        );
        ctx.register_hook(POST_TOOL_CALL, |_| Err::<(), _>("observer failed"))
            .expect("registers");
        assert_eq!(ctx.hooks[1].1(b"{}"), Err("observer failed".to_owned()));
    }

    #[test]
    fn the_kept_payload_never_shows_a_previous_call() {
        let mut ctx = PluginContext::new();
        ctx.register_hook(PRE_TOOL_CALL, |call| {
            let seen = format!(
                "{}|{:?}|{}|{}",
                call.tool_name,
                call.args.keys().collect::<Vec<_>>(),
                call.session_id,
                call.middleware_trace.len()
            );
            ToolDecision::block(seen)
        })
        .expect("registers");
        let handler = &ctx.hooks[0].1;
        let seen = |json: &[u8]| match handler(json) {
            Ok(Some(reply)) => Ok(reply["message"].as_str().unwrap_or_default().to_owned()),
            other => Err(format!("{other:?}")),
        };
        let full = br#"{"tool_name": "terminal", "args": {"command": "ls", "cwd": "/"}, "session_id": "s1", "middleware_trace": [1, 2]}"#;
        assert_eq!(seen(full), Ok(r#"terminal|["command", "cwd"]|s1|2"#.into()));
        assert_eq!(
            seen(br#"{"args": {"cwd": "/tmp"}}"#),
            Ok(r#"|["cwd"]||0"#.into())
        );
        assert_eq!(seen(full), Ok(r#"terminal|["command", "cwd"]|s1|2"#.into()));
        assert_eq!(seen(br#"{"session_id": null}"#), Ok("|[]||0".into()));
        // A payload that does not decode fails naming the event, and the
        // next one decodes whole.
        for bad in [
            &br#"{"tool_name": "x"#[..],
            b"{\"tool_name\": \"\xff\"}",
            br#"{"args": [1]}"#,
            b"{} trailing",
        ] {
            let error = handler(bad).expect_err("does not decode");
            assert!(
                error.starts_with("the pre_tool_call payload does not decode: "),
                "{error}"
            );
        }
        assert_eq!(seen(full), Ok(r#"terminal|["command", "cwd"]|s1|2"#.into()));
    }
}
