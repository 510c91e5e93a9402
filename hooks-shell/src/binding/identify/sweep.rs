//! Every script a command's text names, however it runs it: a word that
//! ends like a script (`.sh`, `.py`...) or names an executable file, found
//! from where the command runs, the home folder, or a folder another word
//! names. The reading of what runs can miss a spelling (`case` inside
//! `"$(…)"`, nested backquotes, `trap --`, `<<<`, a `cd` it cannot follow:
//! red team R37-3, R37-4); a script the text names is bound all the same.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

/// The most words of a command looked at.
const MAX_WORDS: usize = 4096;

/// The most spellings one word is read as (brace alternatives).
const MAX_SPELLINGS: usize = 16;

/// The scripts `raw` (a command run in `cwd`) names that exist.
pub(super) fn named_scripts(raw: &str, cwd: &Path) -> Vec<PathBuf> {
    static WORD: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"[A-Za-z0-9_./~${}@%+,=:?*\[\]#^!-]+").expect("valid regex"));
    let home = hermes_hooks_core::home::user_home();
    // Quotes and backslashes out: `\"$CLAUDE_PROJECT_DIR\"/tools/g.sh` is
    // one word (red team round 37).
    let unquoted: String = raw
        .chars()
        .filter(|c| !matches!(c, '"' | '\'' | '\\' | '`'))
        .collect();
    // Each spelling, and whether an interpreter's word came before it.
    let mut words: Vec<(String, bool)> = Vec::new();
    let mut after_interpreter = false;
    // `f=TOOLS/G.SH; sh ${f,,}`: what the text assigns (R38-1).
    let assigned: Vec<(&str, &str)> = WORD
        .find_iter(&unquoted)
        .take(MAX_WORDS)
        .filter_map(|word| word.as_str().split_once('='))
        .filter(|(name, _)| {
            !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')
        })
        .collect();
    for word in WORD.find_iter(&unquoted).take(MAX_WORDS) {
        let word = word.as_str();
        let spellings = expanded(word, home.as_deref(), cwd, &assigned);
        for spelling in spellings.iter().flat_map(|spelling| braces(spelling)) {
            let known = words.iter().any(|(seen, _)| *seen == spelling);
            if !spelling.is_empty() && !spelling.contains('$') && !known {
                words.push((spelling, after_interpreter));
            }
        }
        let program = super::base_name(word);
        after_interpreter =
            super::INTERPRETERS.contains(&program.as_str()) || matches!(word, "." | "source");
    }
    let mut bases: Vec<PathBuf> = vec![cwd.to_path_buf()];
    bases.extend(home.clone());
    for (word, _) in &words {
        for base in [Some(cwd), home.as_deref()].into_iter().flatten() {
            for folder in paths_of(base, word) {
                if folder.is_dir() && !bases.contains(&folder) && bases.len() < 32 {
                    bases.push(folder);
                }
            }
        }
    }
    let mut scripts = Vec::new();
    for (word, after_interpreter) in words.iter().filter(|(word, _)| word.len() > 1) {
        let candidates: Vec<PathBuf> = match Path::new(word).is_absolute() {
            true => paths_of(Path::new("/"), word),
            false => bases.iter().flat_map(|base| paths_of(base, word)).collect(),
        };
        for path in candidates {
            // `sh tools/guard`: an interpreter's script, whatever its name.
            let script = is_script(&path, word) || (*after_interpreter && path.is_file());
            if script && !scripts.contains(&path) && !is_system(&path) {
                scripts.push(super::super::normalize(&path));
            }
        }
    }
    scripts
}

/// The paths `word` names from `base`: what it matches when it is a glob
/// (`tools/g.s?`, `t*ls/g.sh`: red team R38-1).
fn paths_of(base: &Path, word: &str) -> Vec<PathBuf> {
    match word.contains(['*', '?', '[']) {
        true => super::super::globbing::glob_matches(base, word.trim_start_matches('/')),
        false => vec![base.join(word)],
    }
}

/// `word` with its first brace alternatives (`{g,x}.sh`) taken apart, as
/// far as [`MAX_SPELLINGS`].
fn braces(word: &str) -> Vec<String> {
    static BRACES: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(^|[^$])\{([^{}$]*,[^{}$]*)\}").expect("valid regex"));
    let Some(found) = BRACES.captures(word) else {
        return vec![word.to_owned()];
    };
    let (Some(whole), Some(before), Some(alternatives)) =
        (found.get(0), found.get(1), found.get(2))
    else {
        return vec![word.to_owned()];
    };
    let head = &word[..whole.start() + before.len()];
    let tail = &word[whole.end()..];
    let mut spellings = Vec::new();
    for alternative in alternatives.as_str().split(',') {
        for spelling in braces(&format!("{head}{alternative}{tail}")) {
            if spellings.len() < MAX_SPELLINGS {
                spellings.push(spelling);
            }
        }
    }
    spellings
}

