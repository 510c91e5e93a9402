//! The project modules a project hook's Python imports from the folder it
//! runs in: `python3 -m tools.check` and `python3 -c 'import tools.check'`
//! put that folder first on the module path, so the package (`tools/`, as a
//! tree) or module (`tools.py`) they name is bound, present or missing.
//! With `-P` / `-I` the folder is not on the path: nothing of it is bound.
//! The same names are bound in the folders inside it where Python looks
//! too (its `src`, what a development install's `.pth` names: red team
//! round 8, R8-7; `binding::python_sites`).

use std::path::Path;

use super::Reached;
use crate::binding::getopt::{self, Arg, Grammar, Opt, Role, Takes};

const fn flag(name: &'static str) -> Opt {
    (name, Takes::Nothing, Role::Other)
}

/// CPython 3's options (`-m` and `-c` end them: what follows is theirs).
const PYTHON: Grammar = Grammar {
    short: &[
        flag("b"),
        flag("B"),
        flag("d"),
        flag("E"),
        flag("h"),
        flag("i"),
        ("I", Takes::Nothing, Role::IncludeDir),
        flag("O"),
        ("P", Takes::Nothing, Role::IncludeDir),
        flag("q"),
        flag("s"),
        flag("S"),
        flag("u"),
        flag("v"),
        flag("V"),
        flag("x"),
        ("W", Takes::Value, Role::Other),
        ("X", Takes::Value, Role::Other),
        ("m", Takes::Value, Role::File),
        ("c", Takes::Value, Role::Code),
    ],
    long: &[
        ("check-hash-based-pycs", Takes::Value, Role::Other),
        flag("help"),
        flag("help-env"),
        flag("help-xoptions"),
        flag("help-all"),
        flag("version"),
    ],
    permute: false,
};

/// The settings files a module run by `python -m` (or a script by its
/// name) reads where it runs, each naming code it imports (red team
/// R33-3, R33-4: `build-backend` with `backend-path`, `attr:`, `.pdbrc`).
pub(super) const MODULE_SETTINGS: [(&str, &[&str]); 6] = [
    ("pip", &["pyproject.toml", "setup.cfg", "setup.py"]),
    ("build", &["pyproject.toml", "setup.cfg", "setup.py"]),
    ("setup.py", &["pyproject.toml", "setup.cfg", "setup.py"]),
    ("pdb", &[".pdbrc"]),
    ("flask", &[".flaskenv", ".env", "app.py", "wsgi.py"]),
    ("dotenv", &[".env"]),
];

/// `words` (a Python's command) read as the tool its `-m` module is when
/// the table knows it (`python3 -m pylint x.py` as `pylint x.py`,
/// `python3 -m pre_commit run` as `pre-commit run`): its name and words.
pub(super) fn module_tool(words: &[String]) -> Option<(String, Vec<String>)> {
    let (first, args) = words.split_first()?;
    if !matches!(super::base_name(first).as_str(), "python" | "python3") {
        return None;
    }
    let at = args.iter().position(|arg| arg == "-m")?;
    let module = args.get(at + 1)?;
    let name = super::base_name(&module.replace('_', "-"));
    if !super::in_table(&name) {
        return None;
    }
    let mut tool = vec![name.clone()];
    tool.extend(args[at + 2..].iter().cloned());
    Some((name, tool))
}

