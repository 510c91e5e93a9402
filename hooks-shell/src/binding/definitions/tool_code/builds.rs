//! What build files bring in and run (red team round 63): ninja's
//! `include`/`subninja`, CMake's `add_subdirectory` and `include`, meson's
//! `subdir` by a bare name; the commands they and a tool's code start; the
//! tests ctest runs from a build folder (round 65).

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use super::super::Reached;
use super::{MAX_NAMED, named_files, run, values_of};

/// Reads what the build file `text` of `name` (ninja, CMake, meson), in
/// `dir`, runs: ninja's `command =` lines, the commands CMake's
/// `execute_process` and meson's `run_command` start, the files it names.
pub(super) fn commands_of(
    name: &str,
    text: &str,
    dir: &Path,
    at: (bool, usize),
    found: &mut Reached,
) {
    match name {
        "ninja" => {
            for command in values_of(text, "command") {
                run(&command, dir, at, found);
            }
        }
        _ => {
            let started = crate::binding::shell::runners_named(text);
            for words in started.iter().take(MAX_NAMED) {
                if let Ok(line) = shlex::try_join(words.iter().map(String::as_str)) {
                    run(&line, dir, at, found);
                }
            }
        }
    }
    for file in named_files(text, dir) {
        found.add(file);
    }
}

/// The build files `manifest` (of `name`, holding `text`, in `dir`) brings
/// in by a bare name, and those bring in in turn, inside `dir`.
pub(super) fn included(name: &str, manifest: &Path, text: &str, dir: &Path) -> Vec<PathBuf> {
    static NAMED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r#"(?mi)^\s*(?:include|subninja)\s+(\S+)|\b(add_subdirectory|include|subdir)\s*\(\s*['"]?([^\s'")]+)"#,
        )
        .expect("valid regex")
    });
    let mut pending = vec![(
        text.to_owned(),
        manifest.parent().unwrap_or(dir).to_path_buf(),
    )];
    let mut files: Vec<PathBuf> = Vec::new();
    while let Some((text, at)) = pending.pop() {
        for found in NAMED.captures_iter(&text) {
            let candidates: Vec<PathBuf> = match (found.get(1), found.get(2), found.get(3)) {
                (Some(file), _, _) if name == "ninja" => vec![at.join(file.as_str())],
                (_, Some(call), Some(arg)) => {
                    let arg = arg.as_str();
                    match call.as_str().to_ascii_lowercase().as_str() {
                        "add_subdirectory" if name == "cmake" => {
                            vec![at.join(arg).join("CMakeLists.txt")]
                        }
                        "subdir" if name == "meson" => vec![at.join(arg).join("meson.build")],
                        // A module by its name: where `CMAKE_MODULE_PATH` may
                        // put it is any folder of the project holding one.
                        "include" if name == "cmake" => {
                            let mut found = vec![at.join(arg), at.join(format!("{arg}.cmake"))];
                            found.extend(named_anywhere(dir, &format!("{arg}.cmake")));
                            found
                        }
                        _ => Vec::new(),
                    }
                }
                _ => Vec::new(),
            };
            for file in candidates {
                let file = crate::binding::normalize(&file);
                if files.contains(&file) || files.len() >= MAX_NAMED || !file.starts_with(dir) {
                    continue;
                }
                files.push(file.clone());
                if let Some(inner) = super::super::follow::read_definition(&file) {
                    let folder = file.parent().unwrap_or(&at).to_path_buf();
                    pending.push((inner, folder));
                }
            }
        }
    }
    files
}

/// The files of `dir` (its first 4096 entries, dot folders left out)
/// named `name`.
fn named_anywhere(dir: &Path, name: &str) -> Vec<PathBuf> {
    let dotted = |folder: &str| folder.starts_with('.');
    let (files, _) = super::super::walk::files_under(dir, 4096, &dotted);
    let named = |file: &PathBuf| file.file_name().is_some_and(|n| n == name);
    files.into_iter().filter(named).collect()
}

