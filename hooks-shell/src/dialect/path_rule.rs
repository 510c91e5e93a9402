//! A file tool's `if` rule (`Read(**/.env)`, `Edit(src/**)`) against the
//! path an agent gave. Claude Code reads these patterns like gitignore
//! lines: `**/` matches no folder or any number of them, a pattern without
//! a folder (`*.ts`, `.env`) matches the file name at any depth, `./x` and
//! `x` are relative, `//x` is absolute, `~/x` is under the home. A path is
//! read as the path it spells: `./`, `//` and a trailing `/` dropped, `..`
//! taken back lexically (`sub/../.env` is `.env`).
//!
//! A fail-closed guard also runs for the file a link points to, and when
//! the path cannot be decided ([`may_match`]): a name with a variable, a
//! glob or `~user` in it, a
//! relative path against a rule that names folders (the agent's terminal
//! may be in any folder), and a
//! folder rule against a path whose `..` a linked folder could redirect.
//! (docs/decisions/fail-closed-if-rule.md)

/// Characters that make a path word mean something only when expanded.
const EXPANDED: &[char] = &['$', '`', '*', '?', '[', '{'];

/// Whether a path rule `pattern` matches `path` (Claude Code's reading).
pub(crate) fn matches(pattern: &str, path: &str) -> bool {
    let path = path.trim();
    let normal = Normal::of(path);
    patterns(pattern)
        .iter()
        .any(|rule| rule.matches(path) || rule.matches(&normal.text))
}

/// [`matches`] for a fail-closed guard: also `true` when the path may name
/// a file the rule matches and its text does not settle which.
pub(super) fn may_match(pattern: &str, path: &str) -> bool {
    if matches(pattern, path) {
        return true;
    }
    let path = path.trim();
    // A link names the file it points to (`env-link -> .env`): the file
    // the kernel would open is matched too.
    if resolved(path).is_some_and(|target| matches(pattern, &target)) {
        return true;
    }
    let normal = Normal::of(path);
    patterns(pattern).iter().any(|rule| {
        if rule.name_only {
            // Only the file name counts, and `..`, links or `~` before it
            // do not change it.
            let name = normal.text.rsplit('/').next().unwrap_or(&normal.text);
            return name.is_empty()
                || name == "."
                || name == ".."
                || name.starts_with('~')
                || name.contains(EXPANDED);
        }
        // A relative path is relative to Hermes's terminal folder, which a
        // `cd` moves and no hook is told: under any folder, it may be in
        // the rule's (docs/decisions/relative-paths-stay-relative.md).
        path.contains(EXPANDED)
            || path.starts_with('~')
            || normal.backtracked
            || !normal.text.starts_with('/')
    })
}

/// The file `path` names with every link followed (`~/` as the home, a
/// relative path from the current folder); `None` when it does not exist.
fn resolved(path: &str) -> Option<String> {
    let path = match path.strip_prefix("~/") {
        Some(rest) => std::path::Path::new(&std::env::var_os("HOME")?).join(rest),
        None => std::path::PathBuf::from(path),
    };
    std::fs::canonicalize(path)
        .ok()?
        .into_os_string()
        .into_string()
        .ok()
}

/// A path read lexically.
struct Normal {
    /// The path without `.` segments, repeated or trailing `/`, and with
    /// each `..` after a folder name taking it back.
    text: String,
    /// Whether a `..` was left at the front or took a folder back (a linked
    /// folder would make the lexical reading wrong).
    backtracked: bool,
}

impl Normal {
    fn of(path: &str) -> Normal {
        let absolute = path.starts_with('/');
        let mut segments: Vec<&str> = Vec::new();
        let mut backtracked = false;
        for segment in path.split('/') {
            match segment {
                "" | "." => {}
                ".." => {
                    backtracked = true;
                    match segments.last() {
                        Some(&last) if last != ".." => {
                            segments.pop();
                        }
                        // `/..` is `/`.
                        _ if absolute => {}
                        _ => segments.push(".."),
                    }
                }
                _ => segments.push(segment),
            }
        }
        let joined = segments.join("/");
        let text = match (absolute, joined.is_empty()) {
            (true, _) => format!("/{joined}"),
            (false, true) => ".".to_owned(),
            (false, false) => joined,
        };
        Normal { text, backtracked }
    }
}

