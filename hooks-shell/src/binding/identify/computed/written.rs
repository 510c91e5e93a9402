//! A file the text writes when it runs and then runs (`printf 'sh
//! tools/g.%s a\n' sh > ~/.cache/y.sh; sh ~/.cache/y.sh`: red team R47-11):
//! its code exists only when the hook runs, so no reading can bind it, and
//! the run may delete it before any check sees it. Such a hook cannot be
//! approved. Written: an output redirection's target, `tee`'s files, and
//! every word of a command that may change a file's content with what a
//! name computed when it runs names, or with what its inline code computes
//! (`cp "$(…)" /tmp/y.sh`, `dd if="$(…)" of=/tmp/y.sh`, `awk '{print >
//! "/tmp/y.sh"}'`: round 49), a program that leaves content alone (`test`,
//! `cat`, `chmod`, `rm`) aside; a copy of files its words name is bound
//! where they are read. A target computed when it runs (`> "$D/y.sh"`)
//! matches every run file its written end (`/y.sh`) could name; one with
//! none, the files under it as written (`sh "$D/y"`). Run: the program, an
//! interpreter's script, what `.` / `source` reads, a makefile `make -f`
//! reads.

use std::path::Path;

use super::Reader;
use super::base_name;
use super::words::Words;

/// Programs that read the files they are given, or change only their
/// names, modes or times: the files they name are not written by them.
const LEAVE_CONTENT: &[&str] = &[
    "[",
    "[[",
    "test",
    "ls",
    "stat",
    "file",
    "cat",
    "head",
    "tail",
    "wc",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "jq",
    "echo",
    "printf",
    "sha256sum",
    "sha1sum",
    "sha512sum",
    "md5sum",
    "cksum",
    "b2sum",
    "readlink",
    "realpath",
    "dirname",
    "basename",
    "command",
    "type",
    "which",
    "hash",
    "chmod",
    "chown",
    "chgrp",
    "mkdir",
    "rm",
    "rmdir",
    "cd",
    "pushd",
    "popd",
    "exit",
    "return",
    "true",
    "false",
    "shellcheck",
    "diff",
    "cmp",
    "du",
    "touch",
    "export",
    "local",
    "declare",
    "readonly",
    "unset",
    "shift",
    "set",
    "wait",
    "sleep",
    // Their words are code the reading reads, or a command it reads.
    "eval",
    "trap",
    "exec",
    "command",
    "builtin",
    "xargs",
    "find",
    "time",
    "nohup",
    "env",
    "timeout",
    "nice",
    "ionice",
    "stdbuf",
    "setsid",
    "watch",
    "npx",
    "uv",
    "uvx",
    "poetry",
    "pipenv",
    "bunx",
    "pnpm",
    "yarn",
    "npm",
    // A compiler's output comes from the sources it names, which the
    // binding reads (`identify::mentions`).
    "cc",
    "gcc",
    "clang",
    "c++",
    "g++",
    "clang++",
    "tcc",
    "rustc",
    "go",
    "javac",
    "zig",
];

/// `git`'s commands that only read.
const GIT_READS: &[&str] = &[
    "diff",
    "log",
    "show",
    "status",
    "ls-files",
    "rev-parse",
    "cat-file",
    "blame",
    "grep",
    "describe",
    "config",
    "remote",
    "branch",
    "merge-base",
    "hash-object",
];

