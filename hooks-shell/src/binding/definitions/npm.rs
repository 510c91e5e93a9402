//! What the `package.json` script a package manager runs names: its
//! command's files, its `node_modules/.bin` tool, the scripts it runs by
//! name, the code `.npmrc` loads for it.

use std::path::{Path, PathBuf};

use super::follow::{read_or_refuse, recipe_files};
use super::{MAX_INCLUDED, Reached, node_tool, reached_within};
use crate::binding::shell::{simple_commands, skip_prefixes};

/// What the `package.json` script a package manager runs (`npm run lint`,
/// `npm test`, `yarn lint`, with its `pre`/`post` scripts) names: the files
/// its command reaches ([`crate::binding::identify()`]), a `node_modules/.bin` tool it starts,
/// and the definitions it runs in turn.
pub(super) fn package_scripts(
    words: &[String],
    dir: &Path,
    (project_hook, depth): (bool, usize),
    found: &mut Reached,
) {
    // `npm explore pkg -- cmd`: a command run inside an installed
    // package's folder, which this reading does not follow (round 65).
    if words.first().is_some_and(|word| word == "explore") {
        found.computed.get_or_insert_with(|| {
            "npm explore runs a command inside an installed package: what it runs cannot be read"
                .to_owned()
        });
        return;
    }
    let name = match words.first().map(String::as_str) {
        Some("run" | "run-script" | "rum" | "urn") => words.get(1).cloned(),
        // `npm t`, `npm tst`: `npm test` (R45-6).
        Some("t" | "tst") => Some("test".to_owned()),
        _ => words.first().cloned(),
    };
    npmrc_files(dir, found);
    // Scripts running each other by name (`run-s "s*"` in each of ten):
    // as many readings as a makefile's, then it cannot be approved.
    found.reads += 1;
    if found.reads > super::MAX_READS {
        found.computed.get_or_insert_with(|| {
            "its package scripts run each other more times over than are followed".to_owned()
        });
    }
    let Some(name) = name.filter(|_| found.computed.is_none()) else {
        return;
    };
    let Some(text) = read_or_refuse(&dir.join("package.json"), found) else {
        return;
    };
    // A byte order mark, a number no `f64` holds: npm reads it, so it is
    // never read as having no scripts (R45-6).
    let Ok(manifest) =
        serde_json::from_str::<serde_json::Value>(text.trim_start_matches('\u{feff}'))
    else {
        found.computed.get_or_insert_with(|| {
            "a package.json this reading cannot parse: what its scripts run cannot be read"
                .to_owned()
        });
        return;
    };
    // `npm run lint -- "$(…)"`: npm appends the words after the script's
    // name to its command (R45-6), each read as the hook's text wrote it.
    let named_at = usize::from(
        words
            .first()
            .is_some_and(|w| w != &name && w != "t" && w != "tst"),
    );
    let appended: String = words
        .iter()
        .skip(named_at + 1)
        .skip_while(|word| *word == "--")
        .map(|word| format!(" \"{}\"", word.replace(['"', '\\'], "")))
        .collect();
    let script_line = |script: &str| {
        let pointer = format!("/scripts/{}", script.replace('~', "~0").replace('/', "~1"));
        manifest
            .pointer(&pointer)
            .and_then(serde_json::Value::as_str)
    };
    // npm's own defaults (round 65): `restart` without a script runs
    // `stop` and `start`; `start` without one runs `node server.js`.
    if name == "restart" && script_line("restart").is_none() && depth < super::MAX_NESTING {
        for then in ["stop", "start"] {
            let words = ["run".to_owned(), then.to_owned()];
            package_scripts(&words, dir, (project_hook, depth + 1), found);
        }
    }
    for script in [format!("pre{name}"), name.clone(), format!("post{name}")] {
        let default = (script == "start").then_some("node server.js");
        let Some(line) = script_line(&script).or(default) else {
            continue;
        };
        let with_words = format!("{line}{appended}");
        let line = match script == name {
            true => with_words.as_str(),
            false => line,
        };
        recipe_files(line, dir, found);
        for command in simple_commands(line) {
            let command = skip_prefixes(&command);
            if let Some(first) = command.first().filter(|w| !w.contains('/')) {
                let bin = dir.join("node_modules/.bin").join(first);
                if std::fs::symlink_metadata(&bin).is_ok() {
                    node_tool(first, dir, project_hook, found);
                }
            }
            if depth < super::MAX_NESTING {
                scripts_run_by_name(&command, &manifest, dir, (project_hook, depth), found);
            }
        }
        if found.roots.len() < MAX_INCLUDED {
            reached_within(line, dir, project_hook, found, depth + 1);
        }
    }
}

