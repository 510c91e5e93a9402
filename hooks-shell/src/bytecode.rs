//! Where the Python a hook starts keeps its compiled modules: a folder of
//! the Hermes home (`cache/pycache`), never a project's `__pycache__`
//! (red team round 72: a repository's `__pycache__/h.cpython-311.pyc`,
//! an unchecked-hash one committed or one written with the source's time
//! and size, and pytest's rewritten test modules there, ran in place of
//! the bound `h.py`). `PYTHONPYCACHEPREFIX` (Python 3.8+) makes Python,
//! and pytest's assertion rewriting, read and write them only there.
//! The hook's own configured environment may set it otherwise (a
//! project's settings file cannot: it steers code, so it is refused).

use std::path::Path;

/// The variable Python reads its compiled modules' folder from.
pub(crate) const PREFIX_VARIABLE: &str = "PYTHONPYCACHEPREFIX";

/// Gives `command` the Hermes home's (`home`) folder for compiled modules,
/// and lets Python write them there: with `PYTHONDONTWRITEBYTECODE` (set
/// in many containers) nothing would be cached, and every run of a hook
/// would compile the standard library and its tools again (twice the time
/// of a `pytest` guard's emit); the project's folders get none either way.
pub(crate) fn private_bytecode(command: &mut hermes_hooks_process::Command, home: &Path) {
    command.env(PREFIX_VARIABLE, home.join("cache").join("pycache"));
    command.env_remove("PYTHONDONTWRITEBYTECODE");
}
