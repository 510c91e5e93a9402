//! Git's settings that name files and folders, given in a hook's text or
//! code rather than in a configuration file: `git -c
//! core.hooksPath=tools/hooks commit`, `GIT_CONFIG_KEY_0=core.hooksPath
//! GIT_CONFIG_VALUE_0=tools/hooks`, `git -c include.path=~/project/tools/gc
//! status` (red team round 58, H58-5, H58-7: the hooks there, and the
//! settings file, ran edited with nothing bound).

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::{Code, Kind, Names};

/// `words` (each with how it is run or read), with the value a setting
/// word gives (`include.path=~/project/tools/gc` → `~/project/tools/gc`)
/// and the values of git's settings `text` names ([`git_setting_values`]).
pub(super) fn with_setting_values(
    mut words: Vec<(String, Option<Code>)>,
    text: &str,
) -> Vec<(String, Option<Code>)> {
    let values: Vec<(String, Option<Code>)> = words
        .iter()
        .filter_map(|(word, how)| {
            let (_, value) = word.rsplit_once('=')?;
            (!value.is_empty()).then(|| (value.to_owned(), *how))
        })
        .collect();
    words.extend(values);
    words.extend(
        git_setting_values(text)
            .into_iter()
            .map(|value| (value, None)),
    );
    words
}

/// Whether `text` names git's hooks folder setting (`core.hooksPath`).
pub(super) fn names_hooks_path(text: &str) -> bool {
    text.to_ascii_lowercase().contains("hookspath")
}

impl Names {
    /// A hooks folder git is given (`git -c core.hooksPath=tools/hooks
    /// commit`): git runs the files there (round 58, H58-5).
    pub(super) fn bind_hooks_folder(&mut self, folder: &Path) {
        for (name, kind) in self.listing(folder).iter() {
            if *kind == Kind::File && !name.ends_with(".sample") {
                self.add_run_file(folder.join(name), None);
            }
        }
    }
}

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
