//! The declared `rust-version` against the lockfile: every package a member
//! builds with (as `cargo metadata` resolves it, from each dependency's own
//! Cargo.toml in the registry) must accept the member's `rust-version`.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::check::Problem;

/// A `rust-version` as numbers (`1.89` is `[1, 89, 0]`); `None` if unreadable.
pub fn parse(version: &str) -> Option<[u64; 3]> {
    let mut parts = [0u64; 3];
    let mut count = 0;
    for (slot, piece) in parts.iter_mut().zip(version.trim().split('.')) {
        *slot = piece.parse().ok()?;
        count += 1;
    }
    (count > 0 && version.trim().split('.').count() <= 3).then_some(parts)
}

/// One problem per member whose dependency closure needs a newer Rust than it declares.
pub fn check(metadata: &Value) -> Vec<Problem> {
    let packages: HashMap<&str, &Value> = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| Some((p["id"].as_str()?, p)))
        .collect();
    let edges: HashMap<&str, Vec<&str>> = metadata["resolve"]["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|node| {
            let deps = node["deps"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|dep| dep["pkg"].as_str())
                .collect();
            Some((node["id"].as_str()?, deps))
        })
        .collect();
    let mut problems = Vec::new();
    for member in metadata["workspace_members"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let Some(id) = member.as_str() else { continue };
        let Some(package) = packages.get(id) else {
            continue;
        };
        let name = package["name"].as_str().unwrap_or(id);
        let Some(declared) = package["rust_version"].as_str() else {
            problems.push(Problem {
                subject: name.to_owned(),
                message: "declares no rust-version".to_owned(),
            });
            continue;
        };
        let Some(limit) = parse(declared) else {
            problems.push(Problem {
                subject: name.to_owned(),
                message: format!("rust-version {declared:?} is not a version"),
            });
            continue;
        };
        let mut seen = HashSet::new();
        let mut pending = vec![id];
        while let Some(current) = pending.pop() {
            for &dep in edges.get(current).into_iter().flatten() {
                if !seen.insert(dep) {
                    continue;
                }
                pending.push(dep);
                let Some(dep_package) = packages.get(dep) else {
                    continue;
                };
                let needed = dep_package["rust_version"].as_str().unwrap_or("0");
                if parse(needed).is_some_and(|needed| needed > limit) {
                    problems.push(Problem {
                        subject: name.to_owned(),
                        message: format!(
                            "declares rust-version {declared} but {} {} (locked) needs {needed}",
                            dep_package["name"].as_str().unwrap_or(dep),
                            dep_package["version"].as_str().unwrap_or("?"),
                        ),
                    });
                }
            }
        }
    }
    problems
}
