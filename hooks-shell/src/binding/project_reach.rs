//! Which project a hook's code may name files of ([`Subject::mentions_project`]):
//! a project hook's own; for the user's hook, the project when it runs a
//! file of it, when its Python imports from the folder it runs in, or when
//! it runs `git` or a test runner there, sets a search path, or copies a
//! folder of it out and runs code from the copy.

use std::path::{Path, PathBuf};

use super::identify::Identified;
use super::search_path::Spoken;
use super::{Reached, Subject, peek};

impl Subject {
    /// The project whose files the hook's code may name: a project hook's;
    /// for the user's own hook, the project (or, for a config.yaml hook, the
    /// folder it runs in) when it runs a file of it (red-team R6-16: the
    /// user's hook running the repository's `tools/guard.sh`, which sources
    /// `tools/common.sh`).
    pub(super) fn mentions_project(
        &self,
        found: &Identified,
        reached: &Reached,
    ) -> Option<PathBuf> {
        if self.bind_tree {
            return self.project.clone();
        }
        let project = self.project.clone().unwrap_or_else(|| self.cwd.clone());
        // Started in `/` or `~`: no project (red team R14-2, R16-4).
        project.parent()?;
        let home = hermes_hooks_core::home::user_home().unwrap_or_default();
        (!home.starts_with(&project)).then_some(())?;
        let runs_its_file = found
            .files
            .iter()
            .chain(reached.roots.iter().filter(|root| root.is_file()))
            .any(|file| file.starts_with(&project));
        // Python code of the user's that puts the folder it runs in on its
        // module path (`sys.path.insert(0, os.getcwd())`): the project's
        // modules it imports are its code (red team R46-2).
        let searches_it = || found.files.iter().any(|file| imports_from_run_folder(file));
        // `git status` from the user's hook or a script of it: git runs
        // what the project's `.git/config` names (`core.fsmonitor`, an
        // alias, a filter: red team round 49, H9).
        // Or sets a search path (`export PATH="$PWD/bin:$PATH"`: H10),
        // which the project's programs may then be found on.
        let reads_project_settings = || {
            reads_project_settings(&self.command)
                || found
                    .files
                    .iter()
                    .filter_map(|file| peek::small_text(file))
                    .any(|text| reads_project_settings(&text))
        };
        // A project folder copied or linked out and code run from the copy
        // (`cp -r tools /tmp/d; sh /tmp/d/g.sh`, `ln -s "$PWD/tools" /tmp/L`:
        // red team R50-5): the copy rule binds what it may copy.
        let copies_it = || self.copies_project_out(found, &project);
        // Code naming a path of the folder it runs in (`sys.path.append(
        // 'tools')`, `perl -Itools`, `require("x")`: round 49, q13, ple03,
        // ne02).
        let names_its_paths = || {
            command_loads_from_run_folder(&self.command)
                || super::project_literals::command_names_project_path(&self.command, &self.cwd)
                || found
                    .files
                    .iter()
                    .any(|file| user_code_names_project_path(file, &self.cwd))
                // What its code starts (`["python3", "tools"]`: round 55).
                || found
                    .files
                    .iter()
                    .filter(|file| !file.starts_with(&self.cwd))
                    .flat_map(|file| super::identify::started_by_file(file))
                    .any(|line| {
                        super::project_literals::command_names_project_path(&line, &self.cwd)
                    })
        };
        // A Python reading the folder it runs in first (`python3 -c`, `-m`,
        // its input) in a script of the user's, or in the command where
        // the `PYTHONSAFEPATH` it is given may not hold (red team round
        // 62): the modules it may import from there are bound.
        let python_reads_it = || {
            (super::shell::python_reads_cwd(&self.command)
                && super::python_safe_path::may_not_hold(&self.command, &self.cwd))
                || found
                    .files
                    .iter()
                    .filter_map(|file| peek::small_text(file))
                    .any(|text| super::shell::python_reads_cwd(&text))
        };
        (runs_its_file
            || searches_it()
            || python_reads_it()
            || reads_project_settings()
            || copies_it()
            || names_its_paths())
        .then_some(project)
    }

