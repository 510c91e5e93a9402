//! Programs that find the code they run by listing folders, not by name:
//! test runners (`python3 -m unittest discover`, `pytest`, `prove`, `node
//! --test`, `jest`, `npm test` through `package.json`: red team round 25,
//! R25a-9, R25b-4), jq's module search (`-L dir`, `import`/`include`:
//! R25b-2) and `find DIR … -exec sh {}` / `find DIR | xargs sh` (R25b-5). A
//! file added later where they look runs inside the approved hook, though
//! nothing names it: each code file under the folders they search is bound
//! (by name and content, one digest per folder), so adding or changing one
//! asks again. The git settings a `git` may read are bound here too
//! ([`super::git_dirs`]).

use std::path::{Path, PathBuf};

use super::BindError;
use super::python_shadows::bound_digest;
use super::search_path::Spoken;

mod folders;
mod started;
use folders::{find_starts, jq_folders, listed, run_parts_folders};

/// The most entries walked under one folder.
const MAX_WALKED: usize = 100_000;

/// What the digest of the settings test runners read is named for.
const SETTINGS_KEY: &str = "settings test runners read here and above";

/// Endings of the code each kind of runner finds.
const PYTHON: &[&str] = &["py", "pth"];
const PERL: &[&str] = &["t", "pl", "pm", "pmc"];
const NODE: &[&str] = &["js", "cjs", "mjs", "ts", "cts", "mts", "jsx", "tsx"];
const JQ: &[&str] = &["jq", "json"];

