//! Read-only overlays: a file or folder mounted over another path in the
//! sandboxed child's own mount namespace, before anything of the hook runs.
//!
//! The hook system uses it to run a checked snapshot of a hook's tree in
//! place of the tree itself: every path (the script's, `$0`, `__dirname`,
//! a relative `source`) stays what it was, but what is read there is the
//! copy that was verified, which nothing outside can swap or edit, and which
//! the hook itself cannot write either. The host's namespace never sees it.

use std::ffi::{CString, OsStr};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::{Prepared, SandboxError};

impl Prepared {
    /// Whether this sandbox gives the child a mount namespace of its own, so
    /// that [`Prepared::overlay_read_only`] can be used (not where best effort
    /// left out namespaces).
    pub fn can_overlay(&self) -> bool {
        self.plan.namespaces
    }

    /// Has the child bind-mount `source` read-only over `target` (both
    /// absolute; a file over a file or a folder over a folder) in its mount
    /// namespace, before the private `/tmp`. A mount that fails fails the
    /// spawn: nothing runs from the path unverified.
    pub fn overlay_read_only(&mut self, source: &Path, target: &Path) -> Result<(), SandboxError> {
        if !self.can_overlay() {
            return Err(SandboxError::Unavailable {
                profile: self.name.clone(),
                missing: vec!["a mount namespace for the checked snapshot".to_owned()],
            });
        }
        let c_path = |path: &Path| {
            if !path.is_absolute() {
                return Err(SandboxError::Rules(format!(
                    "overlay path {} is not absolute",
                    path.display()
                )));
            }
            CString::new(path.as_os_str().as_bytes()).map_err(|_| {
                SandboxError::Rules(format!("overlay path {} holds a NUL byte", path.display()))
            })
        };
        let pair = (c_path(source)?, c_path(target)?);
        // The overlay is read-only as a whole: a protected path beneath it
        // (`.claude/settings.json` under an overlaid `.claude`) is already
        // held, and its own mount would find the copy's inode, not the
        // original's it was prepared for, and fail the spawn.
        // (Their paths have links resolved: compare with the target's too.)
        let resolved = target
            .canonicalize()
            .unwrap_or_else(|_| target.to_path_buf());
        self.plan.read_only.retain(|mount| {
            let path = Path::new(OsStr::from_bytes(mount.path.as_bytes()));
            !path.starts_with(target) && !path.starts_with(&resolved)
        });
        self.plan.overlays.push(pair);
        Ok(())
    }
}