/// Reads the commands the code file `file` starts (`execSync("make")`,
/// `os.system("make")`), run in `dir`.
pub(super) fn started(file: &Path, dir: &Path, at: (bool, usize), found: &mut Reached) {
    for line in crate::binding::identify::started_by_file(file) {
        run(&line, dir, at, found);
    }
}

/// The command lines invoke's `c.run("…")` / `ctx.run('…')` start, as
/// written.
pub(super) fn invoke_runs(text: &str) -> Vec<String> {
    static RUN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"\.(?:run|sudo)\s*\(\s*f?(?:"([^"]*)"|'([^']*)')"#).expect("valid regex")
    });
    RUN.captures_iter(text)
        .filter_map(|found| found.get(1).or(found.get(2)))
        .map(|line| line.as_str().to_owned())
        .take(MAX_NAMED)
        .collect()
}

/// The settings files named `names` in the folders below each folder
/// `words` name inside `dir` (`.` for `dir` itself), present now; node
/// modules, dot folders and `target` left out, at most 4096 entries.
pub(super) fn settings_below(words: &[String], dir: &Path, names: &[&str]) -> Vec<PathBuf> {
    let skip =
        |folder: &str| folder.starts_with('.') || folder == "node_modules" || folder == "target";
    let mut found = Vec::new();
    let mut left = 4096usize;
    for word in words.iter().filter(|word| !word.starts_with('-')).take(16) {
        let start = crate::binding::normalize(&dir.join(word));
        if left == 0 || !start.is_dir() || !start.starts_with(dir) {
            continue;
        }
        let (files, seen) = super::super::walk::files_under(&start, left, &skip);
        left = left.saturating_sub(seen);
        let settings = |file: &PathBuf| {
            file.parent() != Some(dir)
                && file
                    .file_name()
                    .is_some_and(|name| names.contains(&name.to_string_lossy().as_ref()))
        };
        found.extend(files.into_iter().filter(settings));
    }
    found
}

/// The commands ctest runs from the build folder's `manifest`
/// (`CTestTestfile.cmake`, holding `text`): each `add_test(t "sh" "x.sh")`
/// in its `WORKING_DIRECTORY` (else that folder), and those of the folders
/// its `subdirs("sub")` lists.
pub(super) fn ctest(manifest: &Path, text: &str, at: (bool, usize), found: &mut Reached) {
    static TEST: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?m)^\s*add_test\(\s*(\S+)\s+(.*)\)\s*$").expect("valid regex")
    });
    static FOLDER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?m)^\s*set_tests_properties\(\s*(\S+)\s+PROPERTIES\b.*?\bWORKING_DIRECTORY\s+"([^"]*)""#)
            .expect("valid regex")
    });
    static SUBDIRS: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#"(?m)^\s*subdirs\(\s*"([^"]+)"\s*\)"#).expect("valid regex"));
    let mut pending = vec![(manifest.to_path_buf(), text.to_owned())];
    let mut read = 0usize;
    while let Some((file, text)) = pending.pop() {
        read += 1;
        let Some(folder) = file.parent().map(Path::to_path_buf) else {
            continue;
        };
        let folders: std::collections::HashMap<&str, &str> = FOLDER
            .captures_iter(&text)
            .filter_map(|found| Some((found.get(1)?.as_str(), found.get(2)?.as_str())))
            .collect();
        for test in TEST.captures_iter(&text).take(MAX_NAMED) {
            let words = shlex::split(&test[2]).unwrap_or_default();
            let Ok(line) = shlex::try_join(words.iter().map(String::as_str)) else {
                continue;
            };
            let here = folders.get(&test[1]).map_or(folder.clone(), PathBuf::from);
            run(&line, &here, at, found);
        }
        for sub in SUBDIRS.captures_iter(&text).take(MAX_NAMED) {
            let path = crate::binding::normalize(&folder.join(&sub[1]).join("CTestTestfile.cmake"));
            found.add(path.clone());
            if read < MAX_NAMED
                && let Some(inner) = super::super::follow::read_or_refuse(&path, found)
            {
                pending.push((path, inner));
            }
        }
    }
}

