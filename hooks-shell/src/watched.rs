//! The files a hook reads by their paths while it runs (what its script
//! sources or imports, the project files its code names), watched from the
//! check right before the run to the run's end.
//!
//! The script itself runs from a sealed copy ([`crate::launch`]) and a
//! project hook's tree from a checked copy ([`crate::snapshot`]), but a
//! file the script sources (`. "$CLAUDE_PROJECT_DIR"/tools/lib.sh`) or a
//! module it imports is opened by its interpreter, by path, after the
//! check: a process renaming another file over it every few milliseconds
//! ran unapproved code, and its answer was used (sweep 58, S58-2: a
//! fail-closed guard allowed 4–12 calls in 60). So the check watches every
//! step of each such path (each folder on the way, each link followed, the
//! file) with inotify before it hashes the files again, and a run during
//! which any of them changed, even one changed back, is a failure: its
//! answer is not used, and a fail-closed hook blocks. What ran cannot be
//! undone; see `docs/decisions/bound-files-watched-while-run.md`.
//!
//! Where inotify cannot be used (its limits reached), each file's identity
//! (device, inode, size, change times) and each link's is compared after
//! the run instead, which a swap put back in place can pass.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use nix::sys::inotify::{AddWatchFlags, InitFlags, Inotify, WatchDescriptor};

use crate::fingerprint::file_sha256;

/// Links followed on one path at most (as the kernel's `ELOOP`).
const MAX_LINKS: usize = 40;

/// The files of one run and what watches them.
#[derive(Debug)]
pub(crate) struct Watched {
    /// Each file and its content's hash when the watch began (`None`: no
    /// regular file there, or unreadable).
    hashes: BTreeMap<PathBuf, Option<String>>,
    /// Each file's and each followed link's identity when the watch began.
    identities: Vec<(PathBuf, Option<Identity>)>,
    /// The inotify instance, and for each watch the entry names that
    /// matter in it (a folder) or `None` (the file itself).
    inotify: Option<(Inotify, Watches)>,
    /// A change seen already (events are read once).
    seen: Mutex<Option<String>>,
}

/// For each watch, the entry names that matter in it (a folder on the
/// way), or `None` (the file itself).
type Watches = HashMap<WatchDescriptor, Option<HashSet<OsString>>>;

/// What a file (or a link) is, as far as a swap changes it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Identity {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Identity {
    fn of(path: &Path) -> Option<Identity> {
        let m = std::fs::symlink_metadata(path).ok()?;
        Some(Identity {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        })
    }
}

impl Watched {
    /// Starts watching `files`, then hashes each of them (so a change after
    /// its hash is an event). An empty list watches nothing.
    pub(crate) fn start(files: &[PathBuf]) -> Watched {
        let mut watches: Watches = HashMap::new();
        let mut identities = Vec::new();
        let inotify = Inotify::init(InitFlags::IN_NONBLOCK | InitFlags::IN_CLOEXEC).ok();
        let mut usable = inotify.is_some();
        for file in files {
            let (steps, resolved, links) = steps_of(file);
            for link in links {
                identities.push((link.clone(), Identity::of(&link)));
            }
            identities.push((resolved.clone(), Identity::of(&resolved)));
            let Some(inotify) = &inotify else {
                continue;
            };
            for (folder, name) in steps {
                match inotify.add_watch(&folder, watch_mask()) {
                    Ok(wd) => {
                        let names = watches.entry(wd).or_insert_with(|| Some(HashSet::new()));
                        if let Some(names) = names {
                            names.insert(name);
                        }
                    }
                    // A folder on the way that is gone: its making again
                    // is an event of the folder above it, watched already.
                    Err(nix::errno::Errno::ENOENT | nix::errno::Errno::ENOTDIR) => {}
                    Err(_) => usable = false,
                }
            }
            if resolved.exists() {
                match inotify.add_watch(&resolved, watch_mask()) {
                    Ok(wd) => {
                        watches.insert(wd, None);
                    }
                    Err(_) => usable = false,
                }
            }
        }
        let hashes = files
            .iter()
            .map(|file| {
                let regular = std::fs::metadata(file).is_ok_and(|m| m.is_file());
                (file.clone(), regular.then(|| file_sha256(file)).flatten())
            })
            .collect();
        Watched {
            hashes,
            identities,
            inotify: inotify.filter(|_| usable).map(|inotify| (inotify, watches)),
            seen: Mutex::new(None),
        }
    }

