//! What the definitions a program reads name in turn: a `Makefile`'s
//! includes and recipe lines, a `justfile`'s imports and recipes, a cargo
//! configuration's files (a `package.json`'s scripts: [`super::npm`]).

use std::path::{Path, PathBuf};

use super::{Includes, MAX_INCLUDED, MAX_READS, Reached, make_text, reached_within};
use crate::binding::identify;
use crate::binding::shell::simple_commands;

mod reading;
use reading::{Entered, MAX_RECIPE_READINGS, Reading};

/// The files a recipe or script line `line` (shell text, run in `dir`)
/// names ([`identify()`]), leaving out programs found on `PATH` (installed,
/// not the project's); a name it computes when it runs (`sh $(printf
/// tools/g.%s sh)`) makes it one that cannot be approved (R44-12).
pub(super) fn recipe_files(line: &str, dir: &Path, found: &mut Reached) {
    // A script that runs itself (`"lint": "npm run lint && bash -c 'npm
    // run lint'"`) is read once: read again inside its own reading, it
    // names nothing the outer reading does not, and each reading starts
    // others (its binding took minutes: a repository stalled every check).
    let _reading = match Reading::enter(line, dir) {
        Entered::Reading(reading) => reading,
        Entered::AlreadyBeingRead => return,
        // Scripts that run each other many ways (`"a": "npm run b && npm
        // run b"`, `"b": "npm run a && npm run a"`: round 56, a stall of
        // minutes on every emit): cannot be approved, decided at once.
        Entered::TooMany => {
            found.computed.get_or_insert_with(|| {
                format!(
                    "its recipes and package scripts run each other more than {MAX_RECIPE_READINGS} \
                     times over: what they run is not read to the end"
                )
            });
            return;
        }
    };
    if found.computed.is_none()
        && let Some(why) = identify::computed_in(line, dir)
    {
        found.computed = Some(format!(
            "a recipe or package script ({}): {why}",
            line.trim()
        ));
    }
    let installed: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).collect())
        .unwrap_or_default();
    let commands = simple_commands(line);
    for (at, command) in commands.iter().enumerate() {
        // `for d in a b; do make -C $d; done`: read again right after with
        // each value (`make -C a`); alone, `$d` is no name it computes
        // (round 67, K-13: a recursive Makefile could not be approved).
        let again = (commands.get(at + 1)).is_some_and(|next| super::read_again(command, next));
        let command = command.clone();
        let text = joined(&command);
        let identified = identify(&text, Some(&command), dir);
        // `bash scripts/x.sh` whose script computes a name (R45-11); an
        // installed tool's own code (`npx`) is not the project's.
        let top = found
            .top
            .canonicalize()
            .unwrap_or_else(|_| found.top.clone());
        let projects = identified.code.as_ref().is_none_or(|code| {
            let real = code
                .path
                .canonicalize()
                .unwrap_or_else(|_| code.path.clone());
            real.starts_with(&top) || dir.canonicalize().is_ok_and(|dir| real.starts_with(dir))
        });
        if found.computed.is_none()
            && projects
            && !again
            && let Some(why) = &identified.computed
        {
            found.computed = Some(format!(
                "a recipe or package script ({}): {why}",
                line.trim()
            ));
        }
        // `PATH="/p/tools:${PATH}" checker` (a makefile's `PATH`): the
        // program as the recipe finds it (red team round 59, F1-12).
        let given = crate::binding::program::on_given_path(&command, dir);
        for file in (identified.files.into_iter())
            .chain(identified.definitions)
            .chain(given)
        {
            if !installed.iter().any(|folder| file.parent() == Some(folder)) {
                found.add(file);
            }
        }
    }
    // `cd c && cat * | sh`: text a pipe feeds a program that runs it, read
    // in the folder the line moves to (round 68: each command read alone
    // lost the pipe and the `cd`).
    if line.contains('|') {
        let whole = identify(line, None, dir);
        for file in whole.files.into_iter().chain(whole.definitions) {
            if !installed.iter().any(|folder| file.parent() == Some(folder)) {
                found.add(file);
            }
        }
    }
    // `$(MAKE) -f other.mk`, `npm run b`: the definitions it runs, read in
    // turn (R45-5), a few levels deep.
    if found.nesting < MAX_RECIPE_NESTING {
        found.nesting += 1;
        reached_within(line, dir, false, found, 0);
        found.nesting -= 1;
    }
}

