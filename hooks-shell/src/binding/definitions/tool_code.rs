//! The code the settings of build, lint and hook tools run (red team round
//! 62): an ESLint or Prettier configuration is code, and loads what it
//! requires or names as a plugin; a flake8, pylint or mypy configuration
//! names plugin modules (and pylint's `init-hook` is code); pre-commit,
//! ninja and CMake run the commands their files hold; invoke runs
//! `tasks.py` and what it imports. The settings files themselves are the
//! table's manifests (bound by content); what they name of the project is
//! bound here, and what their commands run is read as a recipe's.

use std::path::{Path, PathBuf};

use super::{Reached, reached_within};
use crate::binding::node_packages::{self, ESLINT};

mod builds;
mod environments;

/// The most project files one settings file names that are bound.
pub(super) const MAX_NAMED: usize = 64;

/// Reads, for the program `name` given `args` (`words` its operands),
/// what its `manifests` present in `dir` run or load of the project (see
/// the module documentation).
pub(super) fn read(
    (name, names, words): (&str, &[&str], &[String]),
    args: &[String],
    manifests: &[PathBuf],
    dir: &Path,
    at: (bool, usize),
    found: &mut Reached,
) {
    // A path written from the folder it runs in (`"$(pwd)/a"`) is that
    // path; one the reading cannot expand (`"$f"`, the tool call's file)
    // may be in any folder of the project (round 65).
    let mut words: Vec<String> = words.iter().map(|word| from_here(word)).collect();
    if words
        .iter()
        .any(|word| crate::binding::wrappers::computed(word))
    {
        words.push(".".to_owned());
    }
    let words = words.as_slice();
    // Prettier, ESLint and stylelint look for their settings from each
    // file they are given (`prettier --check src/x.js`: `src/.prettierrc`).
    let mut manifests = manifests.to_vec();
    if matches!(name, "eslint" | "prettier" | "stylelint") {
        for folder in given_folders(words, dir) {
            for manifest in names.iter().map(|name| folder.join(name)) {
                if !manifests.contains(&manifest) {
                    found.add(manifest.clone());
                    manifests.push(manifest);
                }
            }
        }
        // Given a folder (`prettier --check src`, `eslint .`), the settings
        // of each folder below it too (round 64).
        for manifest in builds::settings_below(words, dir, names) {
            if !manifests.contains(&manifest) {
                found.add(manifest.clone());
                manifests.push(manifest);
            }
        }
    }
    // ESLint's `--rulesdir rules` loads each file there; `--plugin x`
    // `node_modules/eslint-plugin-x` (round 65).
    if name == "eslint" {
        let options = ["--rulesdir", "--plugin", "-f", "--format"];
        for (option, value) in option_values(args, &options) {
            match option {
                "--rulesdir" => found.add(crate::binding::normalize(&dir.join(value))),
                // `-f fmt`: `eslint-formatter-fmt`, a package or a file.
                "-f" | "--format" => {
                    let modules = dir.join("node_modules");
                    found.add(modules.join(format!("eslint-formatter-{value}")));
                    found.add(crate::binding::normalize(&dir.join(value)));
                    if !value.contains(['/', '.']) {
                        found.add(modules.join(value));
                    }
                }
                _ => node_packages::named(&format!("\"{value}\""), dir, ESLINT)
                    .into_iter()
                    .for_each(|package| found.add(package)),
            }
        }
    }
    // `pre-commit try-repo ./hk`: that repository's hooks, whole.
    if name == "pre-commit"
        && let Some(at) = words.iter().position(|word| word == "try-repo")
        && let Some(repo) = words.get(at + 1)
    {
        // `file:///path/hk` too, and the settings git reads there: it
        // runs `git status` in the repository (round 66: R-07, R-11).
        let here = dir.display().to_string();
        let repo = repo.replace("${PWD}", &here).replace("$PWD", &here);
        if repo.contains(['$', '`']) {
            found.computed.get_or_insert_with(|| {
                format!("pre-commit try-repo is given {repo}, which this reading cannot expand")
            });
        }
        let repo = repo.strip_prefix("file://").unwrap_or(&repo);
        let repo = crate::binding::normalize(&dir.join(repo));
        for settings in ["config", "info/attributes"] {
            found.add(repo.join(".git").join(settings));
        }
        found.add(repo);
    }
    if let Some(why) = environments::folder_option(name, args, dir) {
        found.computed.get_or_insert(why);
    }
    let present = manifests.iter().filter(|path| path.is_file());
    for manifest in present.take(32) {
        let Some(text) = super::follow::read_or_refuse(manifest, found) else {
            continue;
        };
        let here = manifest.parent().unwrap_or(dir);
        match name {
            "eslint" | "prettier" | "stylelint" => {
                if is_script(manifest) {
                    node_code(manifest, &text, here, at, found);
                }
                // `extends: ["evil"]`: `node_modules/eslint-config-evil`,
                // also where `--resolve-plugins-relative-to` points.
                let resolved = option_values(args, &["--resolve-plugins-relative-to"]);
                let places = resolved.iter().map(|(_, folder)| dir.join(folder));
                for place in std::iter::once(here.to_path_buf()).chain(places) {
                    for package in node_packages::named(&text, &place, ESLINT) {
                        found.add(package);
                    }
                }
                for file in named_files(&text, here) {
                    if is_script(&file) {
                        let code = super::follow::read_or_refuse(&file, found).unwrap_or_default();
                        node_code(&file, &code, here, at, found);
                    }
                    found.add(file);
                }
            }
            "flake" | "pylint" | "mypy" => {
                for file in named_files(&text, here)
                    .into_iter()
                    .chain(modules(&text, here))
                {
                    found.add(file);
                }
                // pylint's `init-hook = …`: Python run first.
                for code in values_of(&text, "init-hook") {
                    python_code(&code, here, found);
                    let args = ["-c".to_owned(), code];
                    for line in crate::binding::identify::inline_started("python3", &args) {
                        run(&line, here, at, found);
                    }
                }
            }
            // `toxfile.py`: Python tox imports, with what it imports.
            "tox" if manifest.ends_with("toxfile.py") => {
                python_code(&text, here, found);
                builds::started(manifest, here, at, found);
            }
            // What its environments' `commands` run (round 65: `make -s
            // lint` there ran an unbound Makefile).
            "tox" if environments::tox_env_folder(&text).is_some() => {
                found.computed = found
                    .computed
                    .take()
                    .or(environments::tox_env_folder(&text));
            }
            "tox" => match builds::tox_commands(manifest, &text) {
                Ok(lines) => lines.iter().for_each(|line| run(line, here, at, found)),
                Err(why) => {
                    found.computed.get_or_insert(why);
                }
            },
            "nox" => {
                if let Some(why) = environments::nox_reuses(args, &text) {
                    found.computed.get_or_insert(why);
                }
            }
            "invoke" | "inv" => {
                python_code(&text, here, found);
                builds::started(manifest, here, at, found);
                for line in builds::invoke_runs(&text) {
                    run(&line, here, at, found);
                }
            }
            "pre-commit" => {
                for entry in values_of(&text, "entry") {
                    run(&entry, here, at, found);
                }
                // `entry: sh` with `args: [x.sh]`.
                for file in named_files(&text, here) {
                    found.add(file);
                }
            }
            "ninja" | "cmake" | "meson" => {
                for file in builds::included(name, manifest, &text, here) {
                    if let Some(inner) = super::follow::read_or_refuse(&file, found) {
                        let folder = file.parent().unwrap_or(here);
                        builds::commands_of(name, &inner, folder, at, found);
                    }
                    found.add(file);
                }
                builds::commands_of(name, &text, here, at, found);
            }
            "ctest" if !manifest.ends_with("CTestTestfile.cmake") => {
                builds::ctest_custom(&text, here, at, found);
            }
            "ctest" => builds::ctest(manifest, &text, at, found),
            _ => {}
        }
    }
}

