//! What Node loads of the folder it runs in by a relative name (red team
//! round 52, H52-4, H52-6): `node tools/m` runs `tools/m.js`, inline code
//! (`node -e 'require("./m")'`) resolves `./m` from that folder, as does
//! any code's `require(path.resolve("m"))` or `require(process.cwd() +
//! "/m")`, and `-r ./x` / `--import ./x` preload a file there. Each file
//! Node may pick for such a name (`m`, `m.js`, `m.cjs`, `m.mjs`, `m.json`,
//! `m.node`, `m/index.js`, `m/package.json`...) is bound, present or
//! absent: a repository adding or changing one asks again. A `#name` and
//! a package's name are looked up in `package.json` maps ([`maps`], round
//! 55, H55-9), and code loading a name built from that folder past
//! working out cannot be approved.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use super::Reached;
use super::node_specs::{cwd_specs, own_folder_specs};

mod maps;

/// How many `package.json` maps deep a name is followed.
const MAX_MAPPED: usize = 4;

/// The endings Node tries after a name, in its order, then a folder's.
const TRIED: [&str; 9] = [
    "",
    ".js",
    ".cjs",
    ".mjs",
    ".json",
    ".node",
    "/index.js",
    "/index.json",
    "/package.json",
];

/// Node's options whose value is code.
const CODE_OPTIONS: [&str; 4] = ["-e", "--eval", "-p", "--print"];

/// Node's options whose value is a file it loads first.
const PRELOADS: [&str; 5] = [
    "-r",
    "--require",
    "--import",
    "--loader",
    "--experimental-loader",
];

/// Node's other options that take a value as the next word.
const VALUED: [&str; 6] = [
    "--input-type",
    "--conditions",
    "-C",
    "--env-file",
    "--title",
    "--stack-size",
];

/// Binds what `args` (a `node`'s, run in `dir`) loads of `dir` by a
/// relative name: its script, inline code's relative requires, preloads.
pub(super) fn node_files(args: &[String], dir: &Path, found: &mut Reached) {
    let mut words = args.iter();
    let mut inline = false;
    while let Some(word) = words.next() {
        let (option, attached) = match word.split_once('=') {
            Some((option, value)) if option.starts_with("--") => (option, Some(value.to_owned())),
            _ => (word.as_str(), None),
        };
        let takes = CODE_OPTIONS.contains(&option)
            || PRELOADS.contains(&option)
            || VALUED.contains(&option);
        if takes {
            let Some(value) = attached.or_else(|| words.next().cloned()) else {
                break;
            };
            if CODE_OPTIONS.contains(&option) {
                inline = true;
                bind_specs(&value, dir, found);
            } else if PRELOADS.contains(&option) && is_relative(&value) {
                bind_spec(&value, dir, found);
            } else if option == "--env-file" {
                // It may set `NODE_OPTIONS` (a preload) for the run.
                found.add(dir.join(&value));
            }
            continue;
        }
        // A redirection (`<<E`, `< f`, `2>&1`): its file is no script.
        if word
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .starts_with(['<', '>', '&'])
        {
            if word.trim_end_matches(['<', '>', '&', '-', '|']).is_empty()
                || word
                    .chars()
                    .all(|c| c.is_ascii_digit() || "<>&".contains(c))
            {
                words.next();
            }
            continue;
        }
        if word == "--" || !word.starts_with('-') {
            let script = match word.as_str() {
                "--" => words.next(),
                _ => Some(word),
            };
            if let Some(script) = script.filter(|_| !inline)
                && !script.starts_with(['/', '~', '$'])
                && script != "-"
            {
                bind_spec(script, dir, found);
            }
            break;
        }
    }
}

/// Binds what Node code fed on its input (`node <<E`, `echo … | node`)
/// in the shell text `raw` loads from `dir` by a relative name: the text's
/// every relative `require`, as no reading here tells which text is fed.
pub(super) fn fed_code(raw: &str, dir: &Path, found: &mut Reached) {
    static NODE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\b(?:node|nodejs)\b").expect("valid regex"));
    if (raw.contains("<<") || raw.contains('|')) && NODE.is_match(raw) {
        bind_specs(raw, dir, found);
    }
}

/// Binds what inline Node `code` loads from `dir` ([`cwd_specs`]); a
/// load built from it past working out makes it computed.
fn bind_specs(code: &str, dir: &Path, found: &mut Reached) {
    let specs = cwd_specs(code, true);
    if found.computed.is_none() {
        found.computed = specs.unread.map(|why| format!("its node code {why}"));
    }
    for spec in specs.names {
        bind_spec(&spec, dir, found);
    }
}