/// `words` as shell text, an assignment's name left unquoted
/// (`GIT_CONFIG_GLOBAL=./gc`, not `'GIT_CONFIG_GLOBAL=./gc'`, which the
/// reading of what steers a program could not read: a recipe's `export
/// X=v` was refused); empty when a word holds a NUL.
fn joined(words: &[String]) -> String {
    let quoted: Option<Vec<String>> = words
        .iter()
        .map(|word| match crate::binding::wrappers::assignment(word) {
            Some((name, value)) => Some(format!("{name}={}", shlex::try_quote(&value).ok()?)),
            None => shlex::try_quote(word)
                .ok()
                .map(std::borrow::Cow::into_owned),
        })
        .collect();
    quoted.map(|words| words.join(" ")).unwrap_or_default()
}

/// How many recipes deep definitions run by a recipe are read.
const MAX_RECIPE_NESTING: usize = 3;

/// A `just` recipe line of the justfile `text` as the shell text it runs:
/// an interpolation (`{{tool}}`) is a value the recipe does not write,
/// computed when it runs where the justfile runs commands for values (a
/// `` `cmd` `` or `shell(…)`).
fn just_text(line: &str, text: &str) -> String {
    static INTERPOLATION: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"\{\{.*?\}\}").expect("valid regex"));
    let value = match text.contains('`') || text.contains("shell(") {
        true => "$$(:)",
        false => "$${JUST_VALUE}",
    };
    INTERPOLATION.replace_all(line, value).into_owned()
}

