//! The programs a command runs by name, found on `PATH` as the run finds
//! them (red team round 9, R9-5). The user's guard `python3
//! ~/.claude/hooks/guard.py` (or `/usr/bin/env python3 …`) runs whatever
//! `python3` comes first on the host's `PATH`; with a project folder there
//! (direnv's `PATH_add bin`, an activated `.venv/bin`, `node_modules/.bin`)
//! that is the repository's program.
//!
//! A program found in a project folder (by its path or where its links
//! lead) is bound like a script, under the path found: by the content of
//! what it leads to, so an edit asks again, and a different program found
//! first is a new path in the binding, which asks again too. One whose
//! content lies in the project is also read as the project's code (what it
//! sources, what it names); a virtual environment's interpreter linking to
//! the system's binds what that interpreter reads of the environment at
//! start-up (`pyvenv.cfg`, each site folder's `.pth` files, the modules
//! their `import` lines name, `sitecustomize.py`). A program found
//! anywhere else (`/usr/bin/python3`, a pyenv shim) is the user's machine,
//! not the repository's: not bound, so updating it never asks again.
//!
//! The same holds for the interpreter the `#!` line of a script run as the
//! program names (`~/.claude/hooks/guard.py` with `#!/usr/bin/env
//! python3`, red team round 10, R10-8), found as the kernel and `env` find
//! it ([`launch`]); and where a Python runs, each `PYTHONPATH` folder in a
//! project folder binds the start-up modules Python imports from it
//! ([`python_path`], R10-9).

use std::ffi::{OsStr, OsString};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::identify::{self, Identified, base_name};
use super::{Subject, normalize, shell, wrappers};

mod launch;
mod python_path;
use python_path::{python_path_folders, python_path_startup};

/// The most programs looked up for one hook.
const MAX_PROGRAMS: usize = 64;
/// Modules an interpreter imports at start-up from its site folder.
const STARTUP_MODULES: [&str; 2] = ["sitecustomize.py", "usercustomize.py"];

/// The programs of a hook found on `PATH` in a project folder.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct ProjectPrograms {
    /// Programs whose content lies in a project folder: bound and read as
    /// the project's code.
    pub code: Vec<PathBuf>,
    /// Programs found there that lead elsewhere, and what they read of the
    /// folder at start-up: bound by content only.
    pub bound: Vec<PathBuf>,
}

impl Subject {
    /// Adds to `found` the programs this hook runs by name that `PATH`
    /// finds in a project folder: read as code, or bound by content.
    pub(super) fn add_project_programs(&self, found: &mut Identified) {
        let started = self.started_by_code(&found.files);
        let programs = self.project_programs(&started);
        for path in programs.code {
            identify::add_run_file(found, path, &self.cwd);
        }
        found.programs = programs.bound;
    }

    /// Whether `PATH` finds a program of this hook in a project folder.
    pub(super) fn runs_project_program(&self) -> bool {
        let line = self.line.as_deref().unwrap_or(&self.command);
        let found = identify::identify_line(&self.command, line, self.words.as_deref(), &self.cwd);
        let programs = self.project_programs(&self.started_by_code(&found.files));
        !programs.code.is_empty() || !programs.bound.is_empty()
    }

    /// The programs this hook runs by name that `PATH` finds in a project
    /// folder (see the module documentation).
    /// The commands the hook's own code among `files` (outside the folder
    /// it runs in) starts, as words: they find their programs on the
    /// `PATH` the code gives them (`env={"PATH": "tools:…"}`, `["env",
    /// "PATH=tools", "git"]`: round 57), as the hook's own command does.
    fn started_by_code(&self, files: &[PathBuf]) -> Vec<Vec<String>> {
        files
            .iter()
            .filter(|file| !file.starts_with(&self.cwd))
            .flat_map(|file| identify::started_by_file(file))
            .flat_map(|line| shell::simple_commands(&line))
            .collect()
    }

