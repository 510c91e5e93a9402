//! The canonical text framing of plugin prompt sections, and Python-compatible string helpers.
//!
//! The framing is byte-for-byte the reference's, because a persisted prompt is
//! parsed back on resume (see [`super::restore`]) and must round-trip.

/// Opens the container that holds every accepted plugin section.
pub const PLUGIN_SECTIONS_START: &str = "<!-- hermes-plugin-sections:start -->";
/// Closes the container that holds every accepted plugin section.
pub const PLUGIN_SECTIONS_END: &str = "<!-- hermes-plugin-sections:end -->";
/// Heading that starts each section block; the section id follows it.
pub const SECTION_HEADING_PREFIX: &str = "## Plugin Context: ";

const CHARS_COMMENT_PREFIX: &str = "<!-- hermes-plugin-section-chars:";
const CHARS_COMMENT_SUFFIX: &str = " -->";

/// Whether `id` is a stable, heading-safe section id: `^[a-z0-9][a-z0-9._-]{0,127}$`.
pub fn is_valid_section_id(id: &str) -> bool {
    let mut bytes = id.bytes();
    let Some(first) = bytes.next() else {
        return false;
    };
    id.len() <= 128
        && (first.is_ascii_lowercase() || first.is_ascii_digit())
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b))
}

/// Formats one section block: heading, a length comment, a blank line, the content.
///
/// The length is counted in Unicode code points, as Python's `len` does, so
/// prompts written by the reference and by us restore identically.
pub fn format_section(id: &str, content: &str) -> String {
    let chars = code_points(content);
    format!(
        "{SECTION_HEADING_PREFIX}{id}\n{CHARS_COMMENT_PREFIX}{chars}{CHARS_COMMENT_SUFFIX}\n\n{content}"
    )
}

/// Formats the whole container for `(id, content)` pairs in the given order;
/// an empty list gives an empty string (no container at all).
pub fn format_sections<'a, I>(sections: I) -> String
where
    I: IntoIterator<Item = (&'a str, &'a str)>,
{
    let blocks: Vec<String> = sections
        .into_iter()
        .map(|(id, content)| format_section(id, content))
        .collect();
    if blocks.is_empty() {
        return String::new();
    }
    format!(
        "{PLUGIN_SECTIONS_START}\n{}\n{PLUGIN_SECTIONS_END}",
        blocks.join("\n\n")
    )
}

/// The number of Unicode code points in `text` (Python's `len`).
pub(crate) fn code_points(text: &str) -> usize {
    text.chars().count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn section_ids_follow_the_reference_pattern() {
        for valid in [
            "a",
            "0",
            "example.rules",
            "kanban-advanced.worker-rules",
            "a_b",
        ] {
            assert!(is_valid_section_id(valid), "{valid}");
        }
        assert!(is_valid_section_id(&"x".repeat(128)));
        for invalid in [
            "",
            "UPPER.case",
            "has space",
            "line\nbreak",
            ".dot",
            "-dash",
            "_u",
            "é",
        ] {
            assert!(!is_valid_section_id(invalid), "{invalid:?}");
        }
        assert!(!is_valid_section_id(&"x".repeat(129)));
    }

    #[test]
    fn block_counts_code_points_not_bytes() {
        assert_eq!(
            format_section("a", "héllo"),
            "## Plugin Context: a\n<!-- hermes-plugin-section-chars:5 -->\n\nhéllo"
        );
    }

    #[test]
    fn container_wraps_blocks_joined_by_blank_line() {
        assert_eq!(format_sections([]), "");
        assert_eq!(
            format_sections([("a", "A"), ("b", "B")]),
            "<!-- hermes-plugin-sections:start -->\n\
             ## Plugin Context: a\n<!-- hermes-plugin-section-chars:1 -->\n\nA\n\n\
             ## Plugin Context: b\n<!-- hermes-plugin-section-chars:1 -->\n\nB\n\
             <!-- hermes-plugin-sections:end -->"
        );
    }
}
