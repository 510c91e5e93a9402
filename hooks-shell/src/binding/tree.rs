//! The digest of a hook tree: every file under the roots an approval binds
//! when the code a command runs cannot be identified.
//!
//! The digest covers each entry's path relative to its root, its kind, and a
//! regular file's SHA-256 (a symlink: its target text, and what it points to,
//! followed like the rest), in sorted order, so
//! adding, removing, renaming or editing any file under a root changes it. A
//! missing root is part of the digest too (creating it later is a change).
//! `.git` folders are left out (they change with every fetch and are not run).
//! Walks are bounded: a tree too big to hash on every run cannot be bound.
//!
//! A file that cannot be read (mode `0111`) is bound by its metadata
//! ([`crate::fingerprint::metadata_stamp`]), and listed as such
//! ([`TreeSum::by_metadata`]). A folder that cannot be listed but can be
//! searched (`0311`: its files open by name) cannot be bound (nothing shows
//! what it holds, and editing a file in it changes nothing of the folder's
//! own); one that cannot be searched either (nothing in it can be reached)
//! is bound by its metadata.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::BindError;
use crate::fingerprint::{content_or_metadata, metadata_stamp};

/// The most entries one tree digest covers.
pub const MAX_TREE_ENTRIES: usize = 5_000;
/// The most bytes of regular files one tree digest reads.
pub const MAX_TREE_BYTES: u64 = 64 * 1024 * 1024;
/// The SHA-256 of no bytes.
pub const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
/// The deepest folder nesting walked.
const MAX_DEPTH: usize = 16;

/// A tree's digest and what of it is bound by metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TreeSum {
    /// The hex SHA-256 over the roots.
    pub sha256: String,
    /// The files (and unsearchable folders) it binds by their metadata, not
    /// their content, because they cannot be read.
    pub by_metadata: Vec<PathBuf>,
}

/// The hex SHA-256 over `roots` (in the order given); once per load or run
/// where a [`super::TreeCache`] is entered.
pub fn tree_sha256(roots: &[impl AsRef<Path>]) -> Result<String, BindError> {
    tree_sum(roots).map(|sum| sum.sha256)
}

/// [`tree_sha256`] with what it binds by metadata.
pub fn tree_sum(roots: &[impl AsRef<Path>]) -> Result<TreeSum, BindError> {
    let roots: Vec<PathBuf> = roots.iter().map(|r| r.as_ref().to_path_buf()).collect();
    super::cache::cached(&roots, || tree_sum_now(&roots))
}

/// [`tree_sum`] walked now, never from a cache (the check after a run).
pub(crate) fn tree_sum_now(roots: &[impl AsRef<Path>]) -> Result<TreeSum, BindError> {
    super::cache::count_walk();
    let mut walk = Walk::new(Vec::new());
    for root in roots {
        let root = root.as_ref();
        walk.root = root.to_path_buf();
        walk.line(&format!("root {}", root.display()));
        walk.entry(root, Path::new(""), 0)?;
    }
    Ok(walk.finish())
}

/// [`tree_sha256`], copying what it hashes: root `i` to `into/i` (links
/// followed: the copy holds what they point to), each file's bytes read once,
/// hashed and written, so the digest is that of the copy. Returns the digest
/// and, per root, whether a copy of it was made (a missing root has none).
pub(crate) fn tree_sha256_copied(
    roots: &[impl AsRef<Path>],
    into: &Path,
) -> Result<(String, Vec<bool>), BindError> {
    super::cache::count_walk();
    let mut walk = Walk::new(
        roots
            .iter()
            .filter_map(|root| std::fs::canonicalize(root.as_ref()).ok())
            .collect(),
    );
    let mut copied = Vec::new();
    for (index, root) in roots.iter().enumerate() {
        let root = root.as_ref();
        let target = into.join(index.to_string());
        walk.copy = Some(target.clone());
        walk.root = root.to_path_buf();
        walk.line(&format!("root {}", root.display()));
        walk.entry(root, Path::new(""), 0)?;
        copied.push(std::fs::symlink_metadata(&target).is_ok());
    }
    Ok((walk.finish().sha256, copied))
}

struct Walk {
    hasher: Sha256,
    entries: usize,
    bytes: u64,
    /// Where the root being walked is copied to, when it is.
    copy: Option<std::path::PathBuf>,
    /// The copied roots, links resolved: a link that leads out of them is
    /// copied as the link, not as what it points to.
    inside: Vec<std::path::PathBuf>,
    /// The root being walked.
    root: PathBuf,
    /// What is bound by metadata (see [`TreeSum::by_metadata`]).
    by_metadata: Vec<PathBuf>,
}

