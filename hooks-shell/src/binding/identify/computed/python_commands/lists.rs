//! Two more shapes of the words a Python call starts (red team round 59,
//! B-12, B-13: benign guards that could not be approved): a literal split
//! into words (`shlex.split('git status --porcelain')`, `"git diff
//! --check".split()`), and a loop variable given only by one `for` over a
//! literal list (`for c in CHECKS: subprocess.run(c)` with `CHECKS =
//! [["git", "diff"], …]`): each item an alternative.

use std::sync::LazyLock;

use regex::Regex;

use super::super::inline_code::top_level;
use super::super::python_values::values;

/// The words a literal split into words gives (`shlex.split('a b')`,
/// `'a b'.split()`), each as a Python string literal; `None` for any
/// other expression.
pub(super) fn split_literal(expression: &str) -> Option<Vec<String>> {
    static SPLIT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^(?:shlex\s*\.\s*split\s*\(\s*(?P<a>'[^'\\]*'|"[^"\\]*")\s*\)|(?P<b>'[^'\\]*'|"[^"\\]*")\s*\.\s*split\s*\(\s*\))$"#)
            .expect("valid regex")
    });
    let found = SPLIT.captures(expression.trim())?;
    let literal = found.name("a").or(found.name("b"))?.as_str();
    let text = &literal[1..literal.len() - 1];
    let words = match found.name("a") {
        Some(_) => shlex::split(text)?,
        None => text.split_whitespace().map(str::to_owned).collect(),
    };
    words
        .into_iter()
        .map(|word| match word.contains('\'') {
            false => Some(format!("'{word}'")),
            true if !word.contains('"') => Some(format!("\"{word}\"")),
            true => None,
        })
        .collect()
}

/// The items of the literal list `name` takes as a loop variable, when
/// one `for name in LIST:` gives it and nothing else does (`LIST` a list
/// or tuple literal, or a name given one); `None` otherwise.
pub(super) fn loop_items(code: &str, name: &str) -> Option<Vec<String>> {
    let escaped = regex::escape(name);
    let loops = Regex::new(&format!(r"\bfor\s[^:\n]*\b{escaped}\b[^:\n]*\sin\b")).ok()?;
    if loops.find_iter(code).count() != 1 {
        return None;
    }
    let simple = Regex::new(&format!(r"\bfor[ \t]+{escaped}[ \t]+in[ \t]+([^:\n]+):")).ok()?;
    let iterated = simple.captures(code)?.get(1)?.as_str().trim();
    // Given, changed or aliased anywhere else: not the list's items.
    let other = Regex::new(&format!(
        r"\b{escaped}\s*(?:[-+*/%|&^@]|//|\*\*|>>|<<)?=[^=]|\bas\s+{escaped}\b|\b{escaped}\s*:=|\b{escaped}\s*\.\s*(?:append|extend|insert|__setitem__|__iadd__)\b|\b{escaped}\s*\[[^\]]*\]\s*=[^=]|\b(?:global|nonlocal|lambda|import)\b[^\n]*\b{escaped}\b"
    ))
    .ok()?;
    if other.is_match(code) {
        return None;
    }
    let list = match iterated.starts_with(['[', '(']) {
        true => iterated.to_owned(),
        false => match values(code, iterated)?.as_slice() {
            [one] => one.trim().to_owned(),
            _ => return None,
        },
    };
    let inner = list
        .strip_prefix(['[', '('])
        .and_then(|list| list.strip_suffix([']', ')']))?;
    Some(
        top_level(inner, ',')
            .into_iter()
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(str::to_owned)
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::{loop_items, split_literal};

    #[test]
    fn a_literal_split_into_words_is_its_words() {
        assert_eq!(
            split_literal("shlex.split('git status --porcelain')"),
            Some(vec![
                "'git'".into(),
                "'status'".into(),
                "'--porcelain'".into()
            ])
        );
        assert_eq!(
            split_literal("\"git diff\".split()"),
            Some(vec!["'git'".into(), "'diff'".into()])
        );
        assert_eq!(split_literal("shlex.split(cmd)"), None);
        assert_eq!(split_literal("'a b'.split(sep)"), None);
    }

    #[test]
    fn a_loop_over_a_literal_list_gives_its_items() {
        let code = "CHECKS = [['git', 'diff'], ['git', 'status']]\nfor c in CHECKS:\n    run(c)\n";
        assert_eq!(
            loop_items(code, "c"),
            Some(vec!["['git', 'diff']".into(), "['git', 'status']".into()])
        );
        let changed = format!("{code}    c = ['sh', x]\n");
        assert_eq!(loop_items(&changed, "c"), None);
        let grown = format!("{code}c.append(x)\n");
        assert_eq!(loop_items(&grown, "c"), None);
        assert_eq!(loop_items("for c in files():\n    run(c)\n", "c"), None);
        let twice = format!("{code}for c in other:\n    run(c)\n");
        assert_eq!(loop_items(&twice, "c"), None);
    }
}
