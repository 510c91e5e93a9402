//! Running exactly the bytes that were checked: the script a hook executes
//! is read once from one open file, hashed, and copied into a sealed memfd
//! (`memfd_create` + `F_SEAL_WRITE|SHRINK|GROW|SEAL`); the hook then runs
//! `/proc/self/fd/N` in place of the script's path. Renaming another file
//! over the script, or rewriting it, after the check changes nothing that runs.
//!
//! The memfd is inheritable (no close-on-exec: a `#!` script is opened by
//! its interpreter after the exec), so processes forked while it is open
//! inherit a read-only, sealed copy of the hook's script; it is closed as soon
//! as the run ends. The script sees `$0` / `argv[1]` as `/proc/self/fd/N`
//! (`HERMES_HOOK_SCRIPT` holds its real path; a Python script's folder is put
//! first on `PYTHONPATH` so its sibling modules still import). Where the
//! checked copy of the hook's tree is mounted over the tree and holds the
//! script ([`Launch::for_command`]), the script runs by its path instead: the
//! path reads the checked bytes there.

use std::ffi::CString;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};

use nix::fcntl::{FcntlArg, SealFlag, fcntl};
use nix::sys::memfd::{MemFdCreateFlag, memfd_create};
use sha2::{Digest, Sha256};

use crate::binding::Code;

/// The largest script run from a sealed copy (bigger ones cannot be verified).
pub const MAX_SCRIPT_BYTES: u64 = 16 * 1024 * 1024;

/// The variable holding the real path of the script run from a sealed copy.
pub const SCRIPT_ENV: &str = "HERMES_HOOK_SCRIPT";

