//! Showing text from config files and manifests to a person, safely.
//!
//! A `command`, `matcher`, target name or `HOOK.yaml` name is written by whoever
//! wrote the file. Printed raw, an escape sequence in it can rewrite the terminal
//! (a consent prompt that shows one script while `y` approves another), a bidi
//! override can reorder what is read, and an invisible character (a zero-width
//! space, a Hangul filler, a tag character) makes two different commands look
//! the same. Everything such text passes through [`escape`] before a person sees
//! it: consent prompts, `hooks list`, `hooks doctor`, warnings, the replay timeline.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Characters that are not visible (or not visibly themselves), beyond the
/// controls `char::is_control` knows (Cc): every format character (Cf), the line
/// and paragraph separators (Zl, Zp), every space but U+0020 (Zs: one looks like
/// an argument break and is not), the default-ignorable code points (variation
/// selectors, Hangul fillers, tags, ...), the braille blank, private-use
/// characters and noncharacters. Sorted, inclusive ranges (Unicode 16).
const INVISIBLE: &[(u32, u32)] = &[
    (0x00A0, 0x00A0),    // no-break space (Zs)
    (0x00AD, 0x00AD),    // soft hyphen (Cf)
    (0x034F, 0x034F),    // combining grapheme joiner (default ignorable)
    (0x0600, 0x0605),    // Arabic number signs (Cf)
    (0x061C, 0x061C),    // Arabic letter mark (Cf)
    (0x06DD, 0x06DD),    // Arabic end of ayah (Cf)
    (0x070F, 0x070F),    // Syriac abbreviation mark (Cf)
    (0x0890, 0x0891),    // Arabic pound and piastre marks above (Cf)
    (0x08E2, 0x08E2),    // Arabic disputed end of ayah (Cf)
    (0x115F, 0x1160),    // Hangul choseong and jungseong fillers
    (0x1680, 0x1680),    // Ogham space mark (Zs)
    (0x17B4, 0x17B5),    // Khmer inherent vowels (default ignorable)
    (0x180B, 0x180F),    // Mongolian variation selectors and vowel separator
    (0x2000, 0x200F),    // en quad .. right-to-left mark (Zs, zero-width, bidi marks)
    (0x2028, 0x202F),    // line and paragraph separators, bidi embeddings, narrow no-break space
    (0x205F, 0x206F),    // medium mathematical space, word joiner, invisible operators, isolates
    (0x2800, 0x2800),    // braille pattern blank
    (0x3000, 0x3000),    // ideographic space (Zs)
    (0x3164, 0x3164),    // Hangul filler
    (0xE000, 0xF8FF),    // private use
    (0xFDD0, 0xFDEF),    // noncharacters
    (0xFE00, 0xFE0F),    // variation selectors
    (0xFEFF, 0xFEFF),    // zero-width no-break space (BOM)
    (0xFFA0, 0xFFA0),    // halfwidth Hangul filler
    (0xFFF0, 0xFFFB),    // reserved default ignorables, interlinear annotation controls
    (0x110BD, 0x110BD),  // Kaithi number sign (Cf)
    (0x110CD, 0x110CD),  // Kaithi number sign above (Cf)
    (0x13430, 0x1343F),  // Egyptian hieroglyph format controls (Cf)
    (0x1BCA0, 0x1BCA3),  // shorthand format controls (Cf)
    (0x1D173, 0x1D17A),  // musical symbol format controls (Cf)
    (0xE0000, 0xE0FFF),  // tags, variation selectors supplement, reserved default ignorables
    (0xF0000, 0x10FFFF), // supplementary private use areas
];

