//! release-check's failure modes, bump and dist helpers, each on a temporary
//! copy of the workspace (the real tree is only read).

use std::path::Path;

use tempfile::TempDir;

use super::check::{self, Problem};
use super::{bump, dist, msrv, workspace};
use crate::codegen::project_root;

/// A copy of the workspace's sources (no `target/`, no hidden directories).
pub(super) fn copy_of_workspace() -> TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    copy_tree(&project_root(), dir.path());
    dir
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create dir");
    for entry in std::fs::read_dir(from).expect("read dir").flatten() {
        let name = entry.file_name();
        let text = name.to_string_lossy();
        if text.starts_with('.') || text == "target" {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            copy_tree(&path, &to.join(&name));
        } else {
            std::fs::copy(&path, to.join(&name)).expect("copy file");
        }
    }
}

pub(super) fn members(root: &Path) -> Vec<workspace::Package> {
    workspace::members(&workspace::metadata(root, true).expect("cargo metadata"))
}

pub(super) fn subjects(problems: &[Problem]) -> Vec<&str> {
    problems.iter().map(|p| p.subject.as_str()).collect()
}

#[test]
fn the_real_tree_passes_the_quick_checks() {
    let root = project_root();
    let members = members(&root);
    assert_eq!(check::codegen_fresh(&root), vec![]);
    assert_eq!(check::versions(&members), vec![]);
    assert_eq!(check::changelog(&root, &members), vec![]);
    assert_eq!(check::mechanism_deps(&members), vec![]);
    assert!(
        members
            .iter()
            .any(|p| p.publish && p.name == "hermes-hooks-core")
    );
    assert!(members.iter().any(|p| !p.publish && p.name == "xtask"));
}

#[test]
fn a_package_without_its_license_fails_naming_the_crate() {
    let copy = copy_of_workspace();
    std::fs::remove_file(copy.path().join("hooks-shell/LICENSE-MIT")).expect("remove");
    let problems = check::licenses(copy.path(), &members(copy.path()));
    assert!(
        subjects(&problems).contains(&"hermes-hooks-shell"),
        "{problems:?}"
    );
    assert!(
        problems.iter().all(|p| p.subject == "hermes-hooks-shell"),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.message.contains("LICENSE-MIT")),
        "{problems:?}"
    );
}

#[test]
fn an_include_list_without_the_licenses_fails_naming_the_crate() {
    let copy = copy_of_workspace();
    let manifest = copy.path().join("hooks-gateway/Cargo.toml");
    let text = std::fs::read_to_string(&manifest).expect("read");
    assert!(text.contains("    \"LICENSE-APACHE\",\n"));
    std::fs::write(&manifest, text.replace("    \"LICENSE-APACHE\",\n", "")).expect("write");
    let problems = check::licenses(copy.path(), &members(copy.path()));
    assert_eq!(
        subjects(&problems),
        vec!["hermes-hooks-gateway"],
        "{problems:?}"
    );
    assert!(
        problems[0]
            .message
            .contains("LICENSE-APACHE is not in the package")
    );
}

#[test]
fn a_stale_generated_file_fails_naming_the_file() {
    let copy = copy_of_workspace();
    let events = copy.path().join("hooks-core/docs/events.md");
    let mut text = std::fs::read_to_string(&events).expect("read");
    text.push_str("\nedited by hand\n");
    std::fs::write(&events, text).expect("write");
    let problems = check::codegen_fresh(copy.path());
    assert_eq!(
        subjects(&problems),
        vec!["hooks-core/docs/events.md"],
        "{problems:?}"
    );
    assert!(problems[0].message.contains("is stale"));
}

#[test]
fn a_mechanism_depending_on_a_sibling_fails_naming_the_crate() {
    let copy = copy_of_workspace();
    let manifest = copy.path().join("hooks-gateway/Cargo.toml");
    let text = std::fs::read_to_string(&manifest).expect("read");
    let text = text.replacen(
        "[dependencies]\n",
        "[dependencies]\nhermes-hooks-shell.workspace = true\n",
        1,
    );
    std::fs::write(&manifest, text).expect("write");
    let problems = check::mechanism_deps(&members(copy.path()));
    assert_eq!(
        subjects(&problems),
        vec!["hermes-hooks-gateway"],
        "{problems:?}"
    );
    assert!(problems[0].message.contains("hermes-hooks-shell"));
}

#[test]
fn a_published_crate_other_than_the_facade_and_the_cli_depending_on_a_mechanism_fails() {
    let copy = copy_of_workspace();
    let manifest = copy.path().join("hooks-plugin/sdk/Cargo.toml");
    let text = std::fs::read_to_string(&manifest).expect("read");
    let text = text.replacen(
        "[dependencies]\n",
        "[dependencies]\nhermes-hooks-shell.workspace = true\n",
        1,
    );
    std::fs::write(&manifest, text).expect("write");
    let problems = check::mechanism_deps(&members(copy.path()));
    assert_eq!(
        subjects(&problems),
        vec!["hermes-hooks-plugin-sdk"],
        "{problems:?}"
    );
    assert!(
        problems[0]
            .message
            .contains("only hermes-hooks and hermes-hooks-cli")
    );
}

