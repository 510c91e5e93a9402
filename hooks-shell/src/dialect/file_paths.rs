//! The files a file tool's call acts on, for its `if` rule: the path
//! arguments (`file_path`, `notebook_path`; for `Glob` and `Grep` the folder
//! searched and the file glob too) and, for Hermes's `patch` in V4A mode,
//! the files its body names (`*** Update File: .env`), read as
//! hermes-agent's `tools/patch_parser.py` reads them (red-team R6-10).

use serde_json::{Map, Value};

/// The files one call names.
#[derive(Debug, Default)]
pub(super) struct FilePaths<'a> {
    /// Every path found.
    pub(super) paths: Vec<&'a str>,
    /// Whether a line of a patch body may name a file and was not read
    /// (a fail-closed guard runs).
    pub(super) unsure: bool,
}

/// The files the call of `tool` (Claude name) with `input` names.
pub(super) fn file_paths<'a>(tool: &str, input: &'a Map<String, Value>) -> FilePaths<'a> {
    let keys: &[&str] = match tool {
        "Glob" => &["file_path", "path", "pattern"],
        "Grep" => &["file_path", "path", "glob"],
        _ => &["file_path", "notebook_path"],
    };
    let mut found = FilePaths {
        paths: keys
            .iter()
            .filter_map(|key| input.get(*key).and_then(Value::as_str))
            .collect(),
        unsure: false,
    };
    if let Some(body) = input.get("patch").and_then(Value::as_str) {
        for line in body.split('\n') {
            let line = line.strip_suffix('\r').unwrap_or(line);
            match v4a_header(line) {
                Header::None => {}
                Header::Files(files) => found.paths.extend(files),
                Header::Unread => found.unsure = true,
            }
        }
    }
    found
}

/// What one line of a V4A body is.
#[derive(Debug, PartialEq, Eq)]
enum Header<'a> {
    /// Not a header (a hunk line, `*** Begin Patch`, `*** End Patch`).
    None,
    /// `*** Update|Add|Delete File: PATH`, `*** Move File: FROM -> TO`.
    Files(Vec<&'a str>),
    /// A line starting `***` read as neither.
    Unread,
}

/// `line` as hermes-agent's parser matches it (`\*\*\*\s*Update\s+File:\s*(.+)`
/// at the line's start, the path stripped of Python's white space).
fn v4a_header(line: &str) -> Header<'_> {
    let Some(rest) = line.strip_prefix("***") else {
        return Header::None;
    };
    let rest = rest.trim_start_matches(python_space);
    for marker in ["Begin", "End"] {
        if let Some(after) = rest.strip_prefix(marker)
            && let Some(tail) = after.trim_start_matches(python_space).strip_prefix("Patch")
            && after.starts_with(python_space)
            && tail.trim_matches(python_space).is_empty()
        {
            return Header::None;
        }
    }
    for operation in ["Update", "Add", "Delete", "Move"] {
        let Some(after) = rest.strip_prefix(operation) else {
            continue;
        };
        let Some(target) = after
            .trim_start_matches(python_space)
            .strip_prefix("File:")
            .filter(|_| after.starts_with(python_space))
        else {
            continue;
        };
        let files = if operation == "Move" {
            // `(.+?)\s*->\s*(.+)`: the first arrow after one character.
            target
                .char_indices()
                .skip(1)
                .find(|(at, _)| target[*at..].starts_with("->"))
                .map(|(at, _)| vec![&target[..at], &target[at + 2..]])
        } else {
            Some(vec![target])
        };
        let files: Vec<&str> = files
            .unwrap_or_default()
            .into_iter()
            .map(|file| file.trim_matches(python_space))
            .collect();
        if files.is_empty() || files.iter().any(|file| file.is_empty()) {
            return Header::Unread;
        }
        return Header::Files(files);
    }
    Header::Unread
}

/// Python's `str.isspace` (what `\s` and `strip()` take): Unicode white
/// space and the separators `\x1c`-`\x1f`.
fn python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::{Header, v4a_header};

    #[test]
    fn v4a_headers_name_their_files_as_hermes_reads_them() {
        for (line, files) in [
            ("*** Update File: .env", vec![".env"]),
            ("***Update File:.env ", vec![".env"]),
            ("*** Add File:  a b.txt", vec!["a b.txt"]),
            ("*** Delete File: x\u{1f}", vec!["x"]),
            ("*** Move File: a -> b", vec!["a", "b"]),
            ("*** Move File: a->b->c", vec!["a", "b->c"]),
        ] {
            assert_eq!(v4a_header(line), Header::Files(files), "{line}");
        }
        for line in [
            "*** Begin Patch",
            "***End  Patch ",
            "+*** Update File: x",
            "@@ x",
        ] {
            assert_eq!(v4a_header(line), Header::None, "{line}");
        }
        for line in [
            "*** Update File:",
            "*** Move File: a ->",
            "*** UpdateFile: x",
            "*** End of File",
        ] {
            assert_eq!(v4a_header(line), Header::Unread, "{line}");
        }
    }
}
