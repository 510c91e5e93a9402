//! The paths of a ruleset, opened: what every Landlock rule of a profile
//! names (an `O_PATH` fd and its access), resolved once and reused by later
//! spawns while the filesystem still matches, so a spawn adds its rules
//! without enumerating the home again. Each spawn still builds its own
//! ruleset from these fds (its private `/tmp` is a rule of its own).
//!
//! A cached resolution is used only if, checked on every use:
//! - every path it names still is the file it opened (device and inode),
//!   so a renamed or replaced folder is never granted through a stale fd,
//!   and every path that was missing is still missing;
//! - every folder it enumerated (a root holding a hidden path, such as the
//!   home) has its modification time unchanged, so an entry added or
//!   removed there is seen; a folder modified within [`RACY`] of the
//!   enumeration is not trusted (timestamps are coarse), and that
//!   resolution is not cached;
//! - every hidden path still leads where it led (`real.rs`).

use std::os::fd::OwnedFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use landlock::{ABI, Access, AccessFs, BitFlags};

use super::real::{RealHidden, real_hidden};

/// How recent a modification of an enumerated folder makes its
/// enumeration untrustworthy (filesystem timestamps may be as coarse as 2 s).
const RACY: Duration = Duration::from_secs(2);

/// How many resolutions are kept (one per profile, hook and home in use).
/// Their fds are shared per path, so they hold about one fd per distinct
/// path (the system's, the home's entries, each hook's own folders).
const KEPT: usize = 16;

/// One rule: an opened path and the access granted beneath it.
#[derive(Debug)]
pub(crate) struct Entry {
    path: PathBuf,
    identity: (u64, u64),
    /// The `O_PATH` fd the rule names (shared by the resolutions that name
    /// the same file, so the cache holds one fd per distinct path).
    pub fd: Arc<OwnedFd>,
    /// The access granted beneath it.
    pub access: BitFlags<AccessFs>,
}

/// What a resolution relied on: a path and its identity (device, inode and,
/// for an enumerated folder, modification time); `None`: missing.
#[derive(Debug, PartialEq, Eq)]
struct Stamp {
    path: PathBuf,
    enumerated: bool,
    seen: Option<(u64, u64, i64, i64)>,
}

impl Stamp {
    fn take(path: &Path, enumerated: bool) -> Stamp {
        Stamp {
            path: path.to_path_buf(),
            enumerated,
            seen: stamp_of(path, enumerated),
        }
    }

    fn still_holds(&self) -> bool {
        stamp_of(&self.path, self.enumerated) == self.seen
    }
}

fn stamp_of(path: &Path, enumerated: bool) -> Option<(u64, u64, i64, i64)> {
    let metadata = std::fs::metadata(path).ok()?;
    let (seconds, nanos) = if enumerated {
        (metadata.mtime(), metadata.mtime_nsec())
    } else {
        (0, 0)
    };
    Some((metadata.dev(), metadata.ino(), seconds, nanos))
}

/// The key of a resolution: the read and write roots, the hidden paths, the
/// paths cut out of the write roots only (read-only paths, pinned links), the ABI.
type Key = (Vec<PathBuf>, Vec<PathBuf>, Vec<PathBuf>, Vec<PathBuf>, i32);

/// The opened rules of a set of roots.
#[derive(Debug)]
pub(crate) struct Resolved {
    key: Key,
    stamps: Vec<Stamp>,
    /// Where the hidden paths led, and the links on the way.
    real: RealHidden,
    /// The rules, read roots first.
    pub entries: Vec<Entry>,
}

impl Resolved {
    fn still_holds(&self) -> bool {
        self.stamps.iter().all(Stamp::still_holds)
            && real_hidden(&self.key.2) == self.real
            && self.entries.iter().all(|entry| {
                std::fs::metadata(&entry.path)
                    .is_ok_and(|metadata| (metadata.dev(), metadata.ino()) == entry.identity)
            })
    }
}

fn cache() -> &'static Mutex<Vec<Arc<Resolved>>> {
    static CACHE: Mutex<Vec<Arc<Resolved>>> = Mutex::new(Vec::new());
    &CACHE
}

