//! The release tooling a release engineer relies on: release-check's registry
//! and URL checks (against a fake registry on 127.0.0.1), bump's refusals and
//! dry run, dist's archive. Workspace edits happen on temporary copies.

use super::tests::{copy_of_workspace, members, subjects};
use super::{bump, dist, registry, workspace};
use crate::codegen::project_root;

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
pub(super) fn fake_registry(
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

pub(super) fn publishable(name: &str) -> workspace::Package {
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

#[test]
fn the_unpacked_crates_form_one_workspace_patched_to_each_other() {
    use super::unpacked;
    let manifest = unpacked::scratch_manifest(&[
        (
            "hermes-hooks-test-support".into(),
            "hermes-hooks-test-support-0.1.0".into(),
        ),
        ("hermes-hooks-core".into(), "hermes-hooks-core-0.1.0".into()),
    ]);
    assert!(
        manifest.contains(
            "members = [\n    \"hermes-hooks-test-support-0.1.0\",\n    \"hermes-hooks-core-0.1.0\",\n]"
        ),
        "{manifest}"
    );
    assert!(
        manifest.contains(
            "[patch.crates-io]\nhermes-hooks-test-support = { path = \"hermes-hooks-test-support-0.1.0\" }\nhermes-hooks-core = { path = \"hermes-hooks-core-0.1.0\" }\n"
        ),
        "{manifest}"
    );
    assert_eq!(
        unpacked::crate_file(std::path::Path::new("/t"), "x-0.1.0"),
        std::path::Path::new("/t/package/x-0.1.0.crate")
    );
}

#[test]
fn every_published_crates_dev_dependency_on_a_workspace_crate_is_published_too() {
    // A path-only (unpublished) dev-dependency is dropped by packaging, so
    // the packaged crate's tests that use it do not compile (issue 29). The
    // example plugins are the exception: shared libraries the tests load at
    // run time (cargo builds them beside the test binaries), never linked nor
    // named in code, so the packaged tests compile without them.
    let root = project_root();
    let examples = root.join("hooks-plugin/examples");
    let members = members(&root);
    let mut unpublished = Vec::new();
    for package in members.iter().filter(|p| p.publish) {
        for dep in package
            .deps
            .iter()
            .filter(|d| d.kind.as_deref() == Some("dev"))
        {
            let target = members.iter().find(|m| m.name == dep.name);
            if target.is_some_and(|target| !target.publish && !target.dir.starts_with(&examples)) {
                unpublished.push(format!("{} -> {}", package.name, dep.name));
            }
        }
    }
    assert!(unpublished.is_empty(), "{unpublished:?}");
}
