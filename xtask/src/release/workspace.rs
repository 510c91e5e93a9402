//! The workspace as `cargo metadata` describes it: its packages, their versions,
//! whether they publish, and what they depend on.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::Value;

/// The mechanism crates: each depends on hooks-core and on no other of these.
pub const MECHANISMS: &[&str] = &[
    "hermes-hooks-shell",
    "hermes-hooks-outbound",
    "hermes-hooks-plugin",
    "hermes-hooks-gateway",
];

/// The publishable crates that wire mechanisms together: the facade and the
/// command line over it. No other published crate depends on a mechanism.
pub const WIRING: &[&str] = &["hermes-hooks", "hermes-hooks-cli"];

/// One dependency of a workspace package.
#[derive(Debug, Clone)]
pub struct Dep {
    /// The package depended on.
    pub name: String,
    /// The version requirement as written (`^0.1.0`; `*` when none).
    pub req: String,
    /// `None` for normal dependencies, else `dev` or `build`.
    pub kind: Option<String>,
    /// Set for path dependencies (workspace siblings).
    pub path: Option<PathBuf>,
}

/// One workspace member.
#[derive(Debug, Clone)]
pub struct Package {
    /// The package name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// The directory holding its Cargo.toml.
    pub dir: PathBuf,
    /// Whether it may be published (`publish = false` is the only opt-out we use).
    pub publish: bool,
    /// Its dependencies, every kind.
    pub deps: Vec<Dep>,
    /// Its `repository` URL (`None` when unset).
    pub repository: Option<String>,
    /// Its `homepage` URL (`None` when unset).
    pub homepage: Option<String>,
}

/// Runs `cargo metadata` on the workspace at `root` (offline; `no_deps` skips resolution).
pub fn metadata(root: &Path, no_deps: bool) -> Result<Value> {
    let mut command = Command::new(cargo());
    command
        .args(["metadata", "--format-version", "1", "--offline"])
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"));
    if no_deps {
        command.arg("--no-deps");
    }
    let output = command.output().context("running cargo metadata")?;
    if !output.status.success() {
        bail!(
            "cargo metadata failed in {}:\n{}",
            root.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    serde_json::from_slice(&output.stdout).context("reading cargo metadata's output")
}

/// The workspace members of `metadata`, in the order cargo lists them.
pub fn members(metadata: &Value) -> Vec<Package> {
    let ids: Vec<&str> = metadata["workspace_members"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|package| ids.contains(&package["id"].as_str().unwrap_or_default()))
        .map(package)
        .collect()
}

fn package(value: &Value) -> Package {
    let text = |key: &str| value[key].as_str().unwrap_or_default().to_owned();
    let manifest = PathBuf::from(text("manifest_path"));
    Package {
        name: text("name"),
        version: text("version"),
        dir: manifest.parent().map(Path::to_owned).unwrap_or_default(),
        // `publish = false` is `[]`; absent (null) or a list of registries publishes.
        publish: value["publish"]
            .as_array()
            .is_none_or(|registries| !registries.is_empty()),
        deps: value["dependencies"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|dep| Dep {
                name: dep["name"].as_str().unwrap_or_default().to_owned(),
                req: dep["req"].as_str().unwrap_or("*").to_owned(),
                kind: dep["kind"].as_str().map(str::to_owned),
                path: dep["path"].as_str().map(PathBuf::from),
            })
            .collect(),
        repository: value["repository"].as_str().map(str::to_owned),
        homepage: value["homepage"].as_str().map(str::to_owned),
    }
}

/// The publishable members, dependencies before their dependents; among
/// those free to go, the split crates first, lowest layer first (yaml,
/// process, core, callbacks: [`LAYERS`](super::layers::LAYERS)), then the
/// rest in the order cargo lists them.
pub fn publishable_in_order(members: &[Package]) -> Vec<&Package> {
    let layers = super::layers::LAYERS;
    let rank = |package: &Package| {
        layers
            .iter()
            .position(|(name, _)| *name == package.name)
            .unwrap_or(layers.len())
    };
    let mut publishable: Vec<&Package> = members.iter().filter(|p| p.publish).collect();
    publishable.sort_by_key(|package| rank(package));
    let mut ordered: Vec<&Package> = Vec::new();
    while ordered.len() < publishable.len() {
        let before = ordered.len();
        for package in &publishable {
            if ordered.iter().any(|done| done.name == package.name) {
                continue;
            }
            let ready = package
                .deps
                .iter()
                .filter(|dep| dep.kind.is_none())
                .all(|dep| {
                    !publishable.iter().any(|p| p.name == dep.name)
                        || ordered.iter().any(|done| done.name == dep.name)
                });
            if ready {
                ordered.push(package);
            }
        }
        if ordered.len() == before {
            // A cycle (cargo rejects those anyway): keep the rest in listed order.
            let rest: Vec<&Package> = publishable
                .iter()
                .filter(|p| !ordered.iter().any(|done| done.name == p.name))
                .copied()
                .collect();
            ordered.extend(rest);
        }
    }
    ordered
}

/// The cargo running us (`$CARGO`), else `cargo` from PATH.
pub fn cargo() -> PathBuf {
    std::env::var_os("CARGO").map_or_else(|| PathBuf::from("cargo"), PathBuf::from)
}
