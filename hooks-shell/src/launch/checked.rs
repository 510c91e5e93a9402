//! A checked hook's launch as a whole: its sealed script, the checked copy
//! of its tree and the watch of the files it reads by path, and what is
//! checked once it ran.

use super::Launch;

impl Launch {
    /// A launch of `script` (if any) with the checked copy of the tree
    /// (if any) and the files it reads by path, watched since the check
    /// (if any); `None` when there is none of them.
    pub(crate) fn checked(
        script: Option<Launch>,
        snapshot: Option<std::sync::Arc<crate::snapshot::Snapshot>>,
        watched: Option<std::sync::Arc<crate::watched::Watched>>,
    ) -> Option<Launch> {
        if script.is_none() && snapshot.is_none() && watched.is_none() {
            return None;
        }
        let (script, renamed) = script.map_or((None, None), |l| (l.script, l.renamed));
        Some(Launch {
            script,
            renamed,
            snapshot,
            watched,
        })
    }

    /// After the run: a checked tree's copy no longer matching
    /// ([`crate::snapshot::Snapshot::after`]), or a file it reads by path
    /// changed while it ran ([`crate::watched`]), makes `result` a failure:
    /// what ran may not be what was approved.
    pub(crate) fn after(&self, overlaid_tree: bool, result: &mut crate::run::RunResult) {
        if let Some(snapshot) = &self.snapshot {
            snapshot.after(overlaid_tree, result);
        }
        if let Some(why) = self.watched.as_ref().and_then(|watched| watched.changed()) {
            tracing::warn!("[hooks] {why}; its result is not used");
            *result = crate::run::RunResult::failed(why);
        }
    }
}