/// The command lines tox's settings `manifest` (holding `text`) runs: each
/// `commands`, `commands_pre` and `commands_post` of an INI file (its
/// continuation lines too), of `pyproject.toml`'s `legacy_tox_ini`, or,
/// as lists of words, of a TOML file's tables. `{toxinidir}` and
/// `{tox_root}` are the folder; another `{…}` (`{posargs}`) is left out.
pub(super) fn tox_commands(manifest: &Path, text: &str) -> Result<Vec<String>, String> {
    let mut lines = Vec::new();
    if manifest.extension().is_some_and(|ending| ending == "toml") {
        if let Ok(value) = text.parse::<toml::Table>() {
            toml_commands(&toml::Value::Table(value), &mut lines);
        }
    } else {
        ini_commands(text, &mut lines);
    }
    // `{[base]cmd}`: another section's value, in place (round 66).
    static REFERENCE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\{\[([^\]]+)\]([^{}]+)\}").expect("valid regex"));
    static SUBSTITUTION: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\{[^{}]*\}").expect("valid regex"));
    let lines: Vec<String> = lines
        .iter()
        .map(|line| {
            REFERENCE
                .replace_all(line, |found: &regex::Captures| {
                    ini_value(text, &found[1], &found[2]).unwrap_or_else(|| "$(:)".to_owned())
                })
                .into_owned()
        })
        .collect();
    // `setenv = CARGO_HOME = ch`: the environment each command gets (round
    // 72: a command's cargo read `ch/config.toml` unbound), every
    // environment's given to every command, which binds more; only what
    // steers code matters to the reading, and such a value tox
    // substitutes (`{envdir}`) is computed when it runs.
    let environment: String = tox_environment(manifest, text)?
        .into_iter()
        .filter(|(name, _)| crate::dialect::code_env::steers_code(name))
        .map(|(name, value)| {
            let value = value.replace("{toxinidir}", ".").replace("{tox_root}", ".");
            let value = match SUBSTITUTION.is_match(&value) {
                true => "$(:)".to_owned(),
                false => shlex::try_quote(&value).map_or("$(:)".to_owned(), |v| v.into_owned()),
            };
            format!("export {name}={value}; ")
        })
        .collect();
    Ok(lines
        .iter()
        .map(|line| line.replace("{toxinidir}", ".").replace("{tox_root}", "."))
        .map(|line| format!("{environment}{}", SUBSTITUTION.replace_all(&line, "")))
        .take(MAX_NAMED)
        .collect())
}

/// The variables tox's settings `manifest` (holding `text`) set for its
/// commands: each `setenv` / `set_env` of an INI file (`NAME = value` on
/// its continuation lines) or of a TOML file's tables.
fn tox_environment(manifest: &Path, text: &str) -> Result<Vec<(String, String)>, String> {
    let mut pairs = Vec::new();
    if manifest.extension().is_some_and(|ending| ending == "toml") {
        let mut tables: Vec<toml::Value> = text
            .parse::<toml::Table>()
            .map(|table| vec![toml::Value::Table(table)])
            .unwrap_or_default();
        while let Some(value) = tables.pop() {
            let toml::Value::Table(table) = value else {
                continue;
            };
            for (key, value) in table {
                match (key.as_str(), value) {
                    ("set_env" | "setenv", toml::Value::Table(set)) => {
                        for (name, value) in set {
                            let value = value.as_str().map_or("$(:)".to_owned(), str::to_owned);
                            pairs.push((name, value));
                        }
                    }
                    // `legacy_tox_ini`: an INI text (round 73, EV-T05).
                    ("legacy_tox_ini", toml::Value::String(ini)) => {
                        pairs.extend(tox_environment(&manifest.with_extension("ini"), &ini)?);
                    }
                    (_, value @ toml::Value::Table(_)) => tables.push(value),
                    _ => {}
                }
            }
        }
        return Ok(pairs);
    }
    let folder = manifest.parent().unwrap_or(Path::new("."));
    let mut taking = false;
    for line in text.lines() {
        let continued = line.starts_with([' ', '\t']) && !line.trim().is_empty();
        let entry = match (taking && continued, line.split_once('=')) {
            (true, _) => Some(line.trim()),
            (false, Some((key, value))) if matches!(key.trim(), "setenv" | "set_env") => {
                taking = true;
                Some(value.trim())
            }
            _ => {
                taking = false;
                None
            }
        };
        // `set_env = file|.env`: the variables of that file (round 73).
        if let Some(file) = entry.and_then(|entry| entry.strip_prefix("file|")) {
            pairs.extend(crate::binding::definitions::shell_env::env_file(
                &folder.join(file.trim()),
            )?);
            continue;
        }
        if let Some((name, value)) = entry.and_then(|entry| entry.split_once('='))
            && !name.trim().is_empty()
        {
            pairs.push((name.trim().to_owned(), value.trim().to_owned()));
        }
    }
    Ok(pairs)
}

