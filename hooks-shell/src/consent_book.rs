//! One registration's consent decisions, shared by shell hooks and imported
//! (Claude Code / Codex / Cursor) hooks: the allowlist read once, each
//! `(event, command)` pair settled once, and an approval whose script changed
//! since it was recorded treated as new code.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::allowlist::{Allowlist, Approval};
use crate::consent::Consent;
use crate::fingerprint::still_approved;

/// What [`ConsentBook::decide`] concluded for one pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Approved (before, or now) and its code unchanged: it may run.
    Approved,
    /// Not approved; `changed` when an approval existed for other code.
    Denied {
        /// The recorded script hash no longer matches.
        changed: bool,
    },
}

/// The allowlist of a home as one registration decides with it.
pub(crate) struct ConsentBook {
    allowlist: Allowlist,
    entries: HashMap<(String, String), Approval>,
    settled: HashSet<(String, String)>,
    accept: bool,
}

impl ConsentBook {
    /// Reads the allowlist of `home`; `accept` approves unapproved pairs.
    pub(crate) fn open(home: &Path, accept: bool) -> Self {
        let allowlist = Allowlist::in_home(home);
        let entries = allowlist
            .approvals()
            .into_iter()
            .map(|approval| ((approval.event.clone(), approval.command.clone()), approval))
            .collect();
        ConsentBook {
            allowlist,
            entries,
            settled: HashSet::new(),
            accept,
        }
    }

    /// Decides `(event, command)`: already settled, approved with unchanged
    /// code, or asked through `consent` (which records an approval it gets).
    pub(crate) fn decide(&mut self, consent: &mut Consent, event: &str, command: &str) -> Verdict {
        let pair = (event.to_owned(), command.to_owned());
        if self.settled.contains(&pair) {
            return Verdict::Approved;
        }
        let entry = self.entries.get(&pair);
        // A recorded hash that no longer matches is new code: consent again.
        let changed = entry.is_some_and(|entry| !still_approved(entry, command));
        if (entry.is_none() || changed)
            && !consent.approve(self.accept, &self.allowlist, event, command, changed)
        {
            return Verdict::Denied { changed };
        }
        self.settled.insert(pair);
        Verdict::Approved
    }
}