impl Reader {
    /// Why the command (`raw` its words with redirections, `words` read
    /// through wrappers) runs a file the text writes; records what it
    /// writes for the commands after it (and, read again, before it).
    pub(super) fn runs_written(
        &mut self,
        raw: &[String],
        words: &[String],
        reading: &Words,
    ) -> Option<String> {
        let named = |word: &str| normal(&reading.shown(word));
        let runs = run_words(words);
        let found = runs.iter().find_map(|word| {
            let run = named(word);
            // A file found by its path, or an interpreter's script.
            let script = !std::ptr::eq(*word, &words[0]) || run.contains('/');
            let written = self
                .written
                .iter()
                .any(|target| writes(target, &run, script));
            // A file written by a name built when it runs: its end, or
            // (code's writes no reading follows) any.
            let computed = self.written_ends.iter().any(|end| match end.is_empty() {
                true => script,
                false => run.ends_with(end.as_str()) || end.strip_prefix('/') == Some(&run),
            });
            (written || computed).then(|| {
                format!(
                    "it runs a file it writes when it runs (`{}`)",
                    reading.shown(word)
                )
            })
        });
        let runs_its_words = words.first().is_some_and(|program| {
            self.functions.contains(program) || self.aliases.contains_key(program)
        });
        let taint = self.taint.clone();
        let is_computed = |word: &str| reading.is_computed(word, &taint);
        for target in written_targets(raw, words, &runs, runs_its_words, &is_computed) {
            let shown = reading.shown(&target);
            // `> "$D/y.sh"`, `cp a "$(…)"`: by its written end; a
            // program that may not write, only when it has one.
            let expands = reading.is_computed(&target, &taint) || shown.contains(['$', '`']);
            let end = written_end(&shown);
            // With no written end (`cp a "$D"`), the files under it, as
            // written (`sh "$D/a"`).
            match expands && !end.is_empty() {
                true => self.written_ends.insert(end),
                false => self.written.insert(normal(&shown)),
            };
        }
        found
    }
}

/// Whether a file written as `target` (a word, as written) is the file
/// `run` names (a `script`: by its path, or an interpreter's script): the
/// same path, a word holding it (`of=/tmp/y.sh`, awk's `print >
/// "/tmp/y.sh"`); a program run by its bare name from `PATH`, a path
/// ending in that name.
fn writes(target: &str, run: &str, script: bool) -> bool {
    match script {
        true => {
            let folder = target.trim_end_matches('/');
            target == run
                || (run.contains(['/', '.']) && target.contains(run))
                // Into a folder: `cp a /tmp/d/`, then `sh /tmp/d/a`.
                || (!folder.is_empty() && folder != "." && run.starts_with(&format!("{folder}/")))
        }
        false => {
            target.contains('/')
                && Path::new(target.trim_matches(['"', '\'']))
                    .file_name()
                    .is_some_and(|name| name == run)
        }
    }
}

/// The end of a computed word (as shown) written out after its last
/// expansion (`$D/y.sh` → `/y.sh`), quotes aside; empty when it ends in one.
fn written_end(word: &str) -> String {
    let plain: String = word.chars().filter(|c| !matches!(c, '"' | '\'')).collect();
    let after = match (plain.rfind('$'), plain.rfind('`')) {
        (Some(dollar), Some(tick)) if tick > dollar => &plain[tick + 1..],
        (None, Some(tick)) => &plain[tick + 1..],
        (Some(dollar), _) => {
            let rest = &plain[dollar + 1..];
            if let Some(inner) = rest.strip_prefix('{') {
                inner.split_once('}').map_or("", |(_, after)| after)
            } else if rest.starts_with('(') {
                rest.rfind(')').map_or("", |close| &rest[close + 1..])
            } else {
                rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_')
            }
        }
        (None, None) => plain.as_str(),
    };
    match after.contains(['$', '`']) {
        true => String::new(),
        false => after.to_owned(),
    }
}

/// The words of `words` (a command, its program first) that name code it
/// runs: the program, an interpreter's script, `.`/`source`'s file, `make
/// -f`'s makefile.
fn run_words(words: &[String]) -> Vec<&String> {
    let Some((program, args)) = words.split_first() else {
        return Vec::new();
    };
    let name = base_name(program);
    let sources = matches!(program.as_str(), "." | "source");
    let mut runs = match sources {
        true => Vec::new(),
        false => vec![program],
    };
    if super::super::INTERPRETERS.contains(&name.as_str()) || sources {
        // `python3 -c CODE`, `sh -c TEXT`: code, read where it stands.
        let inline = super::inline_code::code_of(&name, args).is_some()
            || args
                .iter()
                .take_while(|word| word.starts_with('-'))
                .any(|word| super::short_c(word));
        if !inline {
            runs.extend(args.iter().find(|word| !word.starts_with('-')));
        }
    } else if matches!(name.as_str(), "make" | "gmake") {
        let mut args = args.iter();
        while let Some(word) = args.next() {
            match word.as_str() {
                "-f" | "--file" | "--makefile" => runs.extend(args.next()),
                _ => runs.extend(["-f", "--file=", "--makefile="].iter().find_map(|option| {
                    word.strip_prefix(option)
                        .filter(|rest| !rest.is_empty())
                        .and(Some(word))
                })),
            }
        }
    }
    runs
}