/// Binds in `mentioned` the code under each folder a runner in `spoken` (or
/// in a manifest among `roots`: `package.json` scripts, a makefile) finds
/// files in.
pub(super) fn bind(
    spoken: &Spoken,
    roots: &[PathBuf],
    named: &[PathBuf],
    (cwd, project): (&Path, &Path),
    mentioned: &mut std::collections::BTreeMap<PathBuf, String>,
) -> Result<(), BindError> {
    let mut tokens: Vec<String> = spoken.tokens.iter().map(|(t, _)| t.clone()).collect();
    for root in roots {
        if let Some(text) = super::peek::small_text(root) {
            tokens.extend(
                text.split(|c: char| c.is_whitespace() || "\";&|()!".contains(c))
                    .map(str::to_owned),
            );
        }
    }
    let mut searched: Vec<(PathBuf, &'static [&'static str], &'static str)> = Vec::new();
    let mut bases = vec![cwd.to_path_buf()];
    bases.extend(spoken.cd_targets(cwd, project).0);
    let has = |word: &str| {
        tokens
            .iter()
            .any(|token| token == word || token.ends_with(&format!("/{word}")))
    };
    let discovers_python = tokens
        .windows(2)
        .any(|pair| pair[0] == "-m" && pair[1] == "unittest")
        && !tokens
            .iter()
            .any(|t| t.ends_with(".py") || t.starts_with("test_") && !t.contains('/'))
        || has("discover")
        || has("pytest")
        || has("py.test")
        || tokens
            .windows(2)
            .any(|pair| pair[0] == "-m" && pair[1] == "pytest");
    if discovers_python {
        searched.extend(
            bases
                .iter()
                .map(|base| (base.clone(), PYTHON, "Python tests")),
        );
    }
    // pytest runs text files as doctests: `test*.txt`, or what its
    // `--doctest-glob` says (round 65).
    let pytest = has("pytest")
        || has("py.test")
        || tokens
            .windows(2)
            .any(|pair| pair[0] == "-m" && pair[1] == "pytest");
    if pytest {
        searched.extend(bases.iter().map(|base| (base.clone(), &[][..], DOCTESTS)));
    }
    if has("prove") {
        searched.extend(bases.iter().map(|base| (base.clone(), PERL, "Perl tests")));
    }
    let node_runner = ["jest", "vitest", "mocha", "ava", "tap"];
    if node_runner.iter().any(|runner| has(runner)) {
        searched.extend(bases.iter().map(|base| (base.clone(), NODE, "Node tests")));
    } else if has("--test") {
        searched.extend(bases.iter().map(|base| (base.clone(), NODE, NODE_TESTS)));
    }
    // The settings those runners read, and the folders they name (R25b-4).
    let runners: Vec<_> = searched.iter().map(|(_, e, w)| (*e, *w)).collect();
    let mut node_tests: Vec<PathBuf> = Vec::new();
    let mut rooted: Vec<PathBuf> = Vec::new();
    let mut doctests = vec!["test*.txt".to_owned()];
    if !runners.is_empty() {
        let (mut files, folders) = super::runner_settings::read(&bases, project);
        if runners.iter().any(|(endings, _)| *endings == NODE) {
            let under: Vec<PathBuf> = bases.iter().chain(&folders).cloned().collect();
            let walk = |folder: &Path| {
                let listed = code_under(folder, &[], false)?;
                Ok(listed.into_iter().map(|(_, path)| path).collect())
            };
            for (shown, path) in super::runner_settings::node_settings_below(&under, project, walk)?
            {
                if !files.iter().any(|(_, known)| *known == path) {
                    files.push((shown, path));
                }
            }
        }
        let settings = files.iter().map(|(_, path)| path);
        doctests.extend(super::runner_settings::doctest_globs(
            &tokens, settings, cwd,
        )?);
        // What a Node runner's settings load (`require: ./r.js`,
        // `setupFiles`, a JS config's own `require`): read as its tests'
        // code is (round 65: none was bound).
        if runners.iter().any(|(endings, _)| *endings == NODE) {
            let loaded = files.iter().map(|(_, path)| path);
            node_tests.extend(
                loaded
                    .filter(|p| super::runner_settings::loads_code(p))
                    .cloned(),
            );
            // A `package.json`'s `jest` key too, and the preset a
            // settings file names (round 66).
            let manifests = files.iter().map(|(_, path)| path.clone());
            let manifests = manifests.filter(|p| p.ends_with("package.json") && p.is_file());
            let mut settings: Vec<PathBuf> = node_tests.iter().cloned().chain(manifests).collect();
            // A settings file one names (`extends: "./b.json"`) is read as
            // one too (round 67), a few deep.
            let mut at = 0;
            // Settings a settings file builds itself from (`require("./b")`).
            let mut composed: Vec<PathBuf> = Vec::new();
            while at < settings.len() && at < MAX_SETTINGS_READ {
                let path = settings[at].clone();
                at += 1;
                let root = path.parent().unwrap_or(project);
                let as_settings =
                    super::runner_settings::loads_code(&path) || composed.contains(&path);
                if as_settings {
                    for file in super::runner_settings::composed_of(&path)? {
                        if !composed.contains(&file) && file.starts_with(project) {
                            composed.push(file.clone());
                            // Read (again) as settings.
                            settings.push(file);
                        }
                    }
                }
                let named = super::runner_settings::rooted_as(&path, root, as_settings)?;
                for file in named.iter().filter(|file| settings_file(file, project)) {
                    if !settings.contains(file) {
                        settings.push(file.clone());
                    }
                }
                rooted.extend(named);
                // `extends: "cfg/base.json"`, a preset package's file: read
                // in turn too (round 68).
                let packages = super::runner_settings::packages(&path)?;
                for file in packages.iter().filter(|file| settings_file(file, project)) {
                    if !settings.contains(file) {
                        settings.push(file.clone());
                    }
                }
                rooted.extend(packages);
                for preset in super::runner_settings::presets(&path)? {
                    rooted.extend(super::runner_settings::rooted(&preset, root)?);
                    rooted.push(preset);
                }
            }
        }
        let (key, digest) = bound_digest(project, files, &[], SETTINGS_KEY)?;
        mentioned.insert(key, digest);
        for folder in folders {
            searched.extend(runners.iter().map(|(e, w)| (folder.clone(), *e, *w)));
        }
    }
    if has("cfn-lint") {
        let rules = super::runner_settings::cfn_lint_rules(&tokens, &bases, project);
        bind_rule_code(&rules, (cwd, project), mentioned)?;
        for folder in rules {
            searched.push((folder, PYTHON, "cfn-lint rules"));
        }
    }
    if has("jq") {
        for folder in jq_folders(&tokens, named, &bases) {
            searched.push((folder, JQ, "jq modules"));
        }
    }
    for folder in listed(named, &bases) {
        searched.push((folder, &[], "files its code lists and may load"));
    }
    for folder in find_starts(&tokens, &bases) {
        searched.push((folder, &[], "files find runs"));
    }
    for folder in run_parts_folders(&tokens, &bases) {
        searched.push((folder, &[], "files run-parts runs"));
    }
    if let Some((key, digest)) = super::git_dirs::bind(&tokens, &bases, project)? {
        mentioned.insert(key, digest);
    }
    let mut done: Vec<(PathBuf, &str)> = Vec::new();
    // The tests found: what they start is read too.
    let mut tests: Vec<PathBuf> = Vec::new();
    for (folder, endings, what) in searched {
        let folder = super::normalize(&folder);
        if !folder.starts_with(project) || done.contains(&(folder.clone(), what)) {
            continue;
        }
        done.push((folder.clone(), what));
        // Node's runner looks in dot folders too (`.hidden/test/x.js`: R34-6).
        let mut files = code_under(&folder, endings, what == NODE_TESTS)?;
        if what == NODE_TESTS {
            files.retain(|(shown, _)| node_test_file(shown));
        }
        if what == DOCTESTS {
            let named = |path: &PathBuf| {
                let name = path.file_name().unwrap_or_default().to_string_lossy();
                let wildcard = crate::binding::globbing::wildcard;
                doctests.iter().any(|glob| wildcard(glob, &name))
            };
            files.retain(|(_, path)| named(path));
        }
        // What every run would read: a repository of many big test files
        // cannot make each `emit` hash gigabytes (bigger files are bound by
        // their metadata).
        let read: u64 = files
            .iter()
            .filter_map(|(_, path)| std::fs::metadata(path).ok())
            .map(|meta| meta.len())
            .filter(|len| *len <= super::python_shadows::MAX_HASHED)
            .sum();
        if read > super::MAX_TREE_BYTES {
            return Err(BindError::TreeTooLarge(folder));
        }
        // What Node's tests `require` (`./lib.js`, a package in
        // `node_modules`): read as a hook's own code is (round 51, t17, t20).
        if what == NODE_TESTS || what == "Node tests" {
            node_tests.extend(files.iter().map(|(_, path)| path.clone()));
        }
        if [NODE_TESTS, "Node tests", "Python tests", "Perl tests"].contains(&what) {
            tests.extend(files.iter().map(|(_, path)| path.clone()));
        }
        let key_what = format!("{what} found under this folder ({} files)", files.len());
        let (key, digest) = bound_digest(&folder, files, &[], &key_what)?;
        let key = key
            .parent()
            .map_or(key.clone(), |p| p.join(format!("<{key_what}>")));
        mentioned.insert(key, digest);
    }
    if !node_tests.is_empty() {
        let mut named = super::mentions::named_files(project, cwd, "", &node_tests, &[])?;
        named.extend(rooted.into_iter().filter(|file| file.starts_with(project)));
        // What the files they name load in turn (`setupFiles: ["./s.js"]`).
        let loaded: Vec<PathBuf> = node_tests.iter().chain(&named).cloned().collect();
        // What a setup file or a module a test requires starts (round 73:
        // Jest's `setupFiles` running `make`).
        tests.extend(
            loaded
                .iter()
                .filter(|file| !tests.contains(file))
                .cloned()
                .collect::<Vec<_>>(),
        );
        super::named_digests::bind_named_files(named, project, mentioned)?;
        super::node_chain::bind(loaded.iter(), project, mentioned)?;
    }
    started::bind(&tests, (cwd, project), mentioned)?;
    Ok(())
}

