//! Whether git tracks any file under a top-level name of a project, read
//! from the repository's index file (versions 2 to 4) without running git:
//! a repository's own `.git/config` may name programs git runs
//! (`core.fsmonitor`), and checking a binding must never run the
//! repository's code.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The largest index read (a bigger one: unsure, so tracked).
const MAX_INDEX: u64 = 256 * 1024 * 1024;

/// What git says of the files under a project.
pub(crate) enum Checkout {
    /// No git checkout holds the project (none at it or above it, or one
    /// above it tracking files but none under the project).
    Outside,
    /// A checkout holds it, but its index cannot be read (not a version
    /// we read, too large, unreadable): what is tracked cannot be told.
    Unreadable,
    /// The top-level names under the project that the index lists a file
    /// under (a file right at the project's top, or a folder holding one);
    /// empty where nothing was ever added (no index yet).
    Tracks(BTreeSet<Vec<u8>>),
}

/// What the git checkout holding `project` (a `.git` at it or at the
/// nearest folder above, as git finds it) tracks under it, read from its
/// index.
pub(crate) fn checkout(project: &Path) -> Checkout {
    let Some((top, index)) = project
        .ancestors()
        .find_map(|top| Some((top, index_file(top)?)))
    else {
        return Checkout::Outside;
    };
    let paths = match read_capped(&index) {
        Ok(bytes) => match listed(&index, &bytes) {
            Some(paths) => paths,
            None => return Checkout::Unreadable,
        },
        // A repository where nothing was ever added has no index yet.
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(_) => return Checkout::Unreadable,
    };
    // The project's place in the checkout (`services/api/`), as git writes paths.
    let mut prefix = project
        .strip_prefix(top)
        .unwrap_or(Path::new(""))
        .as_os_str()
        .as_encoded_bytes()
        .to_vec();
    if !prefix.is_empty() {
        prefix.push(b'/');
    }
    // A checkout above the project tracking nothing under it (a folder
    // unpacked into a home kept in git, an empty `git init` above: R28b-5)
    // holds no part of it.
    let under = paths.iter().filter(|path| path.starts_with(&prefix));
    if !prefix.is_empty() && under.clone().next().is_none() {
        return Checkout::Outside;
    }
    Checkout::Tracks(
        under
            .filter_map(|path| path.strip_prefix(prefix.as_slice()))
            .map(|path| {
                path.split(|b| *b == b'/')
                    .next()
                    .unwrap_or_default()
                    .to_vec()
            })
            .collect(),
    )
}

/// Whether the checkout holding `project` tracks any file under
/// `inside` (a folder of the project, `tools/.venv`); `None` when it
/// cannot be told (no checkout, an index that cannot be read).
pub(crate) fn tracks_under(project: &Path, inside: &Path) -> Option<bool> {
    let (paths, exact) = listed_at(project, &project.join(inside))?;
    let mut prefix = exact.clone();
    prefix.push(b'/');
    Some(
        paths
            .iter()
            .any(|path| path.starts_with(&prefix) || *path == exact),
    )
}

/// Every path the checkout holding `project` lists under `folder` (a
/// folder of the project), relative to it as git writes paths
/// (`pkg/a.py`); `None` when it cannot be told (no checkout, an index that
/// cannot be read, `folder` outside the checkout), none where nothing was
/// ever added.
pub(crate) fn paths_under(project: &Path, folder: &Path) -> Option<BTreeSet<Vec<u8>>> {
    let (paths, mut prefix) = listed_at(project, folder)?;
    if !prefix.is_empty() {
        prefix.push(b'/');
    }
    Some(
        paths
            .iter()
            .filter_map(|path| path.strip_prefix(prefix.as_slice()))
            .filter(|path| !path.is_empty())
            .map(<[u8]>::to_vec)
            .collect(),
    )
}

/// The paths the index of the checkout holding `project` lists (none
/// where no index was written yet), and `folder` as git spells it there
/// (`tools/.venv`; empty at the checkout's top); `None` when it cannot be
/// told (no checkout, an index that cannot be read, `folder` outside it).
fn listed_at(project: &Path, folder: &Path) -> Option<(Vec<Vec<u8>>, Vec<u8>)> {
    let (top, index) = project
        .ancestors()
        .find_map(|top| Some((top, index_file(top)?)))?;
    let spelled = folder
        .strip_prefix(top)
        .ok()?
        .as_os_str()
        .as_encoded_bytes();
    let paths = match read_capped(&index) {
        Ok(bytes) => listed(&index, &bytes)?,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(_) => return None,
    };
    Some((paths, spelled.to_vec()))
}

