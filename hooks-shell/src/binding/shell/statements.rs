//! The commands another program's text may start: Tcl's `exec make -s
//! lint`, ed's `!make`, sqlite3's `.shell make`, a git alias `!make`,
//! `core.fsmonitor=make`, `tar --checkpoint-action=exec=./tools/l`. In
//! each statement, the words from the first that names a program running a
//! folder's code, read with the shell's quotes too (`m""ake`, `m\ake`:
//! red team round 60); and a statement that reads as shell text (a `cd`,
//! a runner, a path first: `!cd tools && make`, `exec=./tools/l`) as the
//! `sh -c` string it is, so a move and the scripts it names are read.

use std::sync::LazyLock;

use regex::Regex;

use super::super::identify::base_name;
use super::launched::is_runner;

/// Where statements of another program's text are cut.
const CUTS: [char; 14] = [
    '\n', ';', '[', ']', '{', '}', '(', ')', '!', '|', '&', '`', '"', '\'',
];

/// The commands `text` (another program's script, or a word it is given)
/// may start: see the module documentation.
pub(crate) fn runners_named(text: &str) -> Vec<Vec<String>> {
    let mut found: Vec<Vec<String>> = Vec::new();
    let mut add = |words: Vec<String>| {
        if !found.contains(&words) {
            found.push(words);
        }
    };
    // Cut at quotes too: `os.execute("make -s lint")`.
    for statement in text.split(CUTS).flat_map(|s| s.split('=')) {
        let words: Vec<String> = statement.split_whitespace().map(str::to_owned).collect();
        if let Some(at) = words.iter().position(|word| is_runner(&base_name(word))) {
            add(words[at..].to_vec());
        }
    }
    // As the shell reads quotes and escapes: `m""ake -s lint`, `m\ake`.
    // Tcl's braces quote as the shell's `'` do (`exec sh -c {cd t; make}`).
    let braced = text.replace(['{', '}'], "'");
    let texts = match braced == text {
        true => vec![text],
        false => vec![text, braced.as_str()],
    };
    for (statement, after_bang) in texts.into_iter().flat_map(shell_statements) {
        let Some(words) = shlex::split(statement) else {
            continue;
        };
        if let Some(at) = words.iter().position(|word| is_runner(&base_name(word))) {
            add(words[at..].to_vec());
        }
        // After a `!` (vim's, ed's, gdb's), a path is run by a shell.
        let path_run = after_bang && words.first().is_some_and(|word| word.contains('/'));
        if reads_as_shell(&words) || path_run {
            add(vec![
                "sh".to_owned(),
                "-c".to_owned(),
                statement.trim().to_owned(),
            ]);
        }
    }
    found
}

/// Why `text` (another program's script, in a language no reading models)
/// starts a program whose name it builds when it runs: it has a way to
/// start programs (Tcl's `exec`, awk's `system`, gdb's `shell`/`python`,
/// vim's `!`/`execute`, Java's `ProcessBuilder`) and builds text (escapes,
/// joined strings, `[string cat …]`, `append`, `subst`, `eval`, its
/// arguments or environment, `exec $x`): no reading can tell what it
/// starts, so it cannot be approved (red team round 60). `None` else.
pub(crate) fn builds_what_it_starts(text: &str) -> Option<String> {
    static STARTS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?m)\bexec\b|\bopen\s*["{]?\||\bsystem\s*\(|\|\s*getline|\bprint[^\n]*\|\s*"|^\s*(?:shell|python|pi|!)\b|^\s*!|\bexecute\b|\bos\.execute\b|\bio\.popen\b|\bProcessBuilder\b|\bRuntime\b|\bspawn\b|\.(?:shell|system)\b|^\s*\d*e\b|\bsystemlist\b|\bjob_start\b|\bexe\b"#)
            .expect("valid regex")
    });
    static BUILDS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"\\[0-7]{1,3}|\\x[0-9a-fA-F]|\\u[0-9a-fA-F]|\[\s*(?:string|format|subst|join|lindex|lrange|concat|list)\b|\b(?:append|subst|eval|execute|sprintf|format|getenv|chr|char|reverse|replace|join|concat)\b|["']\s*(?:\+|\.\.?)\s*["']|["']\s*(?:\+|\.\.?)\s*\w|\w\s*(?:\+|\.\.)\s*["']|\bargv\b|\bARGV\b|\bENVIRON\b|\$env\(|\bexec\s+(?:-\S+\s+)*[$\[]|\bsystem\s*\(\s*[^"\s)]|\b(?:exe|tolower|toupper|regsub|lreverse|repeat|substr|systemlist|job_start)\b|string\s+(?:map|toupper|tolower|range)|\[\s*::\s*-1\s*\]|[(\[,]\s*["'][^"']*["']\s+["']|&|\\[1-9]"#)
            .expect("valid regex")
    });
    if !STARTS.is_match(text) {
        return None;
    }
    let built = BUILDS.find(text)?;
    Some(format!(
        "a script in a language no reading models starts a program and builds text when it runs \
         (`{}`): what it starts cannot be read",
        built.as_str().trim()
    ))
}

