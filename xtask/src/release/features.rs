//! No accidental features: an optional dependency that no feature turns on
//! with `dep:` becomes a feature of its own name, part of the crate's public
//! interface by mistake (a user can enable it, and removing it is breaking).

use std::path::Path;

use serde_json::Value;

use super::check::Problem;

/// Every publishable member of `metadata` (cargo metadata's output) whose
/// features include one cargo made up for an optional dependency, i.e. one its
/// `Cargo.toml` `[features]` table does not spell out.
pub fn implicit(metadata: &Value) -> Vec<Problem> {
    let ids: Vec<&str> = metadata["workspace_members"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut problems = Vec::new();
    for package in metadata["packages"].as_array().into_iter().flatten() {
        let id = package["id"].as_str().unwrap_or_default();
        let unpublished = package["publish"].as_array().is_some_and(Vec::is_empty);
        if !ids.contains(&id) || unpublished {
            continue;
        }
        let name = package["name"].as_str().unwrap_or_default();
        let manifest = package["manifest_path"].as_str().unwrap_or_default();
        let written = written_features(Path::new(manifest));
        for dep in package["dependencies"].as_array().into_iter().flatten() {
            if dep["optional"].as_bool() != Some(true) {
                continue;
            }
            let Some(dep_name) = dep["rename"].as_str().or_else(|| dep["name"].as_str()) else {
                continue;
            };
            let implied = package["features"][dep_name]
                .as_array()
                .is_some_and(|on| on.len() == 1 && on[0] == format!("dep:{dep_name}"));
            if implied && !written.iter().any(|feature| feature == dep_name) {
                problems.push(Problem::new(
                    name,
                    format!(
                        "the optional dependency `{dep_name}` makes an implicit feature \
                         `{dep_name}`; turn it on with `dep:{dep_name}` from the feature \
                         that needs it (or write the feature on purpose in [features])"
                    ),
                ));
            }
        }
    }
    problems
}

/// The keys of the `[features]` table of the manifest at `path` (empty when
/// it cannot be read).
pub fn written_features(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut keys = Vec::new();
    let mut inside = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[features]";
        } else if inside
            && !line.starts_with('#')
            && let Some((key, _)) = line.split_once('=')
        {
            keys.push(key.trim().trim_matches('"').to_owned());
        }
    }
    keys
}
