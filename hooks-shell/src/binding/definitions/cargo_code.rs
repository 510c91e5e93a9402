//! The Rust code `cargo` runs when it compiles or runs a crate (red team
//! round 62): a build script and the modules and files it includes, a
//! proc-macro crate and a build dependency reached by `path`, a workspace
//! member's build script; and for `cargo test`, `run` and `bench`, every
//! crate's own code (`src`, `tests`, `examples`, `benches`). A subcommand
//! that only compiles (`check`, `clippy`, `build`) runs the build scripts
//! and proc macros, not the crate's code: an edit of `src/` asks again only
//! where it runs.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use super::Reached;

/// Subcommands that compile the crates (running build scripts and proc
/// macros).
const COMPILES: &[&str] = &[
    "build",
    "b",
    "check",
    "c",
    "clippy",
    "doc",
    "d",
    "rustc",
    "rustdoc",
    "fix",
    "package",
    "publish",
    "install",
    "test",
    "t",
    "run",
    "r",
    "bench",
    "miri",
    "nextest",
    "llvm-cov",
    "tarpaulin",
];

/// Subcommands that neither compile nor run the crates.
const NOTHING_RUNS: &[&str] = &[
    "fmt",
    "tree",
    "metadata",
    "search",
    "update",
    "fetch",
    "generate-lockfile",
    "new",
    "init",
    "add",
    "remove",
    "locate-project",
    "pkgid",
    "verify-project",
    "version",
    "help",
    "login",
    "logout",
    "owner",
    "yank",
    "vendor",
    "config",
    "report",
    "uninstall",
    "clean",
    "read-manifest",
    "info",
];

/// Subcommands that also run the crates' own code.
const RUNS: &[&str] = &[
    "test",
    "t",
    "run",
    "r",
    "bench",
    "miri",
    "nextest",
    "llvm-cov",
    "tarpaulin",
];

/// How many crates deep `path` dependencies are followed.
const MAX_DEPTH: usize = 4;

/// The most crates read for one command.
const MAX_CRATES: usize = 64;

/// Binds what `cargo` given `words` (its words that are no options) runs
/// of the crates whose `Cargo.toml` is among `manifests` (see the module
/// documentation).
pub(super) fn read(
    (words, given): (&[String], &super::options::Read),
    manifests: &[PathBuf],
    (project_hook, depth): (bool, usize),
    found: &mut Reached,
) {
    let Some(subcommand) = words.first() else {
        return;
    };
    // `cargo fmt`, `cargo tree`: nothing of the crates runs.
    if NOTHING_RUNS.contains(&subcommand.as_str()) {
        return;
    }
    // An alias or a plugin (`cargo lint` = `["test"]`: round 63) may run
    // anything: read as running the crates' code.
    let runs = RUNS.contains(&subcommand.as_str()) || !COMPILES.contains(&subcommand.as_str());
    let mut seen: Vec<PathBuf> = Vec::new();
    let roots = manifests
        .iter()
        .filter(|m| m.file_name().is_some_and(|n| n == "Cargo.toml") && m.is_file());
    for manifest in roots {
        if let Some(folder) = manifest.parent() {
            let reading = Reading {
                runs,
                project_hook,
                depth,
            };
            read_crate(folder, (reading, false), 0, &mut seen, found);
            // The crates its settings put in place of a registry's
            // (round 67): `[patch]`, `paths`, a vendored `directory`.
            let given = super::cargo_config::given_settings(given, folder);
            for replaced in super::cargo_config::replacing_crates(manifests, &given, found) {
                let reading = Reading {
                    runs,
                    project_hook,
                    depth,
                };
                read_crate(&replaced, (reading, false), 1, &mut seen, found);
            }
        }
    }
}

/// Binds what compiling (and, `runs`, running) the crate in `folder`
/// runs; `all`: its whole code runs when it compiles (a proc macro, a
/// build dependency).
fn read_crate(
    folder: &Path,
    (reading, all): (Reading, bool),
    depth: usize,
    seen: &mut Vec<PathBuf>,
    found: &mut Reached,
) {
    let folder = crate::binding::normalize(folder);
    if depth > MAX_DEPTH || seen.len() >= MAX_CRATES || seen.contains(&folder) {
        return;
    }
    seen.push(folder.clone());
    let manifest = folder.join("Cargo.toml");
    found.add(manifest.clone());
    let table = super::follow::read_or_refuse(&manifest, found)
        .and_then(|text| text.parse::<toml::Table>().ok());
    let Some(table) = table else {
        if std::fs::symlink_metadata(&manifest).is_ok() {
            found.unsure("cargo", "a Cargo.toml that cannot be read whole");
        }
        return;
    };
    let proc_macro = table
        .get("lib")
        .and_then(|lib| lib.get("proc-macro").or_else(|| lib.get("proc_macro")))
        .and_then(toml::Value::as_bool)
        .unwrap_or(false);
    let build = table
        .get("package")
        .and_then(|package| package.get("build"))
        .and_then(toml::Value::as_str)
        .unwrap_or("build.rs");
    build_script(&folder.join(build), reading, found);
    if reading.runs || all || proc_macro {
        for code in ["src", "tests", "examples", "benches"] {
            found.add(folder.join(code));
            // `#[path = "../lib/x.rs"] mod x;`: a module outside them
            // (round 64).
            for file in rust_files(&folder.join(code)) {
                named_by_path(&file, &folder, 0, found);
            }
        }
    }
    // What a proc macro or build dependency depends on runs with it.
    for (dependency, whole) in path_dependencies(&table, &folder) {
        let whole = whole || all || proc_macro;
        read_crate(&dependency, (reading, whole), depth + 1, seen, found);
    }
}

