//! The settings a discovering test runner reads beside the folder it runs
//! in and above it, up to the project's top: `pytest.ini`, `pyproject.toml`,
//! `tox.ini`, `setup.cfg`, each `conftest.py` pytest loads on the way
//! down, `package.json` and the Node runners' config files, `.proverc`.
//! Each is bound by content, present or not (one added later asks again),
//! and each project folder their words name (`testpaths = ../checks`,
//! `pythonpath = lib`, `roots: ["../x"]`) is searched for code as the
//! folder the runner runs in is (red team round 26, R25b-4).

use std::path::{Path, PathBuf};

use super::BindError;

mod js_names;

/// The files test runners read their settings from.
const SETTINGS: &[&str] = &[
    "pytest.ini",
    ".pytest.ini",
    "pyproject.toml",
    "tox.ini",
    "setup.cfg",
    "conftest.py",
    "package.json",
    ".mocharc.json",
    ".mocharc.jsonc",
    ".mocharc.yml",
    ".mocharc.yaml",
    ".mocharc.js",
    ".mocharc.cjs",
    "jest.config.js",
    "jest.config.cjs",
    "jest.config.mjs",
    "jest.config.ts",
    "jest.config.json",
    "vitest.config.ts",
    "vitest.config.js",
    ".taprc",
    ".proverc",
    // Babel's, which Jest's default transform loads (round 67).
    "babel.config.js",
    "babel.config.cjs",
    "babel.config.mjs",
    "babel.config.cts",
    "babel.config.json",
    ".babelrc",
    ".babelrc.js",
    ".babelrc.cjs",
    ".babelrc.mjs",
    ".babelrc.json",
];

/// The starts of the names of the Node runners' (and Babel's) settings
/// files that name or are code they load.
const NODE_SETTINGS: [&str; 6] = [
    ".mocharc.",
    "jest.config.",
    "vitest.config.",
    ".taprc",
    "babel.config.",
    ".babelrc",
];

/// Whether `path` is a Node runner's own settings file present now, one
/// that names or is code it loads (`.mocharc.yml`'s `require:`, a
/// `jest.config.js`).
pub(super) fn loads_code(path: &Path) -> bool {
    path.is_file() && node_settings_name(path)
}

/// Whether `path` is named as a Node runner's or Babel's settings file.
fn node_settings_name(path: &Path) -> bool {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    NODE_SETTINGS.iter().any(|start| name.starts_with(start))
}

/// The Node runners' and Babel's settings files anywhere under `folders`
/// (`node_modules` and dot folders left out), and each `package.json`
/// there: Jest's `projects` each read their own (`p1/jest.config.js`,
/// by a glob too), and Babel reads a `.babelrc` beside each file it
/// transforms (round 67: none was bound). `walk` lists a folder's files.
pub(super) fn node_settings_below(
    folders: &[PathBuf],
    project: &Path,
    walk: impl Fn(&Path) -> Result<Vec<PathBuf>, BindError>,
) -> Result<Vec<(String, PathBuf)>, BindError> {
    let mut found = Vec::new();
    for folder in folders.iter().filter(|folder| folder.starts_with(project)) {
        for path in walk(folder)? {
            let manifest = path.file_name().is_some_and(|name| name == "package.json");
            if manifest || node_settings_name(&path) {
                let shown = path.strip_prefix(project).unwrap_or(&path);
                found.push((shown.display().to_string(), path));
            }
        }
    }
    found.sort();
    found.dedup();
    Ok(found)
}