/// `word` with the folder it runs in written as `$PWD` or `$(pwd)` read
/// as `.`.
fn from_here(word: &str) -> String {
    crate::binding::wrappers::HERE
        .iter()
        .find_map(|here| word.strip_prefix(here))
        .map_or(word.to_owned(), |rest| format!(".{rest}"))
}

/// Each value `words` give one of `options` (`--rulesdir a`,
/// `--rulesdir=a`), with the option it was given for.
fn option_values<'a>(
    words: &'a [String],
    options: &[&'static str],
) -> Vec<(&'static str, &'a str)> {
    let mut values = Vec::new();
    for (at, word) in words.iter().enumerate() {
        for option in options {
            if word == option {
                if let Some(value) = words.get(at + 1) {
                    values.push((*option, value.as_str()));
                }
            } else if let Some(value) = word.strip_prefix(option).and_then(|v| v.strip_prefix('='))
            {
                values.push((*option, value));
            }
        }
    }
    values
}

/// The folders inside `dir` (and under it, up to it) that the paths among
/// `words` name or lie in.
fn given_folders(words: &[String], dir: &Path) -> Vec<PathBuf> {
    let mut folders = Vec::new();
    for word in words.iter().filter(|word| !word.starts_with('-')).take(64) {
        let path = crate::binding::normalize(&dir.join(word));
        let folder = match path.is_dir() {
            true => path,
            false => path.parent().map(Path::to_path_buf).unwrap_or_default(),
        };
        for above in folder
            .ancestors()
            .take_while(|f| f.starts_with(dir) && *f != dir)
        {
            if !folders.contains(&above.to_path_buf()) && folders.len() < 16 {
                folders.push(above.to_path_buf());
            }
        }
    }
    folders
}

