//! Recovering frozen plugin sections from an already-persisted system prompt.
//!
//! Sections are rendered once per new session. On resume the host must not
//! call plugin code again: it reads the section bytes back out of the prompt it
//! stored. Only the exact container core emits is accepted, because user or
//! project text elsewhere in the prompt may imitate the framing.

use std::sync::LazyLock;

use regex::Regex;

use super::MAX_SECTION_CHARS;
use super::format::{PLUGIN_SECTIONS_END, PLUGIN_SECTIONS_START, format_sections};

/// What must follow the container's end marker in a real prompt: the
/// timestamp line core writes right after the plugin sections.
pub const CONVERSATION_STARTED_SENTINEL: &str = "\n\nConversation started:";

/// One section read back from a persisted prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RestoredSection {
    /// The section id from its heading.
    pub id: String,
    /// The section content exactly as it was frozen.
    pub content: String,
}

// A block header at the start of a line; `chars` is at most four digits
// because no section may exceed 4000 code points.
static SECTION_FRAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?m)^## Plugin Context: (?P<id>[a-z0-9][a-z0-9._-]{0,127})\n",
        r"<!-- hermes-plugin-section-chars:(?P<chars>[0-9]{1,4}) -->\n\n",
    ))
    .unwrap_or_else(|error| unreachable!("the section frame pattern is a constant: {error}"))
});

/// Reads the plugin sections back out of a persisted system prompt.
///
/// Looks at the **last** start marker, requires an end marker after it that is
/// immediately followed by [`CONVERSATION_STARTED_SENTINEL`], takes each
/// framed block's declared number of code points as its content, then formats
/// the result again and accepts it only when that reproduces the container
/// byte for byte. Anything else gives `None`: the caller then treats the
/// session as having no plugin sections (and still must not re-render them).
///
/// ```
/// use hermes_hooks_core::prompt::{format_sections, parse_rendered};
///
/// let container = format_sections([("example.rules", "Be brief.")]);
/// let prompt = format!("You are Hermes.\n\n{container}\n\nConversation started: today");
/// let restored = parse_rendered(&prompt).expect("a canonical container");
/// assert_eq!(restored[0].id, "example.rules");
/// assert_eq!(restored[0].content, "Be brief.");
/// ```
pub fn parse_rendered(system_prompt: &str) -> Option<Vec<RestoredSection>> {
    let start = system_prompt.rfind(PLUGIN_SECTIONS_START)?;
    let search_from = start + PLUGIN_SECTIONS_START.len();
    let end = search_from + system_prompt[search_from..].find(PLUGIN_SECTIONS_END)?;
    let after_end = end + PLUGIN_SECTIONS_END.len();
    if !system_prompt[after_end..].starts_with(CONVERSATION_STARTED_SENTINEL) {
        return None;
    }
    let framed = &system_prompt[start..after_end];

    let mut restored = Vec::new();
    for frame in SECTION_FRAME.captures_iter(framed) {
        let (Some(whole), Some(id), Some(chars)) =
            (frame.get(0), frame.name("id"), frame.name("chars"))
        else {
            continue;
        };
        let Ok(content_len) = chars.as_str().parse::<usize>() else {
            continue;
        };
        if content_len > MAX_SECTION_CHARS {
            continue;
        }
        let content = take_code_points(&framed[whole.end()..], content_len);
        // Too few code points left: a truncated or forged frame.
        let Some(content) = content else {
            continue;
        };
        restored.push(RestoredSection {
            id: id.as_str().to_owned(),
            content: content.to_owned(),
        });
    }

    let reformatted = format_sections(
        restored
            .iter()
            .map(|section| (section.id.as_str(), section.content.as_str())),
    );
    (reformatted == framed).then_some(restored)
}

/// The prefix of `text` holding exactly `count` code points, if it has that many.
fn take_code_points(text: &str, count: usize) -> Option<&str> {
    if count == 0 {
        return Some("");
    }
    let (last_index, last_char) = text.char_indices().nth(count - 1)?;
    Some(&text[..last_index + last_char.len_utf8()])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt_around(container: &str) -> String {
        format!("identity\n\nmemory{container}{CONVERSATION_STARTED_SENTINEL} Monday")
    }

    #[test]
    fn round_trips_several_sections_with_multibyte_content() {
        let container = format_sections([("a.one", "héllo 🌍"), ("b.two", "line\n\nbreak")]);
        let restored = parse_rendered(&prompt_around(&format!("\n\n{container}")));
        assert_eq!(
            restored,
            Some(vec![
                RestoredSection {
                    id: "a.one".into(),
                    content: "héllo 🌍".into()
                },
                RestoredSection {
                    id: "b.two".into(),
                    content: "line\n\nbreak".into()
                },
            ])
        );
    }

    #[test]
    fn requires_the_conversation_sentinel_after_the_end_marker() {
        let container = format_sections([("a", "A")]);
        assert_eq!(
            parse_rendered(&format!("x\n\n{container}\n\nSomething else")),
            None
        );
        assert_eq!(parse_rendered(&container), None);
    }

    #[test]
    fn uses_the_last_start_marker() {
        let decoy = format_sections([("decoy", "old")]);
        let real = format_sections([("real", "new")]);
        let prompt = format!("{decoy}\n\n{real}{CONVERSATION_STARTED_SENTINEL}");
        let restored = parse_rendered(&prompt).unwrap_or_default();
        assert_eq!(restored.len(), 1);
        assert_eq!(restored[0].id, "real");
    }

    #[test]
    fn rejects_lookalikes_and_wrong_lengths() {
        let container = format_sections([("a", "A")]);
        let wrong_len = container.replace("chars:1 ", "chars:2 ");
        assert_eq!(parse_rendered(&prompt_around(&wrong_len)), None);
        let padded_len = container.replace("chars:1 ", "chars:01 ");
        assert_eq!(parse_rendered(&prompt_around(&padded_len)), None);
        let extra_text = container.replace("\nA\n", "\nA trailing\n");
        assert_eq!(parse_rendered(&prompt_around(&extra_text)), None);
        let empty = format!("{PLUGIN_SECTIONS_START}\n\n{PLUGIN_SECTIONS_END}");
        assert_eq!(parse_rendered(&prompt_around(&empty)), None);
        assert_eq!(parse_rendered("no markers at all"), None);
        let unterminated = format!("{PLUGIN_SECTIONS_START}\n## Plugin Context: a\n");
        assert_eq!(parse_rendered(&unterminated), None);
    }

    #[test]
    fn content_that_imitates_a_frame_is_rejected() {
        // A section whose body contains another header: the scan finds both
        // headers, the re-format differs, and the whole container is refused,
        // exactly as the reference does.
        let inner = "x\n## Plugin Context: b\n<!-- hermes-plugin-section-chars:1 -->\n\ny";
        let container = format_sections([("a", inner)]);
        assert_eq!(parse_rendered(&prompt_around(&container)), None);
    }

    #[test]
    fn never_panics_on_truncated_multibyte_tails() {
        let container = format_sections([("a", "ééé")]).replace("chars:3 ", "chars:9 ");
        assert_eq!(parse_rendered(&prompt_around(&container)), None);
        assert_eq!(take_code_points("é", 1), Some("é"));
        assert_eq!(take_code_points("é", 2), None);
        assert_eq!(take_code_points("", 0), Some(""));
    }
}