/// The name patterns pytest's `--doctest-glob` is given among `tokens`
/// (run in `cwd`: a settings file its `-c` names too) or in the `settings`
/// files (`addopts = --doctest-glob=*.md`); a folder
/// part is left out (the pattern is matched against file names).
pub(super) fn doctest_globs<'a>(
    tokens: &[String],
    settings: impl Iterator<Item = &'a PathBuf>,
    cwd: &Path,
) -> Result<Vec<String>, BindError> {
    // `pytest -c ci.ini`: the settings it is given (round 66).
    let given = tokens
        .windows(2)
        .filter(|pair| matches!(pair[0].as_str(), "-c" | "--config-file"))
        .map(|pair| cwd.join(&pair[1]));
    let mut words: Vec<String> = tokens.to_vec();
    for path in settings.cloned().chain(given) {
        if let Some(text) = whole_text(&path)? {
            // Not at `[`: `--doctest-glob=[x].md` is a pattern (round 66).
            let split = text.split(|c: char| c.is_whitespace() || "\"',".contains(c));
            words.extend(split.map(str::to_owned));
        }
    }
    let mut globs = Vec::new();
    for (at, word) in words.iter().enumerate() {
        // `PYTEST_ADDOPTS=--doctest-glob=*.md`, `--doctest-glob="*.md"`.
        let word = word
            .find("--doctest-glob")
            .map_or(word.as_str(), |start| &word[start..]);
        let glob = match word {
            "--doctest-glob" | "--doctest-glob=" => words.get(at + 1).map(String::as_str),
            _ => word.strip_prefix("--doctest-glob="),
        };
        if let Some(glob) = glob.map(|g| g.rsplit('/').next().unwrap_or(g)) {
            // A TOML array's `]` after the pattern is no part of it.
            let mut glob = glob.to_owned();
            while glob.matches(']').count() > glob.matches('[').count() {
                glob.pop();
            }
            globs.push(glob);
        }
    }
    Ok(globs)
}

/// The files a Jest settings file `path` names from its root
/// (`"<rootDir>/s.js"`): from `root` (its folder, or the settings' that
/// name it as a preset) and from the `rootDir` it sets, present or not.
pub(super) fn rooted(path: &Path, root: &Path) -> Result<Vec<PathBuf>, BindError> {
    rooted_as(path, root, node_settings_name(path))
}

/// The settings files a runner's or Babel's settings file `path` that is
/// code builds itself from (`module.exports = require("./base")`): read
/// as settings in turn, pieced names refused (round 69).
pub(super) fn composed_of(path: &Path) -> Result<Vec<PathBuf>, BindError> {
    // `require("./x")`, `require(path.join(__dirname, "x"))`, `import x
    // from "./x.mjs"`, `import("./x")` (round 70).
    static REQUIRED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r#"\b(?:require\(\s*|import\s*\(\s*|import\s[^"'`;]*?\bfrom\s*|import\s*)["'`](\.\.?/[^"'`]+)["'`]"#,
        )
        .expect("valid regex")
    });
    let (Some(text), Some(dir)) = (whole_text(path)?, path.parent()) else {
        return Ok(Vec::new());
    };
    let text = js_names::joined_read(&text);
    let named = REQUIRED.captures_iter(&text).take(16);
    Ok(named
        .flat_map(|found| node_candidates(&super::normalize(&dir.join(&found[1]))))
        .filter(|file| file.is_file())
        .collect())
}

