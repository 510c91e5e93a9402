//! Reading one imported file into JSON: size-capped, a UTF-8 byte order mark
//! accepted (editors on Windows write one; Claude Code reads such a file),
//! JSON or Codex's TOML. Every failure is a sentence for a warning.

use std::io::Read;
use std::path::Path;

use serde_json::Value;

/// The largest imported file read, as for `config.yaml` (8 MiB).
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// Why a file gave no JSON.
#[derive(Debug)]
pub(super) enum Unread {
    /// It does not exist.
    Missing,
    /// It exists but cannot be read, is too large or does not parse: the sentence says which.
    Failed(String),
}

/// Reads `path` (JSON, or TOML when `toml`) into a JSON value, with the
/// places of keys a JSON object gives twice (the last is read; TOML refuses
/// them).
pub(super) fn read_document(path: &Path, toml: bool) -> Result<(Value, Vec<String>), Unread> {
    let text = read_text(path)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if toml {
        let table = toml::from_str::<toml::Table>(text).map_err(|error| {
            let message = error.to_string();
            let first = message.lines().next().unwrap_or("invalid");
            Unread::Failed(format!("is not valid TOML ({first})"))
        })?;
        return Ok((
            serde_json::to_value(table).unwrap_or(Value::Null),
            Vec::new(),
        ));
    }
    let value = serde_json::from_str::<Value>(text)
        .map_err(|error| Unread::Failed(format!("is not valid JSON ({error})")))?;
    Ok((value, super::json_duplicates::duplicate_keys(text)))
}

/// The file's text: at most [`MAX_FILE_BYTES`], UTF-8.
fn read_text(path: &Path) -> Result<String, Unread> {
    // Never a blocking open or read: a FIFO or a link to /dev/stdin is refused.
    let file = hermes_hooks_core::regular_file::open_regular(path).map_err(|error| match error
        .kind()
    {
        // A link whose target is gone is there, and unreadable (R9-3).
        std::io::ErrorKind::NotFound if path.symlink_metadata().is_err() => Unread::Missing,
        _ => Unread::Failed(format!("cannot be read ({error})")),
    })?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| Unread::Failed(format!("cannot be read ({error})")))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(Unread::Failed(format!(
            "is over the {} MiB limit of an imported file",
            MAX_FILE_BYTES / (1024 * 1024)
        )));
    }
    String::from_utf8(bytes).map_err(|error| {
        Unread::Failed(format!(
            "is not UTF-8 text (invalid byte at offset {})",
            error.utf8_error().valid_up_to()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8], toml: bool) -> Result<Value, String> {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("hooks.json");
        std::fs::write(&path, bytes).expect("write");
        read_document(&path, toml)
            .map(|(value, _)| value)
            .map_err(|unread| match unread {
                Unread::Missing => "missing".to_owned(),
                Unread::Failed(message) => message,
            })
    }

    #[test]
    fn a_byte_order_mark_is_accepted_and_the_rest_is_a_sentence() {
        assert_eq!(
            read(b"\xEF\xBB\xBF{\"hooks\": {}}", false),
            Ok(serde_json::json!({"hooks": {}}))
        );
        assert_eq!(
            read(b"\xEF\xBB\xBF[hooks]\n", true),
            Ok(serde_json::json!({"hooks": {}}))
        );
        let comment = read(b"// mine\n{\"hooks\": {}}", false).unwrap_err();
        assert!(comment.starts_with("is not valid JSON"), "{comment}");
        let truncated = read(b"{\"hooks\": {\"PreToolUse\": [", false).unwrap_err();
        assert!(truncated.starts_with("is not valid JSON"), "{truncated}");
        let latin1 = read(b"{\"a\": \"\xE9\"}", false).unwrap_err();
        assert!(latin1.contains("not UTF-8"), "{latin1}");
    }

    #[test]
    fn a_file_over_the_cap_is_refused_by_name() {
        let mut big = b"{\"hooks\": {}, \"pad\": \"".to_vec();
        big.resize(MAX_FILE_BYTES as usize + 10, b'x');
        big.extend_from_slice(b"\"}");
        let error = read(&big, false).unwrap_err();
        assert!(error.contains("over the 8 MiB limit"), "{error}");
    }
}