/// One reading of a rule's pattern, compiled.
struct PathPattern {
    tokens: Vec<Token>,
    /// Whether only the file name counts (`*.ts`, `**/.env`).
    name_only: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Token {
    /// One character, itself.
    Char(char),
    /// `?`: any one character.
    One,
    /// `*` (and `**` not followed by `/`): any run of characters.
    Any,
    /// `**/` at the start or after `/`: nothing, or any run ending in `/`.
    Folders,
}

/// The readings of `pattern`: itself, and with `~/` taken as the home.
fn patterns(pattern: &str) -> Vec<PathPattern> {
    let pattern = pattern.trim();
    let mut readings = vec![PathPattern::compile(pattern)];
    if let Some(rest) = pattern.strip_prefix("~/")
        && let Some(home) = std::env::var_os("HOME")
        && let Some(home) = home.to_str()
        && home.starts_with('/')
    {
        readings.push(PathPattern::compile(&format!(
            "{}/{rest}",
            home.trim_end_matches('/')
        )));
    }
    readings
}

impl PathPattern {
    fn compile(pattern: &str) -> PathPattern {
        let mut pattern = pattern;
        while let Some(rest) = pattern.strip_prefix("./") {
            pattern = rest;
        }
        // Whether the pattern starts at the root (`/x`, `//x`, `~/x`).
        let anchored = pattern.starts_with(['/', '~']);
        let unfolded = pattern.trim_start_matches("**/");
        let name_only = !anchored && !unfolded.contains('/');
        let mut tokens = Vec::new();
        if !anchored {
            // A relative pattern matches at any depth.
            tokens.push(Token::Folders);
        }
        let chars: Vec<char> = pattern.chars().collect();
        let mut at = 0;
        while at < chars.len() {
            let segment_start = at == 0 || chars[at - 1] == '/';
            match chars[at] {
                '/' if tokens.last() == Some(&Token::Char('/')) => at += 1,
                '*' if segment_start && chars[at..].starts_with(&['*', '*', '/']) => {
                    if tokens.last() != Some(&Token::Folders) {
                        tokens.push(Token::Folders);
                    }
                    at += 3;
                }
                '*' => {
                    if tokens.last() != Some(&Token::Any) {
                        tokens.push(Token::Any);
                    }
                    at += 1;
                }
                '?' => {
                    tokens.push(Token::One);
                    at += 1;
                }
                c => {
                    tokens.push(Token::Char(c));
                    at += 1;
                }
            }
        }
        PathPattern { tokens, name_only }
    }

