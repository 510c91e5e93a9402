//! Why an approval cannot be bound: each reason names what to change so
//! the hook can be approved.

use std::path::PathBuf;

use super::mentions;
use super::tree::{MAX_TREE_BYTES, MAX_TREE_ENTRIES};

/// Why no binding could be computed (the hook then cannot be approved).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BindError {
    /// The hook tree is too big to hash before every run.
    #[error(
        "the hook tree at {0} is too large to bind an approval to (over {MAX_TREE_ENTRIES} \
         entries or {MAX_TREE_BYTES} bytes); name the script directly or move it into its own folder"
    )]
    TreeTooLarge(PathBuf),
    /// The project files the hook's code names take more reading than one
    /// approval can bind (the work budget of `mentions`).
    #[error(
        "the code of this hook names more of the project than an approval can bind (reading \
         stopped at {0}: over {lookups} look-ups or {mib} MiB read); have it name fewer files, \
         or keep its code in a folder of its own",
        lookups = mentions::MAX_LOOKUPS,
        mib = mentions::MAX_READ >> 20
    )]
    ReadingTooLarge(PathBuf),
    /// Nothing can be bound (no file, no tree).
    #[error("nothing identifies the code of this hook, so it cannot be approved")]
    Nothing,
    /// The checked copy of the hook tree could not be made.
    #[error("{0}")]
    Snapshot(String),
    /// A folder of the hook tree can be searched but not listed (`0311`):
    /// its files run by name, and what they are cannot be known.
    #[error(
        "the folder {0} of the hook tree cannot be listed (its files still open by name), so \
         what it holds cannot be bound to an approval; make it readable (chmod u+r) or move it out"
    )]
    Unlistable(PathBuf),
    /// A folder the hook's Python or Perl searches for modules is written
    /// with an expansion only the running shell knows
    /// (`PYTHONPATH=$(dirname $X)/lib`): what it loads from there cannot be
    /// bound (red team round 25, R25a-6).
    #[error(
        "the hook searches the folder `{0}` for modules, which is known only when it runs, so \
         what it loads from there cannot be bound to an approval; write the folder as a path \
         (`lib`, `$CLAUDE_PROJECT_DIR/lib`, `$PWD/lib`)"
    )]
    UnknownFolder(String),
    /// A file it runs is named only when it runs (`sh "$(printf
    /// tools/g.%s sh)"`): no reading of its text names it, so no approval
    /// can bind it (red team R38-1, R38-5).
    #[error(
        "the hook runs a file whose name is computed only when it runs: {0}; what runs cannot \
         be bound to an approval, so it cannot be approved; write the path of what it runs in \
         the command"
    )]
    Computed(String),
    /// A shell is given a folder or a device as its script: it would run
    /// nothing and succeed, a fail-closed guard allowing every call (sweep
    /// 59, H2).
    #[error(
        "{0} (a folder or a device): a shell given one runs nothing and succeeds, so it cannot \
         be approved; put the script back, or name the file it should run"
    )]
    NotAFile(String),
}