    fn project_programs(&self, started: &[Vec<String>]) -> ProjectPrograms {
        let mut found = ProjectPrograms::default();
        if self.request.is_some() {
            return found;
        }
        let folders: Vec<PathBuf> = self
            .project
            .iter()
            .chain(std::iter::once(&self.cwd))
            .filter(|folder| folder.parent().is_some())
            .cloned()
            .collect();
        let launches = self.launches(started);
        for path in launches.programs {
            let real = std::fs::canonicalize(&path).ok();
            let real_inside = real.as_deref().is_some_and(|real| lies_in(real, &folders));
            if real_inside {
                push(&mut found.code, path.clone());
                // Read as the project's code where it lies.
                push(&mut found.code, real.unwrap_or(path));
            } else if lies_in(&path, &folders) {
                for file in std::iter::once(path.clone()).chain(venv_startup(&path, &self.cwd)) {
                    push(&mut found.bound, file);
                }
            }
        }
        for python_path in &launches.python_paths {
            for folder in python_path_folders(python_path, &self.cwd) {
                if lies_in(&folder, &folders) {
                    for file in python_path_startup(&folder) {
                        push(&mut found.bound, file);
                    }
                }
            }
        }
        found
    }

    /// The variable `name` the hook runs with: its configuration's, else
    /// ours (a user's hook gets our search paths without their project
    /// entries: `host_env`).
    fn hook_variable(&self, name: &str) -> OsString {
        let inherited = || {
            let value = std::env::var_os(name)?;
            if self.bind_tree {
                return Some(value);
            }
            let project = self.project.as_deref().unwrap_or(&self.cwd);
            Some(crate::host_env::user_search_path(name, &value, project))
        };
        self.env
            .iter()
            .rev()
            .find(|(set, _)| set == name)
            .map(|(_, value)| OsString::from(value))
            .or_else(inherited)
            .unwrap_or_default()
    }

    /// What the hook launches ([`launch`]): the programs of each simple
    /// command of its line (and of what its code starts, `started`) and
    /// the wrappers before it, the `sh` an
    /// imported shell-form command runs through, and the interpreters the
    /// `#!` lines of the scripts run as programs name.
    fn launches(&self, started: &[Vec<String>]) -> launch::Launches {
        let mut commands: Vec<Vec<String>> = self.words.iter().cloned().collect();
        commands.extend(shell::simple_commands(&self.command));
        commands.extend(started.iter().cloned());
        if self.project.is_some() {
            commands.push(vec!["sh".to_owned()]);
        }
        let search = self.hook_variable("PATH");
        let python_path = self.hook_variable("PYTHONPATH");
        launch::launches(
            &commands,
            launch::Context {
                cwd: &self.cwd,
                search: &search,
                python_path: &python_path,
            },
        )
    }
}

/// The names `command` runs by name: the wrappers before its program, and
/// the program when it is not a path.
fn bare_names(command: &[String], unwrapped: &wrappers::Unwrapped) -> Vec<String> {
    let before = command.len().saturating_sub(unwrapped.words.len());
    let mut names: Vec<String> = command[..before]
        .iter()
        .filter(|word| wrappers::is_wrapper(&base_name(word)))
        .cloned()
        .collect();
    names.extend(unwrapped.words.first().cloned());
    names.retain(|name| {
        !name.is_empty() && !name.contains(['/', '=', '$', '`']) && !name.starts_with('~')
    });
    names
}

