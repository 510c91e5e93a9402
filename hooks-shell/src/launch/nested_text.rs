//! The strings a shell-form command runs as shell code (`bash -c "sh
//! g.sh"`, `eval "sh g.sh"`): the sealed copy is put into them as into the
//! command itself, each character written back in the quotes it was
//! written in (red team R34-1: such a string was checked, then run by
//! path).

use std::ops::Range;

use super::Launch;
use super::shell_text::{Edit, Place, Quote, Token, command_of};
use crate::binding::{MAX_STRING_DEPTH, SHELLS, base_name, shell_string_positions};

/// The tokens of the string the token at `at` starts, in a text `depth`
/// strings deep, and the shell that reads it when another does: `eval`'s
/// words when `at` is an `eval` run as a command, `trap`'s first word, the
/// token itself when it is a shell's `-c` string; `None` otherwise or too
/// deep.
pub(super) fn string_span(
    found: &[Token],
    at: usize,
    depth: usize,
) -> Option<(Range<usize>, Option<&str>)> {
    if depth + 1 >= MAX_STRING_DEPTH {
        return None;
    }
    let argv = command_of(found, at);
    let words_after = || {
        let end = found[at + 1..]
            .iter()
            .position(|t| t.operator)
            .map_or(found.len(), |p| at + 1 + p);
        at + 1..end
    };
    match found[at].value.as_str() {
        "eval" if argv == ["eval"] => return Some((words_after(), None)),
        // `trap 'sh g.sh' EXIT` (R36-1).
        "trap" if argv == ["trap"] => {
            let words = words_after();
            return (words.len() > 1).then(|| (words.start..words.start + 1, None));
        }
        _ => {}
    }
    let last = argv.len() - 1;
    let shell = shell_string_positions(&argv).contains(&last).then(|| {
        argv.iter()
            .position(|w| SHELLS.contains(&base_name(w).as_str()))
    })??;
    let shell = found[..at].iter().rev().find(|t| t.value == argv[shell])?;
    Some((at..at + 1, Some(shell.value.as_str())))
}

impl Launch {
    /// The edits of `words` (the string a shell or `eval` runs, its words
    /// joined by a blank as `eval` joins them) in the text they were
    /// written in. An edit across `eval`'s words is left out: that word
    /// runs by path, as before.
    pub(super) fn string_edits(
        &self,
        words: &[Token],
        place: &Place<'_>,
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
        let inner = self.text_edits(&joined, place, depth + 1, python);
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
                        leaving(first.quote),
                        escaped(&replacement, Quote::Bare),
                        entering(last.quote)
                    ),
                };
                Some((first.start, last.end, written))
            })
            .collect()
    }
}

/// What ends `quote`.
fn leaving(quote: Quote) -> &'static str {
    match quote {
        Quote::Bare => "",
        Quote::Single | Quote::Ansi => "'",
        Quote::Double => "\"",
    }
}

/// What starts `quote` again.
fn entering(quote: Quote) -> &'static str {
    match quote {
        Quote::Ansi => "$'",
        quote => leaving(quote),
    }
}

/// `text` written so that, inside `quote`, the shell reads it back as
/// `text`.
fn escaped(text: &str, quote: Quote) -> String {
    match quote {
        Quote::Single => text.replace('\'', r"'\''"),
        Quote::Ansi => text.replace('\\', r"\\").replace('\'', r"\'"),
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
    use std::path::Path;

    use super::*;
    use crate::binding::Code;

    /// What `sh -c TEXT` prints in `dir`, `TEXT` rewritten by `launch`.
    fn run(launch: &Launch, text: &str, dir: &Path) -> (String, String) {
        let mut text = text.to_owned();
        let vars = [("HERMES_TEST_DIR", dir.display().to_string())];
        launch.rewrite_text_with(&mut text, dir, &vars);
        let output = std::process::Command::new("sh")
            .args(["-c", &text])
            .envs(vars)
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
            // Round 36 (R36-1): a substitution inside double quotes, a
            // `trap` string, `command -p`, `$'…'` before the script, a
            // variable the run sets.
            r#"echo "$(bash -c "sh tools/g.sh a")""#,
            r#"echo "`sh tools/g.sh a`""#,
            "trap 'sh tools/g.sh a' EXIT",
            "command -p sh tools/g.sh a",
            "command eval \"sh tools/g.sh a\"",
            r#"bash -c "true \$'\\''; sh tools/g.sh a""#,
            r#"bash -c 'sh "$HERMES_TEST_DIR"/tools/g.sh a'"#,
        ] {
            let (out, rewritten) = run(&launch, text, dir.path());
            let sealed = match text.contains("HERMES_TEST_DIR") {
                true => format!("sealed {}/tools/g.sh a\n", dir.path().display()),
                false => sealed.to_owned(),
            };
            assert_eq!(out, sealed, "{text} ran as {rewritten}");
        }
        // Deeper than strings are read, or split across `eval`'s words:
        // by path, as before.
        let deep = r#"sh -c "sh -c 'sh -c \"sh -c \\\"sh tools/g.sh a\\\"\"'""#;
        assert_eq!(run(&launch, deep, dir.path()).0, "swapped\n");
    }
}
