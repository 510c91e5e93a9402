//! release-check's failure modes, bump and dist helpers, each on a temporary
//! copy of the workspace (the real tree is only read).

use std::path::Path;

use tempfile::TempDir;

use super::check::{self, Problem};
use super::{bump, dist, msrv, registry, workspace};
use crate::codegen::project_root;

/// A copy of the workspace's sources (no `target/`, no hidden directories).
fn copy_of_workspace() -> TempDir {
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

fn members(root: &Path) -> Vec<workspace::Package> {
    workspace::members(&workspace::metadata(root, true).expect("cargo metadata"))
}

fn subjects(problems: &[Problem]) -> Vec<&str> {
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

#[test]
fn placeholder_urls_are_refused_naming_crate_and_field() {
    assert_eq!(
        registry::placeholder(Some("https://github.com/o/hermes-hooks")),
        None
    );
    for bad in [
        None,
        Some(""),
        Some("  "),
        Some("https://example.invalid/hermes-hooks"),
        Some("https://www.example.com/x"),
        Some("http://user@example.org:8080/"),
        Some("ftp://github.com/o/r"),
    ] {
        assert!(registry::placeholder(bad).is_some(), "{bad:?} passed");
    }
    // Today's root Cargo.toml holds placeholders: every publishable crate is named, twice.
    let members = members(&project_root());
    let problems = registry::placeholder_urls(&members);
    let publishable = members.iter().filter(|p| p.publish).count();
    assert_eq!(problems.len(), 2 * publishable, "{problems:?}");
    assert!(problems.iter().any(|p| {
        p.subject == "hermes-hooks-core"
            && p.message
                .starts_with("repository 'https://example.invalid/hermes-hooks' is a placeholder")
    }));
    assert!(problems.iter().any(|p| p.message.starts_with("homepage ")));
}

/// A registry on 127.0.0.1 answering crates.io's API from `answers` (path →
/// status, body); returns its base URL and the requests it saw.
fn fake_registry(
    answers: Vec<(&'static str, u16, &'static str)>,
) -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = std::sync::Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut head = String::new();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                head.push_str(&line);
            }
            let path = head
                .split_whitespace()
                .nth(1)
                .unwrap_or_default()
                .to_owned();
            log.lock().expect("log").push(head);
            let (status, body) = answers
                .iter()
                .find(|(p, _, _)| *p == path)
                .map_or((404, "{\"errors\":[]}"), |(_, s, b)| (*s, *b));
            let mut stream = stream;
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (base, seen)
}

fn publishable(name: &str) -> workspace::Package {
    workspace::Package {
        name: name.to_owned(),
        version: "0.1.0".to_owned(),
        dir: project_root(),
        publish: true,
        deps: Vec::new(),
        repository: None,
        homepage: None,
    }
}

#[test]
fn a_taken_name_fails_and_free_or_own_names_pass() {
    let (base, seen) = fake_registry(vec![
        ("/api/v1/crates/hermes-hooks-shell", 200, "{\"crate\":{}}"),
        (
            "/api/v1/crates/hermes-hooks-shell/owners",
            200,
            "{\"users\":[{\"login\":\"someone-else\"}]}",
        ),
        ("/api/v1/crates/hermes-hooks-cli", 200, "{\"crate\":{}}"),
        (
            "/api/v1/crates/hermes-hooks-cli/owners",
            200,
            "{\"users\":[{\"login\":\"a\"},{\"login\":\"Us\"}]}",
        ),
    ]);
    let mut unpublished = publishable("xtask");
    unpublished.publish = false;
    let members = [
        publishable("hermes-hooks-core"),
        publishable("hermes-hooks-shell"),
        publishable("hermes-hooks-cli"),
        unpublished,
    ];
    let problems = registry::names(&members, &base, &["us".to_owned()]).expect("reachable");
    assert_eq!(
        subjects(&problems),
        vec!["hermes-hooks-shell"],
        "{problems:?}"
    );
    assert!(problems[0].message.contains("taken") && problems[0].message.contains("someone-else"));
    let seen = seen.lock().expect("log").clone();
    assert!(
        seen.iter().all(|head| head
            .to_ascii_lowercase()
            .contains("user-agent: hermes-hooks-release-check/")),
        "{seen:?}"
    );
    assert!(
        !seen.iter().any(|head| head.contains("/crates/xtask")),
        "{seen:?}"
    );
    // Nobody is ours: the two existing names are both taken.
    let problems = registry::names(&members, &base, &[]).expect("reachable");
    assert_eq!(
        subjects(&problems),
        vec!["hermes-hooks-shell", "hermes-hooks-cli"]
    );
}

#[test]
fn an_unreachable_or_odd_registry_is_not_an_answer() {
    // A port nobody listens on: an error, not "free".
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let members = [publishable("hermes-hooks-core")];
    assert!(registry::names(&members, &format!("http://127.0.0.1:{port}"), &[]).is_err());
    let (base, _) = fake_registry(vec![("/api/v1/crates/hermes-hooks-core", 503, "busy")]);
    let error = registry::names(&members, &base, &[]).unwrap_err();
    assert!(error.contains("503"), "{error}");
}

