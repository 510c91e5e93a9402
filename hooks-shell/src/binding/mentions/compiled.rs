//! The strings of a compiled Python file (`.pyc`): its marshalled code
//! objects hold each name and literal behind a type byte and a length, so
//! a path read as raw text may be glued to a length byte that is a letter
//! (`A/p/tools/boot.py`). Read out whole, each on a line of its own, the
//! strings are words as the source's literals are (red team round 28c,
//! R28c-7: a `sitecustomize.pyc` with no source).

/// The most bytes one marshalled string is read as.
const MAX_STRING: usize = 64 * 1024;

/// The strings marshalled in `bytes`, each on a line of its own: every
/// place a string's type byte and length could start is tried (a stray
/// match only adds words).
pub(super) fn marshalled_strings(bytes: &[u8]) -> String {
    let mut out = String::new();
    for (at, byte) in bytes.iter().enumerate() {
        let (length, start) = match byte & 0x7f {
            // Short ASCII, interned or not: a one-byte length.
            b'z' | b'Z' => match bytes.get(at + 1) {
                Some(length) => (usize::from(*length), at + 2),
                None => continue,
            },
            // Bytes, Unicode, ASCII, interned: a four-byte length.
            b's' | b't' | b'u' | b'a' | b'A' => match bytes.get(at + 1..at + 5) {
                Some(length) => {
                    let length = u32::from_le_bytes([length[0], length[1], length[2], length[3]]);
                    (usize::try_from(length).unwrap_or(usize::MAX), at + 5)
                }
                None => continue,
            },
            _ => continue,
        };
        if length == 0 || length > MAX_STRING {
            continue;
        }
        let Some(text) = bytes.get(start..start + length) else {
            continue;
        };
        let Ok(text) = std::str::from_utf8(text) else {
            continue;
        };
        if text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t')
        {
            continue;
        }
        out.push('\n');
        out.push_str(text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::marshalled_strings;

    #[test]
    fn a_string_behind_a_letter_length_is_read_whole() {
        // 'z' (short ASCII, with the reference flag) then a length of 65: 'A'.
        let path = format!("/p/{}/boot.py", "t".repeat(54));
        assert_eq!(path.len(), 65);
        let mut bytes = b"\xe3\x00junk".to_vec();
        bytes.push(b'z' | 0x80);
        bytes.push(65);
        bytes.extend(path.as_bytes());
        bytes.push(b'a');
        bytes.extend(4u32.to_le_bytes());
        bytes.extend(b"boot");
        let strings = marshalled_strings(&bytes);
        assert!(strings.lines().any(|line| line == path), "{strings:?}");
        assert!(strings.lines().any(|line| line == "boot"), "{strings:?}");
    }
}