/// The most settings files of Node runners read, those they name too.
const MAX_SETTINGS_READ: usize = 64;

/// Whether `file`, named by a runner's settings, is a settings file of
/// the project present now that may name more (`.json`, `.js`, `.cjs`).
fn settings_file(file: &Path, project: &Path) -> bool {
    let ending = file.extension().and_then(|e| e.to_str()).unwrap_or("");
    file.starts_with(project) && file.is_file() && matches!(ending, "json" | "js" | "cjs" | "mjs")
}

/// Reads the Python files under the rule `folders` cfn-lint imports as a
/// hook's own code is read: what they import from outside the folder
/// (`sys.path.insert(0, "lib")`, a path from `__file__`) and name is bound
/// (red team R35-7).
fn bind_rule_code(
    folders: &[PathBuf],
    (cwd, project): (&Path, &Path),
    mentioned: &mut std::collections::BTreeMap<PathBuf, String>,
) -> Result<(), BindError> {
    let mut rules = Vec::new();
    for folder in folders.iter().map(|folder| super::normalize(folder)) {
        if folder.starts_with(project) {
            rules.extend(
                code_under(&folder, &["py"], false)?
                    .into_iter()
                    .map(|(_, p)| p),
            );
        }
    }
    rules.sort();
    rules.dedup();
    if rules.is_empty() {
        return Ok(());
    }
    let named = super::mentions::named_files(project, cwd, "", &rules, &[])?;
    super::named_digests::bind_named_files(named, project, mentioned)
}

/// What `node --test` runs: the files named as its test patterns say
/// (red team R33-7: every `.js` of the project was bound, so a new
/// `src/app.js` asked again).
const NODE_TESTS: &str = "Node tests";

/// What pytest runs as doctests: the text files its globs match.
const DOCTESTS: &str = "pytest doctest files";

/// Whether `shown` (a path under the folder searched) is a file `node
/// --test` runs: `x.test.js`, `x-test.js`, `x_test.js`, `test-x.js`,
/// `test.js`, or any script under a `test` folder (`tests` too: wider).
fn node_test_file(shown: &str) -> bool {
    let mut parts: Vec<&str> = shown.split('/').collect();
    let name = parts.pop().unwrap_or_default();
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    let under_test = parts.iter().any(|part| matches!(*part, "test" | "tests"));
    under_test
        || stem == "test"
        || stem.starts_with("test-")
        || [".test", "-test", "_test"]
            .iter()
            .any(|end| stem.ends_with(end))
}