/// The files Node may load for the names `code` (a file's, not inline)
/// loads from `cwd` (`require(path.resolve("m"))`: [`cwd_specs`]), and
/// by a path out of its own folder `dir` that leads into `cwd`
/// (`path.join(__dirname, "..", "project", "m")`); computed when a load
/// built from `cwd` cannot be worked out.
pub(crate) fn code_reaches(code: &str, cwd: &Path, dir: &Path) -> Reached {
    let mut found = Reached {
        top: cwd.to_path_buf(),
        ..Reached::default()
    };
    let specs = cwd_specs(code, false);
    found.computed = specs.unread.map(|why| format!("its node code {why}"));
    for spec in specs.names {
        bind_spec(&spec, cwd, &mut found);
    }
    for spec in own_folder_specs(code) {
        let target: PathBuf = crate::binding::normalize(&dir.join(&spec));
        if let Ok(inside) = target.strip_prefix(cwd)
            && let Some(spec) = inside.to_str()
        {
            bind_spec(spec, cwd, &mut found);
        }
    }
    found
}

/// Binds each file Node may load for `spec` from `dir`: a `#name` through
/// the `imports` of the nearest `package.json`, a package's
/// (`node_modules/x/m`) through its `exports` and the package's own name.
pub(crate) fn bind_spec(spec: &str, dir: &Path, found: &mut Reached) {
    bind_at(spec, dir, found, 0);
}

/// [`bind_spec`] `depth` maps deep.
fn bind_at(spec: &str, dir: &Path, found: &mut Reached, depth: usize) {
    if depth > MAX_MAPPED {
        found.computed.get_or_insert_with(|| {
            format!("package.json maps lead to maps past {MAX_MAPPED} deep ({spec})")
        });
        return;
    }
    let mapped = match spec.strip_prefix('#') {
        Some(_) => Some(("", spec)),
        None => spec.find("/#").map(|at| (&spec[..at], &spec[at + 1..])),
    };
    if let Some((folder, name)) = mapped {
        maps::bind_imports(&dir.join(folder), name, found, depth);
        return;
    }
    if let Some((folder, package)) = spec.rsplit_once("node_modules/")
        && (folder.is_empty() || folder.ends_with('/'))
        && !package.is_empty()
    {
        maps::bind_package(&dir.join(folder), package, found, depth);
    }
    let base = spec.trim_end_matches('/');
    let base = base.strip_prefix("./").unwrap_or(base);
    if base.is_empty() || base.contains("://") || base.starts_with(['/', '~', '$']) {
        return;
    }
    for ending in TRIED {
        let path = dir.join(format!("{base}{ending}"));
        // A folder is bound by the files Node reads in it, not as a tree.
        if !path.is_dir() {
            found.add(path);
        }
    }
}

/// Whether a preload's `value` names a file, not a package.
fn is_relative(value: &str) -> bool {
    value.starts_with("./") || value.starts_with("../")
}

/// `node_modules/.bin/<tool>` of the nearest folder from `dir` up that has
/// one, and its package folder; for a project's hook, `dir`'s own path when
/// there is none (creating it later is a change).
pub(in crate::binding) fn node_tool(
    tool: &str,
    dir: &Path,
    project_hook: bool,
    found: &mut Reached,
) {
    // `eslint@8`, `@scope/cli@1`: the bin is the package's last name part.
    let name = tool
        .rsplit_once('@')
        .filter(|(head, _)| !head.is_empty())
        .map_or(tool, |(head, _)| head);
    let name = name.rsplit('/').next().unwrap_or(name);
    if name.is_empty() || name.contains("..") {
        return;
    }
    // The project's own `bin` of that name, which `npx` and `npm exec`
    // run too (round 65), with what it loads.
    if let Some((file, folder)) = own_bin(name, dir) {
        let text = super::follow::read_or_refuse(&file, found).unwrap_or_default();
        super::tool_code::node_code(&file, &text, &folder, (project_hook, 1), found);
        found.add(file);
    }
    let bin = dir
        .ancestors()
        .map(|folder| folder.join("node_modules/.bin").join(name))
        .find(|candidate| std::fs::symlink_metadata(candidate).is_ok());
    let Some(bin) = bin else {
        if project_hook {
            found.add(dir.join("node_modules/.bin").join(name));
        }
        return;
    };
    found.add(bin.clone());
    found.shadowing.push(bin.clone());
    if let Some(package) = package_folder(&bin, name) {
        found.add(package);
    }
}