/// Binds what `args` (a Python's, run in `dir` with the variables
/// `assignments` set) imports from `dir`, the settings files there its
/// module reads ([`MODULE_SETTINGS`]) and, for pip, the local projects it
/// builds ([`super::pip`]).
pub(super) fn python_modules(
    args: &[String],
    assignments: &[(String, String)],
    (dir, sites): (&Path, bool),
    found: &mut Reached,
) {
    let parsed = getopt::parse(&PYTHON, args);
    let mut names = Vec::new();
    let mut runs = None;
    for arg in &parsed.args {
        match arg {
            // `-P` / `-I`: the folder it runs in is not on the path.
            Arg::Opt(Role::IncludeDir, _) => return,
            Arg::Opt(Role::File, module) => {
                names.push(module.clone());
                runs = runs.or(Some(module.clone()));
            }
            Arg::Opt(Role::Code, code) => names.extend(imported(code)),
            _ => {}
        }
    }
    let has_code = parsed
        .args
        .iter()
        .any(|arg| matches!(arg, Arg::Opt(Role::Code, _) | Arg::Opt(Role::File, _)));
    let script = parsed.rest.first().filter(|script| *script != "-");
    let says_only = args
        .iter()
        .any(|arg| matches!(arg.as_str(), "-V" | "-VV" | "--version" | "-h" | "--help"));
    // A Python code starts that reads its program from its input
    // (`subprocess.run(["python3"], input="import m")`): what it imports
    // from the folder it runs in cannot be named (round 53, H53-3).
    if found.code_started
        && found.feeds_input
        && !has_code
        && !says_only
        && script.is_none()
        && found.computed.is_none()
    {
        found.computed = Some(
            "its code starts a Python reading its program from its input where the folder it runs in comes first on its module path".to_owned(),
        );
    }
    let runs = runs.or_else(|| parsed.rest.first().map(|script| base_file(script)));
    let settings = MODULE_SETTINGS
        .iter()
        .find(|(name, _)| Some(*name) == runs.as_deref());
    for file in settings.map(|(_, files)| *files).unwrap_or_default() {
        found.add(dir.join(file));
    }
    if runs.as_deref() == Some("pip") {
        let args = crate::binding::search_path::with_project(&parsed.rest, &found.top.clone(), dir);
        super::pip::local_projects(&args, assignments, dir, found);
    }
    if let Some(why) = parsed.unsure {
        found.unsure("python", &why);
    }
    // Where a development install of the project puts it: a project
    // hook's environment; the user's own Python has none of the project's
    // (round 53, U53-1: `src/` bound by content asked again after each edit).
    let roots = match names.is_empty() || !sites {
        true => Vec::new(),
        false => crate::binding::python_sites::module_roots(dir),
    };
    for name in names {
        let top = name.split('.').next().unwrap_or_default();
        if top.is_empty() || !top.chars().all(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        found.add(dir.join(top));
        found.add(dir.join(format!("{top}.py")));
        // And where a development install or `src` layout puts it (red
        // team round 8, R8-7).
        for root in &roots {
            found.add(root.join(top));
            found.add(root.join(format!("{top}.py")));
        }
    }
}

/// The file name of `path`.
fn base_file(path: &str) -> String {
    path.rsplit('/').next().unwrap_or(path).to_owned()
}

/// The modules `code` imports by name (`import a.b, c`, `from a import b`).
fn imported(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    for statement in code.split([';', '\n']).map(str::trim) {
        if let Some(rest) = statement.strip_prefix("import ") {
            names.extend(
                rest.split(',')
                    .filter_map(|part| part.split_whitespace().next())
                    .map(str::to_owned),
            );
        } else if let Some(rest) = statement.strip_prefix("from ") {
            names.extend(rest.split_whitespace().next().map(str::to_owned));
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::super::reached;

    #[test]
    fn a_module_python_imports_from_where_it_runs_is_bound() {
        let dir = tempfile::tempdir().expect("dir");
        let root = dir.path();
        for command in [
            "python3 -m tools.check",
            "python3 -mtools.check",
            "python3 -Bm tools.check --fast",
            "python3 -W ignore -m tools",
            "cd . && python3 -c 'import os, tools.check; tools.check.main()'",
            "python3 -c 'from tools import check'",
        ] {
            let found = reached(command, root, true);
            assert!(
                found.roots.contains(&root.join("tools")),
                "{command}: {found:?}"
            );
            assert!(found.roots.contains(&root.join("tools.py")), "{command}");
        }
        for command in ["python3 -P -m tools", "python3 -I -c 'import tools'"] {
            assert!(reached(command, root, true).is_empty(), "{command}");
        }
        assert!(reached("python3 -m tools", root, false).is_empty());
    }
}