/// The files under `folder` ending in one of `endings` (every file when
/// empty), by their path from it; folders whose name starts with `.`,
/// `node_modules` and `__pycache__` are not entered.
fn code_under(
    folder: &Path,
    endings: &[&str],
    dot_folders: bool,
) -> Result<Vec<(String, PathBuf)>, BindError> {
    let mut found = Vec::new();
    let mut pending = vec![folder.to_path_buf()];
    let mut walked = 0usize;
    while let Some(dir) = pending.pop() {
        let Ok(listing) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in listing.flatten() {
            walked += 1;
            if walked > MAX_WALKED {
                return Err(BindError::TreeTooLarge(folder.to_path_buf()));
            }
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                let dotted = name.starts_with('.') && (!dot_folders || name == ".git");
                if !dotted && name != "node_modules" && name != "__pycache__" {
                    pending.push(path);
                }
                continue;
            }
            let ending = name.rsplit_once('.').map(|(_, ending)| ending);
            if endings.is_empty() || ending.is_some_and(|ending| endings.contains(&ending)) {
                let shown = path
                    .strip_prefix(folder)
                    .unwrap_or(&path)
                    .display()
                    .to_string();
                found.push((shown, path));
            }
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_file_added_where_a_runner_looks_changes_the_binding() {
        let project = tempfile::tempdir().expect("project");
        let p = project.path();
        std::fs::create_dir_all(p.join("tests")).expect("tests");
        std::fs::write(p.join("tests/test_a.py"), "x = 1\n").expect("test");
        let bound = |command: &str| {
            let words: Vec<String> = vec![command.to_owned()];
            let spoken = Spoken::new(&words, &[], p, p);
            let mut mentioned = std::collections::BTreeMap::new();
            bind(&spoken, &[], &[], (p, p), &mut mentioned).expect("bound");
            // The runner's settings files are bound beside (runner_settings).
            mentioned.retain(|key, _| !key.to_string_lossy().contains(SETTINGS_KEY));
            mentioned
        };
        let command = "python3 -m unittest discover -s tests";
        let before = bound(command);
        assert_eq!(before.len(), 1, "{before:?}");
        assert!(bound("python3 -m unittest tests/test_a.py").is_empty());
        std::fs::write(p.join("tests/test_b.py"), "x = 2\n").expect("added");
        assert_ne!(bound(command), before);
        std::fs::create_dir_all(p.join("hooks")).expect("hooks");
        let find = "find hooks -type f -exec sh {} ;";
        let before = bound(find);
        std::fs::write(p.join("hooks/x.sh"), "echo\n").expect("added");
        assert_ne!(bound(find), before);
        assert!(bound("find hooks -name '*.sh' -exec sh {} ;").is_empty());
    }

    #[test]
    fn node_runs_the_files_its_test_patterns_name() {
        for shown in [
            "a.test.js",
            "src/a-test.mjs",
            "a_test.cjs",
            "test-a.js",
            "test.js",
            "test/x/a.js",
        ] {
            assert!(node_test_file(shown), "{shown}");
        }
        for shown in ["src/app.js", "contest.js", "testing/a.js", "latest.js"] {
            assert!(!node_test_file(shown), "{shown}");
        }
    }

    #[test]
    fn a_folder_code_globs_is_listed() {
        // Its regex once held backspaces where `\b` was meant: `glob`
        // alone never matched.
        let project = tempfile::tempdir().expect("project");
        let p = project.path();
        std::fs::create_dir_all(p.join("plugins")).expect("plugins");
        let code = "import glob, os\nfor f in glob.glob(os.path.join('plugins', '*.py')):\n    exec(open(f).read())\n";
        std::fs::write(p.join("load.py"), code).expect("code");
        let folders = listed(&[p.join("load.py")], &[p.to_path_buf()]);
        assert_eq!(folders, [p.join("plugins")]);
    }

    #[test]
    fn more_code_than_a_run_may_read_cannot_be_bound() {
        let project = tempfile::tempdir().expect("project");
        let p = project.path();
        std::fs::create_dir_all(p.join("tests")).expect("tests");
        for at in 0..5 {
            let file = std::fs::File::create(p.join(format!("tests/test_{at}.py"))).expect("file");
            file.set_len(15 << 20).expect("sparse");
        }
        let words = vec!["python3 -m pytest".to_owned()];
        let spoken = Spoken::new(&words, &[], p, p);
        let mut mentioned = std::collections::BTreeMap::new();
        let bound = bind(&spoken, &[], &[], (p, p), &mut mentioned);
        assert!(
            matches!(bound, Err(BindError::TreeTooLarge(_))),
            "{bound:?}"
        );
    }
}