    /// Whether nothing is watched.
    pub(crate) fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// The first file whose hash when the watch began is not `hashes`'
    /// (what the check bound): changed between the two readings.
    /// A file bound by its content's hash is compared by it; one bound as
    /// missing, by whether it is there.
    pub(crate) fn differs_from(&self, hashes: &BTreeMap<PathBuf, String>) -> Option<&Path> {
        let is_hash = |h: &str| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit());
        self.hashes
            .iter()
            .find(|(file, now)| match hashes.get(*file) {
                Some(bound) if is_hash(bound) => now.as_deref() != Some(bound.as_str()),
                Some(bound) if bound == "missing" => std::fs::symlink_metadata(file).is_ok(),
                _ => false,
            })
            .map(|(file, _)| file.as_path())
    }

    /// Why the run cannot be trusted: a watched file, a folder on its way or
    /// a link it follows changed since the watch began; `None` when none did.
    pub(crate) fn changed(&self) -> Option<String> {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        if seen.is_none() {
            *seen = self.changed_now();
        }
        seen.clone()
    }

    fn changed_now(&self) -> Option<String> {
        let files: Vec<String> = self
            .hashes
            .keys()
            .map(|f| f.display().to_string())
            .collect();
        let said = |how: &str| {
            Some(format!(
                "{how} while the hook ran (it reads {}): what ran may not be what was approved",
                files.join(", ")
            ))
        };
        if let Some((inotify, watches)) = &self.inotify {
            loop {
                let events = match inotify.read_events() {
                    Ok(events) if !events.is_empty() => events,
                    Ok(_) | Err(nix::errno::Errno::EAGAIN) => break,
                    Err(_) => return said("its files could not be watched to the end"),
                };
                for event in events {
                    if event.mask.contains(AddWatchFlags::IN_Q_OVERFLOW) {
                        return said("too many changes to follow were made");
                    }
                    let relevant = match watches.get(&event.wd) {
                        // The file itself: any change.
                        Some(None) => true,
                        // A folder on the way: its entry on the way, or
                        // the folder itself moved or deleted.
                        Some(Some(names)) => match &event.name {
                            Some(name) => names.contains(name),
                            None => event.mask.intersects(
                                AddWatchFlags::IN_MOVE_SELF
                                    | AddWatchFlags::IN_DELETE_SELF
                                    | AddWatchFlags::IN_IGNORED,
                            ),
                        },
                        None => false,
                    };
                    if relevant {
                        return said("a file it reads, or a folder or link on its way, changed");
                    }
                }
            }
            return None;
        }
        let moved = self
            .identities
            .iter()
            .find(|(path, identity)| Identity::of(path) != *identity);
        moved.and_then(|(path, _)| said(&format!("{} changed", path.display())))
    }
}

/// What every watch listens for: a folder's entries made, removed, renamed
/// or written; a file written, moved or deleted. Not its attributes: a
/// hook may `chmod +x` its own script first, which changes nothing it
/// reads.
fn watch_mask() -> AddWatchFlags {
    AddWatchFlags::IN_MODIFY
        | AddWatchFlags::IN_CLOSE_WRITE
        | AddWatchFlags::IN_MOVED_FROM
        | AddWatchFlags::IN_MOVED_TO
        | AddWatchFlags::IN_CREATE
        | AddWatchFlags::IN_DELETE
        | AddWatchFlags::IN_DELETE_SELF
        | AddWatchFlags::IN_MOVE_SELF
}

/// Each `(folder, entry)` reading `path` goes through, links followed as
/// the kernel follows them; the path it leads to; and each link followed.
fn steps_of(path: &Path) -> (Vec<(PathBuf, OsString)>, PathBuf, Vec<PathBuf>) {
    let mut steps = Vec::new();
    let mut links = Vec::new();
    let mut at = PathBuf::from("/");
    let mut rest: Vec<OsString> = components(path, &mut at);
    rest.reverse();
    while let Some(name) = rest.pop() {
        match name.to_str() {
            Some("..") => {
                at.pop();
                continue;
            }
            Some(".") | Some("") => continue,
            _ => {}
        }
        steps.push((at.clone(), name.clone()));
        let next = at.join(&name);
        let target = std::fs::symlink_metadata(&next)
            .ok()
            .filter(|m| m.file_type().is_symlink())
            .and_then(|_| std::fs::read_link(&next).ok());
        match target {
            Some(target) if links.len() < MAX_LINKS => {
                links.push(next);
                let mut more = components(&target, &mut at);
                more.reverse();
                rest.extend(more);
            }
            _ => at = next,
        }
    }
    (steps, at, links)
}

/// `path`'s names in order; an absolute one starts `at` over at `/`.
fn components(path: &Path, at: &mut PathBuf) -> Vec<OsString> {
    let mut names = Vec::new();
    for component in path.components() {
        match component {
            Component::RootDir | Component::Prefix(_) => {
                *at = PathBuf::from("/");
                names.clear();
            }
            Component::CurDir => {}
            Component::ParentDir => names.push(OsString::from("..")),
            Component::Normal(name) => names.push(name.to_owned()),
        }
    }
    names
}

#[cfg(test)]
mod tests;
