//! Which files a command's code lives in, as far as they can be named: the
//! program when it is a path, an interpreter's script argument, every other
//! argument naming an existing file (relative to the working directory or the
//! script's own folder: a wrapper's script argument), the files a shell script
//! `source`s / `.`s by a static path, the modules a Python script imports
//! from beside it, and what a shell's `-c` string reaches, read the same way
//! ([`nested`]). Whatever cannot be named (command substitution, `-m`, a
//! missing script, a dynamic `source`) makes the command *opaque*: its
//! approval then binds the whole hook tree instead.

use std::path::{Path, PathBuf};

use hermes_hooks_core::home::expand_tilde;

mod compound;
pub(crate) use compound::with_home;
pub(crate) use nested::{MAX_DEPTH as MAX_STRING_DEPTH, SHELLS, shell_string_positions};
mod computed;
pub(crate) use computed::{
    inline_started, names_input, runs_its_input, started_by_file, started_by_file_in,
    unfollowed_start, xargs_program,
};
mod follow;
mod helpers_written;
mod language;
mod own_folder;
mod paths;
use paths::{looks_like_script, on_path, push, resolve, split_outside_parameters};
mod script_folder;
use script_folder::computed_script_folder;
mod scan;
mod sealed_copy;
use follow::follow;
mod nested;
mod sweep;
mod user_scripts;
mod variables;

/// Interpreters whose first non-option argument is the script they run.
const INTERPRETERS: [&str; 14] = [
    "sh", "bash", "dash", "zsh", "ksh", "fish", "python", "python3", "node", "deno", "bun", "ruby",
    "perl", "php",
];

/// Interpreters that run a script given as `/proc/self/fd/N` the same as by
/// its path (node and friends resolve the real path of their main module).
pub(crate) const FD_SAFE: [&str; 9] = [
    "sh", "bash", "dash", "zsh", "ksh", "python", "python3", "ruby", "perl",
];

/// Deepest chain of `source`d / imported files followed.
const MAX_FOLLOW: usize = 8;
/// The most bytes of a script scanned for `source` lines and imports.
const MAX_SCAN: u64 = 1024 * 1024;

/// What [`identify`] found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Identified {
    /// Every file found, in the order met (no duplicates).
    pub files: Vec<PathBuf>,
    /// The file that is executed (the program, or an interpreter's script),
    /// the word that names it, and whether it may be run as `/proc/self/fd/N`.
    pub code: Option<Code>,
    /// Some code cannot be identified: why (bind the hook tree).
    pub opaque: Option<String>,
    /// A file it runs is named only when it runs: why (it cannot be
    /// approved: a name computed when it runs).
    pub computed: Option<String>,
    /// A shell is given a folder as its script (`sh tools/g.sh` once
    /// `g.sh` is a folder): it runs nothing and succeeds, so it cannot be
    /// approved (sweep 59, H2).
    pub not_a_file: Option<String>,
    /// Programs found on `PATH` in a project folder that lead elsewhere (a
    /// virtual environment's `python3`), and what they read of it at
    /// start-up: bound by content, not read for names (`program`).
    pub programs: Vec<PathBuf>,
    /// The definitions (`Makefile`, `package.json`...) that the scripts it
    /// runs execute in the folder they run in (`make -s lint` in a user's
    /// script: red team R44-12), bound as the command's own are.
    pub definitions: Vec<PathBuf>,
    /// The scripts the command runs with arguments computed when it runs,
    /// by file name, and those calls' words: each read as run so (R45-1).
    given: std::collections::BTreeMap<String, computed::Calls>,
    /// The scripts outside the project read, not bound (R45-4).
    read_only: Vec<PathBuf>,
    /// The interpreter the command gives its script to (`node`, `perl`),
    /// which decides the language the script is read in (R47-3).
    interpreter: Option<String>,
    /// The files a program of another language than the shell is given
    /// (`tclsh g`, `awk -f g.txt`): read as such whatever their name.
    foreign: Vec<PathBuf>,
    /// The word naming the program or script it runs when a command
    /// substitution names its folder (`bash "$(dirname "$(git rev-parse
    /// --git-dir)")/hooks/run.sh"`): the folder is known only when it runs.
    pub(crate) script_folder_computed: Option<String>,
}

impl Identified {
    /// The interpreter the command runs `file` with, when `file` is the
    /// script it gives an interpreter.
    fn interpreter_of(&self, file: &Path) -> Option<&str> {
        self.code
            .as_ref()
            .filter(|code| !code.is_program && code.path == file)?;
        self.interpreter.as_deref()
    }
}

