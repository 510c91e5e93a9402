//! Values of code-steering variables that load a project file although they
//! name it neither absolutely nor as `./x` (red team round 14, R14-1): a
//! word spelled as a file or folder relative to the folder the hook runs in
//! (`EDITOR="sh tools/ed.sh"`, `JAVA_TOOL_OPTIONS=-javaagent:agent.jar`,
//! `NODE_OPTIONS=--openssl-config=tools/ssl.cnf`,
//! `PYTHONWARNINGS=ignore::tools.mod.W`), shell code the hook's shell runs
//! by itself (`PS4`, `PROMPT_COMMAND`), and git settings
//! given through the environment whose value git runs or reads as a path
//! (`GIT_CONFIG_KEY_0=core.fsmonitor`, `GIT_CONFIG_VALUE_0=fsmon`).

/// The count of git settings given through the environment: withheld with
/// any of their values, so git reads none of them rather than failing on
/// the one missing.
pub(super) const GIT_CONFIG_COUNT: &str = "GIT_CONFIG_COUNT";

/// Variables whose value is shell code a shell runs by itself (the trace
/// prompt, the prompt command): never passed on.
fn shell_code(name: &str) -> bool {
    matches!(name.to_ascii_uppercase().as_str(), "PS4" | "PROMPT_COMMAND")
}

/// Whether `name` is an exported shell function (`BASH_FUNC_module%%`):
/// the user's own code, run only when called, read for the project's paths
/// it names (red team round 20, R20-4).
pub(super) fn exported_function(name: &str) -> bool {
    name.to_ascii_uppercase().starts_with("BASH_FUNC_")
}

/// Git settings (lowercased) whose value git runs as a command or reads as
/// a path: whole names (`core.fsmonitor`), and the last part of a name
/// (`filter.<driver>.clean`). Matched whole, never inside another name:
/// `safe.directory`, which devcontainers and CI runners set, is kept (red
/// team round 15, R15-4).
const GIT_COMMAND_KEYS: &[&str] = &[
    "core.fsmonitor",
    "core.hookspath",
    "core.sshcommand",
    "core.pager",
    "core.editor",
    "core.askpass",
    "core.gitproxy",
    "core.worktree",
    "core.excludesfile",
    "core.attributesfile",
    "diff.external",
    "sequence.editor",
    "gpg.program",
    "init.templatedir",
    "include.path",
];

/// Last parts of git setting names whose value git runs or reads as a path.
const GIT_COMMAND_ENDINGS: &[&str] = &[
    "command",
    "helper",
    "textconv",
    "clean",
    "smudge",
    "process",
    "program",
    "cmd",
    "driver",
    "path",
    "hook",
    "packobjectshook",
];

/// Whether git runs git setting `key`'s value as a command or reads it as a path.
fn git_runs(key: &str) -> bool {
    let key = key.trim().to_ascii_lowercase();
    let last = key.rsplit('.').next().unwrap_or_default();
    GIT_COMMAND_KEYS.contains(&key.as_str())
        || key.starts_with("alias.")
        || key.starts_with("pager.")
        || (key.contains('.') && GIT_COMMAND_ENDINGS.contains(&last))
}

