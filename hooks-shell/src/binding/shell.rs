//! A command line cut into the simple commands a shell would run (split at
//! unquoted `|`, `;`, `&`, `(`, `)` and newlines), each as words; and which
//! of them start a Python that puts the current directory first on its
//! module path.
//!
//! This is a reading for consent, not a shell: it errs towards finding more
//! commands (a word that only looks like an operator inside an unusual
//! quoting still splits), which binds more, never less.

use super::identify::base_name;

mod assigned;
mod launched;
mod piped;
mod statements;
pub(crate) use assigned::unread_reason;
pub(crate) use launched::reads_words_as_data;
pub(crate) use piped::{echoed_text, runners_named, sed_substitution_runs};
pub(crate) use statements::builds_what_it_starts;

/// How long reading one hook's command and the scripts it runs may take:
/// past it the reading stops and the hook cannot be approved (a project's
/// script of some thousand substitutions held each emit for minutes before
/// any hook ran).
pub(crate) const READING_BUDGET: std::time::Duration = std::time::Duration::from_secs(20);

thread_local! {
    /// When the reading under way on this thread must stop.
    static DEADLINE: std::cell::Cell<Option<std::time::Instant>> =
        const { std::cell::Cell::new(None) };
    /// Whether it did.
    static OUT_OF_TIME: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// `read`'s value, or `None` when it took longer than [`READING_BUDGET`]
/// (a reading inside another shares the outer one's budget).
pub(crate) fn within_budget<T>(read: impl FnOnce() -> T) -> Option<T> {
    within(READING_BUDGET, read)
}

/// [`within_budget`] with `budget`.
fn within<T>(budget: std::time::Duration, read: impl FnOnce() -> T) -> Option<T> {
    let outer = DEADLINE.with(std::cell::Cell::get);
    if outer.is_none() {
        DEADLINE.with(|d| d.set(Some(std::time::Instant::now() + budget)));
        OUT_OF_TIME.with(|o| o.set(false));
    }
    let value = read();
    let out = OUT_OF_TIME.with(std::cell::Cell::get);
    if outer.is_none() {
        DEADLINE.with(|d| d.set(None));
        OUT_OF_TIME.with(|o| o.set(false));
    }
    (!out).then_some(value)
}

/// Whether the reading under way ran out of time (then it reads nothing
/// more).
pub(crate) fn out_of_time() -> bool {
    let late = DEADLINE
        .with(std::cell::Cell::get)
        .is_some_and(|at| std::time::Instant::now() > at);
    if late {
        OUT_OF_TIME.with(|o| o.set(true));
    }
    late
}

/// The simple commands of `raw`, each split into words (a part that cannot
/// be split is left out).
pub fn simple_commands(raw: &str) -> Vec<Vec<String>> {
    if out_of_time() {
        return Vec::new();
    }
    // `$'make'`: the text it stands for (round 60).
    let read = crate::ansi_quotes::with_ansi_quotes_read(raw);
    let raw = read.as_str();
    let mut parts: Vec<(String, bool)> = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut substituted = Vec::new();
    let mut chars = raw.char_indices();
    while let Some((at, c)) = chars.next() {
        // `"$(sh g.sh)"`, `` "`sh g.sh`" ``: commands inside double quotes
        // (red team R36-1), kept in the word too; backquotes anywhere.
        let opens = match (quote, c) {
            (Some('"'), '$') if raw[at..].starts_with("$(") && !raw[at..].starts_with("$((") => 2,
            // Unquoted backquotes too (`ls `make -s``: round 56, a20).
            (Some('"') | None, '`') => 1,
            _ => 0,
        };
        if opens > 0
            && let Some(end) = substitution_end(raw, at + opens, c == '`')
        {
            substituted.extend(simple_commands(&raw[at + opens..end]));
            current.push_str(&raw[at..=end]);
            while chars.clone().next().is_some_and(|(next, _)| next <= end) {
                chars.next();
            }
            continue;
        }
        match (quote, c) {
            (Some(q), _) if c == q => {
                quote = None;
                current.push(c);
            }
            (Some('"'), '\\') | (None, '\\') => {
                current.push(c);
                if let Some((_, next)) = chars.next() {
                    current.push(next);
                }
            }
            (Some(_), _) => current.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                current.push(c);
            }
            // `${MAKE:-make}`: a parameter's expansion is part of its word.
            (None, '{') if current.ends_with('$') => {
                let mut expansion = String::from(c);
                let mut depth = 1;
                for (_, next) in chars.by_ref() {
                    expansion.push(next);
                    depth += match next {
                        '{' => 1,
                        '}' => -1,
                        _ => 0,
                    };
                    if depth == 0 {
                        break;
                    }
                }
                // `${x:-$(make)}`: the commands inside still run.
                if expansion.contains("$(") || expansion.contains('`') {
                    substituted.extend(simple_commands(&expansion[1..]));
                }
                current.push_str(&expansion);
            }
            // `a |& b`: one pipe.
            (None, '&') if raw[..at].ends_with('|') => {}
            // `2>&1`, `>&2`, `&>log`: a redirection, kept in its word.
            (None, '&') if raw[..at].ends_with(['>', '<']) || raw[at + 1..].starts_with('>') => {
                current.push(c);
            }
            // A brace inside a word (`xargs -I{} sh -c {}`) is no group.
            (None, '{' | '}') if !current.trim().is_empty() => current.push(c),
            (None, '|' | ';' | '&' | '(' | ')' | '\n' | '{' | '}') => {
                // A pipe (not `||`) feeds the next command this one's output.
                let pipe = c == '|' && !raw[..at].ends_with('|') && !raw[at + 1..].starts_with('|');
                // `{ echo …; } | sh`, `(echo …) | sh`: the group's last
                // command feeds the pipe.
                if pipe
                    && current.trim().is_empty()
                    && let Some(last) = parts.iter_mut().rev().find(|(p, _)| !p.trim().is_empty())
                {
                    last.1 = true;
                }
                parts.push((std::mem::take(&mut current), pipe));
            }
            (None, _) => current.push(c),
        }
    }
    parts.push((current, false));
    // Each command's words, whether a pipe feeds the next, and whether it
    // opens a compound command (`if`, `while`: what it holds reads it).
    let split: Vec<(Vec<String>, bool, bool)> = parts
        .iter()
        .filter_map(|(part, pipe)| Some((shlex::split(part)?, *pipe)))
        .map(|(words, pipe)| {
            let at = words
                .iter()
                .position(|w| !LEADING_KEYWORDS.contains(&w.as_str()))
                .unwrap_or(words.len());
            let opens = words
                .first()
                .is_some_and(|first| COMPOUND_OPENERS.contains(&first.as_str()));
            (words[at..].to_vec(), pipe, opens)
        })
        .filter(|(words, _, _)| !words.is_empty())
        .collect();
    // `echo 'make -s lint' | sh`: what the text a pipe feeds runs; into a
    // compound command (`| if true; then sh; fi`), each it holds (round 61).
    let piped: Vec<Vec<String>> = (0..split.len())
        .filter(|&at| split[at].1)
        .flat_map(|at| {
            let producer = super::wrappers::unwrap(&split[at].0).words;
            let reach = match split.get(at + 1).is_some_and(|next| next.2) {
                true => 6,
                false => 1,
            };
            split[at + 1..]
                .iter()
                .take(reach)
                .flat_map(|consumer| {
                    piped::piped_commands(&producer, &super::wrappers::unwrap(&consumer.0).words)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let mut commands: Vec<Vec<String>> = split.into_iter().map(|(words, _, _)| words).collect();
    commands.extend(piped);
    // `x=make; $x -s lint`: names the text gives values to (round 59),
    // each reading right after the command it reads again (`x="cd
    // tools"; $x; make`: round 60).
    let assigned = assigned::substituted(&commands);
    if !assigned.is_empty() {
        let mut interleaved = Vec::with_capacity(commands.len() + assigned.len());
        for (at, command) in commands.into_iter().enumerate() {
            interleaved.push(command);
            let again = assigned.iter().filter(|(of, _)| *of == at);
            interleaved.extend(again.map(|(_, words)| words.clone()));
        }
        commands = interleaved;
    }
    // `$(echo make) -s lint`: the text read again with what `echo` prints
    // in place of its substitution (round 59).
    if let Some(echoed) = assigned::echo_substituted(raw) {
        commands.extend(simple_commands(&echoed));
    }
    commands.extend(substituted);
    // What a program no reading models may start (round 58).
    let launched: Vec<Vec<String>> = commands
        .iter()
        .flat_map(|c| {
            let unwrapped = super::wrappers::unwrap(c).words;
            let mut found = launched::launched(&unwrapped);
            found.extend(launched::carried(c, unwrapped.first()));
            // `PROMPT_COMMAND='make -s lint' bash -i`: shell text it runs.
            for word in c {
                if let Some(text) = word.strip_prefix("PROMPT_COMMAND=") {
                    found.extend(simple_commands(text));
                }
            }
            found
        })
        .collect();
    commands.extend(launched);
    commands
}

/// Where the `$(…)` (or, `backquoted`, the backquotes) whose commands
/// start at `from` in `text` ends: the byte of its closing `)` or backquote,
/// quotes and nested parentheses skipped; `None` when it does not end.
pub(crate) fn substitution_end(text: &str, from: usize, backquoted: bool) -> Option<usize> {
    let mut depth = 0usize;
    let mut chars = text[from..].char_indices().map(|(at, c)| (from + at, c));
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '`' if backquoted => return Some(at),
            '`' => {}
            '\'' if !backquoted => {
                chars.by_ref().find(|(_, q)| *q == '\'')?;
            }
            '"' if !backquoted => {
                while let Some((_, q)) = chars.next() {
                    match q {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '(' if !backquoted => depth += 1,
            ')' if !backquoted && depth == 0 => return Some(at),
            ')' if !backquoted => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The commands a simple command's `words` may start that no reading
/// models (`taskset -c 0 make`, `${MAKE:-make}`, `trap 'make' EXIT`, awk's
/// `system(…)`; see `shell/launched.rs`).
pub(crate) fn launched_commands(words: &[String]) -> Vec<Vec<String>> {
    launched::launched(&super::wrappers::unwrap(words).words)
}

/// `words` without what runs the real program after it: `NAME=value`
/// assignments and the wrappers of [`super::wrappers`] (`env`, `nice`,
/// `timeout 5`, `exec`, ...) with their options.
pub fn skip_prefixes(words: &[String]) -> Vec<String> {
    super::wrappers::unwrap(words).words
}

/// The command string a shell runs with `-c` (`bash -c 'npm run lint'`,
/// `sh -ec '...'`), when `words` (prefixes skipped) start such a shell.
pub fn shell_script(words: &[String]) -> Option<&str> {
    let first = words.first()?;
    if !["sh", "bash", "dash", "zsh", "ksh", "ash"].contains(&base_name(first).as_str()) {
        return None;
    }
    // `bash <<< 'make -s lint'`: the here-string is its script (round 73).
    if let Some(at) = words.iter().position(|w| w == "<<<") {
        return words.get(at + 1).map(String::as_str);
    }
    let at = words[1..]
        .iter()
        .position(|w| w.starts_with('-') && !w.starts_with("--") && w.ends_with('c'))?;
    words.get(at + 2).map(String::as_str)
}

/// Python options that take a value as the next word.
/// Keywords that open a compound command reading the input it is fed.
const COMPOUND_OPENERS: [&str; 6] = ["if", "while", "until", "for", "case", "select"];

/// Shell keywords that start a command after them (`if [ -f x ]`, `! grep`).
pub(crate) const LEADING_KEYWORDS: [&str; 8] =
    ["then", "do", "else", "elif", "if", "while", "until", "!"];

const PYTHON_VALUE_OPTIONS: [&str; 3] = ["-W", "-X", "--check-hash-based-pycs"];

/// Whether `raw` starts a Python whose module path begins with the current
/// directory: `python3 -c ...`, `python3 -m tool`, a Python reading its
/// program from stdin (`... | python3`, `python3 -`). Not `python3
/// path/script.py`, whose module path begins with the script's own folder.
pub fn python_reads_cwd(raw: &str) -> bool {
    python_reads_cwd_within(raw, 0)
}

fn python_reads_cwd_within(raw: &str, depth: usize) -> bool {
    simple_commands(raw).iter().any(|words| {
        let words = skip_prefixes(words);
        let Some(first) = words.first() else {
            return false;
        };
        if let Some(script) = shell_script(&words) {
            return depth < 4 && python_reads_cwd_within(script, depth + 1);
        }
        if !matches!(base_name(first).as_str(), "python" | "python3") {
            return false;
        }
        let mut args = words[1..].iter();
        while let Some(word) = args.next() {
            if word == "-" || word == "--" {
                return true;
            }
            if PYTHON_VALUE_OPTIONS.contains(&word.as_str()) {
                args.next();
                continue;
            }
            if let Some(flags) = word.strip_prefix('-') {
                if flags.starts_with('-') {
                    continue;
                }
                // `-c`, `-m`, and combined short flags ending in them (`-Bc`).
                if flags.contains('c') || flags.contains('m') {
                    return true;
                }
                continue;
            }
            return false; // a script path
        }
        true // no script: it reads its program from stdin
    })
}

#[cfg(test)]
mod tests {
    use super::{python_reads_cwd, simple_commands};

    #[test]
    fn a_reading_past_its_budget_reads_nothing_more_and_says_so() {
        let budget = std::time::Duration::from_millis(1);
        let late = super::within(budget, || {
            std::thread::sleep(budget * 5);
            simple_commands("make -s lint")
        });
        assert_eq!(late, None);
        let on_time = super::within(std::time::Duration::from_secs(600), || {
            simple_commands("make -s lint")
        });
        assert_eq!(on_time.map(|found| found.len()), Some(1));
        assert!(!super::out_of_time(), "the budget ends with its reading");
    }

    #[test]
    fn operators_split_commands_and_quotes_do_not() {
        let commands = simple_commands("cd sub && make lint | tee 'a|b'; FOO=1 npx x");
        assert_eq!(
            commands,
            vec![
                vec!["cd", "sub"],
                vec!["make", "lint"],
                vec!["tee", "a|b"],
                vec!["FOO=1", "npx", "x"],
            ]
        );
    }

    #[test]
    fn commands_in_backquotes_are_read_quoted_or_not() {
        // Round 56, a20: `ls `make -s lint`` runs make.
        for line in [
            "ls `make -s lint`",
            "ls \"`make -s lint`\"",
            "ls $(make -s lint)",
        ] {
            let commands = simple_commands(line);
            assert!(
                commands.contains(&vec!["make".to_owned(), "-s".to_owned(), "lint".to_owned()]),
                "{line}: {commands:?}"
            );
        }
    }

    #[test]
    fn python_reading_the_cwd_is_found_and_a_script_is_not() {
        for command in [
            "python3 -c 'import json'",
            "python3 -m tool",
            "echo {} | python3",
            "cat x | /usr/bin/python3.12 -",
            "env FOO=1 python3 -Bc 'print()'",
            "python3 -W ignore -m tool",
            "bash -c 'cat | python3 -c \"import x\"'",
        ] {
            assert!(python_reads_cwd(command), "{command}");
        }
        for command in [
            "python3 /home/u/guard.py",
            "python3 -u guard.py",
            "node -e x",
        ] {
            assert!(!python_reads_cwd(command), "{command}");
        }
    }
}
