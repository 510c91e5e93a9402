//! The packages of a project's `node_modules` that a tool's settings name
//! by a short name, expanded as the tool expands it: ESLint's
//! `extends: ["evil"]` is `eslint-config-evil` (round 65), Babel's
//! `plugins: ["evil"]` is `babel-plugin-evil` (round 67). Each package
//! found is bound whole where the settings are read.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

/// The prefixes ESLint puts before a short name.
pub(super) const ESLINT: &[&str] = &["eslint-config", "eslint-plugin"];
/// The prefixes Babel (plugins, presets) and Jest (`testEnvironment`,
/// `runner`) put before a short name.
pub(super) const BABEL_AND_JEST: &[&str] = &[
    "babel-plugin",
    "babel-preset",
    "jest-environment",
    "jest-runner",
];

/// The most packages one settings file is read to name.
const MAX_PACKAGES: usize = 64;

/// The packages the quoted words of `text` name in the `node_modules` of
/// `dir` and of each folder above it (Node's lookup: a preset in `pr/`
/// finds `node_modules/babel-plugin-q` at the top, round 68), as is or
/// with one of `kinds` before the short name (`"evil"`: `evil`,
/// `<kind>-evil`; `"@s/x"`: `@s/x`, `@s/<kind>-x`; `"@s"`: `@s/<kind>`;
/// `"module:x"`: `x`; `"cfg/base.json"`: that file), where one is there.
pub(super) fn named(text: &str, dir: &Path, kinds: &[&str]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for folder in dir.ancestors().take(MAX_LEVELS) {
        for package in named_in(text, folder, kinds) {
            if !found.contains(&package) && found.len() < MAX_PACKAGES {
                found.push(package);
            }
        }
    }
    found
}

/// How many folders up `node_modules` is looked for.
const MAX_LEVELS: usize = 16;

/// [`named`] in `dir`'s own `node_modules`.
fn named_in(text: &str, dir: &Path, kinds: &[&str]) -> Vec<PathBuf> {
    static QUOTED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"["']((?:module:)?[@A-Za-z0-9][\w./@-]*)["']"#).expect("valid regex")
    });
    let modules = dir.join("node_modules");
    if !modules.is_dir() {
        return Vec::new();
    }
    let mut found = Vec::new();
    for name in QUOTED
        .captures_iter(text)
        .filter_map(|c| c.get(1))
        .take(256)
    {
        let name = name.as_str();
        let name = name.strip_prefix("module:").unwrap_or(name);
        if name.starts_with('.') || name.contains("..") {
            continue;
        }
        let mut candidates = vec![modules.join(name)];
        for kind in kinds {
            match name.split_once('/') {
                Some((scope, rest)) if scope.starts_with('@') => {
                    // `@babel/env` is `@babel/preset-env` too.
                    let short = kind.rsplit('-').next().unwrap_or(kind);
                    candidates.push(modules.join(scope).join(format!("{kind}-{rest}")));
                    candidates.push(modules.join(scope).join(format!("{short}-{rest}")));
                }
                _ if name.starts_with('@') => candidates.push(modules.join(name).join(kind)),
                _ => candidates.push(modules.join(format!("{kind}-{name}"))),
            }
        }
        for candidate in candidates {
            let present = candidate.is_dir() || candidate.is_file();
            if present && !found.contains(&candidate) {
                found.push(candidate);
            }
        }
        if found.len() >= MAX_PACKAGES {
            break;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_are_expanded_as_each_tool_does() {
        let project = tempfile::tempdir().expect("project");
        let modules = project.path().join("node_modules");
        for package in [
            "eslint-plugin-a",
            "babel-plugin-b",
            "@s/babel-preset-c",
            "@babel/preset-env",
            "d",
        ] {
            std::fs::create_dir_all(modules.join(package)).expect("package");
        }
        let text = r#"{"plugins": ["a", "b", "module:d"], "presets": ["@s/c", "@babel/env"]}"#;
        let eslint = named(text, project.path(), ESLINT);
        assert_eq!(eslint, [modules.join("eslint-plugin-a"), modules.join("d")]);
        let babel = named(text, project.path(), BABEL_AND_JEST);
        let expected = [
            modules.join("babel-plugin-b"),
            modules.join("d"),
            modules.join("@s/babel-preset-c"),
            modules.join("@babel/preset-env"),
        ];
        assert_eq!(babel, expected);
    }
}