    /// Whether the whole of `path` matches: the set of pattern positions
    /// reachable after each character, linear in the path. A `**/` has two
    /// states: at its start (it may match nothing) and inside it (it has
    /// taken characters, and ends at a `/`).
    fn matches(&self, path: &str) -> bool {
        let tokens = &self.tokens;
        let mut at_start = vec![false; tokens.len() + 1];
        let mut inside = vec![false; tokens.len()];
        at_start[0] = true;
        close(tokens, &mut at_start);
        let mut next_start = vec![false; tokens.len() + 1];
        let mut next_inside = vec![false; tokens.len()];
        for c in path.chars() {
            next_start.iter_mut().for_each(|state| *state = false);
            next_inside.iter_mut().for_each(|state| *state = false);
            for (at, token) in tokens.iter().enumerate() {
                if !at_start[at] && !inside[at] {
                    continue;
                }
                match *token {
                    Token::Char(wanted) if wanted == c => next_start[at + 1] = true,
                    Token::Char(_) => {}
                    Token::One => next_start[at + 1] = true,
                    Token::Any => next_start[at] = true,
                    Token::Folders => {
                        next_inside[at] = true;
                        if c == '/' {
                            next_start[at + 1] = true;
                        }
                    }
                }
            }
            close(tokens, &mut next_start);
            std::mem::swap(&mut at_start, &mut next_start);
            std::mem::swap(&mut inside, &mut next_inside);
            if !at_start.contains(&true) && !inside.contains(&true) {
                return false;
            }
        }
        at_start[tokens.len()]
    }
}

/// Adds the positions reachable by matching nothing (`*`, `**/` at its start).
fn close(tokens: &[Token], states: &mut [bool]) {
    for at in 0..tokens.len() {
        if states[at] && matches!(tokens[at], Token::Any | Token::Folders) {
            states[at + 1] = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{matches, may_match};

    #[test]
    fn folders_match_none_or_many_and_paths_read_as_spelled() {
        for path in [
            ".env",
            "./.env",
            "sub/../.env",
            "sub/.env",
            "/p/.env",
            "/p//.env",
            "/p/./x/../.env",
            "/p/.env/",
            "~/p/.env",
        ] {
            assert!(matches("**/.env", path), "**/.env on {path}");
            assert!(matches(".env", path), ".env on {path}");
            assert!(matches("./.env", path), "./.env on {path}");
        }
        for (pattern, path, expected) in [
            ("**/.env", ".envrc", false),
            ("**/.env", "a/b.env", false),
            ("src/**/*.rs", "src/main.rs", true),
            ("src/**/*.rs", "/p/src/a/b.rs", true),
            ("src/**", "/p/lib/b.rs", false),
            ("*.ts", "/p/a/b.ts", true),
            ("/etc/**", "/etc/passwd", true),
            ("//etc/**", "/etc/passwd", true),
            ("/etc/**", "/p/etc/passwd", false),
        ] {
            assert_eq!(matches(pattern, path), expected, "{pattern} on {path}");
        }
    }

    #[test]
    fn a_fail_closed_rule_runs_when_the_path_does_not_settle_the_file() {
        for (pattern, path) in [
            ("**/.env", "$SECRET"),
            ("**/.env", "sub/.e*"),
            ("**/.env", "~"),
            ("**/.env", "sub/.."),
            ("/etc/**", "passwd"),
            ("//etc/**", "../../etc/passwd"),
            ("secrets/**", "src/main.rs"),
            ("secrets/**", "key"),
            ("secrets/**", "link/../x"),
            ("secrets/**", "~other/x"),
            ("secrets/**", "$HOME/x"),
        ] {
            assert!(may_match(pattern, path), "{pattern} on {path}");
        }
        for (pattern, path) in [
            ("**/.env", "$HOME/notes.txt"),
            ("**/.env", "../x/README"),
            ("**/.env", "~/x"),
            ("secrets/**", "/p/src/main.rs"),
            ("/etc/**", "/home/u/x"),
        ] {
            assert!(!may_match(pattern, path), "{pattern} on {path}");
        }
    }

    #[test]
    fn a_fail_closed_rule_follows_links() {
        let folder = tempfile::tempdir().expect("tempdir");
        std::fs::write(folder.path().join(".env"), "KEY=1\n").expect("write");
        let link = folder.path().join("env-link");
        std::os::unix::fs::symlink(".env", &link).expect("link");
        let link = link.to_str().expect("UTF-8");
        assert!(!matches("**/.env", link));
        assert!(may_match("**/.env", link));
        assert!(!may_match("**/.envrc", link));
    }

    #[test]
    fn a_long_path_is_matched_in_one_pass() {
        let path = "a/".repeat(200_000) + ".env";
        assert!(matches("**/**/.env", &path));
        assert!(!matches("**/x/**/y/**/.envrc", &path));
    }
}
