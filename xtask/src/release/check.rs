//! `cargo xtask release-check`: everything that must hold before a release,
//! each check naming the crate or file at fault.

use std::fmt;
use std::path::Path;
use std::process::Command;

use anyhow::{Result, bail};
use serde_json::Value;

use super::workspace::{self, MECHANISMS, Package, WIRING, cargo};
use super::{features, registry, semver};
use crate::codegen;

/// The license files every package carries, identical to the root's.
pub const LICENSE_FILES: &[&str] = &["LICENSE-MIT", "LICENSE-APACHE"];

/// One thing wrong, and who it is wrong with (a crate or a file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The crate or file at fault.
    pub subject: String,
    /// What is wrong.
    pub message: String,
}

impl Problem {
    /// A problem with `subject`.
    pub fn new(subject: impl Into<String>, message: impl Into<String>) -> Self {
        Problem {
            subject: subject.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.subject, self.message)
    }
}

/// Runs every check on the workspace at `root`; fails listing every problem.
pub fn run(root: &Path) -> Result<()> {
    // First, online: everything after it runs `--offline`.
    eprintln!("release-check: cargo fetch ...");
    let fetched = registry::fetch(root);
    for problem in &fetched {
        eprintln!("  {problem}");
    }
    if !fetched.is_empty() {
        bail!("release-check: cargo fetch failed; the offline checks cannot run");
    }
    let metadata = workspace::metadata(root, false)?;
    let members = workspace::members(&metadata);
    let registry_url =
        std::env::var(registry::REGISTRY_ENV).unwrap_or_else(|_| registry::DEFAULT_REGISTRY.into());
    let owners = registry::our_owners(&metadata);
    let semver_tool =
        std::env::var(semver::TOOL_ENV).unwrap_or_else(|_| semver::DEFAULT_TOOL.into());
    // Set by a step that could not ask the registry: it found no problem,
    // but it did not check either, and must not say "ok".
    let unchecked = std::cell::Cell::new(false);
    let steps: [(&str, &dyn Fn() -> Vec<Problem>); 13] = [
        ("repository and homepage are real URLs", &|| {
            registry::placeholder_urls(&members)
        }),
        ("every name is free or ours on the registry", &|| {
            match registry::names(&members, &registry_url, &owners) {
                Ok(problems) => problems,
                Err(why) => {
                    // No network: nothing to learn, said plainly rather than failed.
                    eprintln!("  the registry is not reachable ({why}); names NOT checked");
                    unchecked.set(true);
                    Vec::new()
                }
            }
        }),
        ("generated files are fresh", &|| codegen_fresh(root)),
        ("every package carries its licenses", &|| {
            licenses(root, &members)
        }),
        ("versions and requirements agree", &|| versions(&members)),
        ("CHANGELOG.md has the version", &|| {
            changelog(root, &members)
        }),
        ("no mechanism depends on a sibling", &|| {
            mechanism_deps(&members)
        }),
        ("no crate depends on a layer above it", &|| {
            super::layers::layer_deps(&members)
        }),
        ("no accidental features", &|| features::implicit(&metadata)),
        ("rust-version covers the lockfile", &|| {
            rust_versions(&metadata)
        }),
        ("rustdoc is clean (default and all features)", &|| {
            rustdoc(root, &members)
        }),
        ("every publishable crate packages offline", &|| {
            package(root, &members)
        }),
        (
            "the public API is semver-compatible with the last release",
            &|| match semver::check(root, &members, &registry_url, &semver_tool) {
                Ok(problems) => problems,
                Err(why) => {
                    eprintln!("  the registry is not reachable ({why}); semver NOT checked");
                    unchecked.set(true);
                    Vec::new()
                }
            },
        ),
    ];
    let mut failed = 0;
    let mut not_checked = Vec::new();
    for (name, step) in steps {
        eprintln!("release-check: {name} ...");
        unchecked.set(false);
        let problems = step();
        if let Some(line) = step_verdict(name, &problems, unchecked.get()) {
            eprintln!("{line}");
        }
        if problems.is_empty() && unchecked.get() {
            not_checked.push(name);
        }
        for problem in &problems {
            eprintln!("  {problem}");
        }
        failed += problems.len();
    }
    if failed > 0 {
        bail!("release-check found {failed} problem(s); see above");
    }
    eprintln!("{}", final_verdict(&not_checked));
    Ok(())
}

/// The line after a step: `ok` only when it checked and found nothing; a
/// step that could not check says so (none when it found problems: they
/// are listed).
pub fn step_verdict(name: &str, problems: &[Problem], unchecked: bool) -> Option<String> {
    match (problems.is_empty(), unchecked) {
        (true, false) => Some(format!("release-check: {name}: ok")),
        (true, true) => Some(format!(
            "release-check: {name}: NOT checked (the registry is not reachable)"
        )),
        (false, _) => None,
    }
}

