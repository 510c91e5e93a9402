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
//! reads. Text a command is given (`sed "1e sh F"`, `… | tclsh`, `<<E`)
//! is read by [`super::written_text`] (round 51).

use super::Reader;
use super::base_name;
use super::cut::Command;
use super::words::Words;
use super::written_names::{
    GIT_READS, folded, leaves_content, normal, only_shows, run_words, script_at, writes,
    written_end,
};
use super::written_text::{
    ARCHIVERS, TARGET_FIRST, defaulted, descriptor_file, names_folder, option_value, xargs_command,
};

/// What marks a written end (not a path) among [`Reader`]'s
/// `text_written` keys.
pub(super) const TEXT_END: &str = "\u{0}end:";

impl Reader {
    /// Why the command (`raw` its words with redirections, `words` read
    /// through wrappers, fed as `command` is) runs a file the text
    /// writes, or hands it to a program; records what it writes for the
    /// commands after it (and, read again, before it).
    pub(super) fn runs_written(
        &mut self,
        raw: &[String],
        words: &[String],
        reading: &Words,
        command: &Command,
    ) -> Option<String> {
        // A line of a here-document no shell reads: text (round 51).
        if command.in_text {
            return None;
        }
        let piped = command.piped;
        self.follow_cd(words);
        // `… | xargs -I{} cp {} F`: the command it runs, with the words it
        // adds computed (round 51, R50-10); its own words read as before.
        let xargs = xargs_command(words);
        let (given, words) = (words, xargs.as_deref().unwrap_or(words));
        let runs = run_words(words);
        // `run() { sh "$1"; }; run /tmp/y.sh`: what each call gives it
        // (round 51).
        // Each with whether it is the program.
        let resolved: Vec<(String, bool)> = (runs.iter())
            .flat_map(|word| match self.arguments_of(word, reading) {
                Some(arguments) => arguments.into_iter().map(|a| (a, false)).collect(),
                None => vec![((*word).clone(), std::ptr::eq(*word, &words[0]))],
            })
            .collect();
        let run_paths: Vec<String> = (resolved.iter())
            .map(|(word, _)| self.compared(descriptor_file(raw, word).unwrap_or(word), reading))
            .collect();
        self.runs.extend(run_paths);
        let found = resolved.iter().find_map(|(word, program)| {
            // `sh /dev/fd/3 3< F`: the file opened on it (R50-9).
            let opened = descriptor_file(raw, word);
            let run = self.compared(opened.unwrap_or(word), reading);
            // A file found by its path, or an interpreter's script.
            let script = !program || run.contains('/');
            // A path named in text (`"#!/bin/sh"`) is no program found
            // on `PATH` by its bare name.
            let written = self.written.iter().any(|target| {
                writes(target, &run, script) && (script || !self.text_written.contains_key(target))
            });
            // A file written by a name built when it runs: its end, or
            // (code's writes no reading follows) any.
            let computed = self.written_ends.iter().any(|end| match end.is_empty() {
                true => script,
                false => run.ends_with(end.as_str()) || end.strip_prefix('/') == Some(&run),
            });
            // A `.git` folder elsewhere (a copy's, a link's): no tree the
            // copy rule binds holds it (red team round 51, H1).
            let in_git = run.contains("/.git/") && !run.starts_with(".git/");
            match (written || computed, in_git) {
                (true, _) => Some(format!(
                    "it runs a file it writes when it runs (`{}`)",
                    reading.shown(word)
                )),
                (false, true) => Some(format!(
                    "it runs a file inside a `.git` folder (`{}`), which no approval binds",
                    reading.shown(word)
                )),
                (false, false) => None,
            }
        });
        let runs_its_words = words.first().is_some_and(|program| {
            self.functions.contains(program) || self.aliases.contains_key(program)
        });
        let taint = self.taint.clone();
        let is_computed = |word: &str| reading.is_computed(word, &taint);
        // Reading a file named when it runs, or fed by a pipe (from a
        // command with a computed word: `fed_code`).
        let opens_computed = raw
            .windows(2)
            .any(|pair| pair[0] == "<" && is_computed(&pair[1]))
            || raw.iter().any(|word| {
                word.len() > 1
                    && word.starts_with('<')
                    && !word.starts_with("<<")
                    && is_computed(&word[1..])
            });
        let computed_before = std::mem::replace(
            &mut self.fed_computed,
            given.iter().any(|word| is_computed(word)),
        );
        let fed = (
            piped || opens_computed,
            opens_computed || (piped && computed_before),
        );
        let targets = written_targets(raw, words, &runs, runs_its_words, &is_computed, fed);
        let found = found.or_else(|| self.hands_written(raw, given, &targets, reading, piped));
        // Text it is given: what it runs or writes (round 51).
        let (text_runs, text_targets) = self.given_text(raw, words, command, reading);
        let found = found.or(text_runs);
        let targets = targets.into_iter().map(|target| (target, None));
        for (target, text) in targets.chain(text_targets.into_iter().map(|(t, x)| (t, Some(x)))) {
            self.note_written(&target, text, reading);
        }
        // Inline code's writes as its language's reading finds them
        // (`shutil.copytree("to" + "ols", "/tmp/d")`: red team round 51, c26).
        let name = words
            .first()
            .map(|word| base_name(word))
            .unwrap_or_default();
        if let Some(code) = super::inline_code::code_of(&name, &words[1.min(words.len())..])
            && let Ok(written) = super::code_written::written(code, &name)
        {
            for path in written.paths {
                self.note_written(&path, None, reading);
            }
            self.written_ends
                .extend(written.ends.into_iter().filter(|end| !end.is_empty()));
        }
        found
    }

