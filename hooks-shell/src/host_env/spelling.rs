//! How a shell and the kernel read the paths of a host variable's value
//! (red team rounds 18 and 19): `~` and `~name` as homes, words starting
//! after shell operators, and `..` taken after the links before it.

use std::path::{Path, PathBuf};

/// `value` with each word's leading `~/` (or a lone `~`) spelled as `home`.
/// A `~name/` is that user's home (red team round 19, R19-1), and a word
/// starts after shell punctuation too (`true;~/x`: R19-2); a `~name` no
/// user has is left as written, a relative word.
pub(super) fn with_home(value: &str, home: &Path) -> String {
    let home = home.to_string_lossy();
    let mut out = String::with_capacity(value.len());
    let mut at_word_start = true;
    let mut rest = value;
    while let Some(c) = rest.chars().next() {
        let len = c.len_utf8();
        if c == '~' && at_word_start {
            let name_end = rest[1..]
                .find(|c: char| matches!(c, '/' | ':' | '=') || c.is_whitespace())
                .map_or(rest.len(), |at| at + 1);
            let name = &rest[1..name_end];
            let named = if name.is_empty() {
                Some(home.to_string())
            } else {
                nix::unistd::User::from_name(name)
                    .ok()
                    .flatten()
                    .map(|user| user.dir.to_string_lossy().into_owned())
            };
            if let Some(dir) = named {
                out.push_str(&dir);
                rest = &rest[name_end..];
                at_word_start = false;
                continue;
            }
        }
        out.push(c);
        at_word_start = c.is_whitespace()
            || matches!(
                c,
                ':' | '=' | '"' | '\'' | ';' | '&' | '|' | '(' | ')' | '<' | '>' | '`'
            );
        rest = &rest[len..];
    }
    out
}

/// `path` with each `..` taken where the kernel takes it, after the links
/// before it (`<outside>/in/../x` with `in -> <project>/a`: red team round
/// 19, R19-3); `None` when a folder before a `..` does not exist (then
/// nothing is reached).
pub(super) fn physical(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for part in path.components() {
        if part == std::path::Component::ParentDir {
            out = std::fs::canonicalize(&out).ok()?;
            out.pop();
        } else {
            out.push(part);
        }
    }
    Some(out)
}