/// The bytes of `path`, read from one open file, and their hex SHA-256.
pub fn read_code(path: &Path) -> std::io::Result<(Vec<u8>, String)> {
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(MAX_SCRIPT_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_SCRIPT_BYTES {
        return Err(std::io::Error::other(format!(
            "{} is larger than {MAX_SCRIPT_BYTES} bytes",
            path.display()
        )));
    }
    let hash = hex::encode(Sha256::digest(&bytes));
    Ok((bytes, hash))
}

/// What a checked hook runs: its verified script sealed in memory, to run in
/// place of its path, and/or the checked copy of its tree
/// ([`crate::snapshot`]), to mount over the tree.
#[derive(Debug)]
pub struct Launch {
    script: Option<(OwnedFd, Code)>,
    snapshot: Option<std::sync::Arc<crate::snapshot::Snapshot>>,
}

impl Launch {
    /// Seals `bytes` (the verified content of `code`) into a memfd.
    pub fn seal(code: &Code, bytes: &[u8]) -> std::io::Result<Launch> {
        let name = CString::new("hermes-hook").unwrap_or_default();
        let fd = memfd_create(&name, MemFdCreateFlag::MFD_ALLOW_SEALING)?;
        let mut file = std::fs::File::from(fd);
        file.write_all(bytes)?;
        let seals = SealFlag::F_SEAL_WRITE
            | SealFlag::F_SEAL_SHRINK
            | SealFlag::F_SEAL_GROW
            | SealFlag::F_SEAL_SEAL;
        fcntl(file.as_raw_fd(), FcntlArg::F_ADD_SEALS(seals))?;
        Ok(Launch {
            script: Some((OwnedFd::from(file), code.clone())),
            snapshot: None,
        })
    }

    /// A launch of `script` (if any) with the checked copy of the tree
    /// (if any); `None` when there is neither.
    pub(crate) fn with_snapshot(
        script: Option<Launch>,
        snapshot: Option<std::sync::Arc<crate::snapshot::Snapshot>>,
    ) -> Option<Launch> {
        match (script, snapshot) {
            (None, None) => None,
            (Some(launch), None) => Some(launch),
            (script, snapshot) => Some(Launch {
                script: script.and_then(|launch| launch.script),
                snapshot,
            }),
        }
    }

    /// The script it replaces, when it runs one sealed.
    pub fn code(&self) -> Option<&Code> {
        self.script.as_ref().map(|(_, code)| code)
    }

    /// The checked copy of the hook tree, when one was made.
    pub fn snapshot(&self) -> Option<&crate::snapshot::Snapshot> {
        self.snapshot.as_deref()
    }

    /// The launch a run builds its command from: `None` when the checked
    /// copy of the tree is mounted over it (`overlaid`) and holds the
    /// script, which then runs by its own path (its `$0`, `BASH_SOURCE`,
    /// `__file__`, `FindBin` name its folder, as the user wrote them: red
    /// team round 8), else `self` (the sealed memfd runs in its place).
    pub fn for_command(&self, overlaid: bool) -> Option<&Launch> {
        let from_copy = overlaid
            && self
                .snapshot
                .as_ref()
                .zip(self.code())
                .is_some_and(|(snapshot, code)| snapshot.covers(&code.path));
        (!from_copy).then_some(self)
    }

    /// `/proc/self/fd/N` of the sealed copy (`None`: no script sealed).
    pub fn fd_path(&self) -> Option<String> {
        let (fd, _) = self.script.as_ref()?;
        Some(format!("/proc/self/fd/{}", fd.as_raw_fd()))
    }

    /// Replaces the script's word in `argv` (resolved against `cwd` as the
    /// binding resolved it) with [`Launch::fd_path`]. Returns the extra
    /// environment the run needs, or `None` when the word is not in `argv`
    /// (the run then goes by path, verified just before).
    pub fn rewrite(&self, argv: &mut [String], cwd: &Path) -> Option<Vec<(String, String)>> {
        let code = self.code()?;
        let at = argv
            .iter()
            .position(|word| *word == code.word)
            .or_else(|| {
                argv.iter()
                    .position(|word| resolves_to(word, cwd, &code.path))
            })?;
        if at == 0 && !code.is_program {
            return None;
        }
        argv[at] = self.fd_path()?;
        let mut env = vec![(SCRIPT_ENV.to_owned(), code.path.display().to_string())];
        let python = code.path.extension().is_some_and(|e| e == "py")
            || argv.first().is_some_and(|p| p.contains("python"));
        if python && let Some(dir) = code.path.parent() {
            let mut path = dir.display().to_string();
            if let Some(old) = std::env::var_os("PYTHONPATH").filter(|o| !o.is_empty()) {
                path.push(':');
                path.push_str(&old.to_string_lossy());
            }
            env.push(("PYTHONPATH".to_owned(), path));
        }
        Some(env)
    }
}

fn resolves_to(word: &str, cwd: &Path, path: &Path) -> bool {
    let candidate = PathBuf::from(hermes_hooks_core::home::expand_tilde(word));
    let candidate = if candidate.is_absolute() {
        candidate
    } else {
        cwd.join(candidate)
    };
    candidate == path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sealed_copy_cannot_be_changed_and_reads_back() {
        let code = Code {
            path: PathBuf::from("/x/hook.sh"),
            word: "/x/hook.sh".to_owned(),
            fd_safe: true,
            is_program: true,
        };
        let launch = Launch::seal(&code, b"#!/bin/sh\necho ok\n").expect("memfd");
        assert_eq!(
            std::fs::read(launch.fd_path().expect("sealed")).expect("read back"),
            b"#!/bin/sh\necho ok\n"
        );
        let writable = std::fs::OpenOptions::new()
            .write(true)
            .open(launch.fd_path().expect("sealed"))
            .and_then(|mut f| f.write_all(b"evil"));
        assert!(writable.is_err(), "sealed against writes");
        let mut argv = vec!["/x/hook.sh".to_owned(), "a".to_owned()];
        let env = launch
            .rewrite(&mut argv, Path::new("/"))
            .expect("rewritten");
        assert_eq!(argv, [launch.fd_path().expect("sealed"), "a".to_owned()]);
        assert_eq!(env[0], (SCRIPT_ENV.to_owned(), "/x/hook.sh".to_owned()));
    }
}
