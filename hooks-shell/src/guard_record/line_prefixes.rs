//! A guarded file cut at a line, for the files a cut leaves readable: a
//! Codex `config.toml` (red team round 12, R12-4) and the user's or the
//! managed `config.yaml` (round 77, R77-1's line-end cuts). TOML has no
//! closing delimiter and YAML's block style none either: a prefix of such
//! a file that ends at a line break reads, so a failed save, a sync
//! conflict or a full disk that cuts the file just before a guard reads as
//! the guard taken out. So a good read of a file with fail-closed guards
//! records a digest of each of its line prefixes; a later file that is one
//! of them, shorter, is taken as cut, not edited. A file whose guard was
//! removed from its end on purpose reads as cut too, until it changes in
//! any other way (a comment line after it will do).
//!
//! A cut at a byte reads too when it falls in a comment or just before a
//! line break (red team round 14, R14-4): a file without a final line
//! break whose lines before its last are a recorded prefix, and whose last
//! line is no longer than the line it would be a cut of (each line's length
//! is recorded), is taken as cut as well.

use std::path::Path;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::guard_record::{read_part, write_part};

/// The record beside the file's guard record kept for the guards the file
/// itself holds (a `config.toml`'s, a `config.yaml`'s `hooks:`).
pub(crate) const OWN_GUARDS: &str = "line-prefixes";

/// The one kept for the guards `config.yaml`'s `hooks_from:` imports: a
/// cut before the list, or inside a list in block style, drops a format.
pub(crate) const IMPORTED_GUARDS: &str = "line-prefixes-hooks-from";

/// The most line prefixes recorded (a longer file: its first lines only).
const MOST_LINES: usize = 4_000;

/// The text of `path`, `limit` bytes at most; `None` when it cannot be
/// read or is not UTF-8 (reported, and refused, where it is read).
pub(crate) fn read_text(path: &Path, limit: u64) -> Option<String> {
    let bytes = hermes_hooks_core::regular_file::read_capped(path, limit).ok()?;
    String::from_utf8(bytes).ok()
}

/// Whether `text` has a last line without a newline (a file cut short
/// mid-write ends so; an unread or empty one does not count).
pub(crate) fn ends_inside_a_line(text: Option<&str>) -> bool {
    text.is_some_and(|text| !text.is_empty() && !text.ends_with('\n'))
}

/// Why `path` (its `text`) reads as a cut copy of its last good read with
/// guards, by the record `part`; `None` when it does not.
pub(crate) fn cut(home: &Path, path: &Path, part: &str, text: &str) -> Option<String> {
    let record = read_part(home, path, part)?;
    let length = record.get("length").and_then(Value::as_u64)?;
    if text.len() as u64 >= length {
        return None;
    }
    let prefixes = record.get("prefixes").and_then(Value::as_array)?;
    if prefixes.len() > MOST_LINES
        && let Some((at, _)) = text.match_indices('\n').nth(MOST_LINES - 1)
        && prefixes.last().and_then(Value::as_str) == Some(&digest_of(&text[..=at]))
    {
        // Only the first lines of a longer file are recorded: shorter, and
        // those lines as they were, it may be cut past them (round 78, R78-1).
        return Some(format!(
            "is shorter than at its last good read ({} of {length} bytes), its first \
             {MOST_LINES} lines as they were: a cut past them cannot be told from an edit there; \
             if you changed it on purpose, change one of its first {MOST_LINES} lines too (a \
             comment line at its top will do)",
            text.len()
        ));
    }
    let recorded = |digest: &str| prefixes.iter().position(|p| p.as_str() == Some(digest));
    let at = if text.is_empty() || text.ends_with('\n') {
        "a line"
    } else {
        // Cut inside a line: the lines before it as recorded, the last no longer than it was.
        let head = text.rfind('\n').map_or("", |at| &text[..=at]);
        let line = recorded(&digest_of(head))?;
        let lengths = record.get("line_lengths").and_then(Value::as_array)?;
        let was = lengths.get(line).and_then(Value::as_u64)?;
        if (text.len() - head.len()) as u64 > was {
            return None;
        }
        "a byte"
    };
    if at == "a line" {
        recorded(&digest_of(text))?;
    }
    Some(format!(
        "is the first {} of its {length} bytes at its last good read, cut at {at} (a failed \
         save?); if you removed its last lines on purpose, change it in any other way (a comment \
         line at its end will do)",
        text.len()
    ))
}

