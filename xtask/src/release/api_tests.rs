//! release-check's API checks: the semver step against a fake registry answer
//! and stand-ins for `cargo-semver-checks` (not published, published without
//! the tool, a compatible and a breaking comparison), and accidental features.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::semver::{self, Verdict};
use super::tests::subjects;
use super::tooling_tests::{fake_registry, publishable};
use super::{registry, workspace};
use crate::codegen::project_root;

const VERSIONS: &str = r#"{"crate":{"max_version":"0.3.0"},"versions":[
    {"num":"0.3.0","yanked":false},
    {"num":"0.2.0-alpha.1","yanked":false},
    {"num":"0.1.1","yanked":true},
    {"num":"0.1.0","yanked":false}
]}"#;

/// A stand-in for the tool: answers `--version`, records its arguments in
/// `args.txt` next to it and exits with `status` after printing `says`.
fn fake_tool(dir: &Path, status: u8, says: &str) -> String {
    let path = dir.join("cargo-semver-checks");
    let log = dir.join("args.txt");
    let script = format!(
        "#!/bin/sh\n[ \"$1\" = --version ] && {{ echo 'cargo-semver-checks 0.0.0'; exit 0; }}\n\
         echo \"$@\" >> '{}'\necho '{says}'\nexit {status}\n",
        log.display()
    );
    std::fs::write(&path, script).expect("write the tool");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path.to_string_lossy().into_owned()
}

fn at(name: &str, version: &str) -> workspace::Package {
    let mut package = publishable(name);
    package.version = version.to_owned();
    package
}

#[test]
fn the_baseline_is_the_newest_release_not_yanked_and_not_newer() {
    let (base, _) = fake_registry(vec![("/api/v1/crates/hermes-hooks-core", 200, VERSIONS)]);
    let agent = registry::agent();
    let ask = |version| semver::baseline(&agent, &base, "hermes-hooks-core", version);
    // 0.1.1 is yanked and 0.2.0-alpha.1 a pre-release.
    assert_eq!(ask("0.2.0"), Ok(Some("0.1.0".to_owned())));
    assert_eq!(ask("0.3.0"), Ok(Some("0.3.0".to_owned())));
    assert_eq!(ask("0.4.0"), Ok(Some("0.3.0".to_owned())));
    assert_eq!(
        semver::baseline(&agent, &base, "hermes-hooks-shell", "0.1.0"),
        Ok(None),
        "a 404 is not published"
    );
    let (busy, _) = fake_registry(vec![("/api/v1/crates/hermes-hooks-core", 503, "busy")]);
    let error = semver::baseline(&agent, &busy, "hermes-hooks-core", "0.1.0").unwrap_err();
    assert!(error.contains("503"), "{error}");
}

#[test]
fn unpublished_crates_and_a_missing_tool_are_said_not_failed() {
    let (base, seen) = fake_registry(vec![("/api/v1/crates/hermes-hooks-core", 200, VERSIONS)]);
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = dir
        .path()
        .join("no-such-tool")
        .to_string_lossy()
        .into_owned();
    let members = [
        at("hermes-hooks-core", "0.2.0"),
        at("hermes-hooks-shell", "0.2.0"),
    ];
    let problems = semver::check(&project_root(), &members, &base, &missing).expect("reachable");
    assert!(problems.is_empty(), "{problems:?}");
    let seen = seen.lock().expect("log").clone();
    assert!(
        seen.iter()
            .any(|head| head.contains("/api/v1/crates/hermes-hooks-shell "))
    );

    let missing_verdict = Verdict::ToolMissing {
        baseline: "0.1.0".to_owned(),
    };
    let line = semver::describe(&missing_verdict, semver::DEFAULT_TOOL);
    assert!(
        line.contains("0.1.0") && line.contains("cargo-semver-checks is not installed"),
        "{line}"
    );
    assert!(line.contains("NOT checked"), "{line}");
    assert_eq!(
        semver::describe(&Verdict::NotPublished, semver::DEFAULT_TOOL),
        "not published yet; no semver baseline"
    );
}