/// [`rooted`], read as a runner's own settings (`settings`: names it
/// pieces together cannot be approved) or not.
pub(super) fn rooted_as(
    path: &Path,
    root: &Path,
    settings: bool,
) -> Result<Vec<PathBuf>, BindError> {
    static ROOTED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"<rootDir>/([^"'`\s,\])]+)"#).expect("valid regex")
    });
    static ROOT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"\brootDir["']?\s*:\s*["'`]([^"'`]+)"#).expect("valid regex")
    });
    let Some(text) = whole_text(path)? else {
        return Ok(Vec::new());
    };
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let text = runner_part(&name, text);
    // A runner's own settings that are code: names it pieces together
    // cannot be approved (a plugin's or setup file's code is read as code
    // elsewhere).
    let text = match settings {
        true => js_names::written(path, &text)?,
        false => text,
    };
    let dir = root;
    let mut roots = vec![dir.to_path_buf()];
    roots.extend(ROOT.captures_iter(&text).map(|root| dir.join(&root[1])));
    // `require: [./r.js]`: a path from the settings' folder (round 66).
    static RELATIVE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"(?:^|[\s"'`\[,:])(\.\.?/[^"'`\s,\])]+)"#).expect("valid regex")
    });
    let mut files: Vec<PathBuf> = RELATIVE
        .captures_iter(&text)
        .take(64)
        .flat_map(|found| node_candidates(&super::normalize(&root.join(&found[1]))))
        .collect();
    for name in ROOTED.captures_iter(&text).take(64) {
        files.extend(
            roots
                .iter()
                .flat_map(|root| node_candidates(&super::normalize(&root.join(&name[1])))),
        );
    }
    Ok(files)
}

/// The files Node (and Babel, Jest) may load for the path `named`, present
/// or not: itself and, as a module's name without its ending
/// (`plugins: ["./my-plugin"]`), each ending Node tries and the folder's
/// `index.js` (round 67: only `./my-plugin` itself was bound).
fn node_candidates(named: &Path) -> Vec<PathBuf> {
    let mut found = vec![named.to_path_buf()];
    let ending = named.extension().and_then(|e| e.to_str()).unwrap_or("");
    if !["js", "cjs", "mjs", "ts", "json", "jsx", "tsx", "cts", "mts"].contains(&ending) {
        let text = named.as_os_str().to_string_lossy();
        for more in [".js", ".cjs", ".mjs", ".ts", ".json"] {
            found.push(PathBuf::from(format!("{text}{more}")));
        }
        found.push(named.join("index.js"));
        found.push(named.join("package.json"));
    }
    found
}

/// The packages of the project's `node_modules` beside it a Node
/// runner's or Babel's settings file `path` names by a short name:
/// Babel's `plugins: ["x"]` (`babel-plugin-x`), Jest's
/// `testEnvironment: "x"` (`jest-environment-x`) or `transform` module
/// (round 67).
pub(super) fn packages(path: &Path) -> Result<Vec<PathBuf>, BindError> {
    let (Some(text), Some(dir)) = (whole_text(path)?, path.parent()) else {
        return Ok(Vec::new());
    };
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let text = runner_part(&name, text);
    let kinds = super::node_packages::BABEL_AND_JEST;
    Ok(super::node_packages::named(&text, dir, kinds))
}

/// The preset files a Jest settings file names (`preset: "x"`: the
/// package's `jest-preset.json` / `.js` in the project's `node_modules`,
/// or a folder by its path), those present.
pub(super) fn presets(path: &Path) -> Result<Vec<PathBuf>, BindError> {
    static PRESET: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"\bpreset["']?\s*:\s*["'`]([^"'`]+)"#).expect("valid regex")
    });
    let (Some(text), Some(dir)) = (whole_text(path)?, path.parent()) else {
        return Ok(Vec::new());
    };
    let mut found = Vec::new();
    for preset in PRESET.captures_iter(&text).take(8) {
        let name = &preset[1];
        let folder = match name.starts_with('.') {
            true => dir.join(name),
            false => dir.join("node_modules").join(name),
        };
        for ending in ["json", "js", "cjs", "mjs"] {
            let file = super::normalize(&folder.join(format!("jest-preset.{ending}")));
            if file.is_file() {
                found.push(file);
            }
        }
    }
    Ok(found)
}

/// The text of a settings file that names code, read whole: `None` when
/// it is not there; one present that cannot be (over [`MAX_SETTINGS`]
/// bytes, not a regular file, a NUL byte in it) cannot be approved, as
/// what it names cannot be known.
fn whole_text(path: &Path) -> Result<Option<String>, BindError> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(None);
    }
    match hermes_hooks_core::regular_file::read_capped(path, MAX_SETTINGS) {
        Ok(bytes) if !bytes.contains(&0) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        _ => Err(BindError::Computed(format!(
            "{} cannot be read whole (over {MAX_SETTINGS} bytes, not a regular file, or not \
             text): what a test runner loads by it cannot be read",
            path.display()
        ))),
    }
}

/// The largest settings file read whole.
const MAX_SETTINGS: u64 = 1 << 20;

/// The most folders named by settings searched.
const MAX_NAMED: usize = 32;

/// What runners under `bases` read: each settings file in every folder
/// from a base up to `project` (as `(name from the project, path)`), and
/// the project folders those files name.
pub(super) fn read(bases: &[PathBuf], project: &Path) -> (Vec<(String, PathBuf)>, Vec<PathBuf>) {
    let (mut files, mut folders) = (Vec::new(), Vec::new());
    for base in bases {
        let base = super::normalize(base);
        let above = base.ancestors().take_while(|dir| dir.starts_with(project));
        for dir in above {
            for name in SETTINGS {
                let path = dir.join(name);
                let shown = path.strip_prefix(project).unwrap_or(&path);
                let shown = shown.display().to_string();
                if files.iter().any(|(known, _)| *known == shown) {
                    continue;
                }
                if let Some(text) = super::peek::small_text(&path).map(|t| runner_part(name, t)) {
                    for folder in named_folders(&text, dir, project) {
                        if !folders.contains(&folder) && folders.len() < MAX_NAMED {
                            folders.push(folder);
                        }
                    }
                }
                files.push((shown, path));
            }
        }
    }
    (files, folders)
}