/// The files the command writes: output redirections' targets in `raw`,
/// `tee`'s files, and every word (its program and the code files it runs,
/// `runs`, aside) of a command in `words` that may change a file's content
/// with what a name computed when it runs names.
fn written_targets(
    raw: &[String],
    words: &[String],
    runs: &[&String],
    runs_its_words: bool,
    is_computed: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let mut found = Vec::new();
    let mut raw = raw.iter();
    while let Some(word) = raw.next() {
        let operator = word.trim_start_matches(|c: char| c.is_ascii_digit());
        let Some(target) = operator
            .strip_prefix(">>")
            .or_else(|| operator.strip_prefix(">|"))
            .or_else(|| operator.strip_prefix("&>"))
            .or_else(|| operator.strip_prefix('>'))
        else {
            continue;
        };
        let word = match target.is_empty() {
            true => raw.next(),
            false if !target.starts_with('&') => Some(word),
            false => None,
        };
        found.extend(word.cloned());
    }
    let Some((program, args)) = words.split_first() else {
        return found;
    };
    let name = base_name(program);
    let git_reads = name == "git"
        && args
            .iter()
            .find(|word| !word.starts_with('-'))
            .is_some_and(|command| GIT_READS.contains(&command.as_str()));
    // `f sh x`, `retry 3 sh x`, `dotenv run -- python3 x`: words it runs.
    if LEAVE_CONTENT.contains(&name.as_str())
        || super::RUNNERS.contains(&name.as_str())
        || git_reads
        || runs_its_words
    {
        return found;
    }
    // What it writes comes from the files its words name, which the
    // binding reads (`cp tools/x.sh /tmp/y`, a copy of the project): only
    // a name computed when it runs before its last word (`cp "$(…)" y`,
    // `dd if="$(…)" of=y`) may put code no reading binds there; `tee`
    // writes its input.
    let last = args.iter().rposition(|word| !word.starts_with('-'));
    let computed_source = args
        .iter()
        .enumerate()
        .any(|(at, word)| Some(at) != last && is_computed(word));
    // Code given inline (`python3 -c`, `awk '{print > f}'`) computes what it likes.
    let inline = super::inline_code::code_of(&name, args).is_some();
    if name != "tee" && !computed_source && !inline {
        return found;
    }
    let run_by_it: Vec<&String> = (0..args.len())
        .filter(|at| {
            let name = base_name(&args[*at]);
            super::super::INTERPRETERS.contains(&name.as_str())
        })
        .flat_map(|at| run_words(&args[at..]))
        .collect();
    // `bash -c TEXT`: its text is read as the text's own.
    let shell_text = match super::super::SHELLS.contains(&name.as_str()) {
        true => args
            .iter()
            .position(|word| word.starts_with('-') && super::short_c(word))
            .and_then(|at| args[at + 1..].iter().find(|word| !word.starts_with('-'))),
        false => None,
    };
    found.extend(
        args.iter()
            .filter(|word| {
                !runs.contains(word)
                    && !run_by_it.iter().any(|run| std::ptr::eq(*run, *word))
                    && shell_text.is_none_or(|text| !std::ptr::eq(*word, text))
            })
            .cloned(),
    );
    found
}