impl Walk {
    fn new(inside: Vec<PathBuf>) -> Walk {
        Walk {
            hasher: Sha256::new(),
            entries: 0,
            bytes: 0,
            copy: None,
            inside,
            root: PathBuf::new(),
            by_metadata: Vec::new(),
        }
    }

    fn finish(self) -> TreeSum {
        TreeSum {
            sha256: hex::encode(self.hasher.finalize()),
            by_metadata: self.by_metadata,
        }
    }

    /// Records that `relative` (under the current root) is bound by metadata.
    fn by_metadata(&mut self, relative: &Path) {
        let path = if relative.as_os_str().is_empty() {
            self.root.clone()
        } else {
            self.root.join(relative)
        };
        self.by_metadata.push(path);
    }

    fn line(&mut self, text: &str) {
        self.hasher.update(text.as_bytes());
        self.hasher.update([0u8]);
    }

    fn entry(&mut self, path: &Path, relative: &Path, depth: usize) -> Result<(), BindError> {
        self.entries += 1;
        if self.entries > MAX_TREE_ENTRIES || depth > MAX_DEPTH {
            return Err(BindError::TreeTooLarge(path.to_owned()));
        }
        let shown = relative.display();
        let Ok(metadata) = std::fs::symlink_metadata(path) else {
            self.line(&format!("missing {shown}"));
            return Ok(());
        };
        let kind = metadata.file_type();
        if kind.is_symlink() {
            let target = std::fs::read_link(path).unwrap_or_default();
            self.line(&format!("link {shown} -> {}", target.display()));
            if let Some(copy) = self.copy.clone() {
                let resolved = std::fs::canonicalize(path).ok();
                let inside = resolved.as_ref().is_some_and(|resolved| {
                    self.inside.iter().any(|root| resolved.starts_with(root))
                });
                if !inside {
                    // Out of the copied roots: the copy keeps the link, so the
                    // hook reaches its target only where its sandbox lets it
                    // (a copy made by the host would hand it, say, a key the
                    // sandbox hides). The target is still hashed, not copied.
                    std::os::unix::fs::symlink(&target, copy.join(relative))
                        .map_err(|error| copy_error(path, &error))?;
                    self.copy = None;
                    let hashed = self.linked(path, relative, depth);
                    self.copy = Some(copy);
                    return hashed;
                }
            }
            return self.linked(path, relative, depth);
        }
        if kind.is_dir() {
            return self.folder(path, relative, depth);
        }
        if kind.is_file() {
            return self.file(path, relative, metadata.len());
        }
        self.line(&format!("special {shown}"));
        Ok(())
    }

    /// What the link at `path` points to, hashed (and copied when copying).
    fn linked(&mut self, path: &Path, relative: &Path, depth: usize) -> Result<(), BindError> {
        // What a link points to is part of the tree, wherever it is: a script
        // in the tree may run, source or import through it. (A link loop ends
        // at the depth or entry bound: the tree cannot be bound.)
        if path.is_dir() {
            return self.folder(path, relative, depth);
        }
        if path.is_file() {
            let len = std::fs::metadata(path).map_or(0, |m| m.len());
            return self.file(path, relative, len);
        }
        Ok(())
    }

    fn file(&mut self, path: &Path, relative: &Path, len: u64) -> Result<(), BindError> {
        self.bytes += len;
        if self.bytes > MAX_TREE_BYTES {
            return Err(BindError::TreeTooLarge(path.to_owned()));
        }
        // A zero-length file is not opened: pseudo-files (/proc, /sys) report
        // zero and may block or never end when read.
        let hash = if let Some(copy) = &self.copy {
            copy_file(path, &copy.join(relative), len)?
        } else if len == 0 {
            EMPTY_SHA256.to_owned()
        } else {
            content_or_metadata(path)
        };
        if hash.starts_with(crate::fingerprint::METADATA_PREFIX) {
            self.by_metadata(relative);
        }
        self.line(&format!("file {} {hash}", relative.display()));
        Ok(())
    }