    /// [`Reader::note_written`] of a function call's argument.
    pub(super) fn note_written_argument(
        &mut self,
        argument: &str,
        text: Option<String>,
        reading: &Words,
    ) {
        self.note_written(argument, text, reading);
    }

    /// Records `target` (a word, as written; named inside `text`) as a
    /// file the text writes.
    fn note_written(&mut self, target: &str, text: Option<String>, reading: &Words) {
        // `> /dev/null`, `2>/dev/stderr`: no file.
        if target
            .trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, '>' | '&' | '|'))
            .starts_with("/dev/")
        {
            return;
        }
        // `--target-directory=D`: the value (round 51).
        let target = option_value(target);
        let shown = reading.shown(target);
        // `save() { cat … > "$1"; }; save /tmp/y.sh`: what each call gives
        // it (red team round 51, x30–x46).
        if self.notes_arguments(target, &text, reading) {
            return;
        }
        // `> "$D/y.sh"`, `cp a "$(…)"`: by its written end; a program
        // that may not write, only when it has one.
        let expands = reading.is_computed(target, &self.taint) || shown.contains(['$', '`']);
        let end = written_end(&shown);
        // With no written end (`cp a "$D"`), the files under it, as
        // written (`sh "$D/a"`).
        if expands && !end.is_empty() {
            // Named in text (`"p @ file://$D/pkg"`): not that text's own
            // mention when read again (round 51).
            let marker = format!("{TEXT_END}{end}");
            let otherwise =
                self.written_ends.contains(&end) && !self.text_written.contains_key(&marker);
            if !otherwise {
                self.note_text_written(&marker, text);
            }
            self.written_ends.insert(end);
            return;
        }
        let target = self.compared(target, reading);
        self.note_text_written(&target, text);
        self.written.insert(target);
    }

    /// `word` as a path to compare: a variable the text set to plain words
    /// read as its value (`T=/tmp/y.sh; sh $T`), `//` and `/./` folded.
    pub(super) fn compared(&self, word: &str, reading: &Words) -> String {
        let given = |name: &str| self.taint.static_value(&format!("${name}"));
        let word = &defaulted(word, &given, &|name| self.taint.assigned.contains(name));
        let word = self
            .taint
            .static_value(word)
            .or_else(|| {
                // `$D/y.sh`, `${D}/y.sh` with `D=/tmp`: the folder's value.
                let (name, rest) = word.split_once('/')?;
                let value = self.taint.static_value(name)?;
                Some(format!("{value}/{rest}"))
            })
            .unwrap_or_else(|| word.to_owned());
        let word = normal(&reading.shown(&word));
        match &self.written_cwd {
            Some(cwd) if !word.starts_with(['/', '~', '$']) => folded(&format!("{cwd}/{word}")),
            _ => folded(&word),
        }
    }

    /// `cd /tmp`, `pushd d`: the folder written out that relative names
    /// are read from next (`cd /tmp && sh y.sh` runs `/tmp/y.sh`).
    fn follow_cd(&mut self, words: &[String]) {
        let Some((program, args)) = words.split_first() else {
            return;
        };
        let folder: Vec<&String> = args.iter().filter(|word| !word.starts_with('-')).collect();
        if !matches!(program.as_str(), "cd" | "pushd") || folder.len() != 1 {
            return;
        }
        let folder = folder[0].trim_end_matches('/');
        self.written_cwd = match (folder.starts_with(['/', '~']), &self.written_cwd) {
            _ if folder.contains(['$', '`', '\u{e000}']) || folder.is_empty() => None,
            (true, _) => Some(folder.to_owned()),
            (false, Some(cwd)) => Some(format!("{cwd}/{folder}")),
            (false, None) => None,
        };
    }

    /// Why the command hands a file the text writes to a program other
    /// than by running it: a word of it (`sh < F`, `ENV=F sh -i`, `bash -o
    /// errexit F`, `make -sf F`, `cp F G`; an interpreter's words after its
    /// script are data), or a pipe feeding a shell or `xargs` what names it
    /// (`cat F | sh`, `echo F | xargs sh`). Its own `targets` aside.
    fn hands_written(
        &mut self,
        raw: &[String],
        words: &[String],
        targets: &[String],
        reading: &Words,
        piped: bool,
    ) -> Option<String> {
        // A positional parameter by what each call gives it (round 51).
        let named = |word: &String| match self.arguments_of(word, reading) {
            Some(arguments) => arguments.iter().any(|a| self.names_written(a, reading)),
            None => self.names_written(word, reading),
        };
        let program = words
            .first()
            .map(|word| base_name(word))
            .unwrap_or_default();
        let interpreter = super::super::INTERPRETERS.contains(&program.as_str());
        let script = match interpreter {
            true => script_at(&words[1..]).map(|at| &words[at + 1]),
            false => None,
        };
        // What the command names, its own targets and an interpreter's
        // data (after its script) aside.
        let data_from = script.map_or(usize::MAX, |script| {
            raw.iter()
                .position(|word| std::ptr::eq(word, script) || word == script)
                .unwrap_or(usize::MAX)
        });
        // A word holding a blank is text (a `-c` string, a message), not a
        // file's name: the names in it are read by `given_text`.
        let mentioned = raw
            .iter()
            .enumerate()
            .filter(|(at, word)| *at <= data_from && !targets.contains(word))
            .filter(|(_, word)| !word.contains(char::is_whitespace))
            .any(|(_, word)| named(word));
        // `python3 -c "…run(['sh', '/tmp/y.sh'])"`, awk's `system("sh
        // /tmp/y.sh")`: inline code naming a file the text wrote.
        let code = super::inline_code::code_of(&program, &words[1.min(words.len())..]);
        if code.is_some_and(|code| self.code_runs_written(code)) {
            return Some(format!(
                "its inline code runs a file it writes when it runs (`{program}`)"
            ));
        }
        let fed = std::mem::replace(&mut self.fed_written, mentioned);
        // `cat F | sh`, `sh -s`, `. /dev/stdin`, `echo F | xargs sh`.
        let stdin = |word: &String| matches!(word.as_str(), "-" | "/dev/stdin" | "/proc/self/fd/0");
        let sources = words
            .first()
            .is_some_and(|word| matches!(word.as_str(), "." | "source"));
        let reads_input = program == "xargs"
            || (interpreter && script.is_none_or(stdin))
            || (sources && words.get(1).is_some_and(stdin));
        if piped && fed && reads_input {
            return Some(format!(
                "a pipe feeds `{program}` a file it writes when it runs"
            ));
        }
        // A function of the text is read where its body runs (its
        // parameters by what each call gives them: round 51).
        let function = words
            .first()
            .is_some_and(|word| self.functions.contains(word));
        (mentioned && !only_shows(&program) && !function)
            .then(|| format!("it hands a file it writes when it runs to `{program}`"))
    }
}