#[test]
fn the_tool_runs_against_the_baseline_and_a_breaking_change_fails_naming_the_crate() {
    let (base, _) = fake_registry(vec![("/api/v1/crates/hermes-hooks-core", 200, VERSIONS)]);
    let members = [
        at("hermes-hooks-core", "0.2.0"),
        at("hermes-hooks-shell", "0.2.0"),
    ];

    let dir = tempfile::tempdir().expect("temp dir");
    let passing = fake_tool(dir.path(), 0, "Summary no semver update required");
    let problems = semver::check(&project_root(), &members, &base, &passing).expect("reachable");
    assert!(problems.is_empty(), "{problems:?}");
    let args = std::fs::read_to_string(dir.path().join("args.txt")).expect("the tool ran");
    // Only the published crate is compared, with its baseline.
    assert_eq!(args.lines().count(), 1, "{args}");
    assert!(
        args.starts_with(
            "semver-checks check-release --package hermes-hooks-core --baseline-version 0.1.0 --manifest-path "
        ),
        "{args}"
    );

    let dir = tempfile::tempdir().expect("temp dir");
    let failing = fake_tool(
        dir.path(),
        1,
        "--- failure struct_missing: pub struct removed ---",
    );
    let problems = semver::check(&project_root(), &members, &base, &failing).expect("reachable");
    assert_eq!(
        subjects(&problems),
        vec!["hermes-hooks-core"],
        "{problems:?}"
    );
    assert!(
        problems[0].message.contains("published 0.1.0"),
        "{problems:?}"
    );
    assert!(
        problems[0].message.contains("struct_missing"),
        "{problems:?}"
    );
}

/// An optional dependency no feature names with `dep:` is an implicit feature
/// (a problem naming crate and dependency); one spelled out in `[features]`,
/// or turned on with `dep:`, is not.
#[test]
fn an_implicit_feature_of_an_optional_dependency_fails_naming_crate_and_dependency() {
    let dir = tempfile::tempdir().expect("temp dir");
    let manifest = |name: &str, features: &str| {
        let path = dir.path().join(format!("{name}.toml"));
        std::fs::write(&path, format!("[package]\nname = \"{name}\"\n\n[features]\n{features}\n[dependencies]\ntokio = \"1\"\n"))
            .expect("write manifest");
        path.to_string_lossy().into_owned()
    };
    let package =
        |name: &str, publish: serde_json::Value, features: serde_json::Value, written: &str| {
            serde_json::json!({
                "id": name, "name": name, "publish": publish,
                "manifest_path": manifest(name, written),
                "dependencies": [
                    {"name": "tokio", "rename": null, "optional": true},
                    {"name": "serde", "rename": null, "optional": false}
                ],
                "features": features,
            })
        };
    let metadata = serde_json::json!({
        "workspace_members": ["accidental", "on-purpose", "dep-syntax", "private"],
        "packages": [
            package("accidental", serde_json::Value::Null, serde_json::json!({"tokio": ["dep:tokio"]}), ""),
            package("on-purpose", serde_json::Value::Null, serde_json::json!({"tokio": ["dep:tokio"]}), "tokio = [\"dep:tokio\"]\n"),
            package("dep-syntax", serde_json::Value::Null, serde_json::json!({"rt": ["dep:tokio"]}), "rt = [\"dep:tokio\"]\n"),
            package("private", serde_json::json!([]), serde_json::json!({"tokio": ["dep:tokio"]}), ""),
        ],
    });
    let problems = super::features::implicit(&metadata);
    assert_eq!(subjects(&problems), vec!["accidental"], "{problems:?}");
    assert!(problems[0].message.contains("`tokio`"), "{problems:?}");

    // hooks-core's optional dependencies are all behind named features.
    let real = workspace::metadata(&project_root(), true).expect("cargo metadata");
    let core: Vec<_> = super::features::implicit(&real)
        .into_iter()
        .filter(|p| p.subject == "hermes-hooks-core")
        .collect();
    assert!(core.is_empty(), "{core:?}");
}

#[test]
fn a_step_that_could_not_ask_the_registry_never_says_ok() {
    use super::check::{Problem, final_verdict, step_verdict};
    let name = "every name is free or ours on the registry";
    assert_eq!(
        step_verdict(name, &[], false).as_deref(),
        Some("release-check: every name is free or ours on the registry: ok")
    );
    let offline = step_verdict(name, &[], true).expect("a line");
    assert!(
        offline.contains("NOT checked") && !offline.ends_with(": ok"),
        "{offline}"
    );
    let problem = Problem::new("hermes-hooks", "taken");
    assert_eq!(step_verdict(name, &[problem], true), None);
    assert_eq!(final_verdict(&[]), "release-check: all good");
    let last = final_verdict(&[name]);
    assert!(
        last.contains("NOT checked") && last.contains(name) && !last.contains("all good"),
        "{last}"
    );
}
