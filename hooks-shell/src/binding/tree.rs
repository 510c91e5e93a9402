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

use std::path::Path;

use sha2::{Digest, Sha256};

use super::BindError;
use crate::fingerprint::file_sha256;

/// The most entries one tree digest covers.
pub const MAX_TREE_ENTRIES: usize = 5_000;
/// The most bytes of regular files one tree digest reads.
pub const MAX_TREE_BYTES: u64 = 64 * 1024 * 1024;
/// The SHA-256 of no bytes.
pub const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
/// The deepest folder nesting walked.
const MAX_DEPTH: usize = 16;

/// The hex SHA-256 over `roots` (in the order given).
pub fn tree_sha256(roots: &[impl AsRef<Path>]) -> Result<String, BindError> {
    let mut walk = Walk {
        hasher: Sha256::new(),
        entries: 0,
        bytes: 0,
        copy: None,
        inside: Vec::new(),
    };
    for root in roots {
        let root = root.as_ref();
        walk.line(&format!("root {}", root.display()));
        walk.entry(root, Path::new(""), 0)?;
    }
    Ok(hex::encode(walk.hasher.finalize()))
}

/// [`tree_sha256`], copying what it hashes: root `i` to `into/i` (links
/// followed: the copy holds what they point to), each file's bytes read once,
/// hashed and written, so the digest is that of the copy. Returns the digest
/// and, per root, whether a copy of it was made (a missing root has none).
pub(crate) fn tree_sha256_copied(
    roots: &[impl AsRef<Path>],
    into: &Path,
) -> Result<(String, Vec<bool>), BindError> {
    let mut walk = Walk {
        hasher: Sha256::new(),
        entries: 0,
        bytes: 0,
        copy: None,
        inside: roots
            .iter()
            .filter_map(|root| std::fs::canonicalize(root.as_ref()).ok())
            .collect(),
    };
    let mut copied = Vec::new();
    for (index, root) in roots.iter().enumerate() {
        let root = root.as_ref();
        let target = into.join(index.to_string());
        walk.copy = Some(target.clone());
        walk.line(&format!("root {}", root.display()));
        walk.entry(root, Path::new(""), 0)?;
        copied.push(std::fs::symlink_metadata(&target).is_ok());
    }
    Ok((hex::encode(walk.hasher.finalize()), copied))
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
}

impl Walk {
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
            file_sha256(path).unwrap_or_else(|| "unreadable".to_owned())
        };
        self.line(&format!("file {} {hash}", relative.display()));
        Ok(())
    }

    fn folder(&mut self, path: &Path, relative: &Path, depth: usize) -> Result<(), BindError> {
        self.line(&format!("dir {}", relative.display()));
        if let Some(copy) = &self.copy {
            std::fs::create_dir(copy.join(relative)).map_err(|error| copy_error(path, &error))?;
        }
        let Ok(listing) = std::fs::read_dir(path) else {
            self.line(&format!("unreadable {}", relative.display()));
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
    let Ok(mut file) = std::fs::File::open(path) else {
        return Ok("unreadable".to_owned());
    };
    let mut out = std::fs::File::create(to).map_err(|error| copy_error(path, &error))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return Ok("unreadable".to_owned()),
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
