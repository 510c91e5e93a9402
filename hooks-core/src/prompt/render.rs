//! Rendering the registered sections once for a new session, failing open section by section.

use std::any::Any;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};

use serde_json::Value;

use super::format::{
    PLUGIN_SECTIONS_END, PLUGIN_SECTIONS_START, code_points, format_section, format_sections,
};
use super::{
    MAX_SECTIONS, MAX_TOTAL_CHARS, PromptSections, RegisteredSection, SectionContent,
    SectionPosition, SessionInfo,
};
use crate::pyvalue::strip as python_strip;

/// The result of rendering every registered section for one new session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RenderedSections {
    /// The container to place in the prompt, or `None` when no section was accepted.
    pub text: Option<String>,
    /// The sections in the container, in order.
    pub accepted: Vec<AcceptedSection>,
    /// The sections left out, with why. Sections that were empty after
    /// trimming are left out silently and do not appear here, as in the reference.
    pub skipped: Vec<SkippedSection>,
}

/// A section that made it into the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AcceptedSection {
    /// The section id.
    pub id: String,
    /// The plugin that registered it.
    pub owner: String,
    /// Where it goes.
    pub position: SectionPosition,
    /// Its content length in code points (after trimming).
    pub chars: usize,
    /// Its content, trimmed, exactly as framed in [`RenderedSections::text`].
    pub content: String,
}

/// A section left out of the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkippedSection {
    /// The section id.
    pub id: String,
    /// The plugin that registered it.
    pub owner: String,
    /// Why it was left out.
    pub reason: SkipReason,
}

/// Why a section was left out; `Display` gives the reference's wording.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkipReason {
    /// The prompt already held the maximum number of sections.
    SectionCountBudget {
        /// The section-count limit.
        limit: usize,
    },
    /// The section function failed (returned `Err` or panicked).
    Raised {
        /// The failure message.
        error: String,
    },
    /// The section function returned a JSON value that is not a string.
    NotAString {
        /// The Python name of the value's type (`dict`, `list`, `int`, ...).
        type_name: &'static str,
    },
    /// The content contains a container marker, which would corrupt restore.
    ReservedMarker,
    /// The trimmed content is longer than the section's `max_chars`.
    TooLong {
        /// The content length in code points.
        chars: usize,
        /// The section's limit.
        max_chars: usize,
    },
    /// Adding the section would exceed the budget for all sections together.
    AggregateBudget {
        /// The aggregate limit in code points.
        limit: usize,
    },
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::SectionCountBudget { limit } => write!(
                f,
                "exceeded the section-count budget ({limit}) and was skipped"
            ),
            SkipReason::Raised { error } => write!(f, "raised and was skipped: {error}"),
            SkipReason::NotAString { type_name } => {
                write!(f, "returned {type_name}, not str; skipped")
            }
            SkipReason::ReservedMarker => {
                f.write_str("contained a reserved persistence marker and was skipped")
            }
            SkipReason::TooLong { chars, max_chars } => write!(
                f,
                "exceeded max_chars ({chars} > {max_chars}) and was skipped"
            ),
            SkipReason::AggregateBudget { limit } => write!(
                f,
                "exceeded the aggregate session budget ({limit} chars) and was skipped"
            ),
        }
    }
}

impl fmt::Display for SkippedSection {
    /// The reference's warning line, e.g.
    /// `Plugin system prompt section a.b (my-plugin) exceeded max_chars (5 > 4) and was skipped`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.reason {
            // The reference names no plugin in this one warning.
            SkipReason::SectionCountBudget { .. } => {
                write!(
                    f,
                    "Plugin system prompt section {} {}",
                    self.id, self.reason
                )
            }
            _ => write!(
                f,
                "Plugin system prompt section {} ({}) {}",
                self.id, self.owner, self.reason
            ),
        }
    }
}