/// The scripts of `manifest` that `command` (a script's command) runs by
/// their names (`run-p lint:*`, `run-s a b`, `npm-run-all a`,
/// `concurrently "npm:a" "sh x"`, whose other words are shell text): read
/// as `npm run` reads them (red team R45-6).
fn scripts_run_by_name(
    command: &[String],
    manifest: &serde_json::Value,
    dir: &Path,
    (project_hook, depth): (bool, usize),
    found: &mut Reached,
) {
    let Some((program, args)) = command.split_first() else {
        return;
    };
    let program = crate::binding::base_name(program);
    let by_name = matches!(program.as_str(), "run-p" | "run-s" | "npm-run-all");
    if !by_name && program != "concurrently" {
        return;
    }
    let names = manifest
        .get("scripts")
        .and_then(serde_json::Value::as_object)
        .map(|scripts| scripts.keys().cloned().collect::<Vec<_>>())
        .unwrap_or_default();
    for arg in args.iter().filter(|arg| !arg.starts_with('-')) {
        let pattern = match (by_name, arg.strip_prefix("npm:")) {
            (true, _) => arg.as_str(),
            (false, Some(name)) => name,
            // `concurrently "sh x"`: a command.
            (false, None) => {
                recipe_files(arg, dir, found);
                continue;
            }
        };
        for name in names
            .iter()
            .filter(|name| crate::binding::globbing::wildcard(pattern, name))
        {
            let words = ["run".to_owned(), name.clone()];
            package_scripts(&words, dir, (project_hook, depth + 1), found);
        }
    }
}

/// The `.npmrc` keys whose value is code npm runs or loads for a script.
const NPMRC_CODE_KEYS: &[&str] = &[
    "script-shell",
    "node-options",
    "onload-script",
    "init-module",
];

/// The project files `dir/.npmrc` names as code (red-team round 4, N4:
/// `script-shell=tools/sh.sh`, `node-options=--require ./tools/a.js`): bound
/// like the script's own files, so a change there asks again.
///
/// The settings files npm reads besides (round 67): the one a
/// `userconfig=` / `globalconfig=` key names (`${PWD}`, `${HOME}` and `~`
/// expanded), and the user's own `~/.npmrc`, whose relative paths are the
/// project's too (`node-options=--require ./s.js` loads the project's
/// `s.js`). Each is bound, present or not.
fn npmrc_files(dir: &Path, found: &mut Reached) {
    let home = hermes_hooks_core::home::user_home();
    let mut pending = vec![dir.join(".npmrc")];
    pending.extend(home.as_ref().map(|home| home.join(".npmrc")));
    let mut read = 0;
    while read < pending.len() && read < MAX_NPMRC {
        let file = pending[read].clone();
        read += 1;
        found.add(file.clone());
        let Some(text) = read_or_refuse(&file, found) else {
            continue;
        };
        for named in other_settings(&text, dir, home.as_deref()) {
            if !pending.contains(&named) {
                pending.push(named);
            }
        }
        npmrc_code(&text, dir, found);
    }
}

/// The most npm settings files read for one run.
const MAX_NPMRC: usize = 6;

/// The settings files `text` (an `.npmrc`) names for npm to read too.
fn other_settings(text: &str, dir: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let mut named = Vec::new();
    for line in text.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if !matches!(key.trim(), "userconfig" | "globalconfig") {
            continue;
        }
        let here = dir.display().to_string();
        let mut value = value.trim().replace("${PWD}", &here).replace("$PWD", &here);
        if let Some(home) = home.map(|home| home.display().to_string()) {
            value = value.replace("${HOME}", &home).replace("$HOME", &home);
            if let Some(rest) = value.strip_prefix("~/") {
                value = format!("{home}/{rest}");
            }
        }
        named.push(crate::binding::normalize(
            &dir.join(value.trim_matches('"')),
        ));
    }
    named
}

/// Binds the project files `text` (an `.npmrc`) names as code.
fn npmrc_code(text: &str, dir: &Path, found: &mut Reached) {
    for line in text.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if !NPMRC_CODE_KEYS.contains(&key.trim()) {
            continue;
        }
        let words = value.split(|c: char| c.is_whitespace() || c == '=' || c == '"' || c == '\'');
        for word in words.filter(|w| w.starts_with('.') || (w.contains('/') && !w.contains("://")))
        {
            let relative: PathBuf = Path::new(word)
                .components()
                .filter(|part| !matches!(part, std::path::Component::CurDir))
                .collect();
            found.add(dir.join(relative));
        }
    }
}
