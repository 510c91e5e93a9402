//! The project files a cargo configuration names (`.cargo/config.toml`:
//! a `rustc-wrapper`, a runner, an alias's manifest path).

use std::path::{Path, PathBuf};

use super::Reached;
use super::follow::read_definition;

/// The project files a cargo configuration among `manifests`
/// (`.cargo/config.toml`, `.cargo/config`) names (red-team round 5, F17:
/// `build.rustc-wrapper = "tools/wrap.sh"`, `target.<triple>.runner`, an
/// `[alias]` running `--manifest-path tools/lint/Cargo.toml`): every string
/// value that reads as a relative path (a leading `.` or a `/` inside, no
/// URL) is bound, from the folder that holds `.cargo`, as cargo reads them;
/// a `Cargo.toml` named so brings its `src/` and `build.rs`.
pub(super) fn cargo_config_files(manifests: &[PathBuf], found: &mut Reached) {
    for config in manifests {
        let in_cargo_folder = config
            .parent()
            .is_some_and(|folder| folder.file_name().is_some_and(|name| name == ".cargo"));
        let Some(base) = config.parent().and_then(Path::parent) else {
            continue;
        };
        if !in_cargo_folder {
            continue;
        }
        if std::fs::symlink_metadata(config).is_err() {
            continue;
        }
        // Present but not read whole (too large, not a file, not TOML we
        // parse, nested too deep): what it names cannot be known.
        let parsed = read_definition(config).and_then(|text| text.parse::<toml::Table>().ok());
        let Some(value) = parsed else {
            found.unsure("cargo", "a .cargo/config.toml that cannot be read whole");
            continue;
        };
        named_files(&value, base, found);
    }
}

/// Binds the project files the cargo settings `table` names: every string
/// value that reads as a relative path (from `base`), and a `Cargo.toml`
/// named so with its `src/` and `build.rs`.
fn named_files(table: &toml::Table, base: &Path, found: &mut Reached) {
    let mut strings = Vec::new();
    if !toml_strings(&toml::Value::Table(table.clone()), &mut strings, 0) {
        found.unsure("cargo", "cargo settings nested too deep");
    }
    for text in strings {
        for word in text.split_whitespace() {
            let word = word.trim_matches(|c| c == '"' || c == '\'');
            let word = word.rsplit_once('=').map_or(word, |(_, value)| value);
            if word.contains("://") || !(word.starts_with('.') || word.contains('/')) {
                continue;
            }
            if Path::new(word).is_absolute() {
                continue;
            }
            let relative: PathBuf = Path::new(word)
                .components()
                .filter(|part| !matches!(part, std::path::Component::CurDir))
                .collect();
            let file = base.join(relative);
            if file.file_name().is_some_and(|name| name == "Cargo.toml")
                && let Some(crate_dir) = file.parent()
            {
                found.add(crate_dir.join("src"));
                found.add(crate_dir.join("build.rs"));
            }
            found.add(file);
        }
    }
}

/// The settings cargo is given besides the project's `.cargo/config.toml`:
/// files (`--config FILE`, `$CARGO_HOME/config.toml`) and inline tables
/// (`--config 'patch.crates-io.d.path="d"'`, round 68), from `folder`.
#[derive(Debug, Default)]
pub(super) struct Given {
    /// Settings files, each with the folder its paths are from.
    files: Vec<(PathBuf, PathBuf)>,
    /// Settings given inline, parsed, with the folder their paths are from.
    inline: Vec<(toml::Table, PathBuf)>,
    /// Why one given cannot be read.
    unread: Option<String>,
}

/// What `read` (cargo's words and the variables the command sets) gives
/// cargo to read besides its project's settings, from `folder`.
pub(super) fn given_settings(read: &super::options::Read, folder: &Path) -> Given {
    let mut given = Given::default();
    let args = &read.args;
    for (at, arg) in args.iter().enumerate() {
        let value = match arg.as_str() {
            "--config" => args.get(at + 1).map(String::as_str),
            _ => arg.strip_prefix("--config="),
        };
        let Some(value) = value else { continue };
        if !value.contains('=') {
            // Its paths from the folder holding `.cargo` when it is in one
            // (`--config .cargo/ci.toml`), else from its own folder; from
            // where cargo runs too (each read: the reading binds more).
            let file = crate::binding::normalize(&folder.join(value));
            let own = file.parent().unwrap_or(folder);
            let base = match own.ends_with(".cargo") {
                true => own.parent().unwrap_or(own),
                false => own,
            };
            given.files.push((file.clone(), base.to_path_buf()));
            if base != folder {
                given.files.push((file, folder.to_path_buf()));
            }
        } else {
            match value.parse::<toml::Table>() {
                Ok(table) => given.inline.push((table, folder.to_path_buf())),
                Err(_) => given.unread = Some(format!("cargo --config '{value}'")),
            }
        }
    }
    // `CARGO_HOME=ch cargo …`: `ch/config.toml`, its paths from the folder
    // holding `ch` (as `.cargo`'s are).
    let home = read.env.iter().find(|(name, _)| name == "CARGO_HOME");
    if let Some((_, home)) = home {
        // `$HOME/.cargo`: the user's (sweep 71).
        let user = hermes_hooks_core::home::user_home().map(|h| h.display().to_string());
        let home = &match user {
            Some(user) => home.replace("${HOME}", &user).replace("$HOME", &user),
            None => home.clone(),
        };
        // `$PWD/ch`: the folder it runs in; another expansion, unknown.
        if crate::binding::wrappers::computed(home) {
            given.unread = Some(format!("CARGO_HOME={home}"));
        }
        for home in crate::binding::wrappers::places(folder, home) {
            let home = crate::binding::normalize(&home);
            let base = home.parent().unwrap_or(folder).to_path_buf();
            for name in ["config.toml", "config"] {
                given.files.push((home.join(name), base.clone()));
            }
        }
    }
    given
}

