//! Whether a mapping an environment is built from writes out every key:
//! a name written any other way (`{"PA" "TH": …}`, `{k: …}`, `{PATH}`)
//! is one no reading sees (red team round 58, H58-1).

use std::sync::LazyLock;

use regex::Regex;

use super::super::brackets::split_outside;
use super::{PLAIN_KEY, WRITTEN_KEYWORDS};

/// Whether every key of the mapping `literal` (`{…}`, `dict(os.environ,
/// …)`) is written out: a plain literal, a JavaScript name before `:`, a
/// keyword argument; a spread (`**x`, `...x`) is read apart. `{"PA" "TH":
/// …}`, `{"path".upper(): …}`, `{k: …}`, `{PATH}` are not (round 58: each
/// gave `PATH` unread).
pub(super) fn keys_written(literal: &str) -> bool {
    static JS_NAME: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^[A-Za-z_$][\w$]*$").expect("valid regex"));
    let inner = match literal.trim() {
        text if text.starts_with('{') => text.strip_prefix('{').and_then(|t| t.strip_suffix('}')),
        text => text.strip_prefix("dict(").and_then(|t| t.strip_suffix(')')),
    };
    let Some(inner) = inner else {
        return false;
    };
    let python = literal.trim_start().starts_with("dict(") || inner.contains("**");
    split_outside(inner, ",").iter().all(|entry| {
        let entry = entry.trim();
        let spread = entry.trim_start_matches(['*', '.']).trim_start();
        if spread.len() < entry.len() && spread.starts_with('{') {
            return keys_written(spread);
        }
        if entry.is_empty() || entry.starts_with("**") || entry.starts_with("...") {
            return true;
        }
        if let [key, _, ..] = split_outside(entry, ":")[..] {
            return PLAIN_KEY.is_match(key.trim()) || (!python && JS_NAME.is_match(key.trim()));
        }
        // `dict(os.environ, K=v)`: a keyword; `os.environ` itself.
        WRITTEN_KEYWORDS.is_match(entry) || matches!(entry, "os.environ" | "os.environ.copy()")
    })
}