/// The file `name` runs, found on `search` as `execvp` finds it: the first
/// executable regular file, an empty or relative entry taken from `cwd`.
pub(super) fn find(name: &str, search: &OsStr, cwd: &Path) -> Option<PathBuf> {
    std::env::split_paths(search)
        .map(|folder| normalize(&cwd.join(folder).join(name)))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// The program `command` runs by name, found on the `PATH` its own
/// assignment gives it (`PATH="tools:${PATH}" checker`), from `dir`.
pub(super) fn on_given_path(command: &[String], dir: &Path) -> Option<PathBuf> {
    let value = command
        .iter()
        .take_while(|word| word.contains('='))
        .find_map(|word| word.strip_prefix("PATH="))?;
    let program = crate::binding::wrappers::unwrap(command)
        .words
        .into_iter()
        .next()?;
    if program.contains('/') {
        return None;
    }
    let inherited = std::env::var("PATH").unwrap_or_default();
    let search = value
        .replace("${PATH}", &inherited)
        .replace("$PATH", &inherited);
    find(&program, std::ffi::OsStr::new(&search), dir)
}

/// Whether `path` lies in one of `folders`, by name or where they lead.
fn lies_in(path: &Path, folders: &[PathBuf]) -> bool {
    folders.iter().any(|folder| {
        path.starts_with(folder)
            || std::fs::canonicalize(folder).is_ok_and(|real| path.starts_with(real))
    })
}

/// What the interpreter at `program`, in a virtual environment's `bin`,
/// reads of it at start-up: `pyvenv.cfg`, and in each of its site folders
/// the `.pth` files, the modules their `import` lines name and
/// `sitecustomize.py` / `usercustomize.py`. Nothing when it is not in one.
fn venv_startup(program: &Path, cwd: &Path) -> Vec<PathBuf> {
    let Some(prefix) = program.parent().and_then(Path::parent) else {
        return Vec::new();
    };
    let config = prefix.join("pyvenv.cfg");
    if !config.is_file() {
        return Vec::new();
    }
    let mut files = vec![config];
    for lib in ["lib", "lib64"] {
        let Ok(versions) = std::fs::read_dir(prefix.join(lib)) else {
            continue;
        };
        for version in versions.flatten().take(16) {
            if version.file_name().to_string_lossy().starts_with("python") {
                site_startup(&version.path().join("site-packages"), cwd, &mut files);
            }
        }
    }
    files
}

/// The start-up files of the site folder `site` ([`venv_startup`]); `cwd`
/// is where the interpreter runs.
fn site_startup(site: &Path, cwd: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(site) else {
        return;
    };
    let mut names: Vec<String> = entries
        .flatten()
        .take(10_000)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut texts = Vec::new();
    for name in names {
        let path = site.join(&name);
        if STARTUP_MODULES.contains(&name.as_str()) {
            push(files, path);
        } else if name.ends_with(".pth") {
            texts.push(std::fs::read_to_string(&path).unwrap_or_default());
            push(files, path);
        }
    }
    // The folders path lines add come after the site folder on the module
    // path: an `import` line's module is looked up there too (R12-3).
    let mut folders = vec![site.to_path_buf()];
    for text in &texts {
        folders.extend(pth_reach(site, cwd, text, files));
    }
    for module in texts.iter().flat_map(|text| imported_modules(text)) {
        for folder in &folders {
            push(files, folder.join(format!("{module}.py")));
            push(files, folder.join(&module).join("__init__.py"));
        }
    }
}

/// What else a `.pth` file in `site` reaches at start-up (red team rounds
/// 11 and 12, R11-7, R12-3): each folder a path line adds to the module
/// path binds the start-up modules Python imports from it (`pip install -e
/// .` writes `<project>/src`, and `src/sitecustomize.py` then runs),
/// present or absent, and is returned; each path an `import` line names in
/// quotes (`exec(open('tools/boot.py').read())`; a relative one from
/// `cwd`) is bound too.
fn pth_reach(site: &Path, cwd: &Path, text: &str, files: &mut Vec<PathBuf>) -> Vec<PathBuf> {
    let mut folders = Vec::new();
    for line in text.lines().map(str::trim).take(1_000) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with("import ") || line.starts_with("import\t") {
            let paths =
                quoted(line).filter(|literal| literal.contains('/') || literal.ends_with(".py"));
            for literal in paths {
                push(files, normalize(&cwd.join(literal)));
            }
        } else {
            let folder = normalize(&site.join(line));
            for file in python_path_startup(&folder) {
                push(files, file);
            }
            folders.push(folder);
        }
    }
    folders
}

/// The text of each quoted string of `line` (`'…'` or `"…"`, no escapes).
fn quoted(line: &str) -> impl Iterator<Item = &str> {
    let mut rest = line;
    std::iter::from_fn(move || {
        let start = rest.find(['\'', '"'])?;
        let quote = rest[start..].chars().next()?;
        let body = &rest[start + 1..];
        let end = body.find(quote)?;
        rest = &body[end + 1..];
        Some(&body[..end])
    })
}

/// The top-level modules a `.pth` file's `import` lines name.
fn imported_modules(text: &str) -> Vec<String> {
    let mut modules = Vec::new();
    for line in text.lines().map(str::trim_start) {
        if !line.starts_with("import ") && !line.starts_with("import\t") {
            continue;
        }
        for statement in line.split(';').map(str::trim) {
            let Some(names) = statement.strip_prefix("import") else {
                continue;
            };
            for name in names.split(',') {
                let first = name.split_whitespace().next().unwrap_or("");
                let top = first.split('.').next().unwrap_or("");
                if !top.is_empty() && top.chars().all(|c| c.is_alphanumeric() || c == '_') {
                    modules.push(top.to_owned());
                }
            }
        }
    }
    modules
}

fn push(list: &mut Vec<PathBuf>, path: PathBuf) {
    if !list.contains(&path) {
        list.push(path);
    }
}

#[cfg(test)]
mod tests;