/// The files the command writes: output redirections' targets in `raw`,
/// `tee`'s files, and every word (its program and the code files it runs,
/// `runs`, aside) of a command in `words` that may change a file's content
/// with what a name computed when it runs names; `fed` when a pipe or a
/// computed file feeds it, `fed_code` when what feeds it is computed.
fn written_targets(
    raw: &[String],
    words: &[String],
    runs: &[&String],
    runs_its_words: bool,
    is_computed: &dyn Fn(&str) -> bool,
    (fed, fed_code): (bool, bool),
) -> Vec<String> {
    let mut found = Vec::new();
    let mut raw = raw.iter();
    while let Some(word) = raw.next() {
        let operator = word.trim_start_matches(|c: char| c.is_ascii_digit());
        let Some(target) = operator
            .strip_prefix("<>")
            .or_else(|| operator.strip_prefix(">>"))
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
    if leaves_content(&name)
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
    // Its target named first (`sort -o F`, `cp -t D`, `curl -o F`), or an
    // editor's command: any computed word may be what it writes from.
    let target_first = args.iter().any(|word| {
        matches!(word.as_str(), "-o" | "-t" | "-O")
            || ["--output", "--target-directory", "of="]
                .iter()
                .any(|o| word.starts_with(o))
    }) || TARGET_FIRST.contains(&name.as_str());
    let last = args.iter().rposition(|word| !word.starts_with('-'));
    let computed_source = args.iter().enumerate().any(|(at, word)| {
        (target_first || Some(at) != last) && is_computed(word) && !names_folder(&name, args, at)
    });
    // Code given inline (`python3 -c`, `awk '{print > f}'`) computes what it likes.
    let inline = super::inline_code::code_of(&name, args).is_some();
    // `cp /dev/stdin F < "$(…)"`, `… | cp /dev/stdin F`: what it reads.
    let reads_input = args.iter().any(|word| {
        matches!(
            word.as_str(),
            "/dev/stdin" | "-" | "/dev/fd/0" | "/proc/self/fd/0"
        )
    });
    // A copier given its input (`… | cp /dev/stdin F`); an archive read
    // from a pipe (`tar cf - . | tar xf - -C "$D"`) is the copy rule's,
    // unless what feeds it has a computed word (round 51).
    let copies_input = reads_input
        && (fed && matches!(name.as_str(), "cp" | "install" | "dd" | "mv")
            || fed_code && ARCHIVERS.contains(&name.as_str()));
    let may_hold_code = name == "tee" || computed_source || inline || copies_input;
    if !may_hold_code {
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

#[cfg(test)]
mod tests;
