//! Showing text from config files and manifests to a person, safely.
//!
//! A `command`, `matcher`, target name or `HOOK.yaml` name is written by whoever
//! wrote the file. Printed raw, an escape sequence in it can rewrite the terminal
//! (a consent prompt that shows one script while `y` approves another) and a bidi
//! override can reorder what is read. Everything such text passes through
//! [`escape`] before a person sees it: consent prompts, `hooks list`, `hooks
//! doctor`, warnings, the replay timeline.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` must not reach a terminal as is: C0 controls (tab and newline
/// included, since one displayed value is one line), DEL, C1 controls, and the
/// Unicode bidi controls (embeddings, overrides, isolates and marks).
pub fn is_unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// `text` with every [unsafe character](is_unsafe_char) written as an escape:
/// `\n`, `\t`, `\r`, `\e` (ESC) and `\x7f`-style hex for other controls below
/// U+0100, `\u{202e}` for the rest. Borrowed (no copy) when nothing needs escaping.
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

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(
            escape("python3 ~/x.py --flag 'é ü'"),
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
    fn a_spoofing_sequence_cannot_survive() {
        let hostile = "evil.sh\r\x1b[2K~/.hermes/agent-hooks/lint.sh";
        let shown = escape(hostile);
        assert!(!shown.chars().any(is_unsafe_char), "{shown}");
        assert!(shown.starts_with("evil.sh\\r\\e[2K"));
    }
}
