//! What release-check asks outside the tree: `cargo fetch` (so every later
//! step can run offline, Windows-only crates included), placeholder URLs in
//! the manifests, and whether crates.io has each publishable name free or ours.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use super::check::Problem;
use super::workspace::{Package, cargo};

/// The registry's base URL (`https://crates.io`); tests point it at a local server.
pub const REGISTRY_ENV: &str = "HERMES_HOOKS_REGISTRY_URL";

/// Extra crates.io logins (comma-separated) that count as ours, on top of
/// `[workspace.metadata.release] crates-io-owners` in the root Cargo.toml.
pub const OWNERS_ENV: &str = "HERMES_HOOKS_CRATES_OWNERS";

/// The registry asked when [`REGISTRY_ENV`] is unset.
pub const DEFAULT_REGISTRY: &str = "https://crates.io";

/// Hosts that only ever stand in for a real address.
const PLACEHOLDER_HOSTS: &[&str] = &[
    "example.invalid",
    "example.com",
    "example.org",
    "example.net",
];

/// How long one registry request may take; past it the registry counts as unreachable.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);

/// `cargo fetch` on `root`: every crate the lockfile names, for every target,
/// is downloaded before the offline steps (metadata, rustdoc, packaging) run.
pub fn fetch(root: &Path) -> Vec<Problem> {
    let output = Command::new(cargo())
        .args(["fetch", "--locked"])
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .output();
    match output {
        Ok(output) if output.status.success() => Vec::new(),
        Ok(output) => vec![Problem::new(
            "cargo fetch",
            format!(
                "failed ({}); the offline steps below need every locked crate:\n    {}",
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            ),
        )],
        Err(error) => vec![Problem::new(
            "cargo fetch",
            format!("cannot run cargo: {error}"),
        )],
    }
}

/// Every publishable package has a real `repository` and `homepage`: not
/// empty, not unset, not on a placeholder host.
pub fn placeholder_urls(members: &[Package]) -> Vec<Problem> {
    let mut problems = Vec::new();
    for package in members.iter().filter(|p| p.publish) {
        for (field, value) in [
            ("repository", &package.repository),
            ("homepage", &package.homepage),
        ] {
            if let Some(why) = placeholder(value.as_deref()) {
                problems.push(Problem::new(
                    &package.name,
                    format!(
                        "{field} {why}; set the real URL (root Cargo.toml, [workspace.package])"
                    ),
                ));
            }
        }
    }
    problems
}

/// Why `url` cannot be published, if it cannot.
pub fn placeholder(url: Option<&str>) -> Option<String> {
    let url = url.map(str::trim).unwrap_or_default();
    if url.is_empty() {
        return Some("is empty".to_owned());
    }
    let Some(rest) = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
    else {
        return Some(format!("'{url}' is not an http(s) URL"));
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority
        .rsplit('@')
        .next()
        .unwrap_or_default()
        .split(':')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let placeholder_host = PLACEHOLDER_HOSTS
        .iter()
        .any(|p| host == *p || host.ends_with(&format!(".{p}")))
        || host.ends_with(".invalid")
        || host.ends_with(".example")
        || host == "localhost"
        || host.is_empty();
    placeholder_host.then(|| format!("'{url}' is a placeholder"))
}

/// Who answered what about one name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameStatus {
    /// The registry has no crate of that name.
    Free,
    /// It exists and one of its owners is ours.
    Ours,
    /// It exists and belongs to these owners.
    Taken(Vec<String>),
}

/// Asks the registry at `base` about every publishable name; `owners` are our
/// logins. A taken name is a problem; `Err` means the registry could not be
/// asked at all (no network), which the caller reports without failing.
pub fn names(members: &[Package], base: &str, owners: &[String]) -> Result<Vec<Problem>, String> {
    let agent = agent();
    let mut problems = Vec::new();
    for package in members.iter().filter(|p| p.publish) {
        match name_status(&agent, base, &package.name, owners)? {
            NameStatus::Free | NameStatus::Ours => {}
            NameStatus::Taken(by) => problems.push(Problem::new(
                &package.name,
                format!(
                    "the name is taken on the registry (owners: {}); rename the package, \
                     or add our login to [workspace.metadata.release] crates-io-owners",
                    if by.is_empty() {
                        "unknown".to_owned()
                    } else {
                        by.join(", ")
                    }
                ),
            )),
        }
    }
    Ok(problems)
}

/// What the registry at `base` says about `name`.
pub fn name_status(
    agent: &ureq::Agent,
    base: &str,
    name: &str,
    owners: &[String],
) -> Result<NameStatus, String> {
    let base = base.trim_end_matches('/');
    let (status, _) = get(agent, &format!("{base}/api/v1/crates/{name}"))?;
    match status {
        404 => return Ok(NameStatus::Free),
        200 => {}
        other => return Err(format!("{base} answered {other} for {name}")),
    }
    let (status, body) = get(agent, &format!("{base}/api/v1/crates/{name}/owners"))?;
    if status != 200 {
        return Err(format!("{base} answered {status} for the owners of {name}"));
    }
    let document: Value = serde_json::from_str(&body)
        .map_err(|error| format!("{base}: the owners of {name} are not JSON: {error}"))?;
    let logins: Vec<String> = document["users"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|user| user["login"].as_str())
        .map(str::to_owned)
        .collect();
    if logins
        .iter()
        .any(|login| owners.iter().any(|ours| ours.eq_ignore_ascii_case(login)))
    {
        Ok(NameStatus::Ours)
    } else {
        Ok(NameStatus::Taken(logins))
    }
}

/// The HTTP client every registry request goes through: bounded, named, and
/// reporting every status as an answer (a 404 means "free", not an error).
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(REQUEST_TIMEOUT))
        .http_status_as_error(false)
        .user_agent(concat!(
            "hermes-hooks-release-check/",
            env!("CARGO_PKG_VERSION"),
            " (cargo xtask release-check)"
        ))
        .build()
        .into()
}

/// GETs `url`: its status and body.
pub fn get(agent: &ureq::Agent, url: &str) -> Result<(u16, String), String> {
    let mut response = agent
        .get(url)
        .call()
        .map_err(|error| format!("{url}: {error}"))?;
    let status = response.status().as_u16();
    let body = response
        .body_mut()
        .read_to_string()
        .map_err(|error| format!("{url}: reading the answer: {error}"))?;
    Ok((status, body))
}

/// Our crates.io logins: `[workspace.metadata.release] crates-io-owners` of
/// `metadata` (cargo metadata's output) and [`OWNERS_ENV`].
pub fn our_owners(metadata: &Value) -> Vec<String> {
    let mut owners: Vec<String> = metadata["metadata"]["release"]["crates-io-owners"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect();
    if let Ok(extra) = std::env::var(OWNERS_ENV) {
        owners.extend(
            extra
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
        );
    }
    owners
}