/// The top-level names under `project` its checkout's index lists a file
/// under; `None` when it cannot be told (no checkout, or no readable index
/// of a known version), `Some` of nothing where nothing was ever added.
pub(crate) fn tracked_tops(project: &Path) -> Option<BTreeSet<Vec<u8>>> {
    match checkout(project) {
        Checkout::Tracks(tops) => Some(tops),
        Checkout::Outside | Checkout::Unreadable => None,
    }
}

/// Whether the index of the repository at `project` lists a file named
/// `name` or under `name/`; `true` when it cannot be told.
#[cfg(test)]
fn tracks(project: &Path, name: &str) -> bool {
    tracked_tops(project).is_none_or(|tops| tops.contains(name.as_bytes()))
}

/// `.git/index` at `top`, or the index of the gitdir a `.git` file there
/// names; `None` where `top` has no `.git`. A `.git` that is neither
/// (unreadable, no `gitdir:`) names an index that cannot be read.
fn index_file(top: &Path) -> Option<PathBuf> {
    let dot_git = top.join(".git");
    let metadata = std::fs::symlink_metadata(&dot_git).ok()?;
    if std::fs::metadata(&dot_git).is_ok_and(|m| m.is_dir()) {
        return Some(dot_git.join("index"));
    }
    let unreadable = dot_git.join("<unreadable>");
    if !metadata.is_file() && !metadata.is_symlink() {
        return Some(unreadable);
    }
    let Ok(text) = std::fs::read_to_string(&dot_git) else {
        return Some(unreadable);
    };
    match text.strip_prefix("gitdir:") {
        Some(gitdir) => Some(top.join(gitdir.trim()).join("index")),
        None => Some(unreadable),
    }
}