/// The file the `package.json` of `dir`, or of the nearest folder above
/// holding one, declares as its `bin` `name` (`"bin": {"lint": "b.js"}`,
/// or `"bin": "b.js"` of a package named `lint`), and that folder.
fn own_bin(name: &str, dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let folder = dir.ancestors().find(|f| f.join("package.json").is_file())?;
    let text = crate::binding::peek::small_text(&folder.join("package.json"))?;
    let manifest: serde_json::Value =
        serde_json::from_str(text.trim_start_matches('\u{feff}')).ok()?;
    // `"directories": {"bin": "bin"}`: each file there by its name.
    let listed = manifest
        .pointer("/directories/bin")
        .and_then(serde_json::Value::as_str);
    let path = match (manifest.get("bin"), listed) {
        (Some(serde_json::Value::String(path)), _) => {
            let package = manifest.get("name")?.as_str()?;
            (package.rsplit('/').next() == Some(name)).then(|| path.clone())?
        }
        (Some(serde_json::Value::Object(bins)), _) => bins.get(name)?.as_str()?.to_owned(),
        (None, Some(folder)) => format!("{folder}/{name}"),
        _ => return None,
    };
    let file = crate::binding::normalize(&folder.join(path));
    file.starts_with(folder)
        .then(|| (file, folder.to_path_buf()))
}

/// The package folder a `.bin` entry belongs to: the folder right under a
/// `node_modules` (or `node_modules/@scope`) that its link target is in;
/// for a shim that is no link, `node_modules/<name>` when it exists.
fn package_folder(bin: &Path, name: &str) -> Option<PathBuf> {
    let modules = bin.parent()?.parent()?;
    let target = std::fs::canonicalize(bin).ok()?;
    if std::fs::symlink_metadata(bin).is_ok_and(|m| m.file_type().is_symlink()) {
        let mut child = target.as_path();
        for folder in target.ancestors().skip(1) {
            let in_modules = folder.file_name().is_some_and(|n| n == "node_modules");
            let in_scope = folder.file_name().is_some_and(|n| {
                n.to_string_lossy().starts_with('@')
                    && folder
                        .parent()
                        .and_then(Path::file_name)
                        .is_some_and(|p| p == "node_modules")
            });
            if in_modules || in_scope {
                return Some(child.to_path_buf());
            }
            child = folder;
        }
        return None;
    }
    let package = modules.join(name);
    package.is_dir().then_some(package)
}

#[cfg(test)]
mod tests {
    use super::super::reached;

    #[test]
    fn node_binds_what_it_loads_of_its_folder_by_a_relative_name() {
        let dir = tempfile::tempdir().expect("dir");
        let root = dir.path();
        std::fs::create_dir_all(root.join("tools")).expect("mkdir");
        for (command, file) in [
            ("node tools/m", "tools/m.js"),
            ("node tools/m --fast", "tools/m.cjs"),
            ("node -e 'require(\"./m\")'", "m.js"),
            ("node -e 'try{require(\"./m\")}catch(e){}'", "m.json"),
            ("node --eval='import(\"./tools/m\")'", "tools/m.mjs"),
            ("node -p 'require(\"./tools\")'", "tools/index.js"),
            ("node -r ./pre x.js", "pre.js"),
            ("node --import=./pre.mjs x.js", "pre.mjs"),
            ("node --env-file .env x.js", ".env"),
            ("node <<E\nrequire(\"./m\")\nE", "m.js"),
            ("echo 'require(\"./tools/m\")' | node", "tools/m.js"),
        ] {
            let found = reached(command, root, false);
            assert!(
                found.roots.contains(&root.join(file)),
                "{command}: {found:?}"
            );
        }
        // A package, an absolute script, no relative name: nothing here.
        for command in [
            "node -e 'require(\"fs\")'",
            "node /opt/x.js",
            "node ~/.claude/hooks/x.js",
            "node --version",
        ] {
            assert!(reached(command, root, false).is_empty(), "{command}");
        }
    }

    #[test]
    fn a_files_code_binds_what_it_loads_from_the_folder_it_runs_in() {
        let dir = tempfile::tempdir().expect("dir");
        let (root, hooks) = (dir.path().join("p"), dir.path().join("hooks"));
        std::fs::create_dir_all(&root).expect("mkdir");
        let head = "const path = require(\"path\");\n";
        for (code, file) in [
            (
                "require(\"module\").createRequire(path.join(process.cwd(), \"x.js\"))(\"./m\");",
                "m.js",
            ),
            (
                "const p = require(\"path\");\nrequire(p.resolve(\"m\"));",
                "m.json",
            ),
            ("require([process.cwd(), \"m\"].join(\"/\"));", "m/index.js"),
            (
                "require(path.resolve(process.env.CLAUDE_PROJECT_DIR || \".\", \"m\"));",
                "m.node",
            ),
            (
                "const { Worker } = require(\"worker_threads\");\nnew Worker(process.cwd() + \"/tools/w.js\");",
                "tools/w.js",
            ),
        ] {
            let found = super::code_reaches(&format!("{head}{code}"), &root, &hooks);
            assert!(found.roots.contains(&root.join(file)), "{code}: {found:?}");
            assert_eq!(found.computed, None, "{code}");
        }
        let code = "require(path.join(process.cwd(), process.argv[2].trim()));";
        let found = super::code_reaches(&format!("{head}{code}"), &root, &hooks);
        assert!(found.computed.is_some(), "{found:?}");
    }
}
