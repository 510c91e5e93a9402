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

/// The most project files one settings file names that are bound.
const MAX_NAMED: usize = 64;

/// Reads, for the program `name`, what its `manifests` present in `dir`
/// run or load of the project (see the module documentation).
pub(super) fn read(
    name: &str,
    manifests: &[PathBuf],
    dir: &Path,
    (project_hook, depth): (bool, usize),
    found: &mut Reached,
) {
    let present = manifests.iter().filter(|path| path.is_file());
    for manifest in present.take(16) {
        let Some(text) = super::follow::read_definition(manifest) else {
            continue;
        };
        let here = manifest.parent().unwrap_or(dir);
        match name {
            "eslint" | "prettier" | "stylelint" => {
                if is_script(manifest) {
                    super::node::node_files(
                        &[manifest.to_string_lossy().into_owned()],
                        here,
                        found,
                    );
                }
                for file in named_files(&text, here) {
                    if is_script(&file) {
                        super::node::node_files(
                            &[file.to_string_lossy().into_owned()],
                            here,
                            found,
                        );
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
                }
            }
            "invoke" | "inv" => python_code(&text, here, found),
            "pre-commit" => {
                for entry in values_of(&text, "entry") {
                    run(&entry, here, (project_hook, depth), found);
                }
            }
            "ninja" => {
                for command in values_of(&text, "command") {
                    run(&command, here, (project_hook, depth), found);
                }
                for file in named_files(&text, here) {
                    found.add(file);
                }
            }
            "cmake" | "meson" => {
                // `execute_process(COMMAND make …)`, `run_command('sh', …)`.
                let started = crate::binding::shell::runners_named(&text);
                for words in started.iter().take(MAX_NAMED) {
                    if let Ok(line) = shlex::try_join(words.iter().map(String::as_str)) {
                        run(&line, here, (project_hook, depth), found);
                    }
                }
                for file in named_files(&text, here) {
                    found.add(file);
                }
            }
            _ => {}
        }
    }
}

/// Reads `line`, a command a tool's settings run in `dir`, as a recipe's.
fn run(line: &str, dir: &Path, (project_hook, depth): (bool, usize), found: &mut Reached) {
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
fn values_of(text: &str, key: &str) -> Vec<String> {
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
fn named_files(text: &str, dir: &Path) -> Vec<PathBuf> {
    let pieces = text.split(|c: char| c.is_whitespace() || "\"'`,;()[]{}=<>".contains(c));
    let mut files: Vec<PathBuf> = Vec::new();
    for piece in pieces {
        let piece = piece.trim_end_matches(['.', ':']);
        let path_like = piece.contains('/')
            || piece.rsplit_once('.').is_some_and(|(stem, ending)| {
                !stem.is_empty() && matches!(ending, "js" | "cjs" | "mjs" | "ts" | "py" | "cmake")
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
