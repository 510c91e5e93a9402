//! Repository invariants, checked as tests (rust-analyzer's `tidy`).

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