/// `make`'s `include` / `-include` / `sinclude` and `just`'s `import` and
/// `mod` lines naming files by a static path, followed: `make` looks for
/// them in each of `searched` (where it runs, then its `-I` folders), `just`
/// beside the file.
pub(super) fn follow_includes(
    file: &Path,
    searched: &[PathBuf],
    kind: Includes,
    found: &mut Reached,
    depth: usize,
) {
    if found.reads >= MAX_READS {
        found.computed.get_or_insert_with(|| {
            "it reads more makefiles than are followed: what their recipes run cannot be read"
                .to_owned()
        });
        return;
    }
    if depth > 8 || found.roots.len() > MAX_INCLUDED {
        return;
    }
    found.reads += 1;
    let Some(dir) = searched.first() else { return };
    let Some(text) = read_or_refuse(file, found) else {
        return;
    };
    let vars = match kind {
        Includes::Make => make_text::variables(&text),
        _ => Default::default(),
    };
    // An included file's export reaches the recipes read before it
    // (C-01g); one included by a name written out was read beforehand
    // ([`make_text::make_exports`]), another (`include $(X)`, `*.mk`)
    // exporting what a reading looks up cannot be approved.
    let exports = match kind {
        Includes::Make => Ok(make_text::exported(&text, dir)),
        Includes::Just => super::just_env::exported(&text, dir),
        Includes::None => Ok(Vec::new()),
    };
    for (name, value) in exports.unwrap_or_else(|why| {
        found.computed.get_or_insert(why);
        Vec::new()
    }) {
        let known = found
            .inherited
            .iter()
            .any(|(n, v)| *n == name && *v == value);
        if depth > 0 && !known && make_text::read_from_environment(&name) {
            found.computed.get_or_insert_with(|| {
                format!(
                    "a file it includes ({}) exports {name} to every recipe: what they run with \
                     it is not read",
                    file.display()
                )
            });
        }
        super::set_all(&mut found.inherited, [(name, value)]);
    }
    // `just CARGO_HOME=ch b`: the command line's value wins.
    if kind == Includes::Just {
        let overrides = found.overrides.clone();
        super::set_all(&mut found.inherited, overrides);
    }
    // `SHELL = tools/sh.sh`: make runs each recipe line with it.
    if let Some(shell) = vars.get("SHELL") {
        recipe_files(&make_text::shell_text(shell, &vars), dir, found);
    }
    // `make` joins a line ending in `\` with the next.
    let lines = match kind {
        Includes::Make => make_text::logical_lines(&text),
        Includes::Just => super::just_env::lines(&text),
        Includes::None => text.lines().map(str::to_owned).collect(),
    };
    // Each recipe as the shell text it runs (`$$` one `$`), with the
    // `PATH` the makefile gives it (`export PATH := $(CURDIR)/tools:$(PATH)`:
    // red team round 59, F1-12).
    if kind == Includes::Make {
        let path = make_text::search_path(&vars, dir);
        match make_text::recipes(&lines, &vars, found.makefiles_together) {
            Ok(recipes) => {
                for recipe in recipes {
                    let text = make_text::shell_text(&recipe, &vars);
                    recipe_files(&format!("{path}{text}"), dir, found);
                }
            }
            Err(why) if found.computed.is_none() => found.computed = Some(why),
            Err(_) => {}
        }
    }
    for raw in lines.iter().map(String::as_str) {
        let line = raw.trim_start();
        // A recipe line; but `\tinclude x.mk` before any rule is make's
        // directive (round 66): read as one either way.
        let directive = ["include ", "-include ", "sinclude "]
            .iter()
            .any(|start| line.starts_with(start));
        if kind == Includes::Make && raw.starts_with('\t') && !directive {
            continue;
        }
        // A `just` recipe line (indented), `{{…}}` a value.
        if kind == Includes::Just && raw.starts_with([' ', '\t']) {
            let line = line.trim_start_matches(['@', '-', '+']);
            recipe_files(&just_text(line, &text), dir, found);
            continue;
        }
        // `X := $(shell sh tools/g.sh)`: run when make reads the file.
        if kind == Includes::Make {
            for body in make_text::shell_calls(line) {
                recipe_files(&make_text::shell_text(body, &vars), dir, found);
            }
        }
        if kind == Includes::Just
            && let Some(paths) = just_module(line, file, dir)
        {
            for path in paths {
                if !found.roots.contains(&path) {
                    found.add(path.clone());
                    follow_includes(&path, searched, kind, found, depth + 1);
                }
            }
            continue;
        }
        let rest = match kind {
            Includes::Make => ["include ", "-include ", "sinclude "]
                .iter()
                .find_map(|p| line.strip_prefix(p)),
            Includes::Just => ["import? ", "import "]
                .iter()
                .find_map(|p| line.strip_prefix(p)),
            Includes::None => None,
        };
        let Some(rest) = rest else { continue };
        let mut names = shlex::split(rest.split('#').next().unwrap_or("")).unwrap_or_default();
        if kind == Includes::Make && rest.contains('$') {
            names.extend(included_names(rest, &vars, found));
        }
        for name in &names {
            // `$(wildcard mk/*.mk)`: the folder the pattern lists, as a tree.
            let pattern = name.trim_end_matches(')');
            let folder = pattern
                .find(['*', '?', '['])
                .and_then(|at| pattern[..at].rfind('/'))
                .map(|slash| &pattern[..slash])
                .filter(|folder| !folder.is_empty() && !folder.contains('$'));
            if let Some(folder) = folder.filter(|folder| *folder != ".") {
                searched
                    .iter()
                    .for_each(|place| found.add(place.join(folder)));
            }
        }
        // `include *.mk`, `-include ./*.d`: each file of the folder it is
        // looked for in that the pattern matches now (round 65: none was
        // bound); one made later is a new match, so the hook asks again.
        let in_place: Vec<String> = names
            .iter()
            .map(|name| name.trim_start_matches("./"))
            .filter(|name| name.contains(['*', '?', '[']) && !name.contains(['/', '$', ')']))
            .map(str::to_owned)
            .collect();
        // `include */*.mk`: a glob in a folder part too (round 66).
        let in_folders: Vec<String> = names
            .iter()
            .filter(|name| name.contains('/') && !name.contains(['$', ')']))
            .filter(|name| {
                name.split('/')
                    .rev()
                    .skip(1)
                    .any(|part| part.contains(['*', '?', '[']))
            })
            .flat_map(|pattern| {
                searched.iter().flat_map(move |place| {
                    crate::binding::globbing::glob_matches(place, pattern)
                        .into_iter()
                        .filter_map(move |path| {
                            Some(path.strip_prefix(place).ok()?.display().to_string())
                        })
                })
            })
            .take(MAX_INCLUDED)
            .collect();
        let in_place: Vec<String> = in_place
            .iter()
            .map(String::as_str)
            .flat_map(|pattern| {
                let places = match kind {
                    Includes::Just => vec![file.parent().unwrap_or(dir).to_path_buf()],
                    _ => searched.to_vec(),
                };
                places.into_iter().flat_map(move |place| {
                    let listing = std::fs::read_dir(&place).into_iter().flatten().flatten();
                    let mut matched: Vec<String> = listing
                        .map(|entry| entry.file_name().to_string_lossy().into_owned())
                        .filter(|name| {
                            (!name.starts_with('.') || pattern.starts_with('.'))
                                && crate::binding::globbing::wildcard(pattern, name)
                        })
                        .take(MAX_INCLUDED)
                        .collect();
                    matched.sort();
                    matched
                })
            })
            .collect();
        for name in names
            .iter()
            .chain(&in_place)
            .chain(&in_folders)
            .filter(|n| !n.contains(['$', '*', '?', '[', ')']))
        {
            let name = hermes_hooks_core::home::expand_tilde(name);
            let places: Vec<PathBuf> = match kind {
                Includes::Just => vec![file.parent().unwrap_or(dir).join(&name)],
                _ => searched.iter().map(|place| place.join(&name)).collect(),
            };
            for path in places {
                if !found.roots.contains(&path) {
                    found.add(path.clone());
                    follow_includes(&path, searched, kind, found, depth + 1);
                }
            }
        }
    }
}