#[test]
fn bump_has_help_and_refuses_a_downgrade_or_the_same_version() {
    assert_eq!(bump::parse_args(&["--help"]).expect("parse"), None);
    assert_eq!(bump::parse_args(&["-h"]).expect("parse"), None);
    let args = bump::parse_args(&["--dry-run", "0.2.0"])
        .expect("parse")
        .expect("args");
    assert!(args.dry_run && !args.allow_dirty && args.version == "0.2.0");
    assert!(bump::parse_args(&[]).is_err() && bump::parse_args(&["--bogus", "1.0.0"]).is_err());
    use std::cmp::Ordering::*;
    assert_eq!(bump::compare_versions("0.2.0", "0.1.9"), Greater);
    assert_eq!(bump::compare_versions("0.10.0", "0.9.0"), Greater);
    assert_eq!(bump::compare_versions("1.0.0-rc.1", "1.0.0"), Less);
    assert_eq!(bump::compare_versions("1.0.0-rc.2", "1.0.0-rc.10"), Less);
    assert_eq!(bump::compare_versions("1.0.0-alpha", "1.0.0-alpha.1"), Less);
    let copy = copy_of_workspace();
    let before = std::fs::read(copy.path().join("Cargo.toml")).expect("read");
    let error = bump::run(copy.path(), "0.0.9", "2026-12-01", false).unwrap_err();
    assert!(
        format!("{error:#}").contains("refusing to downgrade"),
        "{error:#}"
    );
    let error = bump::run(copy.path(), "0.1.0", "2026-12-01", false).unwrap_err();
    assert!(
        format!("{error:#}").contains("already at 0.1.0"),
        "{error:#}"
    );
    assert_eq!(
        std::fs::read(copy.path().join("Cargo.toml")).expect("read"),
        before
    );
}

#[test]
fn a_dry_run_bump_writes_nothing() {
    let copy = copy_of_workspace();
    let read = |file: &str| std::fs::read(copy.path().join(file)).expect("read");
    let (manifest, changelog) = (read("Cargo.toml"), read("CHANGELOG.md"));
    bump::run_with(copy.path(), "0.2.0", "2026-12-01", false, true).expect("dry run");
    assert_eq!(read("Cargo.toml"), manifest);
    assert_eq!(read("CHANGELOG.md"), changelog);
}

#[test]
fn bump_refuses_a_dirty_tree() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Not a git work tree: cannot be shown clean, so refused.
    assert!(bump::ensure_clean(dir.path()).is_err());
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .arg("-C")
            .arg(dir.path())
            .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
            .args(args)
            .status()
            .expect("git");
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    std::fs::write(dir.path().join("Cargo.toml"), "[workspace]\n").expect("write");
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "init"]);
    bump::ensure_clean(dir.path()).expect("clean");
    std::fs::write(dir.path().join("Cargo.toml"), "[workspace]\n# edited\n").expect("write");
    let error = bump::ensure_clean(dir.path()).unwrap_err();
    assert!(
        format!("{error:#}").contains("uncommitted changes"),
        "{error:#}"
    );
    assert!(format!("{error:#}").contains("Cargo.toml"), "{error:#}");
}

#[test]
fn dist_archives_everything_under_its_versioned_folder() {
    use std::io::Read;
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        dist::archive_stem("0.1.0", "x86_64-unknown-linux-gnu"),
        "hermes-hooks-0.1.0-x86_64-unknown-linux-gnu"
    );
    assert!(dist::host_target().expect("rustc").contains('-'));
    let dir = tempfile::tempdir().expect("temp dir");
    let files = [
        "hooks",
        "completions/hooks.bash",
        "man/hooks.1",
        "LICENSE-MIT",
        "SHA256SUMS",
    ];
    for file in files {
        let path = dir.path().join(file);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, file.as_bytes()).expect("write");
    }
    std::fs::set_permissions(
        dir.path().join("hooks"),
        std::fs::Permissions::from_mode(0o755),
    )
    .expect("chmod");
    let archive = dir.path().join("out.tar.gz");
    let names: Vec<String> = files.iter().map(|f| (*f).to_owned()).collect();
    dist::write_archive(dir.path(), &names, "hermes-hooks-9.9.9-t", &archive).expect("archive");
    let file = std::fs::File::open(&archive).expect("open");
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let mut seen = Vec::new();
    for entry in tar.entries().expect("entries") {
        let mut entry = entry.expect("entry");
        let path = entry.path().expect("path").display().to_string();
        let mode = entry.header().mode().expect("mode");
        let mut body = String::new();
        entry.read_to_string(&mut body).expect("body");
        let inner = path.strip_prefix("hermes-hooks-9.9.9-t/").expect("prefix");
        assert_eq!(body, inner, "{path}");
        if inner == "hooks" {
            assert_eq!(mode & 0o111, 0o111, "the binary is executable: {mode:o}");
        }
        seen.push(inner.to_owned());
    }
    assert_eq!(seen, names);
}

#[test]
fn release_binaries_are_stripped_and_dist_ships_licenses_and_readme() {
    let manifest = std::fs::read_to_string(project_root().join("Cargo.toml")).expect("read");
    assert!(
        manifest.contains("[profile.release]\nstrip = true\n"),
        "the release profile strips"
    );
    for file in dist::SHIPPED_DOCS {
        assert!(project_root().join(file).is_file(), "{file}");
    }
}