#[test]
fn bump_sets_every_version_and_requirement_and_releases_the_changelog() {
    let copy = copy_of_workspace();
    bump::run(copy.path(), "0.2.0", "2026-12-01", false).expect("bump");
    let members = members(copy.path());
    assert!(
        members
            .iter()
            .filter(|p| p.publish)
            .all(|p| p.version == "0.2.0")
    );
    assert_eq!(check::versions(&members), vec![]);
    assert_eq!(check::changelog(copy.path(), &members), vec![]);
    let changelog = std::fs::read_to_string(copy.path().join("CHANGELOG.md")).expect("read");
    let unreleased = changelog.find("## [Unreleased]").expect("unreleased");
    let release = changelog
        .find("## [0.2.0] - 2026-12-01")
        .expect("release section");
    assert!(unreleased < release);
    // The new Unreleased section is empty: a second bump has nothing to release.
    let error = bump::run(copy.path(), "0.3.0", "2026-12-02", false).unwrap_err();
    assert!(format!("{error:#}").contains("Unreleased section is empty"));
}

#[test]
fn a_requirement_out_of_step_fails_naming_the_dependent() {
    let copy = copy_of_workspace();
    let manifest = copy.path().join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).expect("read");
    let stale = text.replace(
        "hermes-hooks-shell = { path = \"hooks-shell\", version = \"0.1.0\"",
        "hermes-hooks-shell = { path = \"hooks-shell\", version = \"0.0.9\"",
    );
    assert_ne!(stale, text);
    std::fs::write(&manifest, stale).expect("write");
    let problems = check::versions(&members(copy.path()));
    assert_eq!(
        subjects(&problems),
        vec!["hermes-hooks-cli"],
        "{problems:?}"
    );
}

#[test]
fn bump_rejects_a_bad_version_and_edits_only_members() {
    assert!(bump::is_version("1.2.3") && bump::is_version("0.2.0-rc.1"));
    assert!(!bump::is_version("1.2") && !bump::is_version("v1.2.3") && !bump::is_version("1.2.3-"));
    let manifest = "[package]\nversion = \"0.1.0\"\n\n[dependencies]\n\
                    hooks-core = { path = \"../c\", version = \"0.1.0\" }\n\
                    serde = { version = \"1\" }\n";
    let bumped = bump::bump_manifest(manifest, &["hooks-core"], "0.2.0");
    assert_eq!(
        bumped,
        "[package]\nversion = \"0.2.0\"\n\n[dependencies]\n\
         hooks-core = { path = \"../c\", version = \"0.2.0\" }\n\
         serde = { version = \"1\" }\n"
    );
    assert_eq!(bump::civil_from_days(0), (1970, 1, 1));
    assert_eq!(bump::civil_from_days(20_423), (2025, 12, 1));
}

#[test]
fn a_dependency_needing_newer_rust_fails_naming_the_member() {
    let metadata = serde_json::json!({
        "workspace_members": ["a"],
        "packages": [
            {"id": "a", "name": "hooks-a", "version": "0.1.0", "rust_version": "1.80"},
            {"id": "b", "name": "lib-b", "version": "2.0.0", "rust_version": "1.70"},
            {"id": "c", "name": "lib-c", "version": "3.1.0", "rust_version": "1.85.1"}
        ],
        "resolve": {"nodes": [
            {"id": "a", "deps": [{"pkg": "b"}]},
            {"id": "b", "deps": [{"pkg": "c"}]},
            {"id": "c", "deps": []}
        ]}
    });
    let problems = msrv::check(&metadata);
    assert_eq!(subjects(&problems), vec!["hooks-a"], "{problems:?}");
    assert!(
        problems[0]
            .message
            .contains("lib-c 3.1.0 (locked) needs 1.85.1")
    );
    assert_eq!(msrv::parse("1.89"), Some([1, 89, 0]));
    assert_eq!(msrv::parse("1.x"), None);
}

#[test]
fn dist_fails_clearly_when_the_binary_lacks_a_subcommand() {
    // `true` exits 0 and prints nothing; `false` fails: both are refused.
    let error = dist::produce(Path::new("/bin/false"), &["completions", "bash"]).unwrap_err();
    assert!(
        format!("{error:#}").contains("lacks the subcommand"),
        "{error:#}"
    );
    let error = dist::produce(Path::new("/bin/true"), &["manpage"]).unwrap_err();
    assert!(
        format!("{error:#}").contains("printed nothing"),
        "{error:#}"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("a"), b"abc").expect("write");
    assert_eq!(
        dist::sha256sums(dir.path(), &["a".to_owned()]).expect("sums"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  a\n"
    );
}

#[test]
fn the_dist_binary_stays_executable() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("temp dir");
    let binary = dir.path().join("hooks");
    std::fs::write(&binary, b"#!/bin/sh\n").expect("write");
    std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let dist = dir.path().join("dist");
    assert_eq!(dist::copy_binary(&binary, &dist).expect("copy"), "hooks");
    let mode = std::fs::metadata(dist.join("hooks"))
        .expect("metadata")
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111, "mode {mode:o}");
}
