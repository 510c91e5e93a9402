//! The interpreter behind a version-manager shim, for the plugin worker: the
//! one store of hooks-core ([`ShimChoice`]), so the worker (and every restart
//! of it) starts the real program instead of a shim chain, and a wrapper
//! script is never skipped.

use std::path::{Path, PathBuf};

pub(crate) use hermes_hooks_core::interpreter::ShimChoice as Learn;

/// What to record for `program` when it is a version-manager shim (`None`
/// for a binary or any other script).
pub(crate) fn learn(program: &Path) -> Option<Learn> {
    Learn::of(program)
}

/// The real interpreter the shim chose last time, while still valid.
pub(crate) fn cached(learn: &Learn, home: &Path) -> Option<PathBuf> {
    learn.cached(home)
}

/// Records `executable` (the worker's `sys.executable`) as what the shim runs.
pub(crate) fn remember(home: &Path, learn: &Learn, executable: &Path) {
    learn.remember(home, executable);
}