/// After a good read of `path` (its `text`): records its line prefixes in
/// the record `part` when it has fail-closed guards (`guarded`), else
/// forgets them. `Err` is the warning to show: a record that cannot be
/// written goes stale, and a later cut would read as an edit (round 78,
/// R78-3: it was only logged).
pub(crate) fn remember(
    home: &Path,
    path: &Path,
    part: &str,
    text: &str,
    guarded: bool,
) -> Result<(), String> {
    if !guarded {
        if read_part(home, path, part).is_some() {
            // A record left behind only ever blocks: not worth a warning.
            let _ = write_part(home, path, part, None);
        }
        return Ok(());
    }
    // One pass: the digest so far, taken at each line's end (hashing each
    // prefix anew cost the square of the file's length).
    let mut prefixes = vec![digest_of("")];
    let (mut so_far, mut hashed) = (Sha256::new(), 0);
    let ends = text
        .match_indices('\n')
        .map(|(at, _)| at + 1)
        .take(MOST_LINES)
        .filter(|end| *end < text.len());
    for end in ends {
        so_far.update(&text.as_bytes()[hashed..end]);
        hashed = end;
        prefixes.push(short(so_far.clone().finalize().as_slice()));
    }
    let line_lengths: Vec<usize> = text.split('\n').take(MOST_LINES).map(str::len).collect();
    let record = json!({"length": text.len(), "prefixes": prefixes, "line_lengths": line_lengths});
    if read_part(home, path, part).as_ref() == Some(&record) {
        return Ok(());
    }
    write_part(home, path, part, Some(&record)).map_err(|why| {
        let risk = format!(
            "if {} is later cut short at a line's end, a guard it loses reads as taken out on \
             purpose",
            path.display()
        );
        crate::guard_record::unwritten_part_warning(&why, &risk)
    })
}

/// A short digest of `text`.
fn digest_of(text: &str) -> String {
    short(Sha256::digest(text.as_bytes()).as_slice())
}

/// The first 12 bytes of a digest, in hex.
fn short(digest: &[u8]) -> String {
    digest.iter().take(12).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_prefix_is_cut_and_an_edit_is_not() {
        let home = tempfile::tempdir().expect("home");
        let path = home.path().join("config.toml");
        let good = "model = \"o3\"\n[hooks]\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n";
        remember(home.path(), &path, OWN_GUARDS, good, true).expect("written");
        assert!(cut(home.path(), &path, OWN_GUARDS, "model = \"o3\"\n[hooks]\n").is_some());
        assert!(cut(home.path(), &path, OWN_GUARDS, "").is_some());
        assert!(cut(home.path(), &path, OWN_GUARDS, good).is_none());
        assert!(
            cut(
                home.path(),
                &path,
                OWN_GUARDS,
                "model = \"o3\"\n[hooks]\n# removed\n"
            )
            .is_none()
        );
        // Cut at a byte (R14-4): inside a line, or just before its line break.
        for cut_text in ["model = \"o3\"\n[hooks]", "model = \"o3\"\n[ho", "model"] {
            assert!(
                cut(home.path(), &path, OWN_GUARDS, cut_text).is_some(),
                "{cut_text}"
            );
        }
        // A last line longer than the one it would cut, or lines not recorded: edited.
        assert!(
            cut(
                home.path(),
                &path,
                OWN_GUARDS,
                "model = \"o3\"\n[hooks] # no guard"
            )
            .is_none()
        );
        assert!(cut(home.path(), &path, OWN_GUARDS, "model = \"o4\"\n[hooks]").is_none());
        remember(home.path(), &path, OWN_GUARDS, "model = \"o3\"\n", false).expect("forgotten");
        assert!(
            cut(home.path(), &path, OWN_GUARDS, "").is_none(),
            "forgotten without guards"
        );
    }

    #[test]
    fn a_longer_file_cut_past_its_recorded_lines_is_cut() {
        // R78-1: only the first MOST_LINES lines are recorded.
        let home = tempfile::tempdir().expect("home");
        let path = home.path().join("config.yaml");
        let head: String = (0..MOST_LINES + 10).map(|n| format!("# {n}\n")).collect();
        let good = format!("{head}hooks:\n  pre_tool_call: []\n");
        remember(home.path(), &path, OWN_GUARDS, &good, true).expect("written");
        assert!(cut(home.path(), &path, OWN_GUARDS, &head).is_some());
        assert!(cut(home.path(), &path, OWN_GUARDS, &good).is_none());
        let edited_at_top = format!("# edited\n{}", &head[4..]);
        assert!(cut(home.path(), &path, OWN_GUARDS, &edited_at_top).is_none());
    }
}