/// The file a command executes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Code {
    /// Its resolved path.
    pub path: PathBuf,
    /// The word of the command that names it, as split.
    pub word: String,
    /// Whether it runs the same given as `/proc/self/fd/N`.
    pub fd_safe: bool,
    /// Whether it is the program itself (else an interpreter's argument).
    pub is_program: bool,
}

/// The interpreter name without a version suffix (`python3.12` → `python3`).
pub(crate) fn base_name(word: &str) -> String {
    let name = Path::new(word)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let trimmed = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    match trimmed {
        "python" if name.starts_with("python3") => "python3".to_owned(),
        _ => trimmed.to_owned(),
    }
}

/// The files `words` (a command split into argv, run in `cwd`) reaches.
/// `raw` is the command text as configured (checked for `$(` and backticks).
pub fn identify(raw: &str, words: Option<&[String]>, cwd: &Path) -> Identified {
    identify_line(raw, raw, words, cwd)
}

/// [`identify`], with names computed when it runs read in `line`, the text
/// as it runs (see [`crate::binding::Subject::line`]).
pub(crate) fn identify_line(
    raw: &str,
    line: &str,
    words: Option<&[String]>,
    cwd: &Path,
) -> Identified {
    let mut found = identify_at(raw, words, cwd, 0);
    found.script_folder_computed = computed_script_folder(line, cwd);
    let line = match cwd.to_string_lossy() {
        folder if folder.contains(['$', '`']) => line.replace(&*folder, "${CLAUDE_PROJECT_DIR}"),
        _ => line.to_owned(),
    };
    // The text's own data (`cat > /tmp/in.json; jq . /tmp/in.json`): its
    // content before the hook runs is no code of it (round 49, U1).
    // So is a copy's or an archive's target it names once by a full path
    // (`cp README.md ~/.cache/readme.bak`: round 52, R52-5).
    let backups = super::search_path::write_targets::write_targets(&[&line])
        .into_iter()
        .filter(|path| path.starts_with(['/', '~']))
        .filter(|path| !path.contains(['$', '`', '*', '?', '[']));
    let data: Vec<PathBuf> = computed::data_written(&line)
        .into_iter()
        .chain(backups)
        .map(|path| super::normalize(&cwd.join(expand_tilde(&path))))
        .collect();
    found.files.retain(|file| {
        let real = file.canonicalize().unwrap_or_else(|_| file.clone());
        !data.iter().any(|path| path == file || *path == real)
    });
    let helpers = helpers_written::Helpers::of(&found);
    let written = helpers.written();
    found.computed = computed::computed_name_after(&line, &written)
        .or(found.computed.take())
        .or_else(|| helpers.run_written(&line))
        .or_else(|| follow::scan_run_by_shell(raw, &found.files, &found.given))
        .or_else(|| scan::scan_awk_programs(raw, cwd, cwd));
    found
}

/// Why `raw`, run in `cwd`, runs a name computed when it runs. A project
/// folder whose name holds `$` or `` ` `` was pasted into the text shown
/// (the run reads it from the environment): read as that variable.
pub(crate) fn computed_in(raw: &str, cwd: &Path) -> Option<String> {
    let folder = cwd.to_string_lossy();
    match folder.contains(['$', '`']) {
        true => computed::computed_name(&raw.replace(&*folder, "${CLAUDE_PROJECT_DIR}")),
        false => computed::computed_name(raw),
    }
}

