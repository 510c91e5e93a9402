//! The example plugins (`hooks-plugin/examples`) as test fixtures: built by
//! one nested `cargo build`, once per test process, into a directory inside
//! the target directory the outer cargo uses (`CARGO_TARGET_DIR` honoured),
//! shared by every test binary that needs them (hooks-cli's and
//! hooks-plugin's), so the second binary finds them built.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// Every example plugin package, built together.
pub const EXAMPLE_PLUGINS: [&str; 6] = [
    "plugin-guard",
    "plugin-context",
    "plugin-redactor",
    "plugin-panics",
    "plugin-hangs",
    "plugin-other-abi",
];

/// The workspace root (the parent of the `tests` package).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from(".."), Path::to_owned)
}

/// The target directory the workspace builds into: `CARGO_TARGET_DIR` (or
/// `CARGO_BUILD_TARGET_DIR`) when set, a relative one taken from the
/// workspace root, else `<workspace>/target`.
pub fn target_dir() -> PathBuf {
    target_dir_from(
        &workspace_root(),
        std::env::var_os("CARGO_TARGET_DIR"),
        std::env::var_os("CARGO_BUILD_TARGET_DIR"),
    )
}

fn target_dir_from(root: &Path, target: Option<OsString>, build: Option<OsString>) -> PathBuf {
    match target.or(build).filter(|dir| !dir.is_empty()) {
        Some(dir) => root.join(dir),
        None => root.join("target"),
    }
}

/// Where the nested fixture builds put their output: `fixture-plugin` in
/// [`target_dir`]. A directory of its own, so the nested cargo never waits
/// for the build lock the outer `cargo test` holds.
pub fn fixture_target_dir() -> PathBuf {
    target_dir().join("fixture-plugin")
}

/// Builds every example plugin (debug, or `release` for benchmarks) once per
/// process and returns the directory holding their libraries. Panics with
/// cargo's output when the build fails.
pub fn example_plugins(release: bool) -> PathBuf {
    static BUILT: Mutex<Vec<(bool, PathBuf)>> = Mutex::new(Vec::new());
    let mut built = BUILT
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, dir)) = built.iter().find(|(profile, _)| *profile == release) {
        return dir.clone();
    }
    let target = fixture_target_dir();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build
        .args(["build", "--quiet", "--manifest-path"])
        .arg(workspace_root().join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target);
    for package in EXAMPLE_PLUGINS {
        build.args(["-p", package]);
    }
    if release {
        build.arg("--release");
    }
    let output = build.output().expect("cargo runs");
    assert!(
        output.status.success(),
        "building the example plugins failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let dir = target.join(if release { "release" } else { "debug" });
    built.push((release, dir.clone()));
    dir
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fixture_build_goes_where_cargo_target_dir_says() {
        let root = Path::new("/work/ws");
        assert_eq!(
            target_dir_from(root, Some("/tmp/elsewhere".into()), None),
            PathBuf::from("/tmp/elsewhere")
        );
        // Relative: from the workspace root, not from a test's directory.
        assert_eq!(
            target_dir_from(root, Some("out".into()), None),
            PathBuf::from("/work/ws/out")
        );
        assert_eq!(
            target_dir_from(root, None, Some("/tmp/build".into())),
            PathBuf::from("/tmp/build")
        );
        assert_eq!(
            target_dir_from(root, Some("/tmp/a".into()), Some("/tmp/b".into())),
            PathBuf::from("/tmp/a")
        );
        assert_eq!(
            target_dir_from(root, None, None),
            PathBuf::from("/work/ws/target")
        );
        assert_eq!(
            target_dir_from(root, Some("".into()), None),
            PathBuf::from("/work/ws/target")
        );
    }

    #[test]
    fn the_fixture_dir_is_inside_the_live_target_dir() {
        assert_eq!(fixture_target_dir(), target_dir().join("fixture-plugin"));
        if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR").filter(|dir| !dir.is_empty()) {
            assert!(fixture_target_dir().starts_with(workspace_root().join(dir)));
        }
    }
}