fn read_capped(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    crate::fingerprint::open_to_read(path)?
        .take(MAX_INDEX)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The paths an index lists, and the object id of the shared index it
/// builds on (a split index's `link` extension), if any.
type Listed = (Vec<Vec<u8>>, Option<Vec<u8>>);

/// Every path the index `bytes` lists, its object ids `id` bytes long (20
/// for SHA-1, 32 for SHA-256: R28-4), and the shared index it builds on;
/// `None` when it is not an index we read, or not one of that id length
/// (its entries and extensions must end exactly at its checksum).
fn paths(bytes: &[u8], id: usize) -> Option<Listed> {
    if bytes.len() < 12 || &bytes[..4] != b"DIRC" {
        return None;
    }
    let version = u32::from_be_bytes(bytes[4..8].try_into().ok()?);
    let count = u32::from_be_bytes(bytes[8..12].try_into().ok()?) as usize;
    if !(2..=4).contains(&version) {
        return None;
    }
    let mut at: usize = 12;
    let mut previous: Vec<u8> = Vec::new();
    let mut paths = Vec::with_capacity(count.min(1 << 20));
    for _ in 0..count {
        let start = at;
        // ctime, mtime (8 each), dev, ino, mode, uid, gid, size (4 each),
        // the object id, flags (2).
        at = at.checked_add(40 + id + 2)?;
        let flags = u16::from_be_bytes(bytes.get(at - 2..at)?.try_into().ok()?);
        if flags & 0x4000 != 0 {
            at += 2; // extended flags (version 3 and up)
        }
        let path = if version == 4 {
            // How many bytes of the previous path to drop, then the rest.
            let (strip, used) = varint(bytes.get(at..)?)?;
            let rest = at + used;
            let end = rest + bytes.get(rest..)?.iter().position(|b| *b == 0)?;
            let keep = previous.len().checked_sub(strip)?;
            let mut path = previous[..keep].to_vec();
            path.extend_from_slice(&bytes[rest..end]);
            at = end + 1;
            path
        } else {
            let end = at + bytes.get(at..)?.iter().position(|b| *b == 0)?;
            let path = bytes[at..end].to_vec();
            // Entries are padded with NULs to a multiple of eight bytes.
            let length = end - start + 1;
            at = start + length.div_ceil(8) * 8;
            path
        };
        previous.clone_from(&path);
        paths.push(path);
    }
    // Extensions (a signature, a length, the data) up to the checksum.
    let checksum = bytes.len().checked_sub(id)?;
    let mut shared = None;
    while at < checksum {
        let signature = bytes.get(at..at + 4)?;
        let size = u32::from_be_bytes(bytes.get(at + 4..at + 8)?.try_into().ok()?) as usize;
        let data = bytes.get(at + 8..(at + 8).checked_add(size)?)?;
        if signature == b"link" {
            shared = Some(data.get(..id)?.to_vec());
        }
        at += 8 + size;
    }
    (at == checksum).then_some((paths, shared))
}

/// Every path the index at `index` lists: with SHA-1 or SHA-256 object
/// ids, and with the paths of the shared index a split index builds on
/// (`core.splitIndex`: R28-5; an entry it deletes still counts, which
/// only reads more as the repository's). `None` when it cannot be read.
fn listed(index: &Path, bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
    let (mut paths, shared, id) = [20, 32]
        .into_iter()
        .find_map(|id| paths(bytes, id).map(|(paths, shared)| (paths, shared, id)))?;
    if let Some(shared) = shared.filter(|shared| shared.iter().any(|b| *b != 0)) {
        let name = format!("sharedindex.{}", hex::encode(shared));
        let bytes = read_capped(&index.parent()?.join(name)).ok()?;
        paths.extend(self::paths(&bytes, id)?.0);
    }
    Some(paths)
}

/// Git's offset varint (index version 4): its value and the bytes it took.
fn varint(bytes: &[u8]) -> Option<(usize, usize)> {
    let mut value: usize = 0;
    for (index, byte) in bytes.iter().enumerate() {
        value = value.checked_mul(128)? | usize::from(byte & 0x7f);
        if byte & 0x80 == 0 {
            return Some((value, index + 1));
        }
        value = value.checked_add(1)?;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::tracks;

    fn git(project: &std::path::Path, args: &[&str]) -> bool {
        std::process::Command::new("git")
            .arg("-C")
            .arg(project)
            .args(args)
            .output()
            .is_ok_and(|out| out.status.success())
    }

    #[test]
    fn the_index_says_what_is_tracked_in_every_version() {
        let dir = tempfile::tempdir().expect("tempdir");
        let project = dir.path();
        if !git(project, &["init", "-q"]) {
            eprintln!("skipped: no git");
            return;
        }
        for file in [
            "lib/helper.py",
            "check.py",
            "a/very/long/name/of/a/file.txt",
        ] {
            let path = project.join(file);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, "x").expect("write");
        }
        std::fs::create_dir_all(project.join("target")).expect("mkdir");
        std::fs::write(project.join("target/x"), "x").expect("write");
        assert!(git(project, &["add", "lib", "check.py", "a"]));
        for version in ["2", "3", "4"] {
            assert!(git(project, &["update-index", "--index-version", version]));
            assert!(tracks(project, "lib"), "v{version}");
            assert!(tracks(project, "check.py"), "v{version}");
            assert!(tracks(project, "a"), "v{version}");
            assert!(!tracks(project, "target"), "v{version}");
            assert!(
                !tracks(project, "li"),
                "v{version}: a prefix is not a folder"
            );
        }
        std::fs::write(project.join(".git/index"), "garbage").expect("write");
        assert!(tracks(project, "target"), "unreadable: unsure, so tracked");
    }

    #[test]
    fn sha256_and_split_indexes_say_what_is_tracked() {
        for (init, split) in [("sha1", true), ("sha256", false), ("sha256", true)] {
            let dir = tempfile::tempdir().expect("tempdir");
            let project = dir.path();
            if !git(project, &["init", "-q", "--object-format", init]) {
                eprintln!("skipped: no git with {init}");
                continue;
            }
            for file in ["env/pyvenv.cfg", "lib/a.py", "target/x"] {
                let path = project.join(file);
                std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
                std::fs::write(&path, "x").expect("write");
            }
            assert!(git(project, &["add", "env", "lib"]));
            if split {
                // The shared index holds `env` and `lib`; the main one, `target` alone.
                assert!(git(project, &["update-index", "--split-index"]));
                assert!(git(project, &["add", "target"]));
                assert!(tracks(project, "target"), "{init} split");
            }
            assert!(tracks(project, "env"), "{init} split={split}");
            assert!(tracks(project, "lib"), "{init} split={split}");
            assert!(!tracks(project, "nothing"), "{init} split={split}");
        }
    }
}
