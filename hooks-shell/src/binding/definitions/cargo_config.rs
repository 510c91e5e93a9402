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
        let mut strings = Vec::new();
        if !toml_strings(&toml::Value::Table(value), &mut strings, 0) {
            found.unsure("cargo", "a .cargo/config.toml nested too deep");
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
