//! Cache-safe system-prompt sections: bounded plugin context frozen into each new session's prompt.
//!
//! A host holds one [`PromptSections`] registry; plugins register sections
//! into it by a stable id. When a session starts the host calls
//! [`PromptSections::render`] **once**, places [`RenderedSections::text`]
//! after the memory / user-profile blocks and before the
//! "Conversation started:" line, and persists the whole prompt. On resume it
//! calls [`parse_rendered`] on the stored prompt instead of rendering again,
//! so plugin state never silently rewrites a cached prompt.
//!
//! The rules are the reference's (`ctx.register_system_prompt_section`):
//! ids match `^[a-z0-9][a-z0-9._-]{0,127}$` and are unique; the only position
//! is `after_memory`; each section is at most `max_chars` (≤ 4000) code points;
//! all sections together, framing included, stay within 8000 code points and
//! 32 sections. A section that breaks a rule at render time is skipped with a
//! warning and the rest still render.
//!
//! ```
//! use hermes_hooks_core::prompt::{PromptSections, SectionContent, SessionInfo};
//!
//! let sections = PromptSections::new();
//! sections
//!     .register("kanban-advanced", "kanban-advanced.worker-rules",
//!         SectionContent::function(|info: &SessionInfo| {
//!             Ok(format!("Apply the worker rules for profile {}.", info.profile_name).into())
//!         }),
//!         "after_memory", 4000)
//!     .expect("a valid registration");
//! let info = SessionInfo::default().with_profile_name("coder");
//! let rendered = sections.render(&info);
//! assert!(rendered.text.unwrap().contains("Apply the worker rules for profile coder."));
//! ```

mod format;
mod render;
mod restore;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, PoisonError, RwLock};

use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use format::{
    PLUGIN_SECTIONS_END, PLUGIN_SECTIONS_START, SECTION_HEADING_PREFIX, format_section,
    format_sections, is_valid_section_id,
};
pub use render::{AcceptedSection, RenderedSections, SkipReason, SkippedSection};
pub use restore::{CONVERSATION_STARTED_SENTINEL, RestoredSection, parse_rendered};

/// The largest `max_chars` a section may declare (code points).
pub const MAX_SECTION_CHARS: usize = 4_000;
/// The `max_chars` the reference uses when a plugin gives none.
pub const DEFAULT_SECTION_MAX_CHARS: usize = 4_000;
/// How many sections one session prompt may carry.
pub const MAX_SECTIONS: usize = 32;
/// The budget for all sections together, container and headings included (code points).
pub const MAX_TOTAL_CHARS: usize = 8_000;

/// Where a section goes in the system prompt. Only one place exists, so
/// plugins can never reorder or replace the core prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SectionPosition {
    /// After the memory, user-profile and external-memory blocks, before the
    /// session metadata line.
    AfterMemory,
}

impl SectionPosition {
    /// Every position, in sorted name order (used in the validation message).
    pub const ALL: [SectionPosition; 1] = [SectionPosition::AfterMemory];

    /// Every position's name, sorted and comma-separated.
    pub fn names() -> String {
        let names: Vec<&str> = Self::ALL.iter().map(|position| position.as_str()).collect();
        names.join(", ")
    }

    /// The position's wire name, e.g. `after_memory`.
    pub fn as_str(self) -> &'static str {
        match self {
            SectionPosition::AfterMemory => "after_memory",
        }
    }
}

impl fmt::Display for SectionPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for SectionPosition {
    type Err = SectionError;

    fn from_str(position: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|known| known.as_str() == position)
            .ok_or_else(|| SectionError::InvalidPosition {
                position: position.to_owned(),
            })
    }
}

pub use crate::session_info::SessionInfo;

/// A function that computes a section's text when a session starts.
///
/// It returns a JSON value so a plugin bridged from a dynamic language can
/// hand back a non-string, which is reported as "returned `<type>`, not str;
/// skipped" just as the reference does; `Err` is a failure ("raised").
pub type SectionFunction =
    Arc<dyn Fn(&SessionInfo) -> Result<serde_json::Value, String> + Send + Sync>;

/// A section's content: fixed text, or a function evaluated once per new session.
#[derive(Clone)]
#[non_exhaustive]
pub enum SectionContent {
    /// Fixed text.
    Text(String),
    /// Computed from the session info at render time.
    Function(SectionFunction),
}

impl SectionContent {
    /// Fixed text content.
    pub fn text(text: impl Into<String>) -> Self {
        SectionContent::Text(text.into())
    }