    fn folder(&mut self, path: &Path, relative: &Path, depth: usize) -> Result<(), BindError> {
        self.line(&format!("dir {}", relative.display()));
        if let Some(copy) = &self.copy {
            std::fs::create_dir(copy.join(relative)).map_err(|error| copy_error(path, &error))?;
        }
        let Ok(listing) = crate::fingerprint::read_dir(path) else {
            // Searchable (`dir/.` resolves): its files open by name, and
            // none of them can be bound.
            if std::fs::metadata(path.join(".")).is_ok() {
                return Err(BindError::Unlistable(path.to_owned()));
            }
            let stamp = metadata_stamp(path).unwrap_or_else(|| "unreadable".to_owned());
            self.line(&format!("unreadable {} {stamp}", relative.display()));
            self.by_metadata(relative);
            return Ok(());
        };
        let mut names: Vec<std::ffi::OsString> = listing
            .filter_map(|e| e.ok().map(|e| e.file_name()))
            .collect();
        names.sort();
        for name in names {
            if name == ".git" {
                continue;
            }
            self.entry(&path.join(&name), &relative.join(&name), depth + 1)?;
        }
        Ok(())
    }
}

/// Copies `path` to `to`, hashing the bytes written; the hash as
/// [`tree_sha256`] records it (an unreadable file is not copied).
fn copy_file(path: &Path, to: &Path, len: u64) -> Result<String, BindError> {
    use std::io::{Read, Write};
    if len == 0 {
        // Not opened, as when only hashed: an empty file is copied empty.
        std::fs::File::create(to).map_err(|error| copy_error(path, &error))?;
        return Ok(EMPTY_SHA256.to_owned());
    }
    // Not read again: what is not copied is bound by metadata.
    let unreadable = || Ok(metadata_stamp(path).unwrap_or_else(|| "unreadable".to_owned()));
    let Ok(mut file) = crate::fingerprint::open_to_read(path) else {
        return unreadable();
    };
    let mut out = std::fs::File::create(to).map_err(|error| copy_error(path, &error))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return unreadable(),
        };
        hasher.update(&buffer[..read]);
        out.write_all(&buffer[..read])
            .map_err(|error| copy_error(path, &error))?;
    }
    let mode = std::fs::metadata(path).map_or(0o644, |m| {
        std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o755
    });
    std::fs::set_permissions(to, std::os::unix::fs::PermissionsExt::from_mode(mode))
        .map_err(|error| copy_error(path, &error))?;
    Ok(hex::encode(hasher.finalize()))
}

fn copy_error(path: &Path, error: &std::io::Error) -> BindError {
    BindError::Snapshot(format!("cannot copy {}: {error}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::tree_sha256;

    #[test]
    fn any_change_under_a_root_changes_the_digest() {
        let dir = tempfile::tempdir().expect("tempdir");
        let hooks = dir.path().join("hooks");
        std::fs::create_dir(&hooks).expect("mkdir");
        std::fs::write(hooks.join("a.sh"), "echo a\n").expect("write");
        let digest = |roots: &[&std::path::Path]| tree_sha256(roots).expect("digest");
        let first = digest(&[&hooks]);
        assert_eq!(first, digest(&[&hooks]), "deterministic");
        std::fs::write(hooks.join("b.py"), "print()\n").expect("add");
        let added = digest(&[&hooks]);
        assert_ne!(first, added);
        std::fs::write(hooks.join("b.py"), "print(1)\n").expect("edit");
        assert_ne!(added, digest(&[&hooks]));
        let missing = dir.path().join("later");
        let before = digest(&[&missing]);
        std::fs::create_dir(&missing).expect("create");
        assert_ne!(
            before,
            digest(&[&missing]),
            "a root created later is a change"
        );
    }

    #[test]
    fn a_link_below_the_root_is_followed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (hooks, tools) = (dir.path().join("hooks"), dir.path().join("tools"));
        std::fs::create_dir_all(&hooks).expect("mkdir");
        std::fs::create_dir_all(&tools).expect("mkdir");
        std::fs::write(tools.join("x.sh"), "echo a\n").expect("write");
        std::os::unix::fs::symlink("../tools", hooks.join("d")).expect("link");
        std::os::unix::fs::symlink("../tools/x.sh", hooks.join("x.sh")).expect("link");
        let digest = || tree_sha256(&[&hooks]).expect("digest");
        let first = digest();
        std::fs::write(tools.join("x.sh"), "echo b\n").expect("edit");
        assert_ne!(first, digest(), "an edit behind a link is a change");
        std::os::unix::fs::symlink("..", hooks.join("up")).expect("loop");
        assert!(tree_sha256(&[&hooks]).is_err(), "a loop cannot be bound");
    }
}