/// The names a `make` `include` line's `rest` gives once the makefile's
/// `vars` are read (`include $(MK)`, `MK := mk/rules.mk`); one named when
/// make runs (`include $(shell …)`, a variable it does not set) makes the
/// makefile one that cannot be approved: what it includes cannot be read.
/// `$(wildcard dir/*.mk)` binds its folder ([`follow_includes`]).
fn included_names(
    rest: &str,
    vars: &std::collections::HashMap<String, String>,
    found: &mut Reached,
) -> Vec<String> {
    let text = make_text::shell_text(rest.split('#').next().unwrap_or(""), vars);
    let wildcard = rest.contains("$(wildcard") || rest.contains("${wildcard");
    let mut names = Vec::new();
    for word in text.split_whitespace() {
        if !word.contains('$') {
            names.push(word.to_owned());
        } else if !wildcard && found.computed.is_none() {
            found.computed = Some(format!(
                "a makefile includes a file named only when make runs ({})",
                rest.trim()
            ));
        }
    }
    names
}

/// The files a `just` `mod NAME` / `mod? NAME` / `mod NAME 'PATH'` line
/// may load (beside `file`): `PATH`, else `NAME.just`, `NAME/mod.just`,
/// `NAME/justfile`, `NAME/.justfile`.
fn just_module(line: &str, file: &Path, dir: &Path) -> Option<Vec<PathBuf>> {
    let rest = line
        .strip_prefix("mod? ")
        .or_else(|| line.strip_prefix("mod "))?;
    let words = shlex::split(rest.split('#').next().unwrap_or("")).unwrap_or_default();
    let beside = file.parent().unwrap_or(dir);
    let name = words.first()?;
    if let Some(path) = words.get(1) {
        let path = beside.join(hermes_hooks_core::home::expand_tilde(path));
        let mut paths = vec![path.clone()];
        if path.is_dir() {
            paths.extend(MODULE_FILES.iter().map(|f| path.join(f)));
        }
        return Some(paths);
    }
    let mut paths = vec![beside.join(format!("{name}.just"))];
    paths.extend(MODULE_FILES.iter().map(|f| beside.join(name).join(f)));
    Some(paths)
}

/// The files a `just` module folder is read from.
const MODULE_FILES: [&str; 4] = ["mod.just", "justfile", "Justfile", ".justfile"];

/// The most bytes of a definitions file read to follow it.
const MAX_READ: u64 = 1024 * 1024;

/// [`read_definition`] of a definitions file that exists: one that cannot
/// be read whole (over [`MAX_READ`] bytes, not a regular file) makes the
/// command one that cannot be approved, since what it runs is not read (a
/// makefile padded past the limit hid a computed recipe).
pub(super) fn read_or_refuse(path: &Path, found: &mut Reached) -> Option<String> {
    let text = read_definition(path);
    if text.is_none() && std::fs::symlink_metadata(path).is_ok() {
        found.computed.get_or_insert_with(|| {
            format!(
                "{} cannot be read whole (over {MAX_READ} bytes, not a regular file, or text not \
                 UTF-8 outside its comments): what it runs cannot be read",
                path.display()
            )
        });
    }
    text
}

/// `path`'s text when it is a regular file (links followed) of at most
/// [`MAX_READ`] bytes: never a FIFO that blocks, nor `/dev/zero`.
pub(super) fn read_definition(path: &Path) -> Option<String> {
    use std::io::Read;
    let metadata = std::fs::metadata(path).ok()?;
    if !metadata.is_file() || metadata.len() > MAX_READ {
        return None;
    }
    // Bytes not UTF-8 in a comment line only (a makefile's `# Autor:
    // M\xfcller` in Latin-1 was refused as "cannot be read whole": round
    // 72, U-3); anywhere else they may name what runs, so not read.
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_READ)
        .read_to_end(&mut bytes)
        .ok()?;
    let comments_only = bytes
        .split(|byte| *byte == b'\n')
        .all(|line| std::str::from_utf8(line).is_ok() || line.trim_ascii_start().starts_with(b"#"));
    comments_only.then(|| String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::just_text;

    #[test]
    fn a_just_interpolation_is_computed_where_the_justfile_runs_commands() {
        let line = "{{tool}} a";
        assert_eq!(just_text(line, "tool := 'x'\n"), "${JUST_VALUE} a");
        assert_eq!(just_text(line, "tool := `printf x`\n"), "$(:) a");
        assert_eq!(just_text(line, "tool := shell('printf x')\n"), "$(:) a");
        let reads =
            |text: &str| crate::binding::identify::computed_in(text, std::path::Path::new("/"));
        assert!(reads(&just_text(line, "tool := `printf x`\n")).is_some());
    }
}