/// Whether `c` must not reach a terminal as is: controls (C0 with tab and
/// newline, since one displayed value is one line; DEL; C1), the bidi controls,
/// and every other character that is not visible (see `INVISIBLE`: format
/// characters, separators, spaces other than U+0020, default ignorables,
/// Hangul fillers, variation selectors, tags, private use, noncharacters).
pub fn is_unsafe_char(c: char) -> bool {
    let code = c as u32;
    c.is_control()
        || (code & 0xFFFE) == 0xFFFE // U+xFFFE and U+xFFFF of every plane: noncharacters
        || INVISIBLE
            .binary_search_by(|&(low, high)| {
                if high < code {
                    std::cmp::Ordering::Less
                } else if low > code {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .is_ok()
}

/// `text` with every [unsafe character](is_unsafe_char) written as an escape:
/// `\n`, `\t`, `\r`, `\e` (ESC) and `\x7f`-style hex for other characters below
/// U+0100, `\u{200b}` for the rest. Borrowed (no copy) when nothing needs escaping.
///
/// ```
/// use hermes_hooks_core::display::escape;
/// assert_eq!(escape("~/.hermes/hooks/lint.sh"), "~/.hermes/hooks/lint.sh");
/// assert_eq!(escape("a\x1b[2Kb"), "a\\e[2Kb");
/// assert_eq!(escape("x\u{202e}y\n"), "x\\u{202e}y\\n");
/// ```
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !is_unsafe_char(c) {
            escaped.push(c);
            continue;
        }
        match c {
            '\n' => escaped.push_str("\\n"),
            '\t' => escaped.push_str("\\t"),
            '\r' => escaped.push_str("\\r"),
            '\u{1b}' => escaped.push_str("\\e"),
            c if (c as u32) < 0x100 => {
                let _ = write!(escaped, "\\x{:02x}", c as u32);
            }
            c => {
                let _ = write!(escaped, "\\u{{{:x}}}", c as u32);
            }
        }
    }
    Cow::Owned(escaped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(
            escape("python3 ~/x.py --flag 'é ü' 日本語 ✓ e\u{301}"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn every_class_is_escaped() {
        assert_eq!(
            escape("\u{0}\u{7}\u{7f}\u{85}\u{9b}"),
            "\\x00\\x07\\x7f\\x85\\x9b"
        );
        assert_eq!(
            escape("\u{202a}\u{202e}\u{2066}\u{2069}\u{200f}\u{61c}"),
            "\\u{202a}\\u{202e}\\u{2066}\\u{2069}\\u{200f}\\u{61c}"
        );
    }

    #[test]
    fn invisible_characters_are_escaped() {
        assert_eq!(
            escape("a\u{200b}b\u{2060}c\u{feff}d\u{3164}e\u{2028}f"),
            "a\\u{200b}b\\u{2060}c\\u{feff}d\\u{3164}e\\u{2028}f"
        );
        assert_eq!(
            escape("\u{a0}\u{ad}\u{115f}\u{ffa0}\u{fe0f}\u{e0041}\u{e0100}\u{3000}\u{2800}"),
            "\\xa0\\xad\\u{115f}\\u{ffa0}\\u{fe0f}\\u{e0041}\\u{e0100}\\u{3000}\\u{2800}"
        );
        assert_eq!(
            escape("\u{e000}\u{fffe}\u{10ffff}"),
            "\\u{e000}\\u{fffe}\\u{10ffff}"
        );
    }

    /// The oracle: Unicode's own properties, as the regex crate carries them.
    fn invisible_by_unicode() -> regex::Regex {
        regex::Regex::new(
            r"^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Zs}\p{Co}\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}]$",
        )
        .expect("the oracle compiles")
    }

    #[test]
    fn every_invisible_code_point_is_unsafe() {
        let oracle = invisible_by_unicode();
        let mut buffer = [0u8; 4];
        let missed: Vec<String> = (0..=0x10_FFFF_u32)
            .filter_map(char::from_u32)
            .filter(|&c| c != ' ' && oracle.is_match(c.encode_utf8(&mut buffer)))
            .filter(|&c| !is_unsafe_char(c))
            .map(|c| format!("U+{:04X}", c as u32))
            .collect();
        assert!(missed.is_empty(), "not escaped: {missed:?}");
    }

    #[test]
    fn visible_text_is_left_alone() {
        for c in [
            'a',
            ' ',
            '~',
            '/',
            'é',
            '日',
            '✓',
            '\u{301}',
            '\u{fffd}',
            '\u{1f600}',
        ] {
            assert!(!is_unsafe_char(c), "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn a_spoofing_sequence_cannot_survive() {
        let hostile = "evil.sh\r\x1b[2K~/.hermes/agent-hooks/lint.sh";
        let shown = escape(hostile);
        assert!(!shown.chars().any(is_unsafe_char), "{shown}");
        assert!(shown.starts_with("evil.sh\\r\\e[2K"));
    }

    proptest! {
        /// Whatever the text, what is shown holds nothing invisible, and every
        /// visible character of the text is shown, in order.
        #[test]
        fn nothing_invisible_is_shown(text in "\\PC*|[\\u{0}-\\u{3000}\\u{e0000}-\\u{e0100}\\u{feff}\\u{fff0}-\\u{ffff}]{0,40}") {
            let shown = escape(&text);
            let oracle = invisible_by_unicode();
            let mut buffer = [0u8; 4];
            for c in shown.chars() {
                prop_assert!(c == ' ' || !oracle.is_match(c.encode_utf8(&mut buffer)), "U+{:04X} shown", c as u32);
            }
            // Every character of the text that is safe appears, in order.
            let mut rest = shown.chars();
            for c in text.chars().filter(|&c| !is_unsafe_char(c)) {
                prop_assert!(rest.any(|shown| shown == c), "U+{:04X} lost", c as u32);
            }
        }
    }
}