/// The value of `key` in the INI `text`'s section `section`, its
/// continuation lines joined.
fn ini_value(text: &str, section: &str, key: &str) -> Option<String> {
    let mut inside = false;
    let mut value: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            if value.is_some() {
                break;
            }
            inside = trimmed.trim_matches(['[', ']']) == section;
            continue;
        }
        match (&mut value, line.starts_with([' ', '\t'])) {
            (Some(value), true) if !trimmed.is_empty() => {
                value.push('\n');
                value.push_str(trimmed);
            }
            (Some(_), _) => break,
            (None, _) if inside => {
                if let Some((name, found)) = line.split_once('=')
                    && name.trim() == key.trim()
                {
                    value = Some(found.trim().to_owned());
                }
            }
            _ => {}
        }
    }
    value
}

/// The `commands*` lines of the INI `text` into `lines`; a line ending in
/// `\` goes on in the next (round 66).
fn ini_commands(text: &str, lines: &mut Vec<String>) {
    let mut taking = false;
    for line in text.lines() {
        let continued = line.starts_with([' ', '\t']) && !line.trim().is_empty();
        if taking && continued {
            match lines.last_mut().filter(|last| last.ends_with('\\')) {
                Some(last) => {
                    last.pop();
                    last.push(' ');
                    last.push_str(line.trim());
                }
                None => lines.push(line.trim().to_owned()),
            }
            continue;
        }
        taking = false;
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if matches!(key.trim(), "commands" | "commands_pre" | "commands_post") {
            taking = true;
            if !value.trim().is_empty() {
                lines.push(value.trim().to_owned());
            }
        }
    }
}

/// The `commands*` lists of words anywhere in `value` into `lines`; a
/// `legacy_tox_ini` text read as INI.
fn toml_commands(value: &toml::Value, lines: &mut Vec<String>) {
    let toml::Value::Table(table) = value else {
        return;
    };
    for (key, value) in table {
        match (key.as_str(), value) {
            ("legacy_tox_ini", toml::Value::String(ini)) => ini_commands(ini, lines),
            ("commands" | "commands_pre" | "commands_post", toml::Value::Array(commands)) => {
                for command in commands {
                    match command {
                        toml::Value::Array(words) => {
                            let words = words.iter().filter_map(toml::Value::as_str);
                            lines.extend(shlex::try_join(words).ok());
                        }
                        toml::Value::String(line) => lines.push(line.clone()),
                        _ => {}
                    }
                }
            }
            _ => toml_commands(value, lines),
        }
    }
}

/// The commands a build folder's `CTestCustom.cmake` (`text`, in `dir`)
/// has ctest run before and after the tests (`set(CTEST_CUSTOM_PRE_TEST
/// "sh x.sh")`: round 66).
pub(super) fn ctest_custom(text: &str, dir: &Path, at: (bool, usize), found: &mut Reached) {
    static CUSTOM: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?i)set\s*\(\s*CTEST_CUSTOM_(?:PRE|POST)_TEST\s+"([^"]*)""#)
            .expect("valid regex")
    });
    for command in CUSTOM.captures_iter(text).take(MAX_NAMED) {
        run(&command[1], dir, at, found);
    }
}
