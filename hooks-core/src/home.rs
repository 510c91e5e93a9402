//! `HERMES_HOME` resolution and the environment switches every mechanism reads.

use std::path::{Component, Path, PathBuf};

/// The Hermes home: `explicit` if given, else `$HERMES_HOME`, else `~/.hermes`.
pub fn resolve_home(explicit: Option<PathBuf>) -> PathBuf {
    explicit
        .or_else(|| {
            std::env::var_os("HERMES_HOME")
                .filter(|value| !value.is_empty())
                .map(PathBuf::from)
        })
        .unwrap_or_else(|| home_dir().join(".hermes"))
}

/// Where the home is taken to be when neither `$HOME` nor the password
/// database names one: a path that never exists, so no config is read from
/// it. Never the current directory, where a checked-out repository's
/// `.hermes/` could switch hooks on.
pub const NO_HOME: &str = "/nonexistent";

/// The user's home directory: `$HOME` when set and not empty, else the
/// password database's entry for the current user (as Python's
/// `os.path.expanduser` does), else [`NO_HOME`].
pub fn home_dir() -> PathBuf {
    user_home().unwrap_or_else(|| {
        tracing::warn!(
            "HOME is unset and the password database has no home for this user; using {NO_HOME}"
        );
        PathBuf::from(NO_HOME)
    })
}

/// The user's home directory, if `$HOME` or the password database names one.
pub fn user_home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
        .or_else(password_home)
}

/// The home directory the password database gives the current user.
fn password_home() -> Option<PathBuf> {
    let user = nix::unistd::User::from_uid(nix::unistd::getuid()).ok()??;
    Some(user.dir).filter(|dir| !dir.as_os_str().is_empty())
}

/// Expands a leading `~/` (or a lone `~`) to the user's home directory. With
/// no home known at all the text is left as it is, as Python leaves it.
pub fn expand_tilde(text: &str) -> String {
    let Some(home) = (text == "~" || text.starts_with("~/"))
        .then(user_home)
        .flatten()
    else {
        return text.to_owned();
    };
    match text.strip_prefix("~/") {
        Some(rest) => home.join(rest).to_string_lossy().into_owned(),
        None => home.to_string_lossy().into_owned(),
    }
}

/// A project directory as one spelling: absolute (against the current
/// directory), without trailing slashes or `.` components, and with a `..`
/// resolved where the component before it is a real directory (not a
/// symbolic link, whose `..` is its target's parent). `~/a/`, `~/a/./` and
/// `~/a/.claude/..` are the project `~/a`, as the current directory is; a
/// project spelled through a symbolic link stays a project of its own.
/// Hooks put the project into their command (`$CLAUDE_PROJECT_DIR`), so
/// approvals are kept under this spelling.
pub fn project_dir(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut folder = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                let after_name =
                    matches!(folder.components().next_back(), Some(Component::Normal(_)));
                let real_dir = after_name
                    && std::fs::symlink_metadata(&folder)
                        .is_ok_and(|meta| meta.file_type().is_dir());
                if real_dir {
                    folder.pop();
                } else {
                    folder.push(component);
                }
            }
            other => folder.push(other),
        }
    }
    if folder.as_os_str().is_empty() {
        return absolute;
    }
    folder
}

/// Whether a switch's text is one of `1, true, yes, on` (trimmed, any case).
pub fn is_truthy_text(text: &str) -> bool {
    matches!(
        text.trim().to_ascii_lowercase().as_str(),
        "1" | "true" | "yes" | "on"
    )
}

/// Whether the environment variable `name` is set to a truthy value.
pub fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|value| is_truthy_text(&value))
}

/// Whether `HERMES_SAFE_MODE` is on: no plugin, shell hook or webhook is registered.
pub fn safe_mode() -> bool {
    env_flag("HERMES_SAFE_MODE")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truthy_text_matrix() {
        for yes in ["1", "true", "TRUE", "  yes ", "On"] {
            assert!(is_truthy_text(yes), "{yes}");
        }
        for no in ["0", "false", "no", "off", "", "2", "y"] {
            assert!(!is_truthy_text(no), "{no}");
        }
    }

    #[test]
    fn explicit_home_wins() {
        assert_eq!(resolve_home(Some("/x".into())), PathBuf::from("/x"));
    }

    /// Runs this test binary again with `HOME` removed (so no other test's
    /// environment races it) and checks what the child resolved.
    #[test]
    fn unset_home_comes_from_the_password_database() {
        if let Ok(mode) = std::env::var("HOOKS_CORE_HOME_PROBE") {
            let resolved = match mode.as_str() {
                "home" => resolve_home(None),
                _ => PathBuf::from(expand_tilde("~/x")),
            };
            println!("PROBE={}", resolved.display());
            return;
        }
        let expected = password_home().unwrap_or_else(|| PathBuf::from(NO_HOME));
        let cwd = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        std::fs::create_dir(cwd.path().join(".hermes")).unwrap_or_else(|error| panic!("{error}"));
        for (home, mode) in [(None, "home"), (Some(""), "home"), (None, "tilde")] {
            let exe = std::env::current_exe().unwrap_or_else(|error| panic!("{error}"));
            let mut command = std::process::Command::new(exe);
            command
                .args([
                    "--exact",
                    "home::tests::unset_home_comes_from_the_password_database",
                    "--nocapture",
                ])
                .current_dir(cwd.path())
                .env("HOOKS_CORE_HOME_PROBE", mode)
                .env_remove("HERMES_HOME");
            match home {
                None => command.env_remove("HOME"),
                Some(value) => command.env("HOME", value),
            };
            let output = command.output().unwrap_or_else(|error| panic!("{error}"));
            let stdout = String::from_utf8_lossy(&output.stdout);
            let probe = stdout
                .lines()
                .find_map(|line| line.strip_prefix("PROBE="))
                .unwrap_or_else(|| panic!("no probe line in {stdout}"));
            let want = match mode {
                "home" => expected.join(".hermes"),
                _ => expected.join("x"),
            };
            assert_eq!(PathBuf::from(probe), want, "HOME={home:?} {mode}");
            assert!(
                !probe.starts_with('.') && !probe.starts_with('~'),
                "{probe}"
            );
        }
    }

    #[test]
    fn a_project_is_one_spelling() {
        let dir = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let project = dir.path().join("a");
        std::fs::create_dir_all(project.join(".claude")).unwrap_or_else(|error| panic!("{error}"));
        std::os::unix::fs::symlink(&project, dir.path().join("link"))
            .unwrap_or_else(|error| panic!("{error}"));
        let spelled = |text: &str| project_dir(&dir.path().join(text));
        for same in [
            "a",
            "a/",
            "a/.",
            "a/./",
            "./a",
            "a/.claude/..",
            "a/.claude/../",
        ] {
            assert_eq!(spelled(same), project, "{same}");
        }
        // A link's `..` is its target's parent: left as written.
        assert_eq!(spelled("link/.."), dir.path().join("link/.."));
        assert_eq!(spelled("link/.claude/../"), dir.path().join("link"));
        assert_eq!(spelled("missing/.."), dir.path().join("missing/.."));
    }

    #[test]
    fn tilde_expands_only_at_the_start() {
        assert!(!expand_tilde("~/a").starts_with('~'));
        assert_eq!(expand_tilde("a/~/b"), "a/~/b");
        assert_eq!(expand_tilde("~user/x"), "~user/x");
    }
}
