//! Running the checked copy of a project hook's tree, not the tree itself.
//!
//! A script run by path (`sh .claude/hooks/a.sh`, `node …/a.js`, a file it
//! sources or requires) is read by its interpreter after the check: a file
//! swapped in between would run unapproved. So right before each run of a
//! project hook whose approval binds its tree, the tree is copied into a
//! private `0700` directory while it is hashed (what is hashed is what is
//! copied), the copy's digest is compared with the approved one, and the
//! sandbox mounts each copied root read-only over the original path in the
//! hook's own mount namespace ([`Prepared::overlay_read_only`]): paths, `$0`,
//! `__dirname` and relative sources are unchanged, and nothing outside the
//! hook (nor the hook) can change what it reads there.
//!
//! Where the hook gets no mount namespace (no sandbox, or a best-effort one
//! without namespaces) it runs from the path as before, and the tree is
//! hashed again after the run: a tree that no longer matches makes the run a
//! failure (a fail-closed hook then blocks). That only detects a swap that is
//! still in place when the run ends (see `docs/decisions/sealed-tree-snapshot.md`).

use std::path::{Path, PathBuf};

use hermes_hooks_process::sandbox::Prepared;

use crate::binding::{BindError, tree_sha256_copied, tree_sum_now};
use crate::run::RunResult;

/// A checked copy of a hook tree, removed when dropped.
#[derive(Debug)]
pub struct Snapshot {
    dir: tempfile::TempDir,
    /// The roots, as the binding names them.
    roots: Vec<PathBuf>,
    /// `(copy, original)` for each root that exists.
    pairs: Vec<(PathBuf, PathBuf)>,
    /// The digest of the copy (== that of the roots when it was made).
    sha256: String,
    /// Each root's link text when the copy was made (`None`: no link).
    links: Vec<Option<PathBuf>>,
}

impl Snapshot {
    /// Copies `roots` into a fresh private directory, hashing what is copied.
    pub(crate) fn take(roots: &[PathBuf]) -> Result<Snapshot, BindError> {
        let dir = tempfile::Builder::new()
            .prefix("hermes-hooks-seal.")
            .tempdir()
            .map_err(|error| {
                BindError::Snapshot(format!("cannot make a snapshot folder: {error}"))
            })?;
        let (sha256, copied) = tree_sha256_copied(roots, dir.path())?;
        let pairs = roots
            .iter()
            .zip(copied)
            .enumerate()
            .filter(|(_, (root, copied))| *copied && root.is_absolute())
            .map(|(index, (root, _))| (dir.path().join(index.to_string()), root.clone()))
            .collect();
        Ok(Snapshot {
            dir,
            roots: roots.to_vec(),
            pairs,
            sha256,
            links: roots
                .iter()
                .map(|root| std::fs::read_link(root).ok())
                .collect(),
        })
    }

    /// The roots of the tree, as the binding names them: the sandbox keeps
    /// each one that is a link pointing where it points while the hook runs
    /// (the copy is mounted on the link's target, not on the link).
    pub(crate) fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Whether `path` lies in a copied root (by name, or where links lead):
    /// overlaid, the path itself reads the checked copy.
    pub(crate) fn covers(&self, path: &Path) -> bool {
        let real = std::fs::canonicalize(path).ok();
        self.pairs.iter().any(|(_, original)| {
            path.starts_with(original)
                || real.as_ref().is_some_and(|real| {
                    std::fs::canonicalize(original).is_ok_and(|root| real.starts_with(root))
                })
        })
    }

    /// Where `paths` beneath a copied root are in the copy. The sandbox's
    /// rules hold inodes: one on a folder the copy is mounted over is hidden
    /// by the mount, so what the hook may read there is granted on the copy.
    pub(crate) fn copies_of(&self, paths: &[PathBuf]) -> Vec<PathBuf> {
        let mut copies = Vec::new();
        for path in paths {
            for (copy, original) in &self.pairs {
                let real = std::fs::canonicalize(original).unwrap_or_else(|_| original.clone());
                let inside = path
                    .strip_prefix(original)
                    .or_else(|_| path.strip_prefix(&real));
                if let Ok(rest) = inside {
                    copies.push(copy.join(rest));
                }
            }
        }
        copies.retain(|copy| copy.exists());
        copies
    }