/// [`identify`] of a command `depth` `-c` strings deep ([`nested`]): there
/// `.` and `source` run their script too, and a command naming no file is
/// no file (its program is not bound: the shell's string runs it).
fn identify_at(raw: &str, words: Option<&[String]>, cwd: &Path, depth: usize) -> Identified {
    let mut found = Identified::default();
    // `"$(pwd)/hooks/run.sh"`: the path it names, read as written out.
    let expanded: Option<Vec<String>> = words.map(|words| {
        words
            .iter()
            .map(|word| super::wrappers::here_expanded(word, cwd).unwrap_or_else(|| word.clone()))
            .collect()
    });
    let words = expanded.as_deref();
    if depth == 0 {
        found.given = computed::scripts_given_computed(raw, &Vec::new());
    }
    // `"$(pwd)/x.sh"`, `"$(git rev-parse --show-toplevel)/x.sh"`: read as
    // the path (above), no substitution left unread.
    let unread = super::wrappers::without_here_forms(raw);
    if unread.contains("$(") || unread.contains('`') {
        found.opaque = Some("it runs a command substitution".to_owned());
    }
    let Some(words) = words.filter(|w| !w.is_empty()) else {
        found
            .opaque
            .get_or_insert_with(|| "it cannot be split into words".to_owned());
        // Each script the text names is bound all the same (R44-1: quotes
        // nested in `${…}` left `sh tools/g.sh` unbound).
        if depth == 0 {
            let (scripts, too_many) = sweep::named_scripts(raw, cwd);
            for script in scripts {
                add_run_file(&mut found, script, cwd);
            }
            found.computed = found.computed.take().or(too_many);
        }
        return found;
    };
    let mut program = base_name(&words[0]);
    let mut args = &words[1..];
    let unwrapped = super::wrappers::unwrap(words);
    let moved;
    let shell_cwd = cwd;
    let mut cwd = cwd;
    if super::wrappers::is_wrapper(&program) {
        // `/usr/bin/env [-C DIR] [-S STRING] [NAME=value...] python3 x.py`,
        // `timeout 5 env -C tools bash x.sh`: what the wrappers run, in the
        // folder they run it in.
        if let Some(why) = &unwrapped.unsure {
            found.opaque = Some(why.clone());
        }
        moved = super::wrappers::run_folders(cwd, &unwrapped.chdir);
        match moved.as_slice() {
            [one] => cwd = one,
            _ => found.opaque = Some("env -C names a folder two ways (~)".to_owned()),
        }
        if let Some((inner, rest)) = unwrapped.words.split_first() {
            program = base_name(inner);
            args = rest;
            if inner.contains('/') {
                match resolve(inner, cwd, None) {
                    Some(path) => push(&mut found.files, path),
                    None => found.opaque = Some(format!("its program {inner} does not exist")),
                }
            }
        }
    }
    let sources = depth > 0 && (words[0] == "." || program == "source");
    let interpreter = INTERPRETERS.contains(&program.as_str()) || sources;
    let program_path = resolve(&words[0], shell_cwd, None);
    match &program_path {
        Some(path) if words[0].contains('/') || words[0].starts_with('~') => {
            push(&mut found.files, path.clone());
            if !interpreter {
                found.code = Some(Code {
                    path: path.clone(),
                    word: words[0].clone(),
                    fd_safe: language::shebang_fd_safe(path),
                    is_program: true,
                });
            }
        }
        Some(_) => {}
        None if words[0].contains('/') => {
            found.opaque = Some(format!("its program {} does not exist", words[0]));
        }
        None => {}
    }
    let mut script_dir: Option<PathBuf> = found
        .code
        .as_ref()
        .and_then(|c| c.path.parent().map(Path::to_path_buf));
    let mut expect_script = interpreter;
    // `>> ~/.claude/tool-log.jsonl`, `| tee -a log`: files written, never
    // bound (red team R44-15: a logging hook was asked again every run).
    let mut written = Written {
        tee: program == "tee",
        ..Written::default()
    };
    for word in args {
        if written.skips(word) {
            continue;
        }
        // `-e` is code for perl, ruby or node, errexit for a shell (`sh -e
        // g.sh` runs g.sh).
        let code_option =
            word == "-e" && !matches!(program.as_str(), "sh" | "bash" | "dash" | "zsh" | "ksh");
        if expect_script && (word == "-m" || word == "-c" || code_option) {
            if word == "-m" {
                found.opaque = Some(format!("it runs a module ({program} -m)"));
            }
            expect_script = false;
            continue;
        }
        if word.starts_with('-') {
            continue;
        }
        // `tclsh <~/bin/g.tcl`: the file its input comes from.
        let word = match word.strip_prefix('<') {
            Some(file) if !file.is_empty() && !file.starts_with(['<', '(', '&']) => file,
            _ => word.as_str(),
        };
        // `vim -c 'source ~/bin/g.x'`, `gdb -ex 'source g'`: a file its own
        // text names is read in its language (red team round 61, U-39).
        if unmodeled::reads_foreign(&program) && word.contains(char::is_whitespace) {
            let named = shlex::split(word)
                .unwrap_or_else(|| word.split_whitespace().map(str::to_owned).collect());
            for path in named.iter().filter_map(|name| resolve(name, cwd, None)) {
                push(&mut found.files, path.clone());
                found.foreign.push(path);
            }
        }
        let path = resolve(word, cwd, script_dir.as_deref());
        match path {
            Some(path) => {
                push(&mut found.files, path.clone());
                if unmodeled::reads_foreign(&program) {
                    found.foreign.push(path.clone());
                }
                if expect_script {
                    script_dir = path.parent().map(Path::to_path_buf);
                    found.interpreter = Some(program.clone());
                    found.code = Some(Code {
                        path,
                        word: word.to_owned(),
                        // A sourced file is read by the shell, whatever its name.
                        fd_safe: FD_SAFE.contains(&program.as_str()) || sources,
                        is_program: false,
                    });
                }
            }
            // A folder, `/dev/null`, a device: read as an empty script.
            None if expect_script
                && SHELLS.contains(&program.as_str())
                && std::fs::metadata(cwd.join(expand_tilde(word))).is_ok_and(|m| !m.is_file()) =>
            {
                found.not_a_file = Some(format!("its script {word} is no file"));
            }
            None if expect_script || looks_like_script(word) => {
                found.opaque = Some(format!("its script {word} does not exist"));
            }
            None => {}
        }
        expect_script = false;
    }
    nested::read_shell_strings(words, cwd, depth, &mut found);
    // `cd "$D" && sh tools/guard.sh`: what each simple command runs, where
    // it runs (R33b-1: a script after a `cd` was run by path, unbound).
    if let Some(parts) = (depth == 0)
        .then(|| compound::compound(raw, words, cwd))
        .flatten()
    {
        found.foreign.extend(parts.foreign);
        for file in parts.files {
            add_run_file(&mut found, file, cwd);
        }
        found.code = found.code.take().or(parts.code);
        found.opaque = found.opaque.take().or(parts.opaque);
        found.computed = found.computed.take().or(parts.computed);
        found.definitions.extend(parts.definitions);
    }
    if depth > 0 {
        // What it reaches is followed by the command it is part of.
        return found;
    }
    if found.files.is_empty()
        && found.opaque.is_none()
        && let Some(path) = program_path.or_else(|| on_path(&words[0], cwd))
    {
        // A bare program and nothing else: the program is the code.
        push(&mut found.files, path);
    }
    let mut index = 0;
    while index < found.files.len() && index < 64 {
        let file = found.files[index].clone();
        follow(&file, cwd, &mut found);
        index += 1;
    }
    if found.files.is_empty() && found.opaque.is_none() {
        found.opaque = Some(format!("no file runs it ({} not found)", words[0]));
    }
    // Whatever the reading above missed: each script the text names.
    let (scripts, too_many) = sweep::named_scripts(raw, cwd);
    for script in scripts {
        if !found.files.contains(&script) {
            add_run_file(&mut found, script, cwd);
        }
    }
    found.computed = found.computed.take().or(too_many);
    found
}