/// `mod x;`: a module file beside.
static MODULE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bmod\s+(?:r#)?([A-Za-z_][A-Za-z0-9_]*)\s*;").expect("valid regex")
});
/// `include!("…")`, `#[path = "…"]`: a file by a literal path.
static LITERAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?:\binclude(?:_str|_bytes)?!\s*\(|#\s*\[\s*path\s*=)\s*"([^"]*)""#)
        .expect("valid regex")
});
/// `include!(concat!(…))`: a file named when it compiles.
static BUILT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\binclude(?:_str|_bytes)?!\s*\(\s*[^\s\x22]").expect("valid regex")
});

/// Binds a build script and the files it names by `mod`, `#[path]` or
/// `include!`; one that includes a file named when it compiles
/// (`include!(concat!(…))`) cannot be approved.
fn build_script(script: &Path, reading: Reading, found: &mut Reached) {
    rust_file(script, reading, 0, found);
}

/// Binds `file`, Rust a build script compiles (`depth` files down), and
/// the files it names by `mod`, `#[path]` or `include!` in turn.
fn rust_file(file: &Path, reading: Reading, depth: usize, found: &mut Reached) {
    let script = file;
    found.add(script.to_path_buf());
    if depth > 4 {
        return;
    }
    let Some(text) = super::follow::read_or_refuse(script, found) else {
        return;
    };
    let Some(folder) = script.parent() else {
        return;
    };
    // `for f in read_dir("tools") { Command::new(f) }`: what it lists runs.
    if found.computed.is_none() && text.contains("read_dir") && text.contains("Command") {
        found.computed = Some(format!(
            "{} starts programs from a folder it lists when it compiles",
            script.display()
        ));
    }
    if found.computed.is_none()
        && let Some(built) = BUILT.find(&text)
    {
        found.computed = Some(format!(
            "{} includes a file named when it compiles (`{}`)",
            script.display(),
            built.as_str()
        ));
    }
    for name in MODULE.captures_iter(&text).filter_map(|c| c.get(1)) {
        let module = folder.join(format!("{}.rs", name.as_str()));
        rust_file(&module, reading, depth + 1, found);
        rust_file(
            &folder.join(name.as_str()).join("mod.rs"),
            reading,
            depth + 1,
            found,
        );
    }
    for literal in LITERAL.captures_iter(&text).filter_map(|c| c.get(1)) {
        let named = crate::binding::normalize(&folder.join(literal.as_str()));
        match named.extension().is_some_and(|ending| ending == "rs") {
            true => rust_file(&named, reading, depth + 1, found),
            false => found.add(named),
        }
    }
    // `Command::new("make")`: what it starts, in the crate's folder.
    for words in crate::binding::shell::runners_named(&text).iter().take(16) {
        if let Ok(line) = shlex::try_join(words.iter().map(String::as_str)) {
            let at = reading.depth + 1;
            super::reached_within(&line, folder, reading.project_hook, found, at);
        }
    }
}

/// Binds the files the crate code `file` names by a literal path
/// (`#[path = "…"]`, `include!("…")`) outside the crate's code folders
/// (bound whole already), and what those name in turn.
fn named_by_path(file: &Path, crate_folder: &Path, depth: usize, found: &mut Reached) {
    let Some(text) = super::follow::read_or_refuse(file, found) else {
        return;
    };
    let Some(folder) = file.parent() else {
        return;
    };
    // `Command::new("make").arg("lint")` in a test or the program: what it
    // starts, from the crate's folder (where `cargo test` runs tests) and
    // where cargo started (round 72: a test's `make` ran unbound).
    if depth == 0 && text.contains("Command") {
        let top = found.top.clone();
        for words in crate::binding::shell::runners_named(&text).iter().take(16) {
            if let Ok(line) = shlex::try_join(words.iter().map(String::as_str)) {
                for dir in [crate_folder, top.as_path()] {
                    super::follow::recipe_files(&line, dir, found);
                    super::reached_within(&line, dir, false, found, 1);
                }
            }
        }
    }
    for literal in LITERAL.captures_iter(&text).filter_map(|c| c.get(1)) {
        let named = crate::binding::normalize(&folder.join(literal.as_str()));
        let inside = ["src", "tests", "examples", "benches"]
            .iter()
            .any(|code| named.starts_with(crate_folder.join(code)));
        if !inside && !found.roots.contains(&named) {
            found.add(named.clone());
            if depth < 4 {
                named_by_path(&named, crate_folder, depth + 1, found);
            }
        }
    }
}