/// What of the settings file `name` a runner reads: of `package.json`
/// the runners' own keys (its scripts are read as shell elsewhere), of
/// the others all.
fn runner_part(name: &str, text: String) -> String {
    if name != "package.json" {
        return text;
    }
    let manifest: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    ["jest", "mocha", "ava", "tap", "vitest", "babel"]
        .iter()
        .filter_map(|key| manifest.get(key))
        .map(|part| part.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The folders of rules cfn-lint imports every Python file of: each its
/// settings (`.cfnlintrc`, `append_rules: [tools/rules]`, or the file
/// its `--config-file` names) or its `--append-rules` / `-a` option names,
/// from where it runs (red team R33-5, R35-7).
pub(super) fn cfn_lint_rules(tokens: &[String], bases: &[PathBuf], project: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for base in bases {
        for name in [".cfnlintrc", ".cfnlintrc.yaml", ".cfnlintrc.yml"] {
            if let Some(text) = super::peek::small_text(&base.join(name)) {
                found.extend(named_folders(&text, base, project));
            }
        }
        for (at, token) in tokens.iter().enumerate() {
            // `-a rules`, `--append-rules rules`, `--append-rules=rules`,
            // `-arules` (R37-5).
            let named = match token.as_str() {
                "-a" | "--append-rules" => tokens.get(at + 1).map(String::as_str),
                _ => token
                    .strip_prefix("--append-rules=")
                    .or_else(|| token.strip_prefix("-a").filter(|rest| !rest.is_empty())),
            };
            if let Some(named) = named {
                found.extend(named_folders(named, base, project));
            }
        }
        // A settings file named by option, read as `.cfnlintrc` is (R35-7).
        for (at, token) in tokens.iter().enumerate() {
            let named = match token.as_str() {
                "--config-file" => tokens.get(at + 1).map(String::as_str),
                _ => token.strip_prefix("--config-file="),
            };
            let Some(path) = named.map(|name| base.join(name)) else {
                continue;
            };
            let Some(text) = super::peek::small_text(&path) else {
                continue;
            };
            found.extend(named_folders(&text, base, project));
            found.extend(
                path.parent()
                    .map_or_else(Vec::new, |dir| named_folders(&text, dir, project)),
            );
        }
    }
    found
}

/// The project folders other than its top the words of `text` (a settings
/// file in `dir`) name; the part before a glob (`tests/*/unit`: `tests`).
fn named_folders(text: &str, dir: &Path, project: &Path) -> Vec<PathBuf> {
    let words = text.split(|c: char| c.is_whitespace() || "=,[]{}()\"';:".contains(c));
    let mut found = Vec::new();
    for word in words.filter(|word| !word.is_empty() && !word.starts_with('-')) {
        let fixed: Vec<&str> = word
            .split('/')
            .take_while(|part| !part.contains(['*', '?']))
            .collect();
        let folder = super::normalize(&dir.join(fixed.join("/")));
        let inside = folder.starts_with(project) && folder != project;
        if inside && folder.is_dir() && !found.contains(&folder) {
            found.push(folder);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_above_the_run_folder_and_the_folders_they_name_are_read() {
        let project = tempfile::tempdir().expect("temp dir");
        let top = project.path();
        for dir in ["sub", "checks", "lib"] {
            std::fs::create_dir(top.join(dir)).expect("dir");
        }
        let ini = "[pytest]\ntestpaths = ../checks\npythonpath = ../lib\n";
        std::fs::write(top.join("sub/pytest.ini"), ini).expect("ini");
        let (files, folders) = read(&[top.join("sub")], top);
        assert_eq!(folders, [top.join("checks"), top.join("lib")]);
        let names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
        assert!(names.contains(&"sub/pytest.ini"), "{names:?}");
        // The folder above, up to the project's top, absent ones too.
        assert!(names.contains(&"conftest.py"), "{names:?}");
        assert!(
            names.iter().all(|name| !name.starts_with("..")),
            "{names:?}"
        );
    }
}