/// The word of code-steering variable `name`'s `value` that loads from the
/// folder a hook runs in, by the rules above; `key_of` looks up another
/// inherited variable (a git setting's `GIT_CONFIG_KEY_<n>`), `present`
/// whether a relative word names something in that folder now.
pub(super) fn code_word(
    name: &str,
    value: &str,
    key_of: &dyn Fn(&str) -> Option<String>,
    present: &dyn Fn(&str) -> bool,
) -> Option<String> {
    let upper = name.to_ascii_uppercase();
    if value.trim().is_empty() || upper.starts_with("GIT_CONFIG_KEY_") {
        // A git setting's name (`core.fsmonitor`) names no file.
        return None;
    }
    if shell_code(name) {
        return Some("(shell code a shell runs by itself)".to_owned());
    }
    // `'core.sshCommand'='sh run'`: git's settings as one variable (R22a-5).
    if upper == "GIT_CONFIG_PARAMETERS"
        && let Some(key) = value
            .split('\'')
            .skip(1)
            .step_by(2)
            .find(|key| git_runs(key))
    {
        return Some(format!("(git's {key}: a command or path)"));
    }
    if let Some(index) = upper.strip_prefix("GIT_CONFIG_VALUE_") {
        let key = key_of(&format!("GIT_CONFIG_KEY_{index}")).unwrap_or_default();
        if git_runs(&key) {
            return Some(format!("(git's {key}: a command or path)"));
        }
    }
    // As written, and as a shell reads it unquoted (`t""ools/x.sh`,
    // `tool\s/x.sh`: red team round 17, R17-1).
    let unquoted: String = value
        .chars()
        .filter(|c| !matches!(c, '"' | '\'' | '\\'))
        .collect();
    let command = runs_as_command(&upper);
    let found = [value, unquoted.as_str()].into_iter().find_map(|value| {
        crate::dialect::code_env::path_words(value)
            .enumerate()
            .find(|(at, word)| {
                let trimmed = trim_code(word);
                // A command's argument a program opens from the folder it
                // runs in, whatever its spelling (`sh run`, `ssh -F cfg`: R21a-1, R21a-2).
                // `.` is the folder it runs in, which it runs in anyway.
                let argument = command && *at > 0 && !trimmed.starts_with(['-', '/']);
                let named = argument || relative_path_like(trimmed);
                // `.git` is the repository's data (`fd --exclude .git`).
                let plain = !matches!(trimmed, "" | "." | ".git");
                plain && named && (present(word) || present(trimmed))
            })
            .map(|(_, word)| trim_code(word).to_owned())
    });
    // A word of an option's value present there, however spelled: a file
    // (`-javaagent:agent`) or a command (`--checkpoint-action=exec=sh run`:
    // R22a-6).
    found.or_else(|| {
        option_value_words(value).into_iter().find(|word| {
            let number = word.chars().all(|c| c.is_ascii_digit() || c == '.');
            !number && !word.starts_with(['-', '/']) && present(word)
        })
    })
}

/// The words in the values of `value`'s options (`-javaagent:agent` →
/// `agent`; `--x=exec=sh run` → `exec`, `sh`, `run`), as a shell splits them.
fn option_value_words(value: &str) -> Vec<String> {
    let tokens = shlex::split(value)
        .unwrap_or_else(|| value.split_whitespace().map(str::to_owned).collect());
    tokens
        .iter()
        .filter(|token| token.starts_with('-'))
        .flat_map(|token| token.split(['=', ':', ',']).skip(1))
        .flat_map(str::split_whitespace)
        .map(str::to_owned)
        .collect()
}

/// Whether a program runs variable `name`'s value as a command line:
/// editors, pagers, remote shells, ask-pass helpers, git's commands.
pub(super) fn runs_as_command(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    let upper = upper.as_str();
    const NAMES: &[&str] = &[
        "BROWSER",
        "GIT_SSH",
        "GIT_EXTERNAL_DIFF",
        "LESSOPEN",
        "LESSCLOSE",
    ];
    const ENDINGS: &[&str] = &[
        "EDITOR", "VISUAL", "PAGER", "_RSH", "ASKPASS", "_COMMAND", "_DIFF", "_PROG",
    ];
    NAMES.contains(&upper) || ENDINGS.iter().any(|ending| upper.ends_with(ending))
}

/// `word` without the shell punctuation around it (`$(sh`, `x.sh)`, `x;`).
fn trim_code(word: &str) -> &str {
    word.trim_matches(|c: char| "()[]{}`$&|<>!".contains(c))
}