/// The crate folders cargo's settings among `manifests` and `given`
/// (`.cargo/config.toml`, a `--config` file or table, `$CARGO_HOME`'s,
/// each file bound) build in place of a registry's crates: `[patch.*] x
/// = { path = "d" }`, `paths = ["d"]`, each crate of a `[source.*]
/// directory = "vendor"` (round 67: their build scripts ran unbound).
/// The project files a given file names (a `rustc-wrapper`) are bound
/// too. Paths are from the folder holding `.cargo`.
pub(super) fn replacing_crates(
    manifests: &[PathBuf],
    given: &Given,
    found: &mut Reached,
) -> Vec<PathBuf> {
    if let Some(what) = &given.unread {
        found.computed.get_or_insert_with(|| {
            format!("cargo is given settings ({what}) this reading cannot read")
        });
    }
    let mut tables: Vec<(toml::Table, PathBuf)> = Vec::new();
    let settings = manifests
        .iter()
        .filter(|config| {
            config
                .parent()
                .is_some_and(|folder| folder.ends_with(".cargo"))
        })
        .map(|config| {
            let base = config
                .parent()
                .and_then(Path::parent)
                .unwrap_or(Path::new("/"));
            (config.clone(), base.to_path_buf())
        });
    let mut pending: Vec<(PathBuf, PathBuf)> =
        settings.chain(given.files.iter().cloned()).collect();
    let mut at = 0;
    while at < pending.len() && at < MAX_SETTINGS {
        let (config, base) = pending[at].clone();
        at += 1;
        found.add(config.clone());
        if std::fs::symlink_metadata(&config).is_err() {
            continue;
        }
        let parsed = read_definition(&config).and_then(|text| text.parse::<toml::Table>().ok());
        let Some(table) = parsed else {
            found.unsure("cargo", "a cargo settings file that cannot be read whole");
            continue;
        };
        // `include = ["../ch/config.toml"]`: from the including file's
        // folder, present or not (round 69).
        let folder = config.parent().unwrap_or(Path::new("/"));
        for included in includes(&table) {
            let file = crate::binding::normalize(&folder.join(included));
            if !pending.iter().any(|(known, _)| *known == file) {
                pending.push((file, base.clone()));
            }
        }
        tables.push((table, base));
    }
    tables.extend(given.inline.iter().cloned());
    let mut crates = Vec::new();
    for (table, base) in &tables {
        named_files(table, base, found);
        crates.extend(replaced(table, base, found));
    }
    crates.retain(|folder| folder.join("Cargo.toml").is_file());
    crates
}

/// The most cargo settings files read for one command.
const MAX_SETTINGS: usize = 16;

/// The files the cargo settings `table` includes (`include = "x.toml"`,
/// `["a.toml", { path = "b.toml" }]`).
fn includes(table: &toml::Table) -> Vec<String> {
    let items = match table.get("include") {
        Some(toml::Value::Array(items)) => items.clone(),
        Some(item) => vec![item.clone()],
        None => Vec::new(),
    };
    items
        .iter()
        .filter_map(|item| match item {
            toml::Value::String(path) => Some(path.clone()),
            toml::Value::Table(entry) => entry.get("path")?.as_str().map(str::to_owned),
            _ => None,
        })
        .collect()
}

/// The crate folders `table` (cargo settings whose paths are from `base`)
/// puts in place of a registry's.
fn replaced(table: &toml::Table, base: &Path, found: &mut Reached) -> Vec<PathBuf> {
    let mut crates = Vec::new();
    let patched = table.get("patch").and_then(toml::Value::as_table);
    for registry in patched.into_iter().flat_map(|p| p.values()) {
        for entry in registry.as_table().into_iter().flat_map(|r| r.values()) {
            if let Some(path) = entry.get("path").and_then(toml::Value::as_str) {
                crates.push(base.join(path));
            }
        }
    }
    let paths = table.get("paths").and_then(toml::Value::as_array);
    let paths = paths.into_iter().flatten().filter_map(toml::Value::as_str);
    crates.extend(paths.map(|path| base.join(path)));
    let sources = table.get("source").and_then(toml::Value::as_table);
    for source in sources.into_iter().flat_map(|s| s.values()) {
        let Some(directory) = source.get("directory").and_then(toml::Value::as_str) else {
            continue;
        };
        let vendored = base.join(directory);
        // A crate added there later: what the folder holds, by name.
        if !found.listed.contains(&vendored) {
            found.listed.push(vendored.clone());
        }
        if let Ok(listing) = std::fs::read_dir(&vendored) {
            crates.extend(listing.flatten().map(|entry| entry.path()).take(256));
        }
    }
    crates
}

/// Every string in `value` (nested tables and arrays); `false` when some
/// lie deeper than cargo configurations go and were not read.
fn toml_strings(value: &toml::Value, out: &mut Vec<String>, depth: usize) -> bool {
    if depth > 8 {
        return false;
    }
    match value {
        toml::Value::String(text) => {
            out.push(text.clone());
            true
        }
        toml::Value::Array(items) => {
            let mut all = true;
            for item in items {
                all &= toml_strings(item, out, depth + 1);
            }
            all
        }
        toml::Value::Table(table) => {
            let mut all = true;
            for item in table.values() {
                all &= toml_strings(item, out, depth + 1);
            }
            all
        }
        _ => true,
    }
}
