//! JSON text written for a native call's payload and a Python observer
//! batch's line: the same bytes as `serde_json::to_writer`, faster for
//! strings that need no escape.
//!
//! Serialising the payload is half the host's share of a native call.
//! serde_json escapes a string byte by byte through its `Formatter`; most
//! payload strings (keys, ids, commands) have nothing to escape, so they are
//! checked a block at a time (which the compiler vectorises) and copied
//! whole. A string with something to escape, and every number, is written by
//! serde_json itself, so the output stays byte for byte serde_json's
//! (`tests::the_bytes_are_serde_json_s` checks it).

use serde_json::{Map, Value};

/// Writes `map` as a JSON object into `out` (appended).
pub(crate) fn write_object(map: &Map<String, Value>, out: &mut Vec<u8>) -> serde_json::Result<()> {
    out.push(b'{');
    for (index, (key, value)) in map.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        write_str(key, out)?;
        out.push(b':');
        write_value(value, out)?;
    }
    out.push(b'}');
    Ok(())
}

/// Writes `value` as JSON into `out` (appended).
pub(crate) fn write_value(value: &Value, out: &mut Vec<u8>) -> serde_json::Result<()> {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(number) => serde_json::to_writer(&mut *out, number)?,
        Value::String(text) => write_str(text, out)?,
        Value::Array(items) => {
            out.push(b'[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write_value(item, out)?;
            }
            out.push(b']');
        }
        Value::Object(map) => write_object(map, out)?,
    }
    Ok(())
}

/// A JSON string: copied whole between quotes when nothing in it needs an
/// escape, else written by serde_json.
pub(crate) fn write_str(text: &str, out: &mut Vec<u8>) -> serde_json::Result<()> {
    if needs_escape(text.as_bytes()) {
        return serde_json::to_writer(&mut *out, text);
    }
    out.reserve(text.len() + 2);
    out.push(b'"');
    out.extend_from_slice(text.as_bytes());
    out.push(b'"');
    Ok(())
}

/// Whether any byte is one JSON escapes: `"`, `\` or a control character
/// below 0x20 (the set serde_json escapes). Eight bytes at a time: payload
/// strings are mostly short, where a byte loop (or a vector loop's scalar
/// tail) costs more than the copy.
fn needs_escape(bytes: &[u8]) -> bool {
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut block = [0; 8];
        block.copy_from_slice(word);
        if word_needs_escape(u64::from_le_bytes(block)) {
            return true;
        }
    }
    let rest = words.remainder();
    if rest.is_empty() {
        return false;
    }
    // The tail: the last eight bytes (overlapping some already checked),
    // or for a shorter text its bytes padded with `a`, assembled in a
    // register (copying them into a stack block and loading that back
    // stalls on the store).
    let tail = match bytes.len().checked_sub(8) {
        Some(start) => {
            let mut block = [0; 8];
            block.copy_from_slice(&bytes[start..]);
            u64::from_le_bytes(block)
        }
        None => {
            rest.iter()
                .enumerate()
                .fold(u64::from_le_bytes([b'a'; 8]), |word, (index, &byte)| {
                    let shift = 8 * index;
                    (word & !(0xff << shift)) | (u64::from(byte) << shift)
                })
        }
    };
    word_needs_escape(tail)
}

/// Whether one of the eight bytes of `word` needs an escape. The classic
/// bit tricks: `x - 0x20…` borrows into a byte's top bit exactly when some
/// byte is below 0x20 (given its top bit was clear: `& !x`), and a byte
/// equal to `c` is a zero byte of `x ^ c…`. They can flag a byte above a
/// true hit, never miss one, so the word-level answer is exact.
fn word_needs_escape(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGH;
    let control = below(word, 0x20);
    let quote = below(word ^ (ONES * u64::from(b'"')), 1);
    let backslash = below(word ^ (ONES * u64::from(b'\\')), 1);
    control | quote | backslash != 0
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_bytes_are_serde_json_s() {
        let long = "x".repeat(200);
        let escaped_late = format!("{long}\"{long}\n");
        let payload = json!({
            "tool_name": "terminal",
            "args": {"command": "ls -la", "nested": [1, -2, 3.5, 1e300, true, false, null, {}, []]},
            "quote\"key": "tab\there, back\\slash, bell \u{7}, del \u{7f}, é, 日本, 🦀",
            "long": long,
            "escaped_late": escaped_late,
            "u64": u64::MAX,
            "i64": i64::MIN,
            "float": 0.1,
            "whole_float": 2.0,
            "empty": "",
        });
        let Value::Object(map) = payload else {
            panic!("an object")
        };
        let mut ours = Vec::new();
        write_object(&map, &mut ours).expect("writes");
        assert_eq!(
            String::from_utf8(ours),
            Ok(serde_json::to_string(&map).expect("serde_json writes"))
        );
        // Every ASCII byte at every place of strings of 1 to 24 chars
        // (whole words, tails, both), among non-ASCII text.
        for code in 0..=0x7f_u8 {
            for len in 1..=24 {
                for at in 0..len {
                    let mut text: Vec<char> = "é日🦀xyz".chars().cycle().take(len).collect();
                    text[at] = char::from(code);
                    let text: String = text.into_iter().collect();
                    let mut ours = Vec::new();
                    write_str(&text, &mut ours).expect("writes");
                    let theirs = serde_json::to_vec(&text).expect("writes");
                    assert_eq!(ours, theirs, "{code:#x} at {at} of {len}");
                }
            }
        }
    }
}
