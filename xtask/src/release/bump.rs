//! `cargo xtask bump VERSION`: every crate's version, every inter-crate
//! requirement, the lockfile, and a CHANGELOG section made from Unreleased.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

use super::workspace::{self, cargo};

/// Whether `version` is `MAJOR.MINOR.PATCH`, optionally with `-pre`.
pub fn is_version(version: &str) -> bool {
    let core = version.split_once('-').map_or(
        version,
        |(core, pre)| {
            if pre.is_empty() { "" } else { core }
        },
    );
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// Bumps the workspace at `root` to `version`, dated `date` (YYYY-MM-DD);
/// `update_lock` refreshes Cargo.lock's entries for the members.
pub fn run(root: &Path, version: &str, date: &str, update_lock: bool) -> Result<()> {
    if !is_version(version) {
        bail!("{version:?} is not a version (MAJOR.MINOR.PATCH[-pre])");
    }
    let metadata = workspace::metadata(root, true)?;
    let members = workspace::members(&metadata);
    let names: Vec<&str> = members.iter().map(|p| p.name.as_str()).collect();
    let mut manifests = vec![root.join("Cargo.toml")];
    manifests.extend(members.iter().map(|p| p.dir.join("Cargo.toml")));
    manifests.dedup();
    for manifest in &manifests {
        let text = std::fs::read_to_string(manifest)
            .with_context(|| format!("reading {}", manifest.display()))?;
        let bumped = bump_manifest(&text, &names, version);
        if bumped != text {
            std::fs::write(manifest, bumped)?;
            eprintln!("bumped {}", manifest.display());
        }
    }
    let changelog = root.join("CHANGELOG.md");
    let text = std::fs::read_to_string(&changelog).context("reading CHANGELOG.md")?;
    std::fs::write(&changelog, release_changelog(&text, version, date)?)?;
    eprintln!("CHANGELOG.md: Unreleased is now [{version}] - {date}");
    if update_lock {
        let status = Command::new(cargo())
            .args(["update", "--workspace", "--offline"])
            .arg("--manifest-path")
            .arg(root.join("Cargo.toml"))
            .status()?;
        if !status.success() {
            bail!("cargo update --workspace failed");
        }
    }
    Ok(())
}

/// `text` with the package version (under `[package]` or `[workspace.package]`,
/// unless inherited) and the `version` of every dependency on a member set to `version`.
pub fn bump_manifest(text: &str, members: &[&str], version: &str) -> String {
    let mut section = String::new();
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            section = trimmed.to_owned();
        }
        let key = trimmed.split(['=', '.', ' ']).next().unwrap_or_default();
        let package_version = (section == "[package]" || section == "[workspace.package]")
            && key == "version"
            && trimmed.starts_with("version =");
        let member_requirement =
            section.contains("dependencies") && members.contains(&key) && trimmed.contains('{');
        let replaced = if package_version || member_requirement {
            replace_version_value(line, version)
        } else {
            None
        };
        out.push_str(replaced.as_deref().unwrap_or(line));
    }
    out
}

/// `line` with the string after its `version = ` replaced, if it has one.
fn replace_version_value(line: &str, version: &str) -> Option<String> {
    let start = line.find("version = \"")? + "version = \"".len();
    let end = start + line[start..].find('"')?;
    Some(format!("{}{version}{}", &line[..start], &line[end..]))
}

/// The changelog with a `## [version] - date` section holding what Unreleased
/// held, and an empty Unreleased above it. Fails when Unreleased is empty.
pub fn release_changelog(text: &str, version: &str, date: &str) -> Result<String> {
    const UNRELEASED: &str = "## [Unreleased]";
    let Some(start) = text.find(UNRELEASED) else {
        bail!("CHANGELOG.md has no `{UNRELEASED}` section");
    };
    let body_start = start + UNRELEASED.len();
    let body_end = text[body_start..]
        .find("\n## [")
        .map_or(text.len(), |offset| body_start + offset);
    if text[body_start..body_end].trim().is_empty() {
        bail!("CHANGELOG.md: the Unreleased section is empty; nothing to release");
    }
    if text.contains(&format!("## [{version}]")) {
        bail!("CHANGELOG.md already has a section for {version}");
    }
    Ok(format!(
        "{}{UNRELEASED}\n\n## [{version}] - {date}{}",
        &text[..start],
        &text[body_start..]
    ))
}

/// Today (UTC) as YYYY-MM-DD, from the system clock.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (year, month, day) = civil_from_days((secs / 86_400) as i64);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}
