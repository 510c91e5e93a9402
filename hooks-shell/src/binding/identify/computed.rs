//! Whether a command runs a file whose name exists only when it runs: a
//! program or script named by a command's output (`sh "$(printf
//! tools/g.%s sh)"`, `sh "$(echo hs.g/sloot | rev)"`: red team R38-1,
//! R38-5), by a variable such output was put in, by `read`, by `$RANDOM`,
//! by `eval` of such text, by `xargs` feeding an interpreter, or code piped
//! into a shell from a program that computes it.
//!
//! No reading of the text can name that file, and binding the hook tree
//! does not cover it (the name may reach any file of the project, or of the
//! home folder): such a hook cannot be approved ([`super::super::BindError::Computed`]).
//! A substitution that only finds a place (`$(git rev-parse
//! --show-toplevel)`, `$(dirname "$0")`, `$(pwd)`, `$(command -v python3)`)
//! names no code by itself and is read as before.

use std::collections::BTreeSet;

use super::base_name;

mod assigns;
mod awk_code;
mod brackets;
mod code_words;
mod code_written;
mod commands;
mod cut;
mod dynamic_reach;
mod given;
mod given_env;
mod here_documents;
mod hidden_keys;
mod inline_code;
mod input_values;
mod interpreters;
mod moved_code;
mod nested_text;
mod node_reach;
mod perl_opens;
mod perl_reach;
mod pieces;
mod places;
mod proc_folders;
use proc_folders::through_proc;
mod python_commands;
mod python_loaders;
mod python_paths;
mod python_values;
mod replay;
mod script_options;
mod shell_strings;
mod spelled;
mod spelled_names;
mod started;
mod steering_shell;
mod unfollowed;
mod unread_settings;
mod words;
mod written;
mod written_names;
mod written_text;
use commands::{
    ENVIRONMENT, RUNNERS, code_arguments, exec_options, finds_and_runs, function_names,
    is_all_arguments, opened, short_c,
};
use cut::{Command, cut, redirections};
use words::{Taint, Words, expands};

/// The deepest substitution, `-c` string or `eval` text read.
const MAX_DEPTH: usize = 8;

pub(crate) use awk_code::program_files_in as awk_program_files;
pub(crate) use given::{ANY, Calls, computed_name_given, scripts_given_computed};
pub(crate) use inline_code::{spawns_computed, spawns_computed_after};
pub(crate) use interpreters::{names_input, runs_its_input, xargs_program};
pub(crate) use started::{inline_started, started_by_file, started_by_file_in, started_commands};
pub(crate) use unfollowed::unfollowed_start;

/// Why `raw` (a hook's command, shell text) runs a file named only when it
/// runs; `None` when every name it runs is written in its text. Read
/// twice: what the first reading learns (computed variables, a function's
/// arguments) holds from the start of the second.
pub(crate) fn computed_name(raw: &str) -> Option<String> {
    given::computed_name_given(raw, &Vec::new())
}

pub(crate) use code_written::Written;
pub(super) use cut::sourced;
pub(crate) use given::{computed_name_after, data_written, files_written};
pub(crate) use written_text::script_writes;