    /// The digest of the copy.
    pub(crate) fn sha256(&self) -> &str {
        &self.sha256
    }

    /// Where the copies are (for tests and diagnostics).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Mounts the copy over the tree in `prepared`'s child. `Ok(false)`: no
    /// mount namespace there (or no sandbox), the run goes by the paths and
    /// [`Snapshot::check_after`] applies.
    pub(crate) fn overlay(&self, prepared: Option<&mut Prepared>) -> Result<bool, String> {
        let Some(prepared) = prepared.filter(|prepared| prepared.can_overlay()) else {
            return Ok(false);
        };
        for (copy, original) in &self.pairs {
            prepared
                .overlay_read_only(copy, original)
                .map_err(|error| format!("cannot seal the checked hook tree: {error}"))?;
        }
        Ok(true)
    }

    /// After a run: the checks of [`Snapshot::check_after`] when it went by
    /// the paths, else of [`Snapshot::check_links_after`].
    pub(crate) fn after(&self, overlaid: bool, result: &mut RunResult) {
        if overlaid {
            self.check_links_after(result);
        } else {
            self.check_after(result);
        }
    }

    /// After a run on the copy: a root that is a link (`.claude -> agent`)
    /// has the copy mounted on its target, but the link itself stays in the
    /// project. A sandboxed hook cannot re-point it (the sandbox pins it,
    /// [`hermes_hooks_process::sandbox::pinned_links`]), but a process
    /// outside the sandbox (a same-user process, an unsandboxed hook) could,
    /// making the paths through it reach unchecked files. A link changed by
    /// the end of the run makes the run a failure, its result unused (the
    /// next run's binding, which holds the link's text, asks again).
    pub(crate) fn check_links_after(&self, result: &mut RunResult) {
        for (root, link) in self.roots.iter().zip(&self.links) {
            if std::fs::read_link(root).ok() != *link {
                *result = RunResult::failed(format!(
                    "the link {} changed while the hook ran: what ran may not be what was approved",
                    root.display()
                ));
                return;
            }
        }
    }

    /// After a run that went by the paths (not overlaid): the tree is hashed
    /// again; changed, `result` becomes a failure saying so.
    pub(crate) fn check_after(&self, result: &mut RunResult) {
        // Walked now, never from a cache: the tree as the run left it.
        let now = tree_sum_now(&self.roots);
        if now.as_ref().ok().map(|sum| sum.sha256.as_str()) == Some(self.sha256.as_str()) {
            return;
        }
        let roots: Vec<String> = self.roots.iter().map(|r| r.display().to_string()).collect();
        tracing::warn!(
            "[hooks] the hook tree {} changed while the hook ran (no mount namespace to run \
             the checked copy in); its result is not used",
            roots.join(", ")
        );
        *result = RunResult::failed(format!(
            "the hook tree ({}) changed while the hook ran: what ran may not be what was approved",
            roots.join(", ")
        ));
    }
}

/// Mounts `snapshot` (if any) over its tree in `prepared`'s child: the
/// sandbox to spawn with, and whether the copy is mounted (else the run goes
/// by the paths and [`Snapshot::check_after`] applies). A mount that cannot
/// be planned is a run that fails before it starts (the error says why).
pub(crate) fn overlay(
    snapshot: Option<&Snapshot>,
    mut prepared: Option<Prepared>,
) -> Result<(Option<Prepared>, bool), String> {
    let Some(snapshot) = snapshot else {
        return Ok((prepared, false));
    };
    let overlaid = snapshot.overlay(prepared.as_mut())?;
    Ok((prepared, overlaid))
}
