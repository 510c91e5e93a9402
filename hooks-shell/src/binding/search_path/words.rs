//! The words of shell text as a hook's shell reads them for module
//! folders: split at blanks and operators with each `$(…)` kept whole and
//! read inside too (R26-1), the folder of `$0` and the project's top
//! written as they are (R26-12), and the quoted words of code.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

/// `word` split at blanks and shell operators, a command substitution
/// (`$(dirname $X)/lib`) kept whole, and the words inside each `$(…)` or
/// backquotes after it (`out=$(PYTHONPATH=lib python3 check.py)`).
pub(super) fn split(word: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let (mut part, mut depth) = (String::new(), 0usize);
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$' && chars.peek() == Some(&'(') {
            depth += 1;
            part.push(c);
            part.extend(chars.next());
            continue;
        }
        if depth > 0 {
            depth -= usize::from(c == ')');
            depth += usize::from(c == '(');
            part.push(c);
        } else if c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')') {
            parts.extend((!part.is_empty()).then(|| std::mem::take(&mut part)));
        } else {
            part.push(c);
        }
    }
    parts.extend((!part.is_empty()).then_some(part));
    let mut inner = Vec::new();
    for part in &parts {
        for (start, end) in substitutions(part) {
            inner.extend(split(&part[start..end]));
        }
        let mut quoted = part.split('`');
        quoted.next();
        for (at, piece) in quoted.enumerate() {
            if at % 2 == 0 {
                inner.extend(split(piece));
            }
        }
    }
    parts.extend(inner);
    parts
}

/// The byte ranges of the insides of each outermost `$(…)` of `text`.
fn substitutions(text: &str) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("$(").map(|at| at + from) {
        let start = at + 2;
        let mut depth = 1usize;
        let end = text[start..].char_indices().find_map(|(i, c)| {
            depth += usize::from(c == '(');
            depth -= usize::from(c == ')');
            (depth == 0).then_some(start + i)
        });
        let Some(end) = end else {
            break;
        };
        found.push((start, end));
        from = end + 1;
    }
    found
}

/// `text` with each `$(…)` naming the folder of `$0` (`$(dirname "$0")`,
/// `$( cd -- "$( dirname -- "${BASH_SOURCE[0]}" )" &> /dev/null && pwd )`,
/// `$(dirname "$(readlink -f "$0")")`) written as `in_file`, `$(git
/// rev-parse --show-toplevel …)` as `project`, and `$HOME` as it is.
pub(super) fn fixed(text: &str, in_file: Option<&Path>, project: &Path) -> String {
    static HOME: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\$\{HOME\}|\$HOME\b").expect("valid regex"));
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (start, end) in substitutions(text) {
        let inner = &text[start..end];
        let of_script =
            inner.contains("dirname") && (inner.contains("$0") || inner.contains("BASH_SOURCE"));
        let top = inner.contains("rev-parse") && inner.contains("--show-toplevel");
        let written = match (of_script, top, in_file) {
            (true, _, Some(folder)) => Some(folder.display().to_string()),
            (false, true, _) => Some(project.display().to_string()),
            _ => None,
        };
        if let Some(written) = written {
            out.push_str(&text[last..start - 2]);
            out.push_str(&written);
            last = end + 1;
        }
    }
    out.push_str(&text[last..]);
    match hermes_hooks_core::home::user_home() {
        Some(home) => HOME
            .replace_all(&out, regex::NoExpand(&home.display().to_string()))
            .into_owned(),
        None => out,
    }
}

/// `words` with the runner's project variables (`$CLAUDE_PROJECT_DIR`,
/// `${CURSOR_PROJECT_DIR:-.}`…) written as `project` and the folder it runs
/// in (`$PWD`, `$(pwd)`, `$(pwd -P)`) as `cwd`, quotes gone (R23-2, R24-1).
pub(in crate::binding) fn with_project(
    words: &[String],
    project: &Path,
    cwd: &Path,
) -> Vec<String> {
    static PROJECT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"\$\{(?:CLAUDE|CURSOR|CODEX|GEMINI)_PROJECT_DIR(?:[:]?[-=+?][^}]*)?\}|\$(?:CLAUDE|CURSOR|CODEX|GEMINI)_PROJECT_DIR\b",
        )
        .expect("valid regex")
    });
    static HERE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\$\{PWD(?:[:]?[-=+?][^}]*)?\}|\$PWD\b|\$\(\s*pwd(?:\s+-[LP]+)*\s*\)|`\s*pwd(?:\s+-[LP]+)*\s*`")
            .expect("valid regex")
    });
    let (project, cwd) = (project.display().to_string(), cwd.display().to_string());
    words
        .iter()
        .map(|word| {
            let word = word.replace(['"', '\''], "");
            let word = PROJECT.replace_all(&word, regex::NoExpand(&project));
            HERE.replace_all(&word, regex::NoExpand(&cwd)).into_owned()
        })
        .collect()
}

/// The quoted strings of `text` that may name a folder (`"lib"`,
/// `'./vendor'`, Perl's `q(lib)`, `qw(. inc)`), when it changes a module
/// search path (`sys.path`, `addsitedir`, `os.chdir`, `@INC`, `use lib`,
/// `lib->import`): every form of adding one cannot be listed (R25a-5).
pub(in crate::binding) fn literal_folders(text: &str) -> Vec<String> {
    static CHANGES: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"sys\.path|\bimport\s+path\b|addsitedir|os\.chdir|@INC|\buse\s+lib\b|\blib\s*(?:->|=>)|PYTHONPATH|PERL5LIB|PERLLIB")
            .expect("valid regex")
    });
    // `"."` only where it is what is added (`sys.path.insert(0, ".")`), not
    // any default (`os.environ.get("DIR", ".")`: R26-11).
    static DOT_ADDED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?:insert|append|extend|addsitedir|chdir|\blib|@INC)\s*(?:\(|,|=>|\s)\s*(?:[0-9]+\s*,\s*)?(?:q[qw]?\s*[(\[{<]\s*|\[\s*)?\\?['"]?\./?(?:\\?['"]|[\s)\]}>;,])"#)
            .expect("valid regex")
    });
    if !CHANGES.is_match(text) {
        return Vec::new();
    }
    let dot = DOT_ADDED.is_match(text);
    let mut words = quoted_words(text);
    words.retain(|word| dot || (word != "." && word != "./"));
    words.extend(crate::binding::globbing::recursive_globs(text));
    words
}

/// The quoted words of `text` that may name a path (`"lib"`, `'./vendor'`,
/// Perl's `q(lib)`, `qw(. inc)`).
pub(in crate::binding) fn quoted_words(text: &str) -> Vec<String> {
    static QUOTED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"\\?"([^"\\\n]{1,200})\\?"|'([^'\n]{1,200})'|\bq[qw]?\s*[(\[{<]([^)\]}>\n]{1,200})[)\]}>]"#)
            .expect("valid regex")
    });
    let mut found: Vec<String> = Vec::new();
    for quoted in QUOTED.captures_iter(text) {
        let inner = quoted.get(1).or(quoted.get(2)).or(quoted.get(3));
        for word in inner
            .map(|m| m.as_str())
            .unwrap_or_default()
            .split_whitespace()
        {
            // A glob too (`glob.glob("li*")[0]`: R31-3), expanded where
            // the folder is looked for.
            let path_like = word
                .chars()
                .all(|c| c.is_alphanumeric() || "._/-+@$:*?[]".contains(c))
                && !word.contains("://");
            if path_like && !found.iter().any(|known| known == word) {
                found.push(word.to_owned());
            }
        }
    }
    found
}
