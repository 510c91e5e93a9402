//! The strings a shell-form command runs as shell code (`bash -c "sh
//! g.sh"`, `eval "sh g.sh"`): the sealed copy is put into them as into the
//! command itself, each character written back in the quotes it was
//! written in (red team R34-1: such a string was checked, then run by
//! path).

use std::path::Path;

use super::Launch;
use super::shell_text::{Edit, Quote, Token, command_of};
use crate::binding::{MAX_STRING_DEPTH, shell_string_positions};

/// The words of the string the token at `at` starts, in a text `depth`
/// strings deep: `eval`'s words when `at` is an `eval` run as a command,
/// the token itself when it is a shell's `-c` string; `None` otherwise or
/// too deep.
pub(super) fn string_words(found: &[Token], at: usize, depth: usize) -> Option<&[Token]> {
    if depth + 1 >= MAX_STRING_DEPTH {
        return None;
    }
    let argv = command_of(found, at);
    if found[at].value == "eval" && argv == ["eval"] {
        let end = found[at + 1..]
            .iter()
            .position(|t| t.operator)
            .map_or(found.len(), |p| at + 1 + p);
        return Some(&found[at + 1..end]);
    }
    let last = argv.len() - 1;
    shell_string_positions(&argv)
        .contains(&last)
        .then(|| &found[at..=at])
}

impl Launch {
    /// The edits of `words` (the string a shell or `eval` runs, its words
    /// joined by a blank as `eval` joins them) in the text they were
    /// written in. An edit across `eval`'s words is left out: that word
    /// runs by path, as before.
    pub(super) fn string_edits(
        &self,
        words: &[Token],
        cwd: &Path,
        depth: usize,
        python: &mut bool,
    ) -> Vec<Edit> {
        let mut joined = String::new();
        let mut pieces = Vec::new();
        for word in words {
            if !joined.is_empty() {
                joined.push(' ');
            }
            let offset = joined.len();
            joined.push_str(&word.value);
            pieces.extend(word.pieces.iter().map(|piece| super::shell_text::Piece {
                at: piece.at + offset,
                ..*piece
            }));
        }
        let inner = self.text_edits(&joined, cwd, depth + 1, python);
        inner
            .into_iter()
            .filter_map(|(start, end, replacement)| {
                let span: Vec<_> = pieces
                    .iter()
                    .filter(|p| (start..end).contains(&p.at))
                    .collect();
                let (first, last) = (span.first()?, span.last()?);
                if span.len() != joined[start..end].chars().count() {
                    // Across words of `eval`: not one word.
                    return None;
                }
                let one_quote = span.windows(2).all(|w| w[0].end == w[1].start)
                    && span.iter().all(|p| p.quote == first.quote);
                let written = match one_quote {
                    true => escaped(&replacement, first.quote),
                    // `"sh tools/"g.sh`: out of the first quotes, bare,
                    // back into the last ones.
                    false => format!(
                        "{}{}{}",
                        closing(first.quote),
                        escaped(&replacement, Quote::Bare),
                        closing(last.quote)
                    ),
                };
                Some((first.start, last.end, written))
            })
            .collect()
    }
}

/// The character that ends (or starts again) `quote`.
fn closing(quote: Quote) -> &'static str {
    match quote {
        Quote::Bare => "",
        Quote::Single => "'",
        Quote::Double => "\"",
    }
}

/// `text` written so that, inside `quote`, the shell reads it back as
/// `text`.
fn escaped(text: &str, quote: Quote) -> String {
    match quote {
        Quote::Single => text.replace('\'', r"'\''"),
        Quote::Double => text.chars().fold(String::new(), |mut out, c| {
            if matches!(c, '\\' | '"' | '$' | '`') {
                out.push('\\');
            }
            out.push(c);
            out
        }),
        Quote::Bare => text.chars().fold(String::new(), |mut out, c| {
            match c {
                '\n' => out.push_str("'\n'"),
                c if c.is_ascii_alphanumeric() || "/._,:@%+=-".contains(c) => out.push(c),
                c => {
                    out.push('\\');
                    out.push(c);
                }
            }
            out
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binding::Code;

    /// What `sh -c TEXT` prints in `dir`, `TEXT` rewritten by `launch`.
    fn run(launch: &Launch, text: &str, dir: &Path) -> (String, String) {
        let mut text = text.to_owned();
        launch.rewrite_text(&mut text, dir);
        let output = std::process::Command::new("sh")
            .args(["-c", &text])
            .current_dir(dir)
            .output()
            .expect("sh runs");
        (String::from_utf8_lossy(&output.stdout).into_owned(), text)
    }

    #[test]
    fn the_strings_a_command_runs_run_the_sealed_copy_with_their_words() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("tools")).expect("tools");
        let script = dir.path().join("tools/g.sh");
        std::fs::write(&script, "echo swapped\n").expect("script");
        let code = Code {
            path: script.clone(),
            word: "tools/g.sh".to_owned(),
            fd_safe: true,
            is_program: false,
        };
        let launch = Launch::seal(&code, b"echo \"sealed $0 $1\"\n").expect("memfd");
        let sealed = "sealed tools/g.sh a\n";
        for text in [
            r#"bash -c "sh tools/g.sh a""#,
            "bash -c 'sh tools/g.sh a'",
            r#"eval "sh tools/g.sh a""#,
            "eval sh tools/g.sh a",
            "eval 'cd . && sh tools/g.sh a'",
            r#"D=a; bash -c "sh tools/g.sh $D""#,
            r#"sh -c "bash -c 'sh tools/g.sh a'""#,
            r#"eval "bash -c 'sh tools/g.sh a'""#,
            r#"bash -c "sh tools/"g.sh\ a"#,
            r#"bash -c sh\ tools/g.sh\ a"#,
            r#"if true; then bash -ec "exec sh tools/g.sh a"; fi"#,
        ] {
            let (out, rewritten) = run(&launch, text, dir.path());
            assert_eq!(out, sealed, "{text} ran as {rewritten}");
        }
        // Deeper than strings are read, or split across `eval`'s words:
        // by path, as before.
        let deep = r#"sh -c "sh -c 'sh -c \"sh -c \\\"sh tools/g.sh a\\\"\"'""#;
        assert_eq!(run(&launch, deep, dir.path()).0, "swapped\n");
    }
}
