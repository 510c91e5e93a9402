//! Git's settings that name files and folders, given in a hook's text or
//! code rather than in a configuration file: `git -c
//! core.hooksPath=tools/hooks commit`, `GIT_CONFIG_KEY_0=core.hooksPath
//! GIT_CONFIG_VALUE_0=tools/hooks`, `git -c include.path=~/project/tools/gc
//! status` (red team round 58, H58-5, H58-7: the hooks there, and the
//! settings file, ran edited with nothing bound).

use std::sync::LazyLock;

use regex::Regex;

/// The values `text` gives git's settings that name files or folders.
pub(super) fn git_setting_values(text: &str) -> Vec<String> {
    static SETTING: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?i)(?:core\.hookspath|include\.path|includeif\.[^=\s'"]*\.path|core\.fsmonitor|core\.worktree|GIT_CONFIG_VALUE_\d+|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|GIT_CONFIG)\s*=\s*['"]?([^\s'";|&,\])]+)"#)
            .expect("valid regex")
    });
    SETTING
        .captures_iter(text)
        .map(|found| found[1].to_owned())
        .take(32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::git_setting_values;

    #[test]
    fn values_of_git_settings_in_text_are_found() {
        assert_eq!(
            git_setting_values("git -c core.hooksPath=tools/hooks commit -m x"),
            ["tools/hooks"]
        );
        assert_eq!(
            git_setting_values(
                "[\"git\", \"-c\", \"include.path=~/project/tools/gc\", \"status\"]"
            ),
            ["~/project/tools/gc"]
        );
        assert_eq!(
            git_setting_values(
                "GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=tools/hooks git commit"
            ),
            ["tools/hooks"]
        );
    }
}
