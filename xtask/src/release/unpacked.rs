//! The packaged crates' own tests, built from the `.crate` files alone: what
//! a user who runs `cargo test` in a crate downloaded from crates.io meets.
//!
//! `cargo package` verifies that each library builds from its tarball, but
//! not its tests: a test that `use`s a helper the package does not carry (a
//! path-only dev-dependency, which packaging drops) compiles in the
//! workspace and fails (E0432) in the unpacked crate. This step unpacks
//! every `.crate` of `target/package/` into one scratch workspace, patches
//! the crates to each other (`[patch.crates-io]`, as they would find each
//! other on the registry), and builds every test target there, offline
//! (`cargo test --no-run`; with `HERMES_RELEASE_CHECK_RUN_TESTS=1` it runs
//! them too).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use super::check::Problem;
use super::workspace::{self, Package, cargo};

/// Set (not empty) to run the unpacked crates' tests, not only build them.
pub const RUN_TESTS_ENV: &str = "HERMES_RELEASE_CHECK_RUN_TESTS";

/// The scratch workspace's folder, under the target directory.
const SCRATCH: &str = "release-check/unpacked";

/// Unpacks the `.crate` of every publishable member (from `target/package/`,
/// written by the packaging step) and builds their tests against each other.
pub fn check(root: &Path, target_dir: &Path, members: &[Package]) -> Vec<Problem> {
    let ordered = workspace::publishable_in_order(members);
    let scratch = target_dir.join(SCRATCH);
    let unpacked = match unpack_all(target_dir, &scratch, &ordered) {
        Ok(unpacked) => unpacked,
        Err(problems) => return problems,
    };
    let manifest = scratch_manifest(&unpacked);
    if let Err(error) = std::fs::write(scratch.join("Cargo.toml"), manifest) {
        return vec![Problem::new(
            SCRATCH,
            format!("cannot write Cargo.toml: {error}"),
        )];
    }
    // The workspace's lock pins the same versions the workspace tested with
    // (and that `cargo fetch` downloaded: the build is offline).
    if let Err(error) = std::fs::copy(root.join("Cargo.lock"), scratch.join("Cargo.lock")) {
        return vec![Problem::new("Cargo.lock", format!("cannot copy: {error}"))];
    }
    let run = std::env::var_os(RUN_TESTS_ENV).is_some_and(|value| !value.is_empty());
    let mut command = Command::new(cargo());
    command.args(["test", "--workspace", "--offline"]);
    if !run {
        command.arg("--no-run");
    }
    command
        .arg("--manifest-path")
        .arg(scratch.join("Cargo.toml"))
        // The workspace's target directory: registry dependencies built
        // there already are reused (the unpacked crates build anew).
        .arg("--target-dir")
        .arg(target_dir)
        // Built once: no incremental state for crates that are rebuilt anew.
        .env("CARGO_INCREMENTAL", "0");
    super::check::failures(
        if run {
            "cargo test (unpacked crates)"
        } else {
            "cargo test --no-run (unpacked crates)"
        },
        command.output(),
        "could not compile `",
    )
}

/// The scratch workspace's `Cargo.toml`: every unpacked crate a member and
/// the registry's name for it patched to its folder.
pub fn scratch_manifest(unpacked: &[(String, String)]) -> String {
    let mut text = String::from(
        "# Written by `cargo xtask release-check`: the packaged crates, unpacked.\n\
         [workspace]\nresolver = \"3\"\nmembers = [\n",
    );
    for (_, folder) in unpacked {
        text.push_str(&format!("    \"{folder}\",\n"));
    }
    text.push_str("]\n\n[patch.crates-io]\n");
    for (name, folder) in unpacked {
        text.push_str(&format!("{name} = {{ path = \"{folder}\" }}\n"));
    }
    text
}

/// Unpacks each package's `.crate` into `scratch` (emptied first); returns
/// `(name, folder)` pairs, or a problem per crate that could not be unpacked.
fn unpack_all(
    target_dir: &Path,
    scratch: &Path,
    packages: &[&Package],
) -> Result<Vec<(String, String)>, Vec<Problem>> {
    let _ = std::fs::remove_dir_all(scratch);
    if let Err(error) = std::fs::create_dir_all(scratch) {
        return Err(vec![Problem::new(
            SCRATCH,
            format!("cannot create: {error}"),
        )]);
    }
    let mut unpacked = Vec::new();
    let mut problems = Vec::new();
    for package in packages {
        let folder = format!("{}-{}", package.name, package.version);
        let file = crate_file(target_dir, &folder);
        match unpack(&file, scratch) {
            Ok(()) => unpacked.push((package.name.clone(), folder)),
            Err(error) => problems.push(Problem::new(&package.name, format!("{error:#}"))),
        }
    }
    if problems.is_empty() {
        Ok(unpacked)
    } else {
        Err(problems)
    }
}

/// Where `cargo package` writes `<name>-<version>.crate`.
pub fn crate_file(target_dir: &Path, folder: &str) -> PathBuf {
    target_dir.join("package").join(format!("{folder}.crate"))
}

/// Unpacks one `.crate` (a gzipped tar of `<name>-<version>/...`) into `into`.
fn unpack(file: &Path, into: &Path) -> Result<()> {
    let archive = File::open(file)
        .with_context(|| format!("{} is missing (did `cargo package` fail?)", file.display()))?;
    tar::Archive::new(flate2::read::GzDecoder::new(archive))
        .unpack(into)
        .with_context(|| format!("cannot unpack {}", file.display()))
}