/// `word` as a path to compare: `$HOME/`, `${HOME}/` as `~/`, no `./`, the
/// target of a redirection word (`>file`) alone.
fn normal(word: &str) -> String {
    let word = word.trim_start_matches(|c: char| c.is_ascii_digit());
    let word = word.trim_start_matches(['>', '|', '&']);
    let word = word.strip_prefix("./").unwrap_or(word);
    for home in ["$HOME/", "${HOME}/"] {
        if let Some(rest) = word.strip_prefix(home) {
            return format!("~/{rest}");
        }
    }
    word.to_owned()
}

#[cfg(test)]
mod tests {
    use super::super::computed_name;

    #[test]
    fn a_file_the_text_writes_and_runs_is_found() {
        for text in [
            "printf 'sh tools/g.%s a\\n' sh > ~/.cache/y.sh; sh ~/.cache/y.sh; rm -f ~/.cache/y.sh",
            "echo c2g= | base64 -d > \"$HOME/bin/y\"; chmod +x ~/bin/y; ~/bin/y",
            "printf 'x' | tee /tmp/y.sh >/dev/null; . /tmp/y.sh",
            "printf 'all:\\n\\tsh x' >~/.cache/y.mk; make -s -f ~/.cache/y.mk lint",
            // Copied or made by a command that writes files (round 49).
            "cp \"$(printf tools/g.%s sh)\" /tmp/y.sh; sh /tmp/y.sh; rm -f /tmp/y.sh",
            "cp \"$(ls tools/g*)\" /tmp/y.sh && sh /tmp/y.sh",
            "install -m 755 \"$(ls tools/g*)\" ~/bin/y; ~/bin/y",
            "dd if=\"$(ls tools/g*)\" of=/tmp/y.sh; . /tmp/y.sh",
            "awk '{print > \"/tmp/y.sh\"}' tools/g*; bash /tmp/y.sh",
            "python3 -c \"import shutil, glob; shutil.copy(glob.glob('tools/g*')[0], '/tmp/y.sh')\"; sh /tmp/y.sh",
            "cp \"$(ls tools/g*)\" ~/bin/lint; lint",
            // Its target computed when it runs.
            "D=$(printf /tmp); cat tools/g* > \"$D/y.sh\"; sh /tmp/y.sh",
            "D=$(mktemp -d); cp \"$(ls tools/g*)\" \"$D\"; sh \"$D/g.sh\"",
            "cp \"$(ls tools/g*)\" /tmp/d/; sh /tmp/d/g.sh",
            "T=$(mktemp); cp \"$(ls tools/g*)\" \"$T\"; sh \"$T\"",
            // Run before it is written, in a loop.
            "for i in 1 2; do sh /tmp/y.sh; cp \"$(ls tools/g*)\" /tmp/y.sh; done",
        ] {
            assert!(computed_name(text).is_some(), "{text}");
        }
        for text in [
            "jq -c . >> ~/.claude/log.jsonl; sh tools/g.sh",
            "sh tools/g.sh > out.txt; cat out.txt",
            "test -f tools/g.sh && sh tools/g.sh",
            "chmod +x tools/g.sh; git diff --quiet tools/g.sh; tools/g.sh; rm -f /tmp/x",
            "D=$(printf /tmp); date >> \"$D/hook.log\"; sh tools/g.sh",
            "mkdir -p ~/.cache/ruff; ruff check .",
            ". lib/common.sh; cp out.txt /tmp/out.txt; sh tools/g.sh",
            // A command its words name, a compiler's output, a copy of the
            // project (its binding's own).
            "retry() { \"$@\"; }; retry sh tools/g.sh \"$(cat)\"",
            "dotenv run -- python3 check.py",
            "cc -o \"$TMPDIR/c\" tools/check.c && \"$TMPDIR/c\"",
            "D=/tmp/r29; cp -r . \"$D\"; PYTHONPATH=$D/lib python3 check.py",
            "D=/tmp/r29; cp -r ./* \"$D/\"; python3 \"$D/check.py\"",
            "cp tools/other.sh tools/guard.sh && sh tools/guard.sh",
        ] {
            assert_eq!(computed_name(text), None, "{text}");
        }
    }
}
