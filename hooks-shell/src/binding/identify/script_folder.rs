//! The user's hook running a script under a folder a command substitution
//! names (`bash "$(dirname "$(git rev-parse --git-dir)")/hooks/run.sh"
//! check.sh`): that folder may be the project's, whose files no tree of
//! the user's binds, so such a hook cannot be approved (issue 27 audit,
//! F1). The folder it runs in and its checkout's top are read as paths
//! ([`crate::binding::wrappers::here_expanded`]).

use std::path::Path;

/// The path a command runs (a program, or a script an interpreter or
/// `source` is given) under a folder a command substitution names
/// (`bash "$(dirname "$(git rev-parse --git-dir)")/hooks/run.sh"`), the
/// folder it runs in and its checkout's top aside ([`crate::binding::wrappers::here_expanded`]).
pub(super) fn computed_script_folder(line: &str, cwd: &Path) -> Option<String> {
    static START: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r#"(?:^|[;&|(\n]\s*|(?:^|[\s;&|(])(?:sh|bash|dash|zsh|ksh|python3?|node|perl|ruby|php|deno|bun|source|\.|exec)\s+(?:-[A-Za-z]+\s+)*)["']?(\$\(|`|\$\{)"#,
        )
        .expect("valid regex")
    });
    for found in START.captures_iter(line) {
        let open = found.get(1)?.start();
        let opening = &line[open..];
        let end = if let Some(inner) = opening.strip_prefix('`') {
            inner.find('`').map(|at| open + 1 + at)?
        } else if opening.starts_with("${") {
            // `${X:-$(cmd)}`: a default a substitution computes (round 73).
            let close = open + closing(opening, '{', '}')?;
            let inside = &line[open..close];
            if !inside.contains("$(") && !inside.contains('`') {
                continue;
            }
            close
        } else {
            open + closing(opening, '(', ')')?
        };
        let rest = &line[end + 1..];
        if !rest.starts_with('/') {
            continue;
        }
        let path_end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ';' | '&' | '|' | ')'))
            .unwrap_or(rest.len());
        let word = &line[open..end + 1 + path_end];
        if crate::binding::wrappers::here_expanded(word, cwd).is_none() {
            return Some(word.to_owned());
        }
    }
    None
}

/// Where in `text` (starting `$` and `open`) the matching `close` is.
fn closing(text: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    for (at, c) in text.char_indices().skip(1) {
        if c == open {
            depth += 1;
        } else if c == close {
            if depth <= 1 {
                return Some(at);
            }
            depth -= 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::computed_script_folder;
    use std::path::Path;

    #[test]
    fn a_script_under_a_folder_a_substitution_names_is_found_where_it_runs() {
        let cwd = Path::new("/p");
        for line in [
            "bash \"$(dirname \"$(git rev-parse --git-dir)\")/hooks/run.sh\" x.sh",
            "cat >/dev/null; ( bash \"$(realpath hooks)/run.sh\" x.sh )",
            "\"$(npm root)/t/x.sh\"",
            "python3 -u `dirname x`/t.py",
            "bash \"${NOPE_X:-$(pwd)}/t/x.sh\"",
            "bash \"${D:-`dirname x`}/t/x.sh\"",
        ] {
            assert!(computed_script_folder(line, cwd).is_some(), "{line}");
        }
        for line in [
            "bash \"$(pwd)/hooks/run.sh\" x.sh",
            "bash \"${CLAUDE_PROJECT_DIR:-$(pwd)}/t/x.sh\"",
            "bash \"$(git rev-parse --show-toplevel)/hooks/run.sh\"",
            "bash -lc 'cd \"$(git rev-parse --show-toplevel 2>/dev/null || pwd)\" && sh t.sh'",
            "echo \"$(date)/x\"",
            "PATH=\"$(pwd)/bin:$PATH\"; sh ~/bin/g.sh",
        ] {
            assert!(computed_script_folder(line, cwd).is_none(), "{line}");
        }
    }
}