/// The opened rules for `read` (readable) and `write` (writable) roots minus
/// `hidden`, the write roots also minus `unwritable` (read-only paths and
/// pinned links, still readable through a read root), from the cache when
/// it still matches the filesystem.
pub(crate) fn resolve(
    read: &[PathBuf],
    write: &[PathBuf],
    hidden: &[PathBuf],
    unwritable: &[PathBuf],
    abi: ABI,
) -> Arc<Resolved> {
    let key: Key = (
        read.to_vec(),
        write.to_vec(),
        hidden.to_vec(),
        unwritable.to_vec(),
        abi as i32,
    );
    let cached = {
        let mut kept = cache().lock().unwrap_or_else(PoisonError::into_inner);
        let found = kept.iter().position(|resolved| resolved.key == key);
        found.map(|at| kept.remove(at))
    };
    let resolved = match cached.filter(|resolved| resolved.still_holds()) {
        Some(resolved) => resolved,
        None => match open(key, abi, &known_fds()) {
            (resolved, true) => Arc::new(resolved),
            (resolved, false) => return Arc::new(resolved),
        },
    };
    let mut kept = cache().lock().unwrap_or_else(PoisonError::into_inner);
    kept.retain(|other| other.key != resolved.key);
    if kept.len() >= KEPT {
        kept.remove(0);
    }
    kept.push(Arc::clone(&resolved));
    resolved
}

/// An opened path: its path, identity and fd.
type Known = (PathBuf, (u64, u64), Arc<OwnedFd>);

/// The fds the kept resolutions hold, to share rather than open again.
fn known_fds() -> Vec<Known> {
    let kept = cache().lock().unwrap_or_else(PoisonError::into_inner);
    kept.iter()
        .flat_map(|resolved| &resolved.entries)
        .map(|entry| (entry.path.clone(), entry.identity, Arc::clone(&entry.fd)))
        .collect()
}

/// Resolves `key` from the filesystem, sharing the `known` fds of files
/// that are still there; `true` if it may be cached.
fn open(key: Key, abi: ABI, known: &[Known]) -> (Resolved, bool) {
    let started = SystemTime::now();
    let (read_roots, write_roots, hidden, read_only_or_pinned, _) = &key;
    let mut stamps = Vec::new();
    let mut entries = Vec::new();
    let (read, all) = (AccessFs::from_read(abi), AccessFs::from_all(abi));
    // Hidden where they lead too; the links on their way are not the
    // hook's to re-point where it may write.
    let real = real_hidden(hidden);
    let unwritable: Vec<PathBuf> = (real.hidden.iter())
        .chain(&real.links)
        .chain(read_only_or_pinned)
        .cloned()
        .collect();
    for (roots, access, cut) in [
        (read_roots, read, &real.hidden),
        (write_roots, all, &unwritable),
    ] {
        let mut enumerated = Vec::new();
        let paths = if access == all {
            writable(roots, cut, &mut enumerated)
        } else {
            visible(roots, cut, &mut enumerated)
        };
        for path in paths {
            let Ok((fd, metadata)) = open_shared(&path, known) else {
                // Missing: nothing to allow, until it appears.
                stamps.push(Stamp::take(&path, false));
                continue;
            };
            let access = if metadata.is_dir() {
                access
            } else {
                access & AccessFs::from_file(abi)
            };
            entries.push(Entry {
                identity: (metadata.dev(), metadata.ino()),
                path,
                fd,
                access,
            });
        }
        stamps.extend(enumerated.iter().map(|dir| Stamp::take(dir, true)));
    }
    let racy = stamps.iter().filter(|stamp| stamp.enumerated).any(|stamp| {
        std::fs::metadata(&stamp.path)
            .and_then(|metadata| metadata.modified())
            .map_or(true, |modified| {
                modified + RACY >= started || stamp.seen.is_none()
            })
    });
    (
        Resolved {
            key,
            stamps,
            real,
            entries,
        },
        !racy,
    )
}

/// `path` opened with `O_PATH` (as Landlock rules take it), and what it
/// is; a `known` fd of the same path and file is shared instead.
fn open_shared(path: &Path, known: &[Known]) -> std::io::Result<(Arc<OwnedFd>, std::fs::Metadata)> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut same = known.iter().filter(|(known, ..)| known == path).peekable();
    if same.peek().is_some() {
        let metadata = std::fs::metadata(path)?;
        let identity = (metadata.dev(), metadata.ino());
        if let Some((.., fd)) = same.find(|(_, known, _)| *known == identity) {
            return Ok((Arc::clone(fd), metadata));
        }
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH)
        .open(path)?;
    let metadata = file.metadata()?;
    Ok((Arc::new(file.into()), metadata))
}