/// Which words of a command are files it writes: an output redirection's
/// target (`> log`, `>>log`, `2> err`, `&> all`), `tee`'s files.
#[derive(Default)]
struct Written {
    /// The next word is a redirection's target.
    target: bool,
    /// The words after a `| tee` are its files, until the next command.
    tee: bool,
    /// The word after `|` is a program.
    after_pipe: bool,
}

impl Written {
    /// Whether `word` is written to (or is the operator): not bound.
    fn skips(&mut self, word: &str) -> bool {
        let after_pipe = std::mem::take(&mut self.after_pipe);
        if std::mem::take(&mut self.target) {
            return true;
        }
        if matches!(word, "|" | "|&" | ";" | "&&" | "||" | "&") {
            self.tee = false;
            self.after_pipe = word.starts_with('|');
            return false;
        }
        if after_pipe && base_name(word) == "tee" {
            self.tee = true;
            return true;
        }
        let operator = word.trim_start_matches(|c: char| c.is_ascii_digit() || c == '&');
        if operator.starts_with('>') {
            let rest = operator.trim_start_matches(['>', '|', '&']);
            self.target = rest.is_empty();
            return true;
        }
        self.tee && !word.starts_with('-')
    }
}

/// Adds `path`, a file the command runs, and the files it sources or
/// imports.
pub(super) fn add_run_file(found: &mut Identified, path: PathBuf, cwd: &Path) {
    if !found.files.contains(&path) {
        found.files.push(path.clone());
        follow(&path, cwd, found);
    }
}

#[cfg(test)]
mod tests;
mod unmodeled;