/// The pieces of `text` that may be shell text another program hands a
/// shell: each line, and what follows a `!`, a `=` or the line's first word
/// (`.shell …`, `shell …`, `exec …`, `1e …`), at most a few per line.
fn shell_statements(text: &str) -> Vec<(&str, bool)> {
    let mut pieces = Vec::new();
    for line in text.lines().take(256) {
        pieces.push((line, false));
        let marks = line
            .char_indices()
            .filter(|(_, c)| matches!(c, '!' | '='))
            .map(|(at, c)| (at + 1, c == '!'));
        let first_word = line
            .trim_start()
            .find(char::is_whitespace)
            .map(|at| (at + line.len() - line.trim_start().len(), false));
        for (at, after_bang) in marks.chain(first_word).take(8) {
            pieces.push((&line[at..], after_bang));
        }
    }
    pieces
}

/// Whether `words` start like a shell command line that runs a folder's
/// code or moves: `cd`, a runner, or a path (`./tools/l`, `~/bin/x`).
fn reads_as_shell(words: &[String]) -> bool {
    let Some(first) = words.first() else {
        return false;
    };
    first == "cd"
        || first == "pushd"
        || is_runner(&base_name(first))
        || ["./", "../", "~/", "/"]
            .iter()
            .any(|start| first.starts_with(start))
}

#[cfg(test)]
mod tests {
    use super::runners_named;

    fn has(text: &str, words: &[&str]) -> bool {
        runners_named(text)
            .iter()
            .any(|found| found.iter().map(String::as_str).eq(words.iter().copied()))
    }

    #[test]
    fn runners_in_another_programs_text_are_found_however_quoted() {
        assert!(has("exec make -s lint", &["make", "-s", "lint"]));
        assert!(has("os.execute(\"make -s lint\")", &["make", "-s", "lint"]));
        assert!(has(".shell m\"\"ake -s lint", &["make", "-s", "lint"]));
        assert!(has("alias.l=!m\\ake -s lint", &["make", "-s", "lint"]));
        assert!(has(
            "1e cd tools && make",
            &["sh", "-c", "cd tools && make"]
        ));
        assert!(has("exec=./tools/l", &["sh", "-c", "./tools/l"]));
        assert!(has("silent !tools/x", &["sh", "-c", "tools/x"]));
        assert!(has(
            "exec sh -c {cd tools; make}",
            &["sh", "-c", "sh -c 'cd tools; make'"]
        ));
        assert!(runners_named("Content-Type: application/json").is_empty());
    }

    #[test]
    fn a_script_building_what_it_starts_is_told() {
        use super::builds_what_it_starts as builds;
        for text in [
            "exec [string cat ma ke] -s lint",
            "set x ma; append x ke; exec $x",
            "exec \\x6dake",
            "BEGIN { system(\"\\141ake\") }",
            "python import os; os.system(\"ma\"+\"ke\")",
            "execute \"!\" . \"make\"",
            "exec [lindex $argv 0]",
            "regsub x ma m m; exec -ignorestderr $m -s lint",
            "python import os; os.system(\"ekam\"[::-1])",
            "exe \"!make\"",
        ] {
            assert!(builds(text).is_some(), "{text}");
        }
        for text in [
            "exec make -s lint",
            "BEGIN { system(\"make -s lint\") }",
            "set x 1",
        ] {
            assert!(builds(text).is_none(), "{text}");
        }
    }
}
