//! Repository invariants, checked as tests (rust-analyzer's `tidy`): module
//! docs, ignored tests, file sizes, the dependency rule, license copies.

use std::path::{Path, PathBuf};

use crate::codegen::{RUST_HEADER, project_root};

/// Every `.rs` file of the workspace, skipping build output and hidden directories.
fn rust_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![project_root()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if path.is_dir() {
                if !(name.starts_with('.') || name == "target") {
                    pending.push(path);
                }
            } else if name.ends_with(".rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn shown(path: &Path) -> String {
    path.strip_prefix(project_root())
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn finds_the_workspace_sources() {
    let files = rust_files();
    assert!(files.iter().any(|path| path.ends_with("xtask/src/tidy.rs")));
    assert!(
        files
            .iter()
            .any(|path| path.ends_with("hooks-core/src/lib.rs"))
    );
}

#[test]
fn every_rust_file_starts_with_module_docs_or_the_generated_header() {
    let mut offenders = Vec::new();
    for path in rust_files() {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let first = text.lines().next().unwrap_or_default();
        let generated = first == RUST_HEADER;
        if !(first.starts_with("//!") || generated) {
            offenders.push(format!(
                "{}: first line must be a `//!` module doc",
                shown(&path)
            ));
        }
        // Generated files live in files named `generated`, so nobody edits them by mistake.
        if generated && !path.ends_with("generated.rs") {
            offenders.push(format!(
                "{}: generated code must live in `generated.rs`",
                shown(&path)
            ));
        }
    }
    assert!(offenders.is_empty(), "tidy:\n{}", offenders.join("\n"));
}

#[test]
fn no_ignored_test_without_a_reason() {
    // Built from pieces so this file does not match itself.
    let bare = concat!("#[", "ignore]");
    let mut offenders = Vec::new();
    for path in rust_files() {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for (number, line) in text.lines().enumerate() {
            if line.trim_start().starts_with(bare) {
                offenders.push(format!(
                    "{}:{}: `{bare}` needs a reason: `#[ignore = \"why\"]`",
                    shown(&path),
                    number + 1
                ));
            }
        }
    }
    assert!(offenders.is_empty(), "tidy:\n{}", offenders.join("\n"));
}

#[test]
fn no_control_character_in_a_source_file() {
    // A regex's `\b` written through a non-raw string becomes a backspace
    // (U+0008): the pattern then never matches, silently.
    let mut offenders = Vec::new();
    for path in rust_files() {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for (number, line) in text.lines().enumerate() {
            if line
                .chars()
                .any(|c| c.is_control() && c != '\t' && c != '\r')
            {
                offenders.push(format!(
                    "{}:{}: a control character; write it as an escape",
                    shown(&path),
                    number + 1
                ));
            }
        }
    }
    assert!(offenders.is_empty(), "tidy:\n{}", offenders.join("\n"));
}

/// The longest a hand-written source file may be, in lines (modules aim for ~400).
const MAX_LINES: usize = 500;

/// Generated files, exempt from [`MAX_LINES`]: one schema, many events.
const LONG_FILES: &[&str] = &[
    "hooks-core/src/catalog/generated.rs",
    "hooks-core/src/payloads/generated.rs",
];

#[test]
fn source_files_stay_under_the_line_limit() {
    let mut offenders = Vec::new();
    for path in rust_files() {
        let shown = shown(&path);
        if LONG_FILES.contains(&shown.as_str()) {
            continue;
        }
        let lines = std::fs::read_to_string(&path)
            .unwrap_or_default()
            .lines()
            .count();
        if lines > MAX_LINES {
            offenders.push(format!(
                "{shown}: {lines} lines; split it (limit {MAX_LINES}, generated files excepted)"
            ));
        }
    }
    assert!(offenders.is_empty(), "tidy:\n{}", offenders.join("\n"));
    // The allowlist names real files, so an entry cannot outlive its file unnoticed.
    for file in LONG_FILES {
        assert!(
            project_root().join(file).is_file(),
            "{file} is allowlisted but gone"
        );
    }
}

#[test]
fn no_mechanism_depends_on_a_sibling_mechanism() {
    use crate::release::{check, workspace};
    let metadata = workspace::metadata(&project_root(), true).expect("cargo metadata");
    let members = workspace::members(&metadata);
    for mechanism in workspace::MECHANISMS {
        assert!(
            members.iter().any(|p| p.name == *mechanism),
            "{mechanism} is not a workspace member; update MECHANISMS"
        );
    }
    let problems = check::mechanism_deps(&members);
    let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert!(problems.is_empty(), "tidy:\n{}", problems.join("\n"));
}

#[test]
fn license_copies_are_identical_to_the_root() {
    use crate::release::check::LICENSE_FILES;
    use crate::release::workspace;
    let root = project_root();
    let metadata = workspace::metadata(&root, true).expect("cargo metadata");
    let members = workspace::members(&metadata);
    let mut offenders = Vec::new();
    for file in LICENSE_FILES {
        let original = std::fs::read(root.join(file)).expect("root license");
        for package in &members {
            let copy = package.dir.join(file);
            if copy.is_file() && std::fs::read(&copy).ok().as_ref() != Some(&original) {
                offenders.push(format!("{}: differs from the root's {file}", shown(&copy)));
            }
        }
    }
    assert!(offenders.is_empty(), "tidy:\n{}", offenders.join("\n"));
}

/// What a host with only shell hooks and its own closures must not build:
/// an HTTP stack, TLS, the dynamic loader, the spool's SQLite, NATS.
const SHELL_ONLY_FORBIDDEN: &[&str] = &[
    "reqwest",
    "hyper",
    "hyper-util",
    "hyper-rustls",
    "rustls",
    "h2",
    "libloading",
    "rusqlite",
    "async-nats",
];

/// The crate names `cargo tree -e normal -p hermes-hooks <features>` lists.
fn facade_tree(features: &[&str]) -> std::collections::BTreeSet<String> {
    let output = std::process::Command::new(crate::release::workspace::cargo())
        .args(["tree", "--offline", "-e", "normal", "-p", "hermes-hooks"])
        .args(["--prefix", "none"])
        .args(features)
        .current_dir(project_root())
        .output()
        .expect("cargo tree");
    assert!(
        output.status.success(),
        "cargo tree: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_shell_only_host_builds_no_http_stack_and_no_dynamic_loader() {
    let shell_only = facade_tree(&["--no-default-features", "--features", "shell"]);
    assert!(shell_only.contains("hermes-hooks-shell"), "{shell_only:?}");
    let found: Vec<&&str> = SHELL_ONLY_FORBIDDEN
        .iter()
        .filter(|name| shell_only.contains(**name))
        .collect();
    assert!(
        found.is_empty(),
        "tidy: hermes-hooks with only `shell` pulls {found:?} (`cargo tree -e normal -p hermes-hooks --no-default-features --features shell -i <crate>` says why)"
    );
    // The full host has them: the check above can see them when they come.
    let full = facade_tree(&[]);
    assert!(
        full.contains("reqwest") && full.contains("libloading"),
        "{full:?}"
    );
}

/// `regex::Regex` is no part of any public API (the engine is an
/// implementation detail: `ToolPattern`, `DialectRegex` wrap it). Flags a
/// `pub` item line or a tuple variant naming `Regex` in a library's sources.
#[test]
fn no_regex_type_in_a_public_signature() {
    let names_regex = |text: &str| {
        text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|word| word == "Regex")
    };
    // What of a line is public: a `pub` item (of a tuple struct, its `pub`
    // fields only), or the payload of a tuple variant (`Name(Type),`).
    let public_part = |line: &str| -> Option<String> {
        let line = line.trim();
        if line.starts_with("pub ") && !line.starts_with("pub(") {
            if line.starts_with("pub struct ") && line.contains('(') {
                let fields = line.split_once('(').map_or("", |(_, rest)| rest);
                return Some(
                    fields
                        .split(',')
                        .filter(|field| field.trim_start().starts_with("pub "))
                        .collect::<Vec<_>>()
                        .join(","),
                );
            }
            return Some(line.to_owned());
        }
        let (name, rest) = line.split_once('(')?;
        let variant = name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && name.chars().all(|c| c.is_alphanumeric() || c == '_');
        let payload = rest.trim_end_matches(',').strip_suffix(')')?;
        (variant && !payload.contains('(')).then(|| payload.to_owned())
    };
    let mut offenders = Vec::new();
    for path in rust_files() {
        let shown_path = shown(&path);
        let library = shown_path.starts_with("hooks-") && shown_path.contains("/src/");
        let test_file = shown_path.ends_with("tests.rs") || shown_path.contains("/tests/");
        if !library || test_file {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for (index, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            if public_part(code).is_some_and(|part| names_regex(&part)) {
                offenders.push(format!("{shown_path}:{}: {}", index + 1, line.trim()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "regex::Regex in a public signature (wrap it in our own type):\n{}",
        offenders.join("\n")
    );
}