/// Reads a JavaScript settings file `file` (its `text`, in `dir`): what it
/// loads by a relative name, a load it builds (cannot be approved), what it
/// starts (`execSync("make")`).
pub(super) fn node_code(
    file: &Path,
    text: &str,
    dir: &Path,
    at: (bool, usize),
    found: &mut Reached,
) {
    // `require("./to" + "ols/r.js")`, a folder listed and each file loaded.
    static BUILT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r#"\b(?:require|import)\s*\(\s*(?:[^'"`\s)]|['"][^'"]*['"]\s*\+|`[^`]*\$\{)|\breaddir(?:Sync)?\s*\("#,
        )
        .expect("valid regex")
    });
    if found.computed.is_none()
        && let Some(built) = BUILT.find(text)
    {
        found.computed = Some(format!(
            "{} loads a file named when it runs (`{}`)",
            file.display(),
            built.as_str()
        ));
    }
    super::node::node_files(&[file.to_string_lossy().into_owned()], dir, found);
    let reached = super::node::code_reaches(text, dir, dir);
    if found.computed.is_none() {
        found.computed = reached.computed;
    }
    reached.roots.into_iter().for_each(|root| found.add(root));
    builds::started(file, dir, at, found);
}

/// Reads `line`, a command a tool's settings run in `dir`, as a recipe's.
pub(super) fn run(
    line: &str,
    dir: &Path,
    (project_hook, depth): (bool, usize),
    found: &mut Reached,
) {
    super::follow::recipe_files(line, dir, found);
    reached_within(line, dir, project_hook, found, depth + 1);
}

/// Binds the modules of `dir` that Python `code` imports.
fn python_code(code: &str, dir: &Path, found: &mut Reached) {
    let args = ["-c".to_owned(), code.to_owned()];
    super::python::python_modules(&args, &[], (dir, true), found);
}

/// Whether `path` is JavaScript or TypeScript Node loads.
fn is_script(path: &Path) -> bool {
    path.extension().is_some_and(|ending| {
        ["js", "cjs", "mjs", "ts", "cts", "mts"].contains(&ending.to_string_lossy().as_ref())
    })
}

