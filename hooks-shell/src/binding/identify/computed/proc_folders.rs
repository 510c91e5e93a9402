//! Folders named through `/proc` or `/dev/fd`: `/proc/self/cwd/tools` is
//! the folder the hook runs in, spelled so that no reading takes it as the
//! project's (red team round 57, H57-5: `cwd="/proc/self/cwd/vendor/lib"`,
//! `GIT_CONFIG_GLOBAL=/proc/self/cwd/tools/gc`, `sys.path.insert(0,
//! "/proc/self/cwd/tools")` ran project files unbound; round 58:
//! `/proc/./self/cwd`, `"/proc/self/" "cwd/…"`, `"/proc/" + "self/cwd"`,
//! `p=/proc/self; $p/cwd`, `/proc/self/c\wd`, `/dev/fd/3` of a folder
//! opened on `.`). Text or code that names one cannot be approved, unless
//! it names one of the files that only tell about the system or the
//! process (`/proc/cpuinfo`, `/proc/self/status`, `/dev/fd/0`).

use std::sync::LazyLock;

use regex::Regex;

/// What `/proc/` may be followed by: files that tell about the system or
/// a process and lead to no folder.
static TELLS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:cpuinfo|meminfo|loadavg|uptime|version|stat|vmstat|mounts|filesystems|partitions|swaps|diskstats|pressure/\w+|sys/[\w/.]+|net/[\w/]+|(?:self|\d+)/(?:status|stat|statm|cgroup|limits|mountinfo|mounts|environ|cmdline|comm|exe|fd|oom_score_adj))$")
        .expect("valid regex")
});

/// Why `text` names a folder through `/proc` or `/dev/fd`
/// (`/proc/self/cwd/tools`, the folder it runs in; `/proc/self/root`,
/// `/proc/<pid>/cwd`, `/dev/fd/3`), or builds such a name (`"/proc/" +
/// …`): a spelling no reading takes as the project's, so nothing it leads
/// to would be bound.
pub(super) fn through_proc(text: &str) -> Option<String> {
    static PROC: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"/+proc\b|/+dev/+fd\b").expect("valid regex"));
    let said = |what: &str| {
        Some(format!(
            "names a folder through /proc (`{what}`), which no reading takes as the project's"
        ))
    };
    for found in PROC.find_iter(text) {
        let rest = &text[found.end()..];
        let end = rest
            .find(|c: char| c.is_whitespace() || "'\"`;)|&,]}>".contains(c))
            .unwrap_or(rest.len());
        let path = rest[..end].trim_start_matches('/');
        let whole = &text[found.start()..found.end() + end];
        let fd = found.as_str().ends_with("fd");
        // Built when it runs: a quote, `$` or `\` follows (`"/proc/" +`).
        let built = rest.starts_with(['"', '\'', '`', '$', '\\', '{'])
            || rest[..end].contains(['$', '\\', '{', '*', '?', '['])
            || (rest[..end].ends_with('/') && rest[end..].starts_with(['"', '\'', '`']));
        if built {
            return said(whole);
        }
        let bare = path.is_empty() && !rest.starts_with('/');
        // A process's folder (`self`, a pid, `./self`): only what tells
        // about it; another entry of `/proc` leads to no folder.
        let first = path.split('/').next().unwrap_or_default();
        let process = first.is_empty()
            || matches!(first, "." | ".." | "self" | "thread-self")
            || first.chars().all(|c| c.is_ascii_digit());
        let allowed = match fd {
            true => bare || matches!(path, "0" | "1" | "2"),
            false => bare || !process || TELLS.is_match(path.trim_end_matches('/')),
        };
        if !allowed {
            return said(whole);
        }
    }
    None
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
            "cd /proc/./self/cwd/tools",
            "sys.path.insert(0, \"/proc/self/\" \"cwd/tools\")",
            "require(\"/proc/\" + \"self/cwd/tools/m.js\")",
            "p=/proc/self; . $p/cwd/tools/x.sh",
            "sh /proc/self/c\\wd/tools/x.sh",
            "exec 3<.; sh /dev/fd/3/tools/x.sh",
            "python3 /proc/self/fd/3/tools/x.py",
            "//proc/self/cwd/x",
        ] {
            assert!(through_proc(text).is_some(), "{text}");
        }
        for text in [
            "cat /proc/cpuinfo",
            "grep MemTotal /proc/meminfo",
            "ls /proc/self/fd",
            "readFileSync('/dev/stdin')",
            "cat /dev/fd/0 > /dev/null",
            "mount -t proc proc /proc",
            "open('/proc/self/status')",
            "sh /proc/0.sh",
        ] {
            assert_eq!(through_proc(text), None, "{text}");
        }
    }
}