/// `roots` with every `hidden` path cut out: a root holding a hidden path is
/// replaced by its entries (recursively), the hidden ones left out; a hidden
/// root (as spelled or where it leads) is dropped. Landlock only allows, so
/// what is not listed is denied. A link among the enumerated entries is
/// left out: a rule on it would grant where it leads (`~/x -> .ssh`, a
/// folder outside the home), which a rule on the root never did; what it
/// leads to stays readable where a rule grants it by its own path. The
/// folders read to do so are added to `enumerated`.
fn visible(roots: &[PathBuf], hidden: &[PathBuf], enumerated: &mut Vec<PathBuf>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for root in roots {
        let resolved = std::fs::canonicalize(root).unwrap_or_else(|_| root.clone());
        let within = |secret: &PathBuf| root.starts_with(secret) || resolved.starts_with(secret);
        if hidden.iter().any(within) {
            continue;
        }
        expand(
            root,
            &named_from(root, &resolved, hidden),
            &mut out,
            enumerated,
        );
    }
    out
}

/// The write roots with `cut` cut out as [`visible`] does, except that a
/// root beneath a cut path is kept: a folder granted by name (a session's
/// own env folder inside the hidden folder of all sessions) is a grant.
/// A link among the enumerated entries is left out as there: it would
/// grant its target (a `.bashrc` outside the project, or the pinned tool
/// folder's link itself).
fn writable(roots: &[PathBuf], cut: &[PathBuf], enumerated: &mut Vec<PathBuf>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for root in roots {
        let resolved = std::fs::canonicalize(root).unwrap_or_else(|_| root.clone());
        let beneath: Vec<PathBuf> = named_from(root, &resolved, cut)
            .into_iter()
            .filter(|path| !root.starts_with(path))
            .collect();
        expand(root, &beneath, &mut out, enumerated);
    }
    out
}

/// `paths`, each one named with `root`'s links resolved (a pinned link, a
/// hidden path where it leads) named through `root` as spelled instead, so
/// that it is cut from the root's entries.
fn named_from(root: &Path, resolved: &Path, paths: &[PathBuf]) -> Vec<PathBuf> {
    paths
        .iter()
        .map(|path| match path.strip_prefix(resolved) {
            Ok(rest) if !path.starts_with(root) => root.join(rest),
            _ => path.clone(),
        })
        .collect()
}

/// `root` granted whole, or, when it holds a `hidden` path, its entries
/// expanded in turn, links among them left out. Only folders holding a
/// hidden path are read, one component of it deeper each time, so the
/// recursion ends within the hidden paths' lengths.
fn expand(root: &Path, hidden: &[PathBuf], out: &mut Vec<PathBuf>, enumerated: &mut Vec<PathBuf>) {
    if hidden.iter().any(|secret| root.starts_with(secret)) {
        return;
    }
    if !hidden.iter().any(|secret| secret.starts_with(root)) {
        out.push(root.to_path_buf());
        return;
    }
    enumerated.push(root.to_path_buf());
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|kind| kind.is_symlink()) {
            continue;
        }
        expand(&entry.path(), hidden, out, enumerated);
    }
}

#[cfg(test)]
#[path = "resolved_links_tests.rs"]
mod links;

#[cfg(test)]
mod tests {
    use super::*;

    /// A home with a secret store, a readable folder and a file, its
    /// folders dated an hour back (so their enumeration may be cached).
    fn home() -> tempfile::TempDir {
        let home = tempfile::tempdir().unwrap();
        for dir in [".ssh", ".config/gh", ".config/git", "code"] {
            std::fs::create_dir_all(home.path().join(dir)).unwrap();
        }
        std::fs::write(home.path().join(".ssh/id_ed25519"), "KEY").unwrap();
        age(home.path());
        age(&home.path().join(".config"));
        home
    }

    fn age(dir: &Path) {
        let old = SystemTime::now() - Duration::from_secs(3600);
        std::fs::File::open(dir).unwrap().set_modified(old).unwrap();
    }

    fn resolve_home(home: &Path) -> Arc<Resolved> {
        let hidden = [home.join(".ssh"), home.join(".config/gh")];
        resolve(&[home.to_path_buf()], &[], &hidden, &[], ABI::V1)
    }