/// The `.rs` files under `folder` (its first 2048 entries).
fn rust_files(folder: &Path) -> Vec<PathBuf> {
    let (files, _) = super::walk::files_under(folder, 2048, &|_| false);
    let rust = |file: &PathBuf| file.extension().is_some_and(|ending| ending == "rs");
    files.into_iter().filter(rust).collect()
}

/// How a command's crates are read.
#[derive(Clone, Copy)]
struct Reading {
    /// The subcommand runs the crates' own code too.
    runs: bool,
    /// The hook is a project's.
    project_hook: bool,
    /// How deep the command's reading is.
    depth: usize,
}

/// The crate folders `table` (a `Cargo.toml` in `folder`) reaches by a
/// `path` (its dependencies of every kind, patches, workspace members and
/// their globs' folders), each with whether its whole code runs when this
/// crate compiles (a build dependency).
fn path_dependencies(table: &toml::Table, folder: &Path) -> Vec<(PathBuf, bool)> {
    let mut found = Vec::new();
    let mut stack: Vec<(&toml::Value, bool, usize)> = table
        .iter()
        .map(|(key, value)| (value, key.contains("build-dependencies"), 0))
        .collect();
    while let Some((value, build, depth)) = stack.pop() {
        if depth > 8 || found.len() >= MAX_CRATES {
            continue;
        }
        let toml::Value::Table(inner) = value else {
            continue;
        };
        for (key, item) in inner {
            let build = build || key.contains("build-dependencies");
            match (key.as_str(), item) {
                ("path", toml::Value::String(path)) => found.push((folder.join(path), build)),
                ("members", toml::Value::Array(members)) => {
                    for member in members.iter().filter_map(toml::Value::as_str) {
                        found.extend(
                            member_folders(folder, member)
                                .into_iter()
                                .map(|f| (f, false)),
                        );
                    }
                }
                _ => stack.push((item, build, depth + 1)),
            }
        }
    }
    found
        .into_iter()
        .filter(|(crate_folder, _)| crate_folder.join("Cargo.toml").is_file())
        .collect()
}

/// The folders a workspace `member` (`crates/a`, `crates/*`) names.
fn member_folders(folder: &Path, member: &str) -> Vec<PathBuf> {
    let Some(parent) = member.strip_suffix("/*") else {
        return vec![folder.join(member)];
    };
    std::fs::read_dir(folder.join(parent))
        .into_iter()
        .flatten()
        .flatten()
        .take(MAX_CRATES)
        .map(|entry| entry.path())
        .filter(|path| path.is_dir())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::read;
    use crate::binding::definitions::Reached;

    #[test]
    fn build_scripts_proc_macros_and_build_dependencies_are_bound() {
        let dir = tempfile::tempdir().expect("dir");
        let at = |path: &str, text: &str| {
            let file = dir.path().join(path);
            std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
            std::fs::write(file, text).expect("write");
        };
        at(
            "Cargo.toml",
            "[package]\nname='p'\n[dependencies]\nm={path='m'}\n[build-dependencies]\nh={path='h'}\n",
        );
        at("build.rs", "mod x;\nfn main() { h::f() }\n");
        at("x.rs", "");
        at(
            "m/Cargo.toml",
            "[package]\nname='m'\n[lib]\nproc-macro=true\n",
        );
        at("h/Cargo.toml", "[package]\nname='h'\n");
        let words = |w: &str| vec![w.to_owned()];
        let mut found = Reached::default();
        read(
            (&words("check"), &Default::default()),
            &[dir.path().join("Cargo.toml")],
            (false, 0),
            &mut found,
        );
        for bound in ["x.rs", "m/src", "h/src", "build.rs"] {
            assert!(
                found.roots.contains(&dir.path().join(bound)),
                "{bound}: {:?}",
                found.roots
            );
        }
        assert!(
            !found.roots.contains(&dir.path().join("src")),
            "{:?}",
            found.roots
        );
        let mut found = Reached::default();
        read(
            (&words("test"), &Default::default()),
            &[dir.path().join("Cargo.toml")],
            (false, 0),
            &mut found,
        );
        assert!(found.roots.contains(&dir.path().join("src")));
        at("build.rs", "include!(concat!(\"to\", \"ols/b.rs\"));\n");
        let mut found = Reached::default();
        read(
            (&words("check"), &Default::default()),
            &[dir.path().join("Cargo.toml")],
            (false, 0),
            &mut found,
        );
        assert!(found.computed.is_some());
    }
}