/// Whether `word` is spelled as a file or folder relative to the working
/// folder: with a `/`, a leading `.`, or an extension of letters
/// (`agent.jar`, `tools.mod.W`; not `3.11.7`, `ruby-3.2.2`). Options, `~`
/// paths, addresses and URLs are not.
pub(super) fn relative_path_like(word: &str) -> bool {
    // A `~` word reaches here only when no home was read for it: literal.
    if word.is_empty() || word.starts_with(['/', '-']) || word.contains('@') || word.contains("://")
    {
        return false;
    }
    let extension = word.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && ext.starts_with(|c: char| c.is_ascii_alphabetic())
    });
    word.contains('/') || word.starts_with('.') || extension
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(name: &str, value: &str) -> Option<String> {
        let keys = |key: &str| (key == "GIT_CONFIG_KEY_0").then(|| "core.fsmonitor".to_owned());
        code_word(name, value, &keys, &|_| true)
    }

    #[test]
    fn a_word_naming_nothing_in_the_folder_is_kept() {
        let none = |_: &str| None;
        for (name, value) in [("GIT_HTTP_USER_AGENT", "git/2.43.0"), ("LD", "ld.lld")] {
            assert_eq!(code_word(name, value, &none, &|_| false), None, "{name}");
        }
    }

    #[test]
    fn code_loading_values_are_found() {
        for (name, value) in [
            ("JAVA_TOOL_OPTIONS", "-javaagent:agent.jar"),
            ("NODE_OPTIONS", "--openssl-config=tools/ssl.cnf"),
            ("PYTHONWARNINGS", "ignore::tools.mod.W"),
            ("GIT_SSH_COMMAND", "sh tools/ssh.sh"),
            ("EDITOR", "sh tools/ed.sh"),
            ("MAKEFLAGS", "-f tools/x.mk"),
            ("VIMINIT", "source tools/x.vim"),
            ("PS4", "+ "),
            ("BASH_FUNC_git%%", "() { . tools/env.sh; }"),
            ("PROMPT_COMMAND", "history -a"),
            ("GIT_CONFIG_VALUE_0", "fsmon"),
            ("GIT_CONFIG_VALUE_1", "sh tools/x.sh"),
        ] {
            assert!(word(name, value).is_some(), "{name}={value}");
        }
    }

    #[test]
    fn ordinary_values_are_not() {
        for (name, value) in [
            ("NODE_OPTIONS", "--max-old-space-size=4096"),
            ("JAVA_OPTS", "-Dfile.encoding=UTF-8 -Xmx2g"),
            ("PYTHON_VERSION", "3.11.7"),
            ("RUBY_VERSION", "ruby-3.2.2"),
            ("GIT_AUTHOR_NAME", "Jane Doe"),
            ("GIT_AUTHOR_EMAIL", "jane@example.com"),
            // (`~/` is read as the home before: `host_env::with_home`.)
            ("GIT_SSH_COMMAND", "ssh -i /home/u/.ssh/id_ed25519"),
            ("NPM_CONFIG_REGISTRY", "https://registry.npmjs.org/"),
            ("MAKEFLAGS", "-j8"),
            ("EDITOR", "vim"),
            ("PYTHONWARNINGS", "ignore::DeprecationWarning"),
            ("GIT_CONFIG_VALUE_2", "true"),
        ] {
            // Only a path-like word names something in the folder here.
            let keys = |_: &str| None;
            let found = code_word(name, value, &keys, &|word| word.contains('/'));
            assert_eq!(found, None, "{name}={value}");
        }
    }

    #[test]
    fn git_settings_are_matched_by_whole_name() {
        for key in [
            "core.fsmonitor",
            "core.hooksPath",
            "diff.external",
            "alias.st",
            "filter.lfs.clean",
            "credential.helper",
            "credential.https://x.helper",
            "mergetool.vim.cmd",
            "pager.log",
        ] {
            assert!(git_runs(key), "{key}");
        }
        for key in [
            "safe.directory",
            "user.name",
            "http.sslVerify",
            "color.ui",
            "init.defaultBranch",
            "core.autocrlf",
            "pull.rebase",
        ] {
            assert!(!git_runs(key), "{key}");
        }
    }
}
