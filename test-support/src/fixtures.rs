//! The example plugins (`hooks-plugin/examples`) as test fixtures. A test
//! package that names them as dev-dependencies (hooks-cli, hooks-plugin) gets
//! their shared libraries from the outer `cargo test` itself, in the `deps`
//! directory beside its test binary (so inside `CARGO_TARGET_DIR`, for the
//! profile and target being tested): no second build of their dependencies.
//! Otherwise (a release build for benchmarks, a package without those
//! dev-dependencies) one nested `cargo build`, once per test process, builds
//! them into a directory inside the target directory the outer cargo uses.

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

/// The workspace root (the parent of this package's folder): in the
/// workspace only, where the example plugins are.
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

/// The file name of example plugin `package`'s shared library
/// (`libplugin_guard.so` for `plugin-guard` on Linux).
pub fn library_file_name(package: &str) -> String {
    format!(
        "{}{}{}",
        std::env::consts::DLL_PREFIX,
        package.replace('-', "_"),
        std::env::consts::DLL_SUFFIX
    )
}

/// The directory holding every example plugin's library as cargo built it
/// for the running test binary (its dev-dependencies: a path crate's shared
/// library is named without a hash there), when all are there.
fn built_beside_this_test() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    libraries_in(exe.parent()?)
}

/// `dir` when it holds the library of every example plugin.
fn libraries_in(dir: &Path) -> Option<PathBuf> {
    EXAMPLE_PLUGINS
        .iter()
        .all(|package| dir.join(library_file_name(package)).is_file())
        .then(|| dir.to_path_buf())
}

/// The directory holding every example plugin's library (debug, or `release`
/// for benchmarks). Debug: the libraries cargo built beside this test binary
/// when its package names the examples as dev-dependencies; otherwise (and
/// for `release`) one nested `cargo build` per process builds them. Panics
/// with cargo's output when that build fails.
pub fn example_plugins(release: bool) -> PathBuf {
    static BUILT: Mutex<Vec<(bool, PathBuf)>> = Mutex::new(Vec::new());
    let mut built = BUILT
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, dir)) = built.iter().find(|(profile, _)| *profile == release) {
        return dir.clone();
    }
    if !release && let Some(dir) = built_beside_this_test() {
        built.push((release, dir.clone()));
        return dir;
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
    fn libraries_are_taken_from_a_dir_only_when_all_are_there() {
        let dir = std::env::temp_dir().join(format!("fixture-libs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("mkdir");
        assert_eq!(library_file_name("plugin-other-abi"), {
            let (prefix, suffix) = (std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX);
            format!("{prefix}plugin_other_abi{suffix}")
        });
        for package in &EXAMPLE_PLUGINS[1..] {
            std::fs::write(dir.join(library_file_name(package)), b"").expect("write");
        }
        assert_eq!(libraries_in(&dir), None, "one missing: build them");
        std::fs::write(dir.join(library_file_name(EXAMPLE_PLUGINS[0])), b"").expect("write");
        assert_eq!(libraries_in(&dir), Some(dir.clone()));
        std::fs::remove_dir_all(&dir).expect("clean up");
    }

    #[test]
    fn the_fixture_dir_is_inside_the_live_target_dir() {
        assert_eq!(fixture_target_dir(), target_dir().join("fixture-plugin"));
        if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR").filter(|dir| !dir.is_empty()) {
            assert!(fixture_target_dir().starts_with(workspace_root().join(dir)));
        }
    }
}
