//! The folders the programs [`super`] reads find code in by listing:
//! jq's module folders, a folder the hook's code lists, `find`'s starting
//! points, `run-parts`' folders.

use std::path::{Path, PathBuf};

/// The folders jq searches for modules: each `-L dir` (`-Ldir`,
/// `--library-path dir`), and the folder of each `.jq` file it reads
/// (`{search: "./"}` is relative to it).
pub(super) fn jq_folders(tokens: &[String], named: &[PathBuf], bases: &[PathBuf]) -> Vec<PathBuf> {
    let mut folders = Vec::new();
    for (at, token) in tokens.iter().enumerate() {
        let value = match token.as_str() {
            "-L" | "--library-path" => tokens.get(at + 1).map(String::as_str),
            _ => token
                .strip_prefix("-L")
                .or_else(|| token.strip_prefix("--library-path=")),
        };
        if let Some(dir) = value.filter(|dir| !dir.is_empty()) {
            folders.extend(bases.iter().map(|base| base.join(dir)));
        }
    }
    let jq_files = named
        .iter()
        .filter(|file| file.extension().is_some_and(|e| e == "jq"));
    folders.extend(jq_files.filter_map(|file| file.parent().map(Path::to_path_buf)));
    folders
}

/// The folders code among `named` lists (`fs.readdirSync("plugins")`,
/// `os.listdir("plugins")`, `opendir`) to load what it finds (R25b-7): a
/// quoted word of a file that lists a folder, where it names one.
pub(super) fn listed(named: &[PathBuf], bases: &[PathBuf]) -> Vec<PathBuf> {
    static LISTS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"readdir|opendir|listdir|scandir|\bglob\b|Dir\.(?:glob|children|entries)|iterdir",
        )
        .expect("valid regex")
    });
    let code = named.iter().filter(|file| {
        let ending = file
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default();
        matches!(
            ending,
            "js" | "cjs" | "mjs" | "ts" | "py" | "pl" | "pm" | "rb" | "php" | "lua"
        )
    });
    let mut folders = Vec::new();
    for file in code.take(32) {
        let Some(text) = crate::binding::peek::small_text(file).filter(|text| LISTS.is_match(text))
        else {
            continue;
        };
        // From where it runs, or from its own folder (`__dirname + "/plugins"`).
        let here = file.parent().map(Path::to_path_buf);
        for word in crate::binding::search_path::quoted_words(&text) {
            let word = word.trim_start_matches('/');
            for base in bases.iter().chain(&here) {
                let folder = crate::binding::normalize(&base.join(word));
                // Not a folder it runs in (`readdirSync(".")`): all of the project.
                let own = bases.contains(&folder) || here.as_ref() == Some(&folder);
                if !own && folder.is_dir() && !folders.contains(&folder) {
                    folders.push(folder);
                }
            }
        }
    }
    folders
}

/// The start folders of a `find` whose results run (`-exec`, `-execdir`,
/// `-ok`, or piped into `xargs`) with no name test (a `-name '*.sh'`
/// pattern is bound as a glob).
pub(super) fn find_starts(tokens: &[String], bases: &[PathBuf]) -> Vec<PathBuf> {
    let mut folders = Vec::new();
    for (at, token) in tokens.iter().enumerate() {
        if token != "find" && !token.ends_with("/find") {
            continue;
        }
        let rest = &tokens[at + 1..];
        let end = rest.iter().position(|t| t == "find").unwrap_or(rest.len());
        let rest = &rest[..end];
        let runs = rest.iter().any(|t| {
            matches!(
                t.as_str(),
                "-exec" | "-execdir" | "-ok" | "-okdir" | "xargs"
            )
        });
        let named = rest.iter().any(|t| {
            matches!(
                t.as_str(),
                "-name" | "-iname" | "-path" | "-ipath" | "-regex" | "-iregex"
            )
        });
        if runs && !named {
            let starts = rest.iter().take_while(|t| !t.starts_with(['-', '!']));
            for start in starts {
                folders.extend(bases.iter().map(|base| base.join(start)));
            }
        }
    }
    folders
}

/// The folders `run-parts` runs every program of (red team round 62:
/// `run-parts tools`, in a recipe too): its words that are no options.
pub(super) fn run_parts_folders(tokens: &[String], bases: &[PathBuf]) -> Vec<PathBuf> {
    let mut folders = Vec::new();
    for (at, token) in tokens.iter().enumerate() {
        // `@run-parts tools` in a recipe.
        let token = token.trim_start_matches(['@', '-', '+']);
        if token != "run-parts" && !token.ends_with("/run-parts") {
            continue;
        }
        let mut rest = tokens[at + 1..].iter();
        while let Some(word) = rest.next() {
            match word.as_str() {
                // `-a ARG`, `-u UMASK`: an option's value.
                "-a" | "-u" | "--arg" | "--umask" => {
                    rest.next();
                }
                _ if word.starts_with('-') => {}
                _ => {
                    folders.extend(bases.iter().map(|base| base.join(word)));
                    break;
                }
            }
        }
    }
    folders
}
