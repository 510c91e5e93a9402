//! Which Python runs a home's Python code (plugins, gateway `handler.py`).
//!
//! A Hermes user's plugins and handlers import what Hermes's own environment has
//! installed (`httpx`, ...), so they must run with Hermes's interpreter, not
//! whatever `python3` is first on `PATH`. The rule, in order:
//! 1. `$HERMES_HOOKS_PYTHON` when set and non-empty;
//! 2. the interpreter named by the shebang of the `hermes` command on `PATH`
//!    (a pip-installed `hermes` is a script whose first line names its venv's
//!    Python; `#!/usr/bin/env python3` names `python3`);
//! 3. `python3`.

use std::ffi::OsString;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

mod choice;
mod shim;
pub use choice::ShimChoice;
pub use shim::{ShimManager, VersionShim};

/// The variable that names the interpreter outright.
pub const PYTHON_ENV: &str = "HERMES_HOOKS_PYTHON";

/// The fallback when nothing else names an interpreter.
pub const DEFAULT_PYTHON: &str = "python3";

/// The Python interpreter to run, and why that one.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PythonInterpreter {
    /// The program: a path, or a name looked up on `PATH`.
    pub program: PathBuf,
    /// Where the choice came from.
    pub source: InterpreterSource,
}

impl PythonInterpreter {
    /// An interpreter: the program to run and where the choice came from.
    pub fn new(program: impl Into<PathBuf>, source: InterpreterSource) -> Self {
        PythonInterpreter {
            program: program.into(),
            source,
        }
    }
}

/// Where [`PythonInterpreter::program`] came from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum InterpreterSource {
    /// `$HERMES_HOOKS_PYTHON`.
    Environment,
    /// The shebang of this `hermes` script.
    HermesShebang(PathBuf),
    /// Nothing named one: `python3` on `PATH`.
    Default,
}

impl fmt::Display for InterpreterSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InterpreterSource::Environment => write!(f, "from ${PYTHON_ENV}"),
            InterpreterSource::HermesShebang(script) => {
                write!(f, "from the shebang of {}", script.display())
            }
            InterpreterSource::Default => write!(f, "default: {DEFAULT_PYTHON} on PATH"),
        }
    }
}

impl PythonInterpreter {
    /// Resolves the interpreter from this process's environment.
    pub fn resolve() -> PythonInterpreter {
        Self::resolve_with(
            std::env::var_os(PYTHON_ENV),
            std::env::var_os("PATH").as_deref(),
        )
    }

    /// Resolves the interpreter from the given `$HERMES_HOOKS_PYTHON` and `$PATH`
    /// (so the rule can be tested without touching the environment).
    pub fn resolve_with(explicit: Option<OsString>, path: Option<&std::ffi::OsStr>) -> Self {
        if let Some(program) = explicit.filter(|value| !value.is_empty()) {
            return PythonInterpreter {
                program: PathBuf::from(program),
                source: InterpreterSource::Environment,
            };
        }
        let from_hermes = path
            .and_then(|path| find_on_path("hermes", path))
            .and_then(|script| Some((shebang_interpreter(&script)?, script)));
        if let Some((program, script)) = from_hermes {
            return PythonInterpreter {
                program,
                source: InterpreterSource::HermesShebang(script),
            };
        }
        PythonInterpreter {
            program: PathBuf::from(DEFAULT_PYTHON),
            source: InterpreterSource::Default,
        }
    }
}

impl fmt::Display for PythonInterpreter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.program.display(), self.source)
    }
}

/// The first executable file called `name` in the directories of `path`.
fn find_on_path(name: &str, path: &std::ffi::OsStr) -> Option<PathBuf> {
    std::env::split_paths(path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable_file(candidate))
}

fn is_executable_file(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

/// The interpreter a script's `#!` line names: the program itself, or for
/// `#!/usr/bin/env [-S] [VAR=x] prog ...` the first word after `env`'s options.
/// `None` when the file has no shebang, or names something that is not Python.
pub fn shebang_interpreter(script: &Path) -> Option<PathBuf> {
    let mut head = [0u8; 512];
    let read = std::fs::File::open(script)
        .and_then(|mut file| file.read(&mut head))
        .ok()?;
    let first_line = head[..read].split(|byte| *byte == b'\n').next()?;
    let line = std::str::from_utf8(first_line)
        .ok()?
        .strip_prefix("#!")?
        .trim();
    let mut words = line.split_whitespace();
    let program = words.next()?;
    let program = if Path::new(program)
        .file_name()
        .is_some_and(|name| name == "env")
    {
        words.find(|word| !word.starts_with('-') && !word.contains('='))?
    } else {
        program
    };
    let is_python = Path::new(program)
        .file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.starts_with("python"));
    is_python.then(|| PathBuf::from(program))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn script(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn the_environment_wins() {
        let found = PythonInterpreter::resolve_with(Some("/opt/py/bin/python3.12".into()), None);
        assert_eq!(found.program, PathBuf::from("/opt/py/bin/python3.12"));
        assert_eq!(found.source, InterpreterSource::Environment);
    }

    #[test]
    fn an_empty_variable_is_ignored() {
        let found = PythonInterpreter::resolve_with(Some("".into()), Some("".as_ref()));
        assert_eq!(found.source, InterpreterSource::Default);
        assert_eq!(found.program, PathBuf::from("python3"));
    }

    #[test]
    fn the_hermes_shebang_names_the_venv_python() {
        let dir = tempfile::tempdir().unwrap();
        let hermes = script(
            dir.path(),
            "hermes",
            "#!/home/u/.venv/bin/python3\nimport sys\n",
        );
        let found = PythonInterpreter::resolve_with(None, Some(dir.path().as_os_str()));
        assert_eq!(found.program, PathBuf::from("/home/u/.venv/bin/python3"));
        assert_eq!(found.source, InterpreterSource::HermesShebang(hermes));
        assert!(found.to_string().contains("shebang"));
    }

    #[test]
    fn env_shebangs_name_the_program_after_the_options() {
        let dir = tempfile::tempdir().unwrap();
        let path = script(
            dir.path(),
            "a",
            "#!/usr/bin/env -S PYTHONUTF8=1 python3.11 -u\n",
        );
        assert_eq!(
            shebang_interpreter(&path),
            Some(PathBuf::from("python3.11"))
        );
        let path = script(dir.path(), "b", "#!/bin/sh\nexec python3 -m hermes\n");
        assert_eq!(shebang_interpreter(&path), None);
        let path = script(dir.path(), "c", "no shebang");
        assert_eq!(shebang_interpreter(&path), None);
    }

    #[test]
    fn a_non_executable_hermes_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hermes");
        std::fs::write(&path, "#!/x/python3\n").unwrap();
        let found = PythonInterpreter::resolve_with(None, Some(dir.path().as_os_str()));
        assert_eq!(found.source, InterpreterSource::Default);
    }
}