/// What is known while reading.
#[derive(Default)]
struct Reader {
    taint: Taint,
    /// Functions the text defines.
    functions: BTreeSet<String>,
    /// The words of each call of them, read by the first reading: what a
    /// body's `"$@"` runs (`run() { log; "$@"; }; run npx x`: R41-7).
    calls: Vec<Vec<String>>,
    /// How deep a `"$@"` is being read as its calls (a function passing
    /// its arguments to another: R42-10).
    replaying: usize,
    /// How many leading words its `shift`s may take off (R42-4): each
    /// `shift N` counts N; one in a loop, or by a count not written, all.
    shifts: usize,
    /// The words this reading's `shift`s took off so far.
    shifted: usize,
    /// How many loops (`while`, `until`, `for`, `select`) the command being
    /// read is in: a `shift` there may run any number of times.
    loop_depth: usize,
    /// `-c` strings whose own function calls give their positional
    /// parameters computed text.
    tainting: BTreeSet<String>,
    /// The aliases the text defines, and their values.
    aliases: std::collections::BTreeMap<String, String>,
    /// The scripts it runs with computed arguments, by file name, and
    /// those calls' words (R45-1).
    given: std::collections::BTreeMap<String, Calls>,
    /// The files it writes (`> f`, `tee f`, `cp a f`), as written (R47-11).
    written: BTreeSet<String>,
    /// The written ends of files it writes by names computed when it runs
    /// (`> "$D/y.sh"`: `/y.sh`; empty, any file).
    written_ends: BTreeSet<String>,
    /// The folder written out a `cd` moved to, for the relative names
    /// [`written`] compares.
    written_cwd: Option<String>,
    /// Whether the last command named a file it writes (a pipe may feed
    /// what it prints to a shell).
    fed_written: bool,
    /// The text the last command prints (`echo TEXT`, `cat <<E`), for a
    /// program a pipe feeds it to (round 51).
    fed_text: Vec<String>,
    /// Whether the last command had a word computed when it runs (`tar
    /// cf - "$(…)" | tar xf -`: round 51).
    fed_computed: bool,
    /// The files written only through text (`sqlite3 … "select
    /// writefile('/tmp/y.sh', …)"`), and the texts naming them.
    text_written: std::collections::BTreeMap<String, BTreeSet<String>>,
    /// The files it runs, as compared with what it writes.
    runs: BTreeSet<String>,
}

/// The most calls of the text's functions read (more cannot be approved).
const MAX_CALLS: usize = 64;

impl Reader {
    /// Why `text` runs a computed name, `depth` readings deep.
    fn text(&mut self, text: &str, depth: usize) -> Option<String> {
        if depth > MAX_DEPTH {
            return Some("its text nests deeper than can be read".to_owned());
        }
        if crate::binding::shell::out_of_time() {
            return Some("its text takes longer to read than the reading may take".to_owned());
        }
        self.functions.extend(function_names(text));
        if let Some(why) = unread_settings::why(text, &self.functions) {
            return Some(why);
        }
        let cut = cut(text);
        if cut.ambiguous {
            return Some(
                "it quotes inside a double-quoted `${…}`, which shells read differently".into(),
            );
        }
        let places: Vec<bool> = cut
            .substitutions
            .iter()
            .map(|inner| self.is_place(inner, depth + 1))
            .collect();
        // A command's output names nothing run here, but its own commands run.
        let moved_before = self.taint.cwd;
        for (inner, place) in cut.substitutions.iter().zip(&places) {
            // A `cd` inside a substitution moves that subshell only.
            let cwd = self.taint.cwd;
            let found = (!place).then(|| self.text(inner, depth + 1)).flatten();
            self.taint.cwd = cwd;
            if found.is_some() {
                return found;
            }
        }
        let mut previous: Option<&Command> = None;
        for command in &cut.commands {
            if crate::binding::shell::out_of_time() {
                return Some("its text takes longer to read than the reading may take".to_owned());
            }
            let reading = Words {
                places: &places,
                substitutions: &cut.substitutions,
            };
            // After a `cd` to a folder named when it runs, a substitution
            // of this command runs there (`cd "$(dirname "$f")" && echo
            // "$(make)"`: round 56, a41): read again, moved.
            if self.taint.cwd && !moved_before {
                let cwd = self.taint.cwd;
                let found = self.substitutions_of(command, &cut.substitutions, &places, depth);
                self.taint.cwd = cwd;
                if found.is_some() {
                    return found;
                }
            }
            let found = self.command(command, previous, &reading, depth);
            if let Some(why) = found {
                return Some(match &self.taint.splitting {
                    Some(ifs) => format!("{why}; the text sets `{ifs}`"),
                    None => why,
                });
            }
            if !command.words.is_empty() {
                previous = Some(command);
            }
        }
        None
    }

