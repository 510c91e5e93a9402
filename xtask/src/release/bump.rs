//! `cargo xtask bump VERSION`: every crate's version, every inter-crate
//! requirement, the lockfile, and a CHANGELOG section made from Unreleased.
//! It refuses a version that is not newer and a work tree with uncommitted
//! changes (the bump must be a commit of its own), and `--dry-run` shows what
//! it would change without writing.

use std::cmp::Ordering;
use std::path::{Path, PathBuf};
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

/// `cargo xtask bump --help`.
pub const USAGE: &str = "usage: cargo xtask bump [--dry-run] [--allow-dirty] VERSION

Sets every crate's version and every inter-crate requirement to VERSION,
refreshes Cargo.lock, and turns CHANGELOG.md's Unreleased section into
`## [VERSION] - <today>`.

  VERSION        MAJOR.MINOR.PATCH[-pre], newer than the current version
  --dry-run      print what would change; write nothing
  --allow-dirty  bump even with uncommitted changes in the work tree
  -h, --help     this text

Refuses a downgrade (or the current version), an empty Unreleased section and,
without --allow-dirty, a work tree with uncommitted changes.";

/// What `cargo xtask bump` was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BumpArgs {
    /// The new version.
    pub version: String,
    /// Show, do not write.
    pub dry_run: bool,
    /// Skip the clean-tree check.
    pub allow_dirty: bool,
}

/// Parses bump's arguments; `Ok(None)` asks for the help text.
pub fn parse_args(args: &[&str]) -> Result<Option<BumpArgs>> {
    let mut version = None;
    let (mut dry_run, mut allow_dirty) = (false, false);
    for arg in args {
        match *arg {
            "-h" | "--help" | "help" => return Ok(None),
            "--dry-run" | "-n" => dry_run = true,
            "--allow-dirty" => allow_dirty = true,
            flag if flag.starts_with('-') => bail!("unknown option {flag}\n\n{USAGE}"),
            value if version.is_none() => version = Some(value.to_owned()),
            extra => bail!("unexpected argument {extra:?}\n\n{USAGE}"),
        }
    }
    let Some(version) = version else {
        bail!("VERSION is missing\n\n{USAGE}");
    };
    Ok(Some(BumpArgs {
        version,
        dry_run,
        allow_dirty,
    }))
}

/// `cargo xtask bump ARGS` on the workspace at `root`.
pub fn command(root: &Path, args: &[&str]) -> Result<()> {
    let Some(args) = parse_args(args)? else {
        println!("{USAGE}");
        return Ok(());
    };
    if !args.allow_dirty {
        ensure_clean(root)?;
    }
    run_with(root, &args.version, &today(), !args.dry_run, args.dry_run)
}

/// Fails unless `root` is a git work tree with nothing uncommitted.
pub fn ensure_clean(root: &Path) -> Result<()> {
    let output = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["status", "--porcelain", "--untracked-files=normal"])
        .output()
        .context("running git status")?;
    if !output.status.success() {
        bail!(
            "cannot tell whether {} is clean (git status failed: {}); \
             commit first, or pass --allow-dirty",
            root.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let changed = String::from_utf8_lossy(&output.stdout);
    if !changed.trim().is_empty() {
        let first: Vec<&str> = changed.lines().take(10).collect();
        bail!(
            "the work tree has uncommitted changes; commit or stash them first \
             (or pass --allow-dirty):\n  {}",
            first.join("\n  ")
        );
    }
    Ok(())
}

/// Orders two versions as semver does (a pre-release sorts before its release).
pub fn compare_versions(a: &str, b: &str) -> Ordering {
    fn split(version: &str) -> (Vec<u64>, Option<&str>) {
        let (core, pre) = match version.split_once('-') {
            Some((core, pre)) => (core, Some(pre)),
            None => (version, None),
        };
        let core = core.split('.').map(|n| n.parse().unwrap_or(0)).collect();
        (core, pre)
    }
    let ((a_core, a_pre), (b_core, b_pre)) = (split(a), split(b));
    a_core.cmp(&b_core).then_with(|| match (a_pre, b_pre) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(a), Some(b)) => {
            let mut a = a.split('.');
            let mut b = b.split('.');
            loop {
                match (a.next(), b.next()) {
                    (None, None) => return Ordering::Equal,
                    (None, Some(_)) => return Ordering::Less,
                    (Some(_), None) => return Ordering::Greater,
                    (Some(x), Some(y)) => {
                        let order = match (x.parse::<u64>(), y.parse::<u64>()) {
                            (Ok(x), Ok(y)) => x.cmp(&y),
                            (Ok(_), Err(_)) => Ordering::Less,
                            (Err(_), Ok(_)) => Ordering::Greater,
                            (Err(_), Err(_)) => x.cmp(y),
                        };
                        if order != Ordering::Equal {
                            return order;
                        }
                    }
                }
            }
        }
    })
}

/// Bumps the workspace at `root` to `version`, dated `date` (YYYY-MM-DD);
/// `update_lock` refreshes Cargo.lock's entries for the members (the tests' entry).
#[cfg(test)]
pub fn run(root: &Path, version: &str, date: &str, update_lock: bool) -> Result<()> {
    run_with(root, version, date, update_lock, false)
}

/// Bumps the workspace at `root` to `version`, dated `date`; with `dry_run`
/// only reports what it would change.
pub fn run_with(
    root: &Path,
    version: &str,
    date: &str,
    update_lock: bool,
    dry_run: bool,
) -> Result<()> {
    if !is_version(version) {
        bail!("{version:?} is not a version (MAJOR.MINOR.PATCH[-pre])");
    }
    let metadata = workspace::metadata(root, true)?;
    let members = workspace::members(&metadata);
    if let Some(current) = members.iter().find(|p| p.publish) {
        match compare_versions(version, &current.version) {
            Ordering::Greater => {}
            Ordering::Equal => bail!("the workspace is already at {version}; nothing to bump"),
            Ordering::Less => bail!(
                "refusing to downgrade {} from {} to {version}",
                current.name,
                current.version
            ),
        }
    }
    let names: Vec<&str> = members.iter().map(|p| p.name.as_str()).collect();
    let mut manifests = vec![root.join("Cargo.toml")];
    manifests.extend(members.iter().map(|p| p.dir.join("Cargo.toml")));
    manifests.dedup();
    let mut writes: Vec<(PathBuf, String)> = Vec::new();
    for manifest in &manifests {
        let text = std::fs::read_to_string(manifest)
            .with_context(|| format!("reading {}", manifest.display()))?;
        let bumped = bump_manifest(&text, &names, version);
        if bumped != text {
            writes.push((manifest.clone(), bumped));
        }
    }
    let changelog = root.join("CHANGELOG.md");
    let text = std::fs::read_to_string(&changelog).context("reading CHANGELOG.md")?;
    writes.push((changelog, release_changelog(&text, version, date)?));
    let verb = if dry_run { "would bump" } else { "bumped" };
    for (path, text) in &writes {
        if !dry_run {
            std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
        }
        eprintln!("{verb} {}", path.display());
    }
    eprintln!("CHANGELOG.md: Unreleased {verb} to [{version}] - {date}");
    if dry_run {
        eprintln!("dry run: nothing written");
        return Ok(());
    }
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