impl PromptSections {
    /// Renders every registered section for a new session, in sorted id order.
    ///
    /// Call it once per new session and persist the prompt; never call it
    /// again for a resumed session (use [`super::parse_rendered`]). Section
    /// functions run here, on the caller's thread, without any lock held.
    /// A broken section is skipped with a warning; it never stops the others.
    pub fn render(&self, info: &SessionInfo) -> RenderedSections {
        let mut rendered = RenderedSections::default();
        // The container's own framing counts against the aggregate budget.
        let mut total_chars =
            code_points(PLUGIN_SECTIONS_START) + code_points(PLUGIN_SECTIONS_END) + 2;
        for (id, section) in self.snapshot() {
            let skip = |reason| SkippedSection {
                id: id.clone(),
                owner: section.owner.clone(),
                reason,
            };
            if rendered.accepted.len() >= MAX_SECTIONS {
                record_skip(
                    &mut rendered,
                    skip(SkipReason::SectionCountBudget {
                        limit: MAX_SECTIONS,
                    }),
                );
                continue;
            }
            let text = match section_text(&section, info) {
                Ok(Some(text)) => text,
                Ok(None) => continue,
                Err(reason) => {
                    record_skip(&mut rendered, skip(reason));
                    continue;
                }
            };
            let mut block_chars = code_points(&format_section(&id, &text));
            if !rendered.accepted.is_empty() {
                block_chars += 2; // the "\n\n" between blocks
            }
            if total_chars + block_chars > MAX_TOTAL_CHARS {
                record_skip(
                    &mut rendered,
                    skip(SkipReason::AggregateBudget {
                        limit: MAX_TOTAL_CHARS,
                    }),
                );
                continue;
            }
            total_chars += block_chars;
            let chars = code_points(&text);
            tracing::info!(
                "Session plugin prompt section: id={} plugin={} position={} chars={}",
                id,
                section.owner,
                section.position,
                chars
            );
            rendered.accepted.push(AcceptedSection {
                id,
                owner: section.owner.clone(),
                position: section.position,
                chars,
                content: text,
            });
        }
        let container = format_sections(
            rendered
                .accepted
                .iter()
                .map(|section| (section.id.as_str(), section.content.as_str())),
        );
        rendered.text = (!container.is_empty()).then_some(container);
        rendered
    }
}

fn record_skip(rendered: &mut RenderedSections, skipped: SkippedSection) {
    tracing::warn!("{skipped}");
    rendered.skipped.push(skipped);
}

/// Evaluates one section: its trimmed text, `None` when it is empty, or why it is skipped.
fn section_text(
    section: &RegisteredSection,
    info: &SessionInfo,
) -> Result<Option<String>, SkipReason> {
    let value = match &section.content {
        SectionContent::Text(text) => Value::String(text.clone()),
        SectionContent::Function(function) => {
            // A plugin bug must not take the session down: a panic is a failure
            // like any other (the reference catches every exception here).
            match catch_unwind(AssertUnwindSafe(|| function(info))) {
                Ok(Ok(value)) => value,
                Ok(Err(error)) => return Err(SkipReason::Raised { error }),
                Err(panic) => {
                    return Err(SkipReason::Raised {
                        error: panic_message(panic.as_ref()),
                    });
                }
            }
        }
    };
    let Value::String(value) = value else {
        return Err(SkipReason::NotAString {
            type_name: crate::pyvalue::type_name(&value),
        });
    };
    let text = python_strip(&value);
    if text.is_empty() {
        return Ok(None);
    }
    if text.contains(PLUGIN_SECTIONS_START) || text.contains(PLUGIN_SECTIONS_END) {
        return Err(SkipReason::ReservedMarker);
    }
    let chars = code_points(text);
    if chars > section.max_chars {
        return Err(SkipReason::TooLong {
            chars,
            max_chars: section.max_chars,
        });
    }
    Ok(Some(text.to_owned()))
}

fn panic_message(panic: &(dyn Any + Send)) -> String {
    if let Some(message) = panic.downcast_ref::<&str>() {
        format!("panicked: {message}")
    } else if let Some(message) = panic.downcast_ref::<String>() {
        format!("panicked: {message}")
    } else {
        "panicked".to_owned()
    }
}
