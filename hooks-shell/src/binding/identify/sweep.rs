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
const MAX_WORDS: usize = 512;

/// The scripts `raw` (a command run in `cwd`) names that exist.
pub(super) fn named_scripts(raw: &str, cwd: &Path) -> Vec<PathBuf> {
    static WORD: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"[A-Za-z0-9_./~${}@%+,=-]+").expect("valid regex"));
    let home = hermes_hooks_core::home::user_home();
    // Quotes and backslashes out: `\"$CLAUDE_PROJECT_DIR\"/tools/g.sh` is
    // one word (red team round 37).
    let unquoted: String = raw
        .chars()
        .filter(|c| !matches!(c, '"' | '\'' | '\\' | '`'))
        .collect();
    let mut words: Vec<String> = Vec::new();
    for word in WORD.find_iter(&unquoted).take(MAX_WORDS) {
        for spelling in expanded(word.as_str(), home.as_deref(), cwd) {
            if !spelling.is_empty() && !spelling.contains('$') && !words.contains(&spelling) {
                words.push(spelling);
            }
        }
    }
    let mut bases: Vec<PathBuf> = vec![cwd.to_path_buf()];
    bases.extend(home.clone());
    for word in &words {
        for base in [Some(cwd), home.as_deref()].into_iter().flatten() {
            let folder = base.join(word);
            if folder.is_dir() && !bases.contains(&folder) && bases.len() < 32 {
                bases.push(folder);
            }
        }
    }
    let mut scripts = Vec::new();
    for word in words.iter().filter(|word| word.len() > 1) {
        let candidates: Vec<PathBuf> = match Path::new(word).is_absolute() {
            true => vec![PathBuf::from(word)],
            false => bases.iter().map(|base| base.join(word)).collect(),
        };
        for path in candidates {
            if is_script(&path, word) && !scripts.contains(&path) && !is_system(&path) {
                scripts.push(super::super::normalize(&path));
            }
        }
    }
    scripts
}

/// The spellings of `word` to look for: a leading `~`, `$HOME` or
/// `${HOME}` as `home`; a project variable or `$PWD` as `cwd`; another
/// leading variable as its value here and as nothing (`$X/tools/g.sh`:
/// `tools/g.sh` too).
fn expanded(word: &str, home: Option<&Path>, cwd: &Path) -> Vec<String> {
    static LEADING: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?:~|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*))(/.*)?$")
            .expect("valid regex")
    });
    let word = word.trim_matches(|c| matches!(c, '=' | ',' | '@' | '%' | '+'));
    let Some(found) = LEADING.captures(word) else {
        return vec![word.to_owned()];
    };
    let name = found.get(1).or(found.get(2)).map_or("HOME", |m| m.as_str());
    let rest = found.get(3).map_or("", |m| m.as_str());
    let value = match name {
        "HOME" => home.map(Path::to_path_buf),
        "PWD" | "CLAUDE_PROJECT_DIR" | "CURSOR_PROJECT_DIR" | "CODEX_PROJECT_DIR"
        | "GEMINI_PROJECT_DIR" => Some(cwd.to_path_buf()),
        _ => std::env::var_os(name).map(PathBuf::from),
    };
    let mut spellings: Vec<String> = value
        .map(|value| format!("{}{rest}", value.display()))
        .into_iter()
        .collect();
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
        ] {
            assert_eq!(
                named_scripts(raw, dir.path()),
                std::slice::from_ref(&script),
                "{raw}"
            );
        }
        assert!(named_scripts("cat /proc/loadavg >> log.txt", dir.path()).is_empty());
    }
}
