//! The Landlock denials of the kernel's record (`kernel_record.rs`): a
//! guard whose rules lie where its profile reads nothing (`cat
//! /srv/policy/rules 2>/dev/null || exit 0` under `project`) is denied
//! them, silences that, and allows. The kernel tells Landlock's denials
//! only to the audit log, so the record tells the one kind that is certain
//! without redoing Landlock's decision: an open for reading (not `O_PATH`,
//! not one that creates) or a program run of a path that exists on the host
//! (links resolved there) beneath no root the profile reads or writes, or
//! beneath a path it hides (a secret store) inside such a root
//! ([`Granted::denies`]). Landlock denies those whatever else it decides.
//!
//! Passed over: the host's `/tmp` (the private `/tmp` has its own record,
//! `recorded_path.rs`), `/proc` and `/dev` (their links, `/dev/fd/3`,
//! `/proc/self/...`, would resolve to this process's files here), a path
//! the host lacks, and what Landlock may deny beneath a granted root (a
//! file made later at the top of a folder opened entry by entry, a link
//! among its entries): an ordinary `EACCES` there is not told apart.
// Compiled on Linux, used only with the `sandbox` feature.
#![cfg_attr(not(feature = "sandbox"), allow(dead_code))]

use std::path::{Path, PathBuf};

use super::recorded_path::lexical;
use super::seccomp::Checked;

/// Where a profile's Landlock ruleset grants anything: its roots and the
/// paths hidden beneath them, each as spelled and with its links resolved
/// (taken once, when the channel of the record is made).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Granted {
    /// The read and write roots.
    roots: Vec<PathBuf>,
    /// The hidden paths (secret stores).
    hidden: Vec<PathBuf>,
}

/// Whether Landlock checks a read or a run of the path of a call whose
/// look-up is `checked`, with open `flags` (unreadable `openat2` flags are
/// taken as a read: only a path that exists counts).
pub(crate) fn landlocked(checked: Checked, flags: Option<u64>) -> bool {
    match checked {
        Checked::Nothing => false,
        Checked::Open => flags.is_some_and(opens_to_read),
        Checked::OpenHow => flags.is_none_or(opens_to_read),
        Checked::Execute => true,
    }
}

/// Open flags that read (`O_RDONLY`), as opposed to write, name only
/// (`O_PATH`) or create (`O_CREAT`).
fn opens_to_read(flags: u64) -> bool {
    let flags = flags as u32 as i32;
    flags & libc::O_ACCMODE == libc::O_RDONLY && flags & (libc::O_PATH | libc::O_CREAT) == 0
}

impl Granted {
    /// The roots `read` and `write` grant, minus `hidden`.
    pub(crate) fn new(read: &[PathBuf], write: &[PathBuf], hidden: &[PathBuf]) -> Granted {
        Granted {
            roots: spelled_and_real(read.iter().chain(write)),
            hidden: spelled_and_real(hidden.iter()),
        }
    }

    /// The path `path` (absolute, as the hook looked it up) leads to on the
    /// host when Landlock denies every access to it: it exists, lies
    /// beneath no root, or beneath a hidden path inside each root holding
    /// it. `None` for any other path, or one passed over (the host's
    /// `/tmp`, `/proc`, `/dev`).
    pub(crate) fn denies(&self, path: &Path) -> Option<PathBuf> {
        let passed_over = |path: &Path| {
            ["/tmp", "/proc", "/dev"]
                .iter()
                .any(|place| path.starts_with(place))
        };
        if passed_over(&lexical(path)) {
            return None;
        }
        let real = std::fs::canonicalize(path).ok()?;
        (!passed_over(&real) && !self.grants(&real)).then_some(real)
    }

    /// Whether a root holds `real` (links resolved) and no hidden path
    /// inside that root holds it.
    fn grants(&self, real: &Path) -> bool {
        self.roots.iter().any(|root| {
            real.starts_with(root)
                && !self.hidden.iter().any(|hidden| {
                    real.starts_with(hidden) && hidden.starts_with(root) && hidden != root
                })
        })
    }
}

/// The absolute `paths`, each as spelled (read lexically) and, where its
/// links lead elsewhere, where they lead.
fn spelled_and_real<'a>(paths: impl Iterator<Item = &'a PathBuf>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for path in paths.filter(|path| path.is_absolute()) {
        let spelled = lexical(path);
        let real = std::fs::canonicalize(path).ok();
        for path in [Some(spelled), real].into_iter().flatten() {
            if !out.contains(&path) {
                out.push(path);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_read_that_is_no_create_and_no_o_path_is_a_read() {
        assert!(opens_to_read(libc::O_RDONLY as u64));
        assert!(landlocked(Checked::Execute, None));
        assert!(landlocked(Checked::OpenHow, None));
        assert!(!landlocked(Checked::Open, None));
        assert!(!landlocked(Checked::Nothing, Some(0)));
        assert!(opens_to_read(
            (libc::O_RDONLY | libc::O_CLOEXEC | libc::O_DIRECTORY) as u64
        ));
        for flags in [
            libc::O_WRONLY,
            libc::O_RDWR,
            libc::O_PATH,
            libc::O_RDONLY | libc::O_CREAT,
        ] {
            assert!(!opens_to_read(flags as u64), "{flags:o}");
        }
    }

    #[test]
    fn a_path_beneath_no_root_or_beneath_a_hidden_one_is_not_granted() {
        let granted = Granted::new(
            &[PathBuf::from("/usr"), PathBuf::from("/h/u/")],
            &[PathBuf::from("/h/u/p")],
            &[PathBuf::from("/h/u/.ssh"), PathBuf::from("/h/u/p/.aws")],
        );
        for path in [
            "/usr/bin/python3",
            "/h/u/notes",
            "/h/u/p/.git/config",
            "/h/u/.sshx",
        ] {
            assert!(granted.grants(Path::new(path)), "{path}");
        }
        for path in [
            "/srv/rules",
            "/",
            "/h",
            "/h/u/.ssh/key",
            "/h/u/p/.aws/credentials",
        ] {
            assert!(!granted.grants(Path::new(path)), "{path}");
        }
        // A root beneath a hidden path is granted (a write root kept there).
        let kept = Granted::new(
            &[PathBuf::from("/h/u/.ssh/ok")],
            &[],
            &[PathBuf::from("/h/u/.ssh")],
        );
        assert!(kept.grants(Path::new("/h/u/.ssh/ok/x")));
        // Missing on the host, or passed over: no record.
        assert_eq!(granted.denies(Path::new("/srv/hermes-no-such-file")), None);
        for path in [
            "/dev/fd/0",
            "/proc/self/exe",
            "/tmp",
            "/usr/../proc/self/cwd",
        ] {
            assert_eq!(granted.denies(Path::new(path)), None, "{path}");
        }
        assert_eq!(granted.denies(Path::new("/")), Some(PathBuf::from("/")));
    }
}
