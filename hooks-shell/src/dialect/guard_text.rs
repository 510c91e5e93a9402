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
    // The whole file, a piece at a time (a guard after 9 MiB of blanks in a
    // file too large to parse: red team R37-6), up to a bound; each piece
    // overlaps the one before so a name cut between them is found.
    let mut file = file.take(MAX_SCANNED_BYTES);
    let mut carried: Vec<u8> = Vec::new();
    let mut piece = vec![0u8; 1 << 20];
    loop {
        let read = match file.read(&mut piece) {
            Ok(0) | Err(_) => return false,
            Ok(read) => read,
        };
        carried.extend_from_slice(&piece[..read]);
        let text = unescaped(&decoded(&carried));
        let letters: String = text
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        if letters.contains("failclosed") {
            return true;
        }
        let keep = carried.len().min(OVERLAP_BYTES);
        carried.drain(..carried.len() - keep);
    }
}

/// The most of a file scanned.
const MAX_SCANNED_BYTES: u64 = 1 << 30;

/// What of one piece is read again with the next: more than any spelling
/// of the name with blanks and escapes between its letters could take
/// (an even number, so UTF-16 stays aligned).
const OVERLAP_BYTES: usize = 4096;

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
