//! The layers hooks-core was split into (issue 31): which hermes crates each
//! of them may depend on, so no crate imports a type back from a crate above it.

use super::check::Problem;
use super::workspace::Package;

/// The split crates, lowest first, each with the only hermes crates its normal
/// dependencies may name: the YAML reader and the process supervisor stand on
/// no hermes crate, the contract on the YAML reader alone (for `config`), the
/// callbacks on the contract alone.
pub const LAYERS: &[(&str, &[&str])] = &[
    ("hermes-hooks-yaml", &[]),
    ("hermes-hooks-process", &[]),
    ("hermes-hooks-core", &["hermes-hooks-yaml"]),
    ("hermes-hooks-callbacks", &["hermes-hooks-core"]),
];

/// Every normal dependency of a layer on a hermes crate it may not use, and
/// every layer missing from the workspace.
pub fn layer_deps(members: &[Package]) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (layer, allowed) in LAYERS {
        let Some(package) = members.iter().find(|p| p.name == *layer) else {
            problems.push(Problem::new(*layer, "is not a workspace member"));
            continue;
        };
        for dep in package.deps.iter().filter(|dep| dep.kind.is_none()) {
            let hermes = dep.name.starts_with("hermes-hooks");
            if hermes && !allowed.contains(&dep.name.as_str()) {
                problems.push(Problem::new(
                    *layer,
                    format!(
                        "depends on {}; it may depend on {}",
                        dep.name,
                        if allowed.is_empty() {
                            "no hermes crate".to_owned()
                        } else {
                            allowed.join(", ")
                        }
                    ),
                ));
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::project_root;
    use crate::release::workspace::{self, Dep, MECHANISMS};

    fn real_members() -> Vec<Package> {
        let metadata = workspace::metadata(&project_root(), true).expect("cargo metadata");
        workspace::members(&metadata)
    }

    #[test]
    fn the_real_tree_keeps_its_layers() {
        assert_eq!(layer_deps(&real_members()), vec![]);
    }

    #[test]
    fn a_lower_layer_depending_on_a_higher_one_is_named() {
        let mut members = real_members();
        let yaml = members
            .iter_mut()
            .find(|p| p.name == "hermes-hooks-yaml")
            .expect("yaml");
        yaml.deps.push(Dep {
            name: "hermes-hooks-core".to_owned(),
            req: "^0.1.0".to_owned(),
            kind: None,
            path: None,
        });
        let problems = layer_deps(&members);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].subject, "hermes-hooks-yaml");
        assert!(
            problems[0].message.contains("no hermes crate"),
            "{problems:?}"
        );
        // A dev-dependency is no layer violation (tests may use anything).
        let mut members = real_members();
        let core = members
            .iter_mut()
            .find(|p| p.name == "hermes-hooks-core")
            .expect("core");
        core.deps.push(Dep {
            name: "hermes-hooks-callbacks".to_owned(),
            req: "^0.1.0".to_owned(),
            kind: Some("dev".to_owned()),
            path: None,
        });
        assert_eq!(layer_deps(&members), vec![]);
    }

    #[test]
    fn crates_publish_yaml_and_process_then_core_then_callbacks_then_mechanisms() {
        let members = real_members();
        let ordered: Vec<&str> = workspace::publishable_in_order(&members)
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        let at = |name: &str| {
            ordered
                .iter()
                .position(|n| *n == name)
                .unwrap_or_else(|| panic!("{name} is not published: {ordered:?}"))
        };
        let core = at("hermes-hooks-core");
        assert!(at("hermes-hooks-yaml") < core, "{ordered:?}");
        assert!(at("hermes-hooks-process") < core, "{ordered:?}");
        assert!(core < at("hermes-hooks-callbacks"), "{ordered:?}");
        for mechanism in MECHANISMS {
            assert!(at("hermes-hooks-callbacks") < at(mechanism), "{ordered:?}");
        }
    }
}
