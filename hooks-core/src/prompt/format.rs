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

/// Strips what Python's `str.strip()` strips: Rust's Unicode whitespace plus
/// the separators U+001C..U+001F, which Python also treats as whitespace.
pub(crate) fn python_strip(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// Quotes `text` the way Python's `repr` quotes a plain string, so error
/// messages read exactly like the reference's `{value!r}`.
pub(crate) fn python_repr(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
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

    #[test]
    fn strip_matches_python_whitespace() {
        assert_eq!(python_strip("\u{1c}\u{1f} x \u{3000}\u{85}\u{a0}"), "x");
        // Python keeps zero-width space and BOM: they are not whitespace there.
        assert_eq!(python_strip("\u{200b}x\u{feff}"), "\u{200b}x\u{feff}");
    }

    #[test]
    fn repr_quotes_like_python() {
        assert_eq!(python_repr("plain"), "'plain'");
        assert_eq!(python_repr("it's"), "\"it's\"");
        assert_eq!(python_repr("both ' and \""), "'both \\' and \"'");
        assert_eq!(python_repr("a\nb\\"), "'a\\nb\\\\'");
    }
}