    /// Whether the command, or a script of it among `found`'s files, names
    /// a folder of `project` and a path inside a folder outside it that it
    /// may have copied there ([`Spoken::copied_and_run`]); one the copy
    /// rule cannot read counts (the binding then says why).
    fn copies_project_out(&self, found: &Identified, project: &Path) -> bool {
        let words = self.words.as_deref().unwrap_or_default().join(" ");
        let command = [self.command.clone(), words];
        let files: Vec<&PathBuf> = found.files.iter().collect();
        let spoken = Spoken::for_copies(&command, &files, &[], &self.cwd, project);
        spoken
            .copied_and_run(&self.cwd, project)
            .map_or(true, |copied| !copied.is_empty())
    }
}

/// Whether shell text runs `git` (a word of its own, or a path ending in
/// it), a test runner that finds the code it runs by listing the folder it
/// runs in (`python3 -m unittest`, `node --test`, `pytest`: round 50, k29,
/// k30), or sets a search path or start-up file a program reads.
fn reads_project_settings(text: &str) -> bool {
    static READS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r#"(?m)(?:^|[\s;&|(`'"/=]|:?-)git(?:\s|$|[;&|)}`'"])|(?:^|[\s;&|(`'"/])(?:pytest|py\.test|unittest|prove|jest|vitest|mocha|ava|tap|run-parts)(?:\s|$|[;&|)`'".(])|\s--test(?:\s|$|[;&|)`'"=])|(?:^|[\s;&|(`'"])(?:PATH|PYTHONPATH|NODE_PATH|NODE_OPTIONS|PERL5LIB|PERLLIB|PERL5OPT|RUBYLIB|RUBYOPT|BASH_ENV|ENV)\+?="#,
        )
        .expect("valid regex")
    });
    READS.is_match(text)
}

/// Whether the Python file `file` may put the folder it runs in on its
/// module path: it changes the path (`sys.path`, `site.addsitedir`,
/// `PYTHONPATH` for a child) and names that folder anywhere (`os.getcwd()`,
/// `Path.cwd()`, `os.curdir`, `"."`, the project folder's variable, the
/// hook input's `"cwd"`), directly or through a name (R47-6).
pub(super) fn imports_from_run_folder(file: &Path) -> bool {
    static CHANGES: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"sys\.path|addsitedir|PYTHONPATH").expect("valid regex")
    });
    static RUN_FOLDER: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"getcwd|cwd\(\)|curdir|_PROJECT_DIR|\bPWD\b|['"]cwd['"]|sys\.path[^\n]*['"]\.?/?['"]"#)
            .expect("valid regex")
    });
    let name = file.to_string_lossy();
    let Some(text) = peek::small_text(file) else {
        return false;
    };
    let python = name.ends_with(".py")
        || (text.starts_with("#!") && text.lines().next().is_some_and(|l| l.contains("python")));
    // Node's `require(process.cwd() + "/m")` too (round 51, e10, e28).
    (python && CHANGES.is_match(&text) && RUN_FOLDER.is_match(&text))
        || command_loads_from_run_folder(&text)
}

/// Whether the hook's shell `command` gives Python code (`-c`, a
/// here-document, a pipe) that puts the folder it runs in on its module
/// path, or Node code that loads from it (`sys.path.append(os.getcwd())`,
/// `require(process.cwd() + "/m")`: red team round 51, e21–e32).
pub(super) fn command_loads_from_run_folder(command: &str) -> bool {
    static LOADS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r#"(?:sys\.path|addsitedir|PYTHONPATH)[^\n]*(?:getcwd|cwd\(\)|curdir|_PROJECT_DIR|\bPWD\b|['"]\.?/?['"]|str\(\))|(?:require|import)\s*\(\s*(?:process\.cwd\(\)|process\.env\.PWD)"#,
        )
        .expect("valid regex")
    });
    let unescaped = command.replace("\\\"", "\"");
    LOADS.is_match(&unescaped)
}