/// The last line when no step found a problem: "all good" only when every
/// step checked.
pub fn final_verdict(not_checked: &[&str]) -> String {
    if not_checked.is_empty() {
        "release-check: all good".to_owned()
    } else {
        format!(
            "release-check: no problem found, but NOT checked (run again online): {}",
            not_checked.join("; ")
        )
    }
}

/// `cargo xtask codegen --check` on `root`: the stale file is the subject.
pub fn codegen_fresh(root: &Path) -> Vec<Problem> {
    match codegen::run_at(root, true) {
        Ok(()) => Vec::new(),
        Err(error) => {
            let message = format!("{error:#}");
            // The message starts with the stale file's path ("x is stale; ...").
            let subject = message
                .split_whitespace()
                .next()
                .unwrap_or("codegen")
                .to_owned();
            vec![Problem::new(subject, message)]
        }
    }
}

/// Every publishable package has LICENSE-MIT and LICENSE-APACHE, identical to the
/// root's, and its package (`cargo package --list`) includes them.
pub fn licenses(root: &Path, members: &[Package]) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut originals = Vec::new();
    for file in LICENSE_FILES {
        match std::fs::read(root.join(file)) {
            Ok(bytes) => originals.push((file, bytes)),
            Err(error) => {
                problems.push(Problem::new(*file, format!("missing at the root: {error}")))
            }
        }
    }
    for package in members.iter().filter(|p| p.publish) {
        for (file, original) in &originals {
            match std::fs::read(package.dir.join(file)) {
                Err(_) => problems.push(Problem::new(&package.name, format!("{file} is missing"))),
                Ok(copy) if copy != *original => problems.push(Problem::new(
                    &package.name,
                    format!("{file} differs from the root's copy"),
                )),
                Ok(_) => {}
            }
        }
        match package_files(root, &package.name) {
            Ok(listed) => {
                for file in LICENSE_FILES {
                    if !listed.iter().any(|line| line == file) {
                        problems.push(Problem::new(
                            &package.name,
                            format!("{file} is not in the package (check `include`)"),
                        ));
                    }
                }
            }
            Err(error) => problems.push(Problem::new(&package.name, format!("{error:#}"))),
        }
    }
    problems
}