/// The values a YAML, INI or TOML `text` gives `key` (`entry: sh x.sh`,
/// `command = touch x`, `init-hook="…"`), quotes taken off.
pub(super) fn values_of(text: &str, key: &str) -> Vec<String> {
    text.lines()
        .map(|line| line.trim().trim_start_matches("- ").trim_start())
        .filter_map(|line| {
            let rest = line.strip_prefix(key)?.trim_start();
            let rest = rest.strip_prefix([':', '='])?.trim();
            let unquoted = rest
                .strip_prefix('"')
                .and_then(|r| r.strip_suffix('"'))
                .or_else(|| rest.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')))
                .unwrap_or(rest);
            Some(unquoted.replace("\\\"", "\"").replace("\\\\", "\\"))
        })
        .filter(|value| !value.is_empty())
        .take(MAX_NAMED)
        .collect()
}

/// The project files `text` names by a path (`./tools/r.js`,
/// `tools/plug.py`, `cm/x.cmake`) from `dir`, that exist.
pub(super) fn named_files(text: &str, dir: &Path) -> Vec<PathBuf> {
    let pieces = text.split(|c: char| c.is_whitespace() || "\"'`,;()[]{}=<>".contains(c));
    let mut files: Vec<PathBuf> = Vec::new();
    for piece in pieces {
        let piece = piece.trim_end_matches(['.', ':']);
        let path_like = piece.contains('/')
            || piece.rsplit_once('.').is_some_and(|(stem, ending)| {
                !stem.is_empty()
                    && matches!(
                        ending,
                        "js" | "cjs" | "mjs" | "ts" | "py" | "cmake" | "sh" | "bash" | "pl" | "rb"
                    )
            });
        if !path_like || piece.contains("://") || piece.starts_with('/') {
            continue;
        }
        let file = crate::binding::normalize(&dir.join(piece));
        if file.is_file() && file.starts_with(dir) && !files.contains(&file) {
            files.push(file);
        }
        if files.len() >= MAX_NAMED {
            break;
        }
    }
    files
}

/// The Python modules of `dir` a plugin setting names by a dotted name
/// (`XYZ = tools.plug:P`, `load-plugins = tools.lint`): each name's file
/// or package, where it exists, from `dir` or a `paths =` folder.
fn modules(text: &str, dir: &Path) -> Vec<PathBuf> {
    let mut bases = vec![dir.to_path_buf()];
    for value in values_of(text, "paths") {
        bases.extend(
            value
                .split([',', ' '])
                .filter(|p| !p.is_empty())
                .map(|p| dir.join(p)),
        );
    }
    let mut files = Vec::new();
    let names = text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'));
    for name in names.filter(|name| !name.is_empty()).take(4096) {
        let relative = name.trim_matches('.').replace('.', "/");
        for base in &bases {
            for candidate in [
                base.join(format!("{relative}.py")),
                base.join(&relative).join("__init__.py"),
            ] {
                let candidate = crate::binding::normalize(&candidate);
                if candidate.is_file() && candidate.starts_with(dir) && !files.contains(&candidate)
                {
                    files.push(candidate);
                }
            }
        }
        if files.len() >= MAX_NAMED {
            break;
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::{modules, named_files, values_of};

    #[test]
    fn settings_name_commands_files_and_modules() {
        let yaml = "repos:\n- repo: local\n  hooks:\n  - id: x\n    entry: sh tools/x.sh\n";
        assert_eq!(values_of(yaml, "entry"), ["sh tools/x.sh"]);
        assert_eq!(
            values_of("init-hook=\"open('a')\"\n", "init-hook"),
            ["open('a')"]
        );
        let dir = tempfile::tempdir().expect("dir");
        std::fs::create_dir_all(dir.path().join("tools")).expect("tools");
        std::fs::write(dir.path().join("tools/plug.py"), "").expect("plug");
        std::fs::write(dir.path().join("tools/r.js"), "").expect("r");
        let ini = "[flake8:local-plugins]\nextension =\n  XYZ = tools.plug:P\npaths = .\n";
        assert_eq!(modules(ini, dir.path()), [dir.path().join("tools/plug.py")]);
        let js = "require(\"./tools/r.js\"); module.exports = []";
        assert_eq!(named_files(js, dir.path()), [dir.path().join("tools/r.js")]);
    }
}