    fn refers_to_computed(&self, word: &str) -> bool {
        expands(word, |name| self.taint.variables.contains(name))
    }

    /// Why one simple command runs a computed name; records the variables
    /// it assigns computed text to.
    fn command(
        &mut self,
        command: &Command,
        previous: Option<&Command>,
        reading: &Words,
        depth: usize,
    ) -> Option<String> {
        let at = command
            .words
            .iter()
            .position(|w| !super::super::LEADING_KEYWORDS.contains(&w.as_str()))
            .unwrap_or(command.words.len());
        let (words, inputs) = redirections(&command.words[at..]);
        self.count_loops(&command.words[..at], &words);
        if let Some(why) = self.assigns(&words, reading) {
            return Some(why);
        }
        let taint = self.taint.clone();
        let is_computed = |word: &str| reading.is_computed(word, &taint);
        // `exec -a NAME bash -c 'sh "$0"'`: `$0` is NAME (R42-4); after
        // `command` or `builtin` too (R43-3).
        let exec_at = words
            .iter()
            .position(|w| !matches!(w.as_str(), "command" | "builtin" | "-p" | "--"));
        if let Some(at) = exec_at.filter(|at| words[*at] == "exec")
            && let Some(name) = exec_options(&words[at + 1..]).0.filter(|n| is_computed(n))
        {
            return Some(format!(
                "exec -a names the program with text computed when it runs (`{}`)",
                reading.shown(&name)
            ));
        }
        // `for a do sh "$a"`, `coproc sh …`: what follows (R43-2, R43-5).
        let after = match words.first().map(String::as_str) {
            Some("for" | "select") if words.get(2).is_some_and(|w| w == "do") => Some(3),
            Some("coproc") if words.len() > 1 => Some(1),
            _ => None,
        };
        if let Some(from) = after {
            let inner = command.with_words(words[from..].to_vec());
            return interpreters::coprocess(&words)
                .or_else(|| self.command(&inner, previous, reading, depth));
        }
        // `alias r=sh; r "$(…)"`: the program an alias names (R43-6).
        if words.first().is_some_and(|w| self.aliases.contains_key(w)) && self.replaying < 3 {
            let inner = command.with_words(self.alias_expanded(&words));
            self.replaying += 1;
            let found = self.command(&inner, previous, reading, depth);
            self.replaying -= 1;
            return found;
        }
        let read = crate::binding::unwrap(&words);
        // `env -C "$(dirname "$f")" make`: the folder it runs in, named
        // when it runs (round 55, H55-6), read as `cd` there is.
        let moved_here = read.chdir.iter().any(|dir| is_computed(dir));
        let unwrapped = read.words;
        let Some((program_word, args)) = unwrapped.split_first() else {
            // `{ …; } > F`: what a group writes (round 50).
            self.runs_written(&command.words[at..], &unwrapped, reading, command);
            // `exec 3< "$(…)"`, `< "$(…)"`: a file opened by a computed name.
            return opened(&inputs, &is_computed, reading);
        };
        // `"$@"` run: each call's words, as the command they make; in a
        // runner's words too (`flock LOCK "$@"`).
        if let Some(at) = unwrapped.iter().position(|w| is_all_arguments(w))
            && !self.calls.is_empty()
        {
            return self.replay(&unwrapped, at, command, previous, reading, depth);
        }
        // `X=sh; $X "$(…)"`: the program a variable the text set names (R42-3).
        if let Some(value) = self.taint.static_value(program_word) {
            let mut words = vec![value];
            words.extend(args.iter().cloned());
            let inner = command.with_words(words);
            return self.command(&inner, previous, reading, depth);
        }
        if reading.is_computed_program(program_word, &taint) || self.taint.moved(program_word) {
            return Some(format!(
                "the program it runs is named by text computed when it runs (`{}`)",
                reading.shown(program_word)
            ));
        }
        // `builtin eval …`, `builtin source …`: the builtin itself.
        if program_word == "builtin" && !args.is_empty() {
            let inner = command.with_words(args.to_vec());
            return self.command(&inner, previous, reading, depth);
        }
        self.note_given(&unwrapped, &is_computed, reading);
        if let Some(why) = self.runs_written(&command.words[at..], &unwrapped, reading, command) {
            return Some(why);
        }
        let program = base_name(program_word);
        if program == "shift" {
            // Counted once over the text (the second reading keeps the first's).
            self.shifted = self
                .shifted
                .saturating_add(replay::shifted(args, self.loop_depth > 0));
            self.shifts = self.shifts.max(self.shifted);
        }
        let moved = taint.cwd || moved_here;
        let started_there =
            || script_options::started_there(&unwrapped, &program, args, moved, &is_computed);
        if let Some(why) = script_options::runs_there(program_word, &self.functions, moved)
            .or_else(|| script_options::steers_there(&command.words, moved))
            .or_else(started_there)
        {
            return Some(why);
        }
        if self.functions.contains(program_word) {
            // `f "$(…)"`: its body's `$1` holds computed text (R40-2); a
            // folder found when it runs too (`lint "$(dirname "$f")"`
            // with `cd "$1"` in the body: round 57, b50).
            let run_time = |w: &str| reading.holds_run_time_text(w, &taint);
            self.taint.positional |= args.iter().any(|w| is_computed(w) || run_time(w));
            if self.calls.len() < MAX_CALLS + 1 && !self.calls.contains(&args.to_vec()) {
                self.calls.push(args.to_vec());
            }
        }
        // `sed -f "$(…)"`, `make -C "$(…)"`, `tar --to-command=sh` (round 51).
        let input_computed = inputs
            .iter()
            .any(|input| matches!(input, cut::Input::File(file) if is_computed(file)));
        if let Some(why) = script_options::runs_given_script(
            &program,
            args,
            (input_computed, taint.cwd || moved_here),
            &is_computed,
        ) {
            return Some(why);
        }
        match program.as_str() {
            "exec" => opened(&inputs, &is_computed, reading).or_else(|| {
                // `exec bash run`: what it runs.
                let inner = command.with_words(exec_options(args).1.to_vec());
                (!inner.words.is_empty())
                    .then(|| self.command(&inner, previous, reading, depth))
                    .flatten()
            }),
            "eval" => {
                let text = args.join(" ");
                // `eval "$A$B"`: text assembled when it runs (R40-3).
                let held = args
                    .iter()
                    .any(|w| expands(w, |name| !ENVIRONMENT.contains(&name)));
                if args.len() == 1 && reading.is_setup(&args[0]) {
                    return None;
                }
                if held || args.iter().any(|w| reading.is_computed_text(w)) {
                    return Some(format!(
                        "eval runs text computed when it runs (`{}`)",
                        reading.shown(&text)
                    ));
                }
                self.text(&reading.shown(&text), depth + 1)
            }
            // Code kept to run later (R40-3).
            "trap" | "alias" | "mapfile" | "readarray" => {
                if program == "alias" {
                    for (name, value) in args.iter().filter_map(|a| a.split_once('=')) {
                        self.aliases.insert(name.to_owned(), value.to_owned());
                    }
                }
                for code in code_arguments(&program, args) {
                    if reading.is_computed_text(code) {
                        return Some(format!(
                            "{program} keeps text computed when it runs to run (`{}`)",
                            reading.shown(code)
                        ));
                    }
                    if let Some(why) = self.text(&reading.shown(code), depth + 1) {
                        return Some(why);
                    }
                }
                None
            }
            // `cd "$(printf tools)" && sh g.sh`: every relative name after it.
            "cd" | "pushd" => {
                // To a computed folder, or one the text chose by `HOME=` or
                // `OLDPWD=` (`cd -`: R42-2; a `CDPATH` is read elsewhere).
                let chosen = |name: &str| self.taint.assigned.contains(name);
                // `CDPATH="$(…)"; cd sub`: a relative folder is looked for
                // where the run chose (R42-2; a written `CDPATH` is read
                // by the binding).
                let searched = args
                    .iter()
                    .any(|a| !a.starts_with(['/', '-', '~', '$', '.', '\u{e000}']));
                let run_time = |w: &str| reading.holds_run_time_text(w, &taint);
                self.taint.cwd |= args.iter().any(|w| run_time(w))
                    || (args.is_empty() && chosen("HOME"))
                    || (args.first().is_some_and(|a| a == "-") && chosen("OLDPWD"))
                    || (searched && self.taint.variables.contains("CDPATH"));
                None
            }
            // `hash -p "$(…)" name`: a program's path set (R41-3).
            "hash" if args.iter().any(|w| is_computed(w)) => Some(format!(
                "hash sets a program's path to text computed when it runs (`{}`)",
                reading.shown(&args.join(" "))
            )),
            "find" => finds_and_runs(args),
            "awk" | "gawk" | "mawk" | "nawk" => {
                interpreters::awk_runs(&program, args, &is_computed, reading)
            }
            // `make -f /dev/stdin <<E`: a makefile no file holds (R43-11).
            "make" | "gmake" => crate::binding::definitions::makefile_from_input(args),
            "xargs" => self.xargs(command, previous, args, &is_computed, reading, depth),
            _ if super::INTERPRETERS.contains(&program.as_str())
                || matches!(program_word.as_str(), "." | "source") =>
            {
                self.interpreter(
                    &program,
                    program_word,
                    args,
                    command,
                    previous,
                    (&inputs, reading),
                    depth,
                )
            }
            // `git -c 'alias.x=!sh …' x`: an alias is a shell string (R43-11).
            "git" => self
                .git_in_computed_place(args, &words, &|w| reading.holds_run_time_text(w, &taint))
                .or_else(|| {
                    args.iter()
                        .filter_map(|a| a.strip_prefix("alias.").and_then(|a| a.split_once("=!")))
                        .find_map(|(_, code)| match reading.is_computed_text(code) {
                            true => Some(format!(
                                "a git alias runs a string computed when it runs (`{}`)",
                                reading.shown(code)
                            )),
                            false => self.text(&reading.shown(code), depth + 1),
                        })
                }),
            // `su -c 'sh x'`, `script -qc 'sh x'`: a shell string (R42-3).
            // `npm exec -c 'sh x'`, `npx -c …` (R45-6).
            "su" | "script" | "runuser" | "sg" | "flock" | "npm" | "npx" | "pnpm" | "yarn"
                if args.iter().any(|a| short_c(a) || a == "--call") =>
            {
                let at = args.iter().position(|a| short_c(a) || a == "--call")?;
                let string = args.get(at + 1)?;
                match reading.is_computed_text(string) {
                    true => Some(format!(
                        "{program} runs a string computed when it runs (`{}`)",
                        reading.shown(string)
                    )),
                    false => self.text(&reading.shown(string), depth + 1),
                }
            }
            // `flock LOCK sh "$(…)"`: what such a program runs (R40-3).
            _ if RUNNERS.contains(&program.as_str()) => {
                let from = args.iter().position(|w| {
                    let name = base_name(w);
                    super::INTERPRETERS.contains(&name.as_str())
                        || matches!(w.as_str(), "." | "source" | "eval")
                })?;
                let inner = command.with_words(args[from..].to_vec());
                self.command(&inner, previous, reading, depth)
            }
            _ => interpreters::fed_built(&program, command, previous),
        }
    }
}

#[cfg(test)]
mod tests;
