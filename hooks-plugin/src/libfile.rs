//! Checks of a native library's file around loading it: a library others can
//! write is refused before any of its code runs, and one that changed while
//! it was being loaded (`cp` over it, which also crashes a host that has it
//! mapped) is refused after.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use crate::error::LoadError;

/// What identifies the file's contents cheaply: device, inode, size, mtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fingerprint {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
}

/// Stats `library` (following symlinks, as the loader does) and refuses a
/// file that group or others may write. `None` when it cannot be read (the
/// loader then reports why).
pub(crate) fn check_before_load(library: &Path) -> Result<Option<Fingerprint>, LoadError> {
    let Ok(metadata) = std::fs::metadata(library) else {
        return Ok(None);
    };
    let mode = metadata.mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(LoadError::Writable {
            library: library.to_owned(),
            mode,
        });
    }
    Ok(Some(fingerprint(&metadata)))
}

/// Refuses a library whose file is no longer the one stat'ed before loading.
pub(crate) fn check_after_load(
    library: &Path,
    before: Option<Fingerprint>,
) -> Result<(), LoadError> {
    let Some(before) = before else {
        return Ok(());
    };
    let changed = |what: &str| LoadError::Changed {
        library: library.to_owned(),
        what: what.to_owned(),
    };
    let Ok(metadata) = std::fs::metadata(library) else {
        return Err(changed("it is gone"));
    };
    let after = fingerprint(&metadata);
    if after.size != before.size {
        return Err(changed(&format!(
            "size {} bytes, then {}",
            before.size, after.size
        )));
    }
    if after.mtime != before.mtime {
        return Err(changed("its modification time moved"));
    }
    if (after.dev, after.ino) != (before.dev, before.ino) {
        return Err(changed("another file is at its path now"));
    }
    Ok(())
}

fn fingerprint(metadata: &std::fs::Metadata) -> Fingerprint {
    Fingerprint {
        dev: metadata.dev(),
        ino: metadata.ino(),
        size: metadata.size(),
        mtime: (metadata.mtime(), metadata.mtime_nsec()),
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn group_or_world_writable_files_are_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("libx.so");
        std::fs::write(&file, b"not really a library").expect("write");
        for (mode, refused) in [(0o644, false), (0o755, false), (0o664, true), (0o646, true)] {
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).expect("chmod");
            let result = check_before_load(&file);
            assert_eq!(result.is_err(), refused, "{mode:o}");
            if let Err(error) = result {
                let text = error.to_string();
                assert!(
                    text.contains("libx.so") && text.contains("writable"),
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn a_file_that_changed_is_refused_naming_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("liby.so");
        std::fs::write(&file, b"first").expect("write");
        let before = check_before_load(&file).expect("readable");
        assert!(check_after_load(&file, before).is_ok());
        std::fs::write(&file, b"second, longer").expect("rewrite");
        let error = check_after_load(&file, before).unwrap_err();
        assert!(error.to_string().contains("liby.so"), "{error}");
        assert!(error.to_string().contains("atomic `mv`"), "{error}");
        let moved = dir.path().join("new.so");
        std::fs::write(&moved, b"second, longer").expect("write");
        std::fs::rename(&moved, &file).expect("mv");
        let now = check_before_load(&file).expect("readable");
        assert!(check_after_load(&file, now).is_ok());
        assert!(check_after_load(&file, before).is_err(), "another inode");
    }
}
