//! Whether a settings file that cannot be parsed still says, in its text,
//! that it holds a fail-closed guard (red team R35-2, R36-4): read in
//! UTF-8 or UTF-16, JSON's `\uXXXX` escapes taken out, letters compared
//! without case or separators (`failClosed`, `fail_closed`,
//! `fail\u0043losed`).

use std::io::Read;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

/// Whether the text of `path` (as much as [`super::file::MAX_FILE_BYTES`])
/// names a fail-closed setting in any spelling.
pub(super) fn names_fail_closed(path: &Path) -> bool {
    let Ok(file) = hermes_hooks_core::regular_file::open_regular(path) else {
        return false;
    };
    let mut bytes = Vec::new();
    if file
        .take(super::file::MAX_FILE_BYTES)
        .read_to_end(&mut bytes)
        .is_err()
    {
        return false;
    }
    let text = unescaped(&decoded(&bytes));
    let letters: String = text
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    letters.contains("failclosed")
}

/// `bytes` as text: UTF-16 (by its byte order mark, or by the zero bytes
/// of ASCII text in it), else UTF-8 (lossily).
fn decoded(bytes: &[u8]) -> String {
    let zeros = |offset: usize| {
        bytes
            .iter()
            .skip(offset)
            .step_by(2)
            .filter(|b| **b == 0)
            .count()
    };
    let half = bytes.len() / 2;
    let little = bytes.starts_with(&[0xFF, 0xFE]) || (half > 0 && zeros(1) * 2 > half);
    let big = bytes.starts_with(&[0xFE, 0xFF]) || (half > 0 && zeros(0) * 2 > half);
    if !(little || big) {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let units = bytes.chunks_exact(2).map(|pair| match little {
        true => u16::from_le_bytes([pair[0], pair[1]]),
        false => u16::from_be_bytes([pair[0], pair[1]]),
    });
    char::decode_utf16(units)
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
}

/// `text` with JSON's `\uXXXX` escapes as the characters they stand for.
fn unescaped(text: &str) -> String {
    static ESCAPE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\\u([0-9a-fA-F]{4})").expect("valid regex"));
    ESCAPE
        .replace_all(text, |found: &regex::Captures<'_>| {
            u32::from_str_radix(&found[1], 16)
                .ok()
                .and_then(char::from_u32)
                .map_or_else(String::new, String::from)
        })
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_of_fail_closed_is_found() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("settings.json");
        let utf16 = |text: &str, little: bool| -> Vec<u8> {
            let mut bytes = if little {
                vec![0xFF, 0xFE]
            } else {
                vec![0xFE, 0xFF]
            };
            for unit in text.encode_utf16() {
                bytes.extend(if little {
                    unit.to_le_bytes()
                } else {
                    unit.to_be_bytes()
                });
            }
            bytes
        };
        let broken = r#"{"hooks": {"PreToolUse": [{"hooks": [{"failClosed": true"#;
        for bytes in [
            broken.as_bytes().to_vec(),
            broken.replace("failClosed", "fail_closed").into_bytes(),
            broken
                .replace("failClosed", r"fail\u0043losed")
                .into_bytes(),
            utf16(broken, true),
            utf16(broken, false),
            utf16(broken, true)[2..].to_vec(),
        ] {
            std::fs::write(&file, &bytes).expect("write");
            assert!(names_fail_closed(&file), "{bytes:?}");
        }
        std::fs::write(&file, r#"{"hooks": {"PreToolUse": ["#).expect("write");
        assert!(!names_fail_closed(&file));
    }
}