/// The spellings of `word` to look for: a leading `~`, `$HOME` or
/// `${HOME}` as `home`; a project variable or `$PWD` as `cwd`; another
/// leading variable as its value here and as nothing (`$X/tools/g.sh`:
/// `tools/g.sh` too); `${NAME…}` with an operator as NAME's value (case
/// changed for `,,` and `^^`) and its default (`${D:-tools}`: R38-1).
fn expanded(word: &str, home: Option<&Path>, cwd: &Path, assigned: &[(&str, &str)]) -> Vec<String> {
    static LEADING: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"^(?:~|\$\{([A-Za-z_][A-Za-z0-9_]*)([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*))(/.*)?$",
        )
        .expect("valid regex")
    });
    let word = word.trim_matches(|c| matches!(c, '=' | ',' | '@' | '%' | '+' | ':'));
    let Some(found) = LEADING.captures(word) else {
        return vec![word.to_owned()];
    };
    let name = found.get(1).or(found.get(3)).map_or("HOME", |m| m.as_str());
    let operator = found.get(2).map_or("", |m| m.as_str());
    let rest = found.get(4).map_or("", |m| m.as_str());
    let value = match name {
        "HOME" => home.map(|home| home.display().to_string()),
        "PWD" | "CLAUDE_PROJECT_DIR" | "CURSOR_PROJECT_DIR" | "CODEX_PROJECT_DIR"
        | "GEMINI_PROJECT_DIR" => Some(cwd.display().to_string()),
        _ => (assigned.iter().find(|(assigned, _)| *assigned == name))
            .map(|(_, value)| (*value).to_owned())
            .or_else(|| std::env::var(name).ok()),
    };
    let value = value.map(|value| match operator {
        ",," => value.to_lowercase(),
        "^^" => value.to_uppercase(),
        _ => value,
    });
    let mut spellings: Vec<String> = value
        .map(|value| format!("{value}{rest}"))
        .into_iter()
        .collect();
    let default = ["-", ":-", "=", ":="]
        .iter()
        .find_map(|op| operator.strip_prefix(op));
    // `${D:-$HOME/bin}/g.sh`: the default read as a word of its own.
    if let Some(default) = default {
        let default = format!("{default}{rest}");
        match default.starts_with(['$', '~']) && default != word {
            true => spellings.extend(expanded(&default, home, cwd, assigned)),
            false => spellings.push(default),
        }
    }
    spellings.extend(rest.strip_prefix('/').map(str::to_owned));
    spellings
}

/// Whether `path` is a file a shell may run: it ends like a script, or it
/// may be executed and is named with a `/`.
fn is_script(path: &Path, word: &str) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    let lower = word.to_ascii_lowercase();
    crate::script::SCRIPT_EXTENSIONS
        .iter()
        .any(|ext| lower.ends_with(ext))
        || (word.contains('/') && meta.permissions().mode() & 0o111 != 0)
}

/// The system's own files, never a command's code to bind by name.
fn is_system(path: &Path) -> bool {
    [
        "/proc", "/sys", "/dev", "/usr", "/bin", "/sbin", "/lib", "/etc",
    ]
    .iter()
    .any(|system| path.starts_with(system))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_named_in_spellings_nothing_reads_are_found() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("tools")).expect("tools");
        let script = dir.path().join("tools/g.sh");
        std::fs::write(&script, "exit 0\n").expect("script");
        for raw in [
            r#"echo "$(case x in x) sh tools/g.sh;; esac)""#,
            "trap -- \"sh tools/g.sh\" EXIT INT",
            "bash <<< \"sh tools/g.sh\"",
            "CDPATH=. cd tools && sh g.sh",
            "pushd tools; sh ./g.sh",
            r#"echo "`echo \`sh \"$CLAUDE_PROJECT_DIR\"/tools/g.sh a\``""#,
            r#"trap -- "sh \"$CLAUDE_PROJECT_DIR\"/tools/g.sh a" EXIT"#,
            "sh \"$SOMEWHERE_UNKNOWN\"/tools/g.sh",
            // Round 38 (R38-1): globs, braces, operators, case changes.
            "echo \"$(sh tools/g.s?)\"",
            "cd t*ls && echo \"$(sh g.sh)\"",
            "bash -c \"sh tools/{g,g}.sh\"",
            "echo \"$(sh ${D:-tools}/g.sh)\"",
            "echo \"$(sh \"${CLAUDE_PROJECT_DIR%/}\"/tools/g.sh)\"",
            "f=TOOLS/G.SH; echo \"$(sh ${f,,})\"",
            "echo \"$(sh ${D:-$PWD/tools}/g.sh)\"",
        ] {
            assert_eq!(
                named_scripts(raw, dir.path()),
                std::slice::from_ref(&script),
                "{raw}"
            );
        }
        assert!(named_scripts("cat /proc/loadavg >> log.txt", dir.path()).is_empty());
        // An interpreter's script with no ending and no mode (R38-4).
        let plain = dir.path().join("tools/guard");
        std::fs::write(&plain, "exit 0\n").expect("plain");
        let found = named_scripts("echo \"$(sh tools/guard a)\"", dir.path());
        assert_eq!(found, [plain]);
    }
}