    /// Content computed by `function` when a session starts.
    pub fn function<F>(function: F) -> Self
    where
        F: Fn(&SessionInfo) -> Result<serde_json::Value, String> + Send + Sync + 'static,
    {
        SectionContent::Function(Arc::new(function))
    }
}

impl fmt::Debug for SectionContent {
    // Content may be large prompt text: show its size, not its bytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SectionContent::Text(text) => write!(f, "Text({} bytes)", text.len()),
            SectionContent::Function(_) => f.write_str("Function(..)"),
        }
    }
}

/// Why a registration was refused; the messages are the reference's.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SectionError {
    /// The id does not match `^[a-z0-9][a-z0-9._-]{0,127}$`.
    #[error(
        "system prompt section id must be 1-128 lowercase characters using letters, numbers, '.', '_', or '-'"
    )]
    InvalidId {
        /// The refused id.
        id: String,
    },
    /// The position is not one of [`SectionPosition::ALL`].
    #[error(
        "system prompt section position must be one of: {}",
        SectionPosition::names()
    )]
    InvalidPosition {
        /// The refused position.
        position: String,
    },
    /// `max_chars` is outside `1..=4000`.
    #[error("system prompt section max_chars must be between 1 and 4000")]
    InvalidMaxChars {
        /// The refused limit.
        max_chars: usize,
    },
    /// Another registration already holds this id.
    #[error(
        "system prompt section {} is already registered by plugin {}",
        crate::pyvalue::repr_str(id),
        crate::pyvalue::repr_str(owner)
    )]
    Duplicate {
        /// The contested id.
        id: String,
        /// The plugin that registered it first.
        owner: String,
    },
}

/// One registered section, shared with renders in progress.
struct RegisteredSection {
    owner: String,
    content: SectionContent,
    position: SectionPosition,
    max_chars: usize,
}

/// The registry a host holds and plugins register sections into.
///
/// Registration and rendering take `&self`; the registry is `Send + Sync`.
/// Section functions run without any lock held, so a function may itself
/// register or unregister sections without deadlocking (the change applies to
/// the next render).
#[derive(Default)]
pub struct PromptSections {
    // BTreeMap: renders walk sections in sorted id order, as the reference does.
    sections: RwLock<BTreeMap<String, Arc<RegisteredSection>>>,
}

impl PromptSections {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a section for `owner` (the plugin's name).
    ///
    /// Checks, in the reference's order: the id, the position (only
    /// `after_memory`), `max_chars` in `1..=4000`, then that the id is free.
    pub fn register(
        &self,
        owner: &str,
        id: &str,
        content: SectionContent,
        position: &str,
        max_chars: usize,
    ) -> Result<(), SectionError> {
        if !is_valid_section_id(id) {
            return Err(SectionError::InvalidId { id: id.to_owned() });
        }
        let position = position.parse::<SectionPosition>()?;
        if !(1..=MAX_SECTION_CHARS).contains(&max_chars) {
            return Err(SectionError::InvalidMaxChars { max_chars });
        }
        let mut sections = self
            .sections
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(existing) = sections.get(id) {
            return Err(SectionError::Duplicate {
                id: id.to_owned(),
                owner: existing.owner.clone(),
            });
        }
        sections.insert(
            id.to_owned(),
            Arc::new(RegisteredSection {
                owner: owner.to_owned(),
                content,
                position,
                max_chars,
            }),
        );
        tracing::debug!(
            plugin = owner,
            section = id,
            "registered system prompt section"
        );
        Ok(())
    }

    /// Removes the section `id`; returns whether it existed.
    pub fn unregister(&self, id: &str) -> bool {
        let mut sections = self
            .sections
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        sections.remove(id).is_some()
    }

    /// Removes every section `owner` registered (a plugin being unloaded);
    /// returns how many went.
    pub fn unregister_owner(&self, owner: &str) -> usize {
        let mut sections = self
            .sections
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        let before = sections.len();
        sections.retain(|_, section| section.owner != owner);
        before - sections.len()
    }

    /// The registered ids in render order, each with its owner.
    pub fn registrations(&self) -> Vec<(String, String)> {
        self.snapshot()
            .into_iter()
            .map(|(id, section)| (id, section.owner.clone()))
            .collect()
    }

    /// How many sections are registered.
    pub fn len(&self) -> usize {
        self.sections
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Whether no section is registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The sections in id order, copied out so no lock is held while plugin code runs.
    fn snapshot(&self) -> Vec<(String, Arc<RegisteredSection>)> {
        self.sections
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|(id, section)| (id.clone(), Arc::clone(section)))
            .collect()
    }
}

impl fmt::Debug for PromptSections {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptSections")
            .field("sections", &self.registrations())
            .finish()
    }
}