/// The programs that read the project's settings or list its folders that
/// the file `file`, code of another language than the shell's, starts, as
/// the shell words that start them: `git` (`["git", "status"]`,
/// `execFileSync('git', …)`, `system("git status")`: R50-8), and a test
/// runner (`[sys.executable, '-m', 'unittest']`, `unittest.main(…)`,
/// `pytest.main(…)`, `node --test`: round 51, t10, t11).
pub(super) fn code_runs(file: &Path) -> Vec<String> {
    static GIT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"["'`]git(?:["'`]|\s)"#).expect("valid regex")
    });
    static UNITTEST: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r#"["']unittest["']|\bunittest\.main\s*\(|\bTestLoader\b|\bdiscover\s*\("#,
        )
        .expect("valid regex")
    });
    static PYTEST: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"["']pytest["']|\bpytest\.main\s*\("#).expect("valid regex")
    });
    static NODE_TEST: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r#"["'`]--test["'`]"#).expect("valid regex"));
    let Some(text) = peek::small_text(file) else {
        return Vec::new();
    };
    let mut words = Vec::new();
    if GIT.is_match(&text) {
        words.push("git".to_owned());
    }
    // `discover`: whatever script the command names beside it.
    if UNITTEST.is_match(&text) {
        words.extend(["-m", "unittest", "discover"].map(str::to_owned));
    }
    if PYTEST.is_match(&text) {
        words.push("pytest".to_owned());
    }
    if NODE_TEST.is_match(&text) {
        words.push("--test".to_owned());
    }
    // And the words of what it starts (`["git", "-C", "sub", "status"]`:
    // the settings of the repository it names are bound as the shell
    // text's are; round 56, g19).
    // `-C "$PWD"` (the project folder, as code gave it) moves nowhere.
    for line in super::identify::started_by_file(file) {
        let split = shlex::split(&line).unwrap_or_default();
        let mut split = split.into_iter().peekable();
        while let Some(word) = split.next() {
            if word == "-C" && split.peek().is_some_and(|next| next == "$PWD") {
                split.next();
                continue;
            }
            words.push(word);
        }
    }
    words
}

/// Whether `file`, code of the user's outside `cwd` (not shell text), names
/// a path under `cwd` as a literal
/// ([`super::project_literals::code_names_project_path`]).
pub(super) fn user_code_names_project_path(file: &Path, cwd: &Path) -> bool {
    if file.starts_with(cwd) || super::search_path::is_shell(file) {
        return false;
    }
    peek::small_text(file)
        .is_some_and(|text| super::project_literals::code_names_project_path(&text, cwd))
}

/// What the user's own code among `files` (outside `project`) says of the
/// project, as text the mentions reading reads: the Python importing from
/// the folder it runs in (`cwd`) whole (R46-2); of what it starts, the
/// commands naming a project path, as shell text (`["python3", "tools"]`:
/// H55-8), and that it runs git (the files the repository's settings
/// include and the programs they name, as the shell's `git status` binds
/// them: round 57, H57-2).
pub(super) fn users_code_text(files: &[PathBuf], project: &Path, cwd: &Path) -> String {
    let mut text = String::new();
    let outside = || files.iter().filter(|file| !file.starts_with(project));
    let loads_from_it =
        |file: &&PathBuf| imports_from_run_folder(file) || user_code_names_project_path(file, cwd);
    for file in outside().filter(loads_from_it) {
        if let Some(code) = super::peek::small_text(file) {
            text.push('\n');
            text.push_str(&code);
        }
    }
    for file in outside() {
        for line in super::identify::started_by_file(file) {
            if super::project_literals::command_names_project_path(&line, project) {
                text.push_str(&format!("\n{line}"));
            } else if super::mentions::runs_git(&line) {
                // Only that it runs git: its other words name nothing.
                text.push_str("\ngit");
            }
        }
    }
    text
}
