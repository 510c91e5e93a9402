//! Git run by a hook never uses a repository it merely finds inside a
//! folder (red team round 53): a repository may commit a folder shaped as
//! a bare repository (`HEAD`, `objects/`, `refs/`, a `config` with
//! `core.worktree = .` and `core.fsmonitor = "sh evil"`). A hook running
//! `git status` or `git diff` there, in the folder of the file the tool
//! call names (`cwd=os.path.dirname(file_path)`), runs that `fsmonitor`;
//! no approval binds a folder chosen when the hook runs. Every hook's git
//! gets `safe.bareRepository=explicit` through `GIT_CONFIG_COUNT` (git's
//! own setting for this, honoured from the command scope since git 2.38):
//! a bare repository is used only when named (`--git-dir`, `GIT_DIR`).
//! The repository's own `.git` is not bare and is used as before.

use tokio::process::Command;

/// The setting given to every hook's git.
const SETTING: (&str, &str) = ("safe.bareRepository", "explicit");

/// Gives `command` (a hook about to start) [`SETTING`] after the
/// `GIT_CONFIG_*` pairs it gets from the host (none when they were
/// withheld). A hook's own settings, set after this call, may still change
/// it.
pub(crate) fn without_found_bare_repositories(command: &mut Command) {
    // The count as the hook would see it: set for it, withheld from it
    // (`crate::host_env`: git then reads none of the host's pairs), or the
    // host's own.
    let given = command
        .as_std()
        .get_envs()
        .find(|(name, _)| *name == "GIT_CONFIG_COUNT")
        .map(|(_, value)| value.map(|value| value.to_string_lossy().into_owned()));
    let count = match given {
        Some(value) => value,
        None => std::env::var("GIT_CONFIG_COUNT").ok(),
    };
    let inherited = count
        .and_then(|count| count.trim().parse::<usize>().ok())
        .unwrap_or(0);
    command
        .env(format!("GIT_CONFIG_KEY_{inherited}"), SETTING.0)
        .env(format!("GIT_CONFIG_VALUE_{inherited}"), SETTING.1)
        .env("GIT_CONFIG_COUNT", (inherited + 1).to_string());
}

#[cfg(test)]
mod tests {
    use std::process::Stdio;

    /// Whether git runs here (the test skips without it, but fails in CI).
    fn git_available() -> bool {
        let found = std::process::Command::new("git")
            .arg("--version")
            .output()
            .is_ok_and(|output| output.status.success());
        assert!(
            found || std::env::var_os("HERMES_TEST_REQUIRE_GIT").is_none(),
            "git is required (HERMES_TEST_REQUIRE_GIT)"
        );
        found
    }

    #[tokio::test]
    async fn a_bare_repository_found_in_a_folder_runs_nothing() {
        if !git_available() {
            return;
        }
        let dir = tempfile::tempdir().expect("a folder");
        let bare = dir.path().join("vendor");
        let init = std::process::Command::new("git")
            .args(["init", "-q", "--bare"])
            .arg(&bare)
            .status()
            .expect("git init");
        assert!(init.success());
        let mark = dir.path().join("PWNED");
        std::fs::write(
            bare.join("config"),
            format!(
                "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\
                 \tfsmonitor = \"touch {}; false\"\n",
                mark.display()
            ),
        )
        .expect("config");
        let mut command = super::Command::new("git");
        command
            .arg("status")
            .current_dir(&bare)
            .env_remove("GIT_CONFIG_COUNT")
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        super::without_found_bare_repositories(&mut command);
        command.status().await.expect("git runs");
        assert!(!mark.exists(), "the found repository's fsmonitor ran");
        // Without the setting it does run (what the test guards against).
        let plain = std::process::Command::new("git")
            .arg("status")
            .current_dir(&bare)
            .env_remove("GIT_CONFIG_COUNT")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        assert!(plain.is_ok());
        assert!(mark.exists(), "git without the setting uses the folder");
    }
}