    fn paths(resolved: &Resolved) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = resolved.entries.iter().map(|e| e.path.clone()).collect();
        paths.sort();
        paths
    }

    #[test]
    fn hidden_paths_are_cut_out_of_their_roots() {
        let home = home();
        let hidden = [home.path().join(".ssh"), home.path().join(".config/gh")];
        let mut enumerated = Vec::new();
        let mut shown = visible(&[home.path().to_path_buf()], &hidden, &mut enumerated);
        assert_eq!(
            enumerated,
            [home.path().to_path_buf(), home.path().join(".config")]
        );
        shown.sort();
        let mut expected = vec![home.path().join(".config/git"), home.path().join("code")];
        expected.sort();
        assert_eq!(shown, expected);
    }

    #[test]
    fn an_unchanged_home_is_resolved_once() {
        let home = home();
        let first = resolve_home(home.path());
        let second = resolve_home(home.path());
        assert!(Arc::ptr_eq(&first, &second), "not reused");
        assert_eq!(
            paths(&second),
            [home.path().join(".config/git"), home.path().join("code")]
        );
    }

    #[test]
    fn a_folder_changed_just_now_is_not_cached() {
        let home = home();
        std::fs::create_dir(home.path().join("fresh")).unwrap();
        let first = resolve_home(home.path());
        let second = resolve_home(home.path());
        assert!(
            !Arc::ptr_eq(&first, &second),
            "a racy enumeration was reused"
        );
    }

    #[test]
    fn a_new_entry_of_the_home_invalidates_it() {
        let home = home();
        let first = resolve_home(home.path());
        std::fs::create_dir(home.path().join("new")).unwrap();
        let second = resolve_home(home.path());
        assert!(!Arc::ptr_eq(&first, &second));
        assert!(
            paths(&second).contains(&home.path().join("new")),
            "{:?}",
            paths(&second)
        );
    }

    #[test]
    fn an_entry_renamed_onto_a_secret_store_is_not_granted_from_the_cache() {
        let home = home();
        let first = resolve_home(home.path());
        assert!(paths(&first).contains(&home.path().join("code")));
        // `code` becomes `.ssh` (the old one moved away) within the same
        // timestamp as far as the home's mtime says: only the identity of
        // the cached entry shows the change.
        let before = std::fs::metadata(home.path()).unwrap().modified().unwrap();
        std::fs::rename(home.path().join(".ssh"), home.path().join("old-ssh")).unwrap();
        std::fs::rename(home.path().join("code"), home.path().join(".ssh")).unwrap();
        std::fs::File::open(home.path())
            .unwrap()
            .set_modified(before)
            .unwrap();
        let second = resolve_home(home.path());
        assert!(!Arc::ptr_eq(&first, &second), "a stale fd was reused");
        let shown = paths(&second);
        assert!(!shown.contains(&home.path().join(".ssh")), "{shown:?}");
        assert!(!shown.contains(&home.path().join("code")), "{shown:?}");
    }

    #[test]
    fn a_root_that_appears_invalidates_it() {
        let home = home();
        let missing = home.path().join("code/later");
        let resolve = || resolve(std::slice::from_ref(&missing), &[], &[], &[], ABI::V1);
        let first = resolve();
        assert!(first.entries.is_empty());
        std::fs::create_dir(&missing).unwrap();
        let second = resolve();
        assert_eq!(paths(&second), [missing]);
    }
}

#[cfg(test)]
mod sharing {
    use super::*;

    #[test]
    fn resolutions_naming_the_same_files_share_their_fds() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir(&a).unwrap();
        std::fs::create_dir(&b).unwrap();
        let first = resolve(std::slice::from_ref(&a), &[], &[], &[], ABI::V1);
        let second = resolve(&[a.clone(), b.clone()], &[], &[], &[], ABI::V1);
        let fd_of = |resolved: &Resolved, path: &Path| {
            let entry = resolved.entries.iter().find(|e| e.path == path).unwrap();
            Arc::clone(&entry.fd)
        };
        assert!(Arc::ptr_eq(&fd_of(&first, &a), &fd_of(&second, &a)));
        // A path now naming another file gets a fd of its own.
        std::fs::rename(&a, dir.path().join("old-a")).unwrap();
        std::fs::create_dir(&a).unwrap();
        let third = resolve(&[a.clone(), b], &[], &[], &[], ABI::V1);
        assert!(!Arc::ptr_eq(&fd_of(&first, &a), &fd_of(&third, &a)));
    }
}
