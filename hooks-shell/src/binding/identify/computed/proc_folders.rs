//! Folders named through `/proc`: `/proc/self/cwd/tools` is the folder
//! the hook runs in, spelled so that no reading takes it as the project's
//! (red team round 57, H57-5: `cwd="/proc/self/cwd/vendor/lib"`,
//! `GIT_CONFIG_GLOBAL=/proc/self/cwd/tools/gc`, `sys.path.insert(0,
//! "/proc/self/cwd/tools")` ran project files unbound). Text or code that
//! names one cannot be approved.

/// Why `text` names a folder through `/proc` (`/proc/self/cwd/tools`, the
/// folder it runs in; `/proc/self/root`, `/proc/<pid>/cwd`): a spelling
/// no reading takes as the project's, so nothing it leads to would be
/// bound (round 57, H57-5).
pub(super) fn through_proc(text: &str) -> Option<String> {
    static PROC: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r#"/proc/+(?:self|thread-self|\d+|\$\$|\$\{?\w+\}?|\$\(|`)[^\s'"]*?/+(?:cwd|root)\b"#,
        )
        .expect("valid regex")
    });
    PROC.find(text).map(|found| {
        format!(
            "names a folder through /proc (`{}`), which no reading takes as the project's",
            found.as_str()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::through_proc;

    #[test]
    fn folders_named_through_proc_are_found() {
        for text in [
            "GIT_CONFIG_GLOBAL=/proc/self/cwd/tools/gc git status",
            "subprocess.run(['make'], cwd='/proc/self/cwd/vendor/lib')",
            "sys.path.insert(0, \"/proc/thread-self/cwd/tools\")",
            "cat /proc/$$/cwd/x",
            "ls /proc/1/root/etc",
        ] {
            assert!(through_proc(text).is_some(), "{text}");
        }
        for text in [
            "cat /proc/cpuinfo",
            "grep MemTotal /proc/meminfo",
            "ls /proc/self/fd",
        ] {
            assert_eq!(through_proc(text), None, "{text}");
        }
    }
}
