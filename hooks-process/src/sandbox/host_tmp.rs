//! The host's `/tmp` and a sandboxed hook (red team round 7, R7b-3).
//!
//! A hook gets a private `/tmp` (a tmpfs in its mount namespace), which
//! hides the sockets the host's holds: ssh-agent's `/tmp/ssh-XXXX/agent.N`,
//! an ssh `ControlPath /tmp/...` master, `/tmp/emacs<uid>/server`, a
//! database's `/tmp/.s.PGSQL.5432`. Only a root of the user's setup under
//! `/tmp` (the project, a tool's own writable folder, a root of the hook's
//! checked tree, a `PATH` tool folder, a path a map lists) drops it, as the
//! tmpfs would hide that root: never a word of the hook's command (a word
//! naming a `/tmp` path, even in a comment, dropped it). Such a word names
//! nothing the hook can reach, said by `list`.
//!
//! Where `/tmp` is the host's, its socket places are masked instead
//! ([`socket_places`], through `masked.rs`, around what the setup reads):
//! the usual folders of session sockets ([`TMP_SOCKET_FOLDERS`]) whole, and
//! every other socket directly in `/tmp` or in a folder directly in it.
// The walk is used only with the `sandbox` feature.
#![cfg_attr(not(feature = "sandbox"), allow(dead_code))]

use std::path::{Path, PathBuf};

use super::rules::SYSTEM_READ;

/// The folders directly in `/tmp` that hold a session's sockets, masked
/// whole (a socket made there later is hidden too) where `/tmp` is the
/// host's: a name, or a prefix when it ends in `*`; `<uid>` is the user's.
pub const TMP_SOCKET_FOLDERS: &[&str] = &[
    // The X server's and the session manager's.
    ".ICE-unix",
    ".X11-unix",
    // Editors' servers: keystrokes and code.
    "emacs<uid>",
    "nvim*",
    // Terminals and multiplexers: keystrokes.
    "kitty-*",
    "screen",
    "screens",
    "tmux-<uid>",
    "uscreens",
    // Agents: sign with the user's keys.
    "ssh-*",
];

/// Whether a hook whose setup reads or writes `roots` gets a private
/// `/tmp`: none of them lies in the host's (a system path aside).
pub(crate) fn private(roots: &[PathBuf], tree_roots: &[PathBuf]) -> bool {
    !roots.iter().chain(tree_roots).any(|root| in_host_tmp(root))
}

/// Whether `path` is `/tmp` or beneath it (hidden by a private `/tmp`) and
/// not a system path.
pub(crate) fn in_host_tmp(path: &Path) -> bool {
    path.starts_with("/tmp") && !SYSTEM_READ.iter().any(|system| path.starts_with(system))
}

/// The socket places of the host's `/tmp` now: each [`TMP_SOCKET_FOLDERS`]
/// folder, and each socket (or link to one) directly in `/tmp` or in a
/// folder directly in it. A folder the user may not read is passed over.
pub(crate) fn socket_places(tmp: &Path, uid: u32) -> Vec<PathBuf> {
    let mut places = Vec::new();
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return places;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            let name = entry.file_name();
            if name.to_str().is_some_and(|name| usual_folder(name, uid)) {
                places.push(path);
            } else if let Ok(inner) = std::fs::read_dir(&path) {
                places.extend((inner.flatten()).filter(socket).map(|entry| entry.path()));
            }
        } else if socket(&entry) {
            places.push(path);
        }
    }
    places
}

/// Whether `name` is one of [`TMP_SOCKET_FOLDERS`] for the user `uid`.
fn usual_folder(name: &str, uid: u32) -> bool {
    TMP_SOCKET_FOLDERS.iter().any(|usual| {
        let usual = usual.replace("<uid>", &uid.to_string());
        match usual.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix),
            None => name == usual,
        }
    })
}

/// Whether `entry` is a socket, or a link that leads to one.
fn socket(entry: &std::fs::DirEntry) -> bool {
    use std::os::unix::fs::FileTypeExt;
    match entry.file_type() {
        Ok(kind) if kind.is_symlink() => {
            std::fs::metadata(entry.path()).is_ok_and(|metadata| metadata.file_type().is_socket())
        }
        Ok(kind) => kind.is_socket(),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_root_of_the_setup_in_tmp_drops_the_private_tmp() {
        let roots = |paths: &[&str]| paths.iter().map(PathBuf::from).collect::<Vec<_>>();
        assert!(private(&roots(&["/work/p", "/home/u"]), &[]));
        assert!(!private(&roots(&["/tmp/p"]), &[]));
        assert!(!private(&roots(&["/work/p"]), &roots(&["/tmp/tree"])));
        assert!(usual_folder("ssh-XXXXabc", 1000) && usual_folder("tmux-1000", 1000));
        assert!(!usual_folder("tmux-1001", 1000) && !usual_folder("sshd", 1000));
    }

    #[test]
    fn sockets_two_deep_and_the_usual_folders_are_found() {
        use std::os::unix::net::UnixListener;
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path();
        for folder in ["ssh-abc", "other/deeper", "plain"] {
            std::fs::create_dir_all(tmp.join(folder)).unwrap();
        }
        std::fs::write(tmp.join("plain/file"), "not a socket").unwrap();
        let _sockets = [
            UnixListener::bind(tmp.join("cm-user@host:22")).unwrap(),
            UnixListener::bind(tmp.join("other/server")).unwrap(),
            UnixListener::bind(tmp.join("other/deeper/far")).unwrap(),
        ];
        std::os::unix::fs::symlink(tmp.join("other/server"), tmp.join("link")).unwrap();
        std::os::unix::fs::symlink(tmp.join("plain"), tmp.join("folder-link")).unwrap();
        let mut places = socket_places(tmp, 1000);
        places.sort();
        let at = |name: &str| tmp.join(name);
        assert_eq!(
            places,
            [
                at("cm-user@host:22"),
                at("link"),
                at("other/server"),
                at("ssh-abc")
            ]
        );
    }
}
