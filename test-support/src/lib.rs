//! # hermes-hooks-test-support
//!
//! The test helpers the `hermes-hooks` crates' own tests share: a test whose
//! tool (python3, nats-server) is missing skips on a developer's machine and
//! fails in CI. Published (as a dev-dependency only) so that every crate's
//! packaged tests build from what its `.crate` and crates.io carry. The
//! example-plugin fixtures (`example_plugins`) build the workspace's
//! `hooks-plugin/examples` and so serve tests run in the workspace.
//!
//! ```
//! if test_support::python_available() {
//!     // ... a test that runs python3 ...
//! }
//! ```

pub mod reference;

/// For a test whose tool or server is missing: on a developer's machine it
/// prints `SKIPPED reason` and returns, so the test can skip; in CI (`CI` or
/// `require_var` set and not empty) it panics with `reason`, so a missing
/// tool fails the run instead of skipping in silence.
pub fn skip_unless_ci(reason: &str, require_var: &str) {
    let required = ["CI", require_var]
        .iter()
        .any(|var| std::env::var_os(var).is_some_and(|value| !value.is_empty()));
    assert!(!required, "{reason} — required in CI");
    eprintln!("SKIPPED {reason}");
}

/// Whether `python3` runs here. Without it a test that needs it skips, except
/// in CI (`CI` or `HERMES_TEST_REQUIRE_PYTHON` set), where that fails.
pub fn python_available() -> bool {
    let ok = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success());
    if !ok {
        skip_unless_ci("python3 is not available", "HERMES_TEST_REQUIRE_PYTHON");
    }
    ok
}

mod fixtures;
pub use fixtures::{
    EXAMPLE_PLUGINS, example_plugins, fixture_target_dir, library_file_name, target_dir,
    workspace_root,
};
