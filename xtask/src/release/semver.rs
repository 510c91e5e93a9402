//! The semver check of release-check: once a version of a crate is on the
//! registry, `cargo-semver-checks` compares the crate's public API with it, so
//! a breaking change cannot ship under a compatible version number.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::check::Problem;
use super::registry;
use super::workspace::Package;

/// The `cargo-semver-checks` program to run (a path, or a name looked up on
/// `PATH`); tests point it at a stand-in.
pub const TOOL_ENV: &str = "HERMES_HOOKS_SEMVER_CHECKS";

/// The program run when [`TOOL_ENV`] is unset.
pub const DEFAULT_TOOL: &str = "cargo-semver-checks";

/// What the semver check did for one crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The registry has no version of it: there is nothing to compare with.
    NotPublished,
    /// A version is published but the tool is not installed: NOT checked.
    ToolMissing {
        /// The version it would have been compared with.
        baseline: String,
    },
    /// The tool compared it with `baseline` and found nothing breaking.
    Compatible {
        /// The published version compared with.
        baseline: String,
    },
    /// The tool found breaking changes (or could not run the comparison).
    Breaking {
        /// The published version compared with.
        baseline: String,
        /// What the tool said.
        report: String,
    },
}

/// The semver check of every publishable crate against the registry at
/// `base`, with the tool `tool`. Each crate's verdict is printed; a breaking
/// change is a problem. `Err`: the registry could not be asked.
pub fn check(
    root: &Path,
    members: &[Package],
    base: &str,
    tool: &str,
) -> Result<Vec<Problem>, String> {
    let agent = registry::agent();
    let installed = tool_installed(tool);
    let mut problems = Vec::new();
    for package in members.iter().filter(|p| p.publish) {
        let verdict = match baseline(&agent, base, &package.name, &package.version)? {
            None => Verdict::NotPublished,
            Some(baseline) if !installed => Verdict::ToolMissing { baseline },
            Some(baseline) => run_tool(root, tool, &package.name, baseline),
        };
        eprintln!("  {}: {}", package.name, describe(&verdict, tool));
        if let Verdict::Breaking { baseline, report } = verdict {
            problems.push(Problem::new(
                &package.name,
                format!(
                    "the public API breaks semver against the published {baseline} \
                     (bump the version as `cargo xtask bump` says, or undo the change):\n    {}",
                    report.trim().replace('\n', "\n    ")
                ),
            ));
        }
    }
    Ok(problems)
}

/// One line saying what was (or was not) checked.
pub fn describe(verdict: &Verdict, tool: &str) -> String {
    match verdict {
        Verdict::NotPublished => "not published yet; no semver baseline".to_owned(),
        Verdict::ToolMissing { baseline } => format!(
            "{baseline} is published but {tool} is not installed; semver NOT checked \
             (cargo install cargo-semver-checks --locked)"
        ),
        Verdict::Compatible { baseline } => format!("semver-compatible with {baseline}"),
        Verdict::Breaking { baseline, .. } => format!("breaks semver against {baseline}"),
    }
}

/// Whether `tool --version` runs.
fn tool_installed(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success())
}

/// `cargo semver-checks check-release` of `name` against `baseline`.
fn run_tool(root: &Path, tool: &str, name: &str, baseline: String) -> Verdict {
    // Cargo runs an external subcommand as `cargo-semver-checks semver-checks ...`.
    let output = Command::new(tool)
        .args(["semver-checks", "check-release", "--package", name])
        .args(["--baseline-version", &baseline])
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .output();
    match output {
        Ok(output) if output.status.success() => Verdict::Compatible { baseline },
        Ok(output) => {
            let mut report = String::from_utf8_lossy(&output.stdout).into_owned();
            report.push_str(&String::from_utf8_lossy(&output.stderr));
            Verdict::Breaking { baseline, report }
        }
        Err(error) => Verdict::Breaking {
            baseline,
            report: format!("cannot run {tool}: {error}"),
        },
    }
}

/// The published version to compare `name` (at `version` in the tree) with:
/// the newest release, not yanked, not a pre-release, not newer than `version`.
/// `None` when the registry has no such version.
pub fn baseline(
    agent: &ureq::Agent,
    base: &str,
    name: &str,
    version: &str,
) -> Result<Option<String>, String> {
    let base = base.trim_end_matches('/');
    let (status, body) = registry::get(agent, &format!("{base}/api/v1/crates/{name}"))?;
    match status {
        404 => return Ok(None),
        200 => {}
        other => return Err(format!("{base} answered {other} for {name}")),
    }
    let document: Value = serde_json::from_str(&body)
        .map_err(|error| format!("{base}: the versions of {name} are not JSON: {error}"))?;
    let ceiling = parse(version);
    let newest = document["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|entry| entry["yanked"].as_bool() != Some(true))
        .filter_map(|entry| entry["num"].as_str())
        .filter_map(|num| parse(num).map(|parsed| (parsed, num)))
        .filter(|(parsed, _)| ceiling.is_none_or(|ceiling| *parsed <= ceiling))
        .max_by_key(|(parsed, _)| *parsed)
        .map(|(_, num)| num.to_owned());
    Ok(newest)
}

/// `major.minor.patch` of a release; `None` for a pre-release or anything else.
fn parse(version: &str) -> Option<(u64, u64, u64)> {
    let version = version.split('+').next()?;
    let mut parts = version.split('.');
    let triple = (
        parts.next()?.parse().ok()?,
        parts.next()?.parse().ok()?,
        parts.next()?.parse().ok()?,
    );
    parts.next().is_none().then_some(triple)
}