/// The files `cargo package --list` would put in `name`'s package.
fn package_files(root: &Path, name: &str) -> Result<Vec<String>> {
    let output = Command::new(cargo())
        .args([
            "package",
            "--list",
            "--offline",
            "--allow-dirty",
            "-p",
            name,
        ])
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .output()?;
    if !output.status.success() {
        bail!(
            "cargo package --list failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_owned)
        .collect())
}

/// Publishable crates share one version; every inter-crate requirement is that
/// version; nothing publishable needs an unpublishable crate.
pub fn versions(members: &[Package]) -> Vec<Problem> {
    let mut problems = Vec::new();
    let publishable: Vec<&Package> = members.iter().filter(|p| p.publish).collect();
    let Some(first) = publishable.first() else {
        return problems;
    };
    for package in &publishable {
        if package.version != first.version {
            problems.push(Problem::new(
                &package.name,
                format!(
                    "version {} differs from {} {}",
                    package.version, first.name, first.version
                ),
            ));
        }
        for dep in package.deps.iter().filter(|d| d.path.is_some()) {
            let Some(target) = members.iter().find(|m| m.name == dep.name) else {
                continue;
            };
            let dev = dep.kind.as_deref() == Some("dev");
            if !dev && !target.publish {
                problems.push(Problem::new(
                    &package.name,
                    format!("depends on {}, which is not published", dep.name),
                ));
            }
            if !dev && !requirement_matches(&dep.req, &target.version) {
                problems.push(Problem::new(
                    &package.name,
                    format!(
                        "requires {} {} but the workspace has {}",
                        dep.name, dep.req, target.version
                    ),
                ));
            }
        }
    }
    problems
}

/// Whether `req` names exactly `version` (`0.1.0`, `^0.1.0` or `=0.1.0`): bump
/// writes them so, and anything looser could resolve to another release.
pub fn requirement_matches(req: &str, version: &str) -> bool {
    let bare = req.trim().trim_start_matches(['^', '=']).trim();
    bare == version
}

/// CHANGELOG.md has an Unreleased section and one for the current version.
pub fn changelog(root: &Path, members: &[Package]) -> Vec<Problem> {
    let Some(version) = members
        .iter()
        .find(|p| p.publish)
        .map(|p| p.version.as_str())
    else {
        return Vec::new();
    };
    let Ok(text) = std::fs::read_to_string(root.join("CHANGELOG.md")) else {
        return vec![Problem::new("CHANGELOG.md", "missing")];
    };
    let mut problems = Vec::new();
    if !text.lines().any(|line| line.trim() == "## [Unreleased]") {
        problems.push(Problem::new("CHANGELOG.md", "no `## [Unreleased]` section"));
    }
    let heading = format!("## [{version}]");
    if !text.lines().any(|line| line.starts_with(&heading)) {
        problems.push(Problem::new(
            "CHANGELOG.md",
            format!("no `{heading}` section for the workspace version"),
        ));
    }
    problems
}

/// No mechanism crate depends (any kind) on another mechanism crate, and no
/// published crate but the facade and hooks-cli ([`WIRING`]) depends on one.
pub fn mechanism_deps(members: &[Package]) -> Vec<Problem> {
    let wiring = members
        .iter()
        .filter(|p| p.publish && !MECHANISMS.contains(&p.name.as_str()))
        .filter(|p| !WIRING.contains(&p.name.as_str()))
        .flat_map(|package| {
            package
                .deps
                .iter()
                .filter(|dep| dep.kind.is_none() && MECHANISMS.contains(&dep.name.as_str()))
                .map(|dep| {
                    Problem::new(
                        &package.name,
                        format!(
                            "depends on the mechanism {}; only {} wire mechanisms",
                            dep.name,
                            WIRING.join(" and ")
                        ),
                    )
                })
        });
    members
        .iter()
        .filter(|p| MECHANISMS.contains(&p.name.as_str()))
        .flat_map(|package| {
            package
                .deps
                .iter()
                .filter(|dep| dep.name != package.name && MECHANISMS.contains(&dep.name.as_str()))
                .map(|dep| {
                    Problem::new(
                        &package.name,
                        format!(
                            "depends on the sibling mechanism {}; only the host wires them",
                            dep.name
                        ),
                    )
                })
        })
        .chain(wiring)
        .collect()
}

/// Every locked dependency of a member builds with the member's `rust-version`.
pub fn rust_versions(metadata: &Value) -> Vec<Problem> {
    super::msrv::check(metadata)
}

/// `cargo doc --workspace --no-deps` with warnings denied, then the publishable
/// crates again with `--all-features` (docs.rs builds the default features; a
/// reader of a feature's items needs them clean too); the crate is the subject.
pub fn rustdoc(root: &Path, members: &[Package]) -> Vec<Problem> {
    let output = Command::new(cargo())
        .args(["doc", "--workspace", "--no-deps", "--offline"])
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .env("RUSTDOCFLAGS", "-D warnings")
        .output();
    let mut problems = failures("rustdoc", output, "could not document `");
    let mut all_features = Command::new(cargo());
    all_features
        .args(["doc", "--no-deps", "--offline", "--all-features"])
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .env("RUSTDOCFLAGS", "-D warnings");
    for package in members.iter().filter(|p| p.publish) {
        all_features.args(["-p", &package.name]);
    }
    problems.extend(failures(
        "rustdoc --all-features",
        all_features.output(),
        "could not document `",
    ));
    problems
}

/// `cargo package` of every publishable crate, offline, in dependency order (the
/// packages are verified by building them against each other's tarballs).
pub fn package(root: &Path, members: &[Package]) -> Vec<Problem> {
    let ordered = workspace::publishable_in_order(members);
    let mut command = Command::new(cargo());
    command
        .args(["package", "--offline", "--allow-dirty"])
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"));
    for package in &ordered {
        command.args(["-p", &package.name]);
    }
    failures("cargo package", command.output(), "Verifying ")
}

/// Problems from a cargo run: none on success; else one naming the crate cargo
/// last mentioned after `marker` (e.g. "could not document `hooks-x`").
fn failures(
    what: &str,
    output: std::io::Result<std::process::Output>,
    marker: &str,
) -> Vec<Problem> {
    let output = match output {
        Ok(output) => output,
        Err(error) => return vec![Problem::new(what, format!("cannot run cargo: {error}"))],
    };
    if output.status.success() {
        return Vec::new();
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let subject = stderr
        .lines()
        .filter_map(|line| line.split_once(marker).map(|(_, rest)| rest))
        .filter_map(|rest| rest.split(['`', ' ']).find(|word| !word.is_empty()))
        .next_back()
        .unwrap_or(what)
        .to_owned();
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("error"))
        .collect();
    vec![Problem::new(
        subject,
        format!("{what} failed:\n    {}", errors.join("\n    ")),
    )]
}
