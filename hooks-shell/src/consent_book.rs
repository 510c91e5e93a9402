//! One registration's consent decisions, shared by shell hooks and imported
//! (Claude Code / Codex / Cursor) hooks: the allowlist read once, each hook
//! settled once, an approval that no longer holds for what the hook runs
//! ([`crate::standing`]) treated as new code.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::allowlist::{Allowlist, Approval};
use crate::binding::{Subject, TreeCache};
use crate::consent::Consent;
use crate::standing::{Approved, Standing, standing};

/// What [`ConsentBook::decide`] concluded for one hook.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(clippy::large_enum_variant)] // one per hook at load; not worth a box
pub(crate) enum Verdict {
    /// Approved (before, or now) for what it runs: it may run.
    Approved(Approved),
    /// Not approved; `changed` when an approval existed for other code (or
    /// without a binding); `why` says what.
    Denied {
        /// An approval exists but does not hold.
        changed: bool,
        /// Why, in a few words.
        why: String,
        /// No approval can be recorded for it as it is (its binding cannot
        /// be computed: a name computed when it runs, a tree too large).
        unbindable: bool,
    },
}

/// The allowlist of a home as one registration decides with it.
pub(crate) struct ConsentBook {
    allowlist: Allowlist,
    approvals: Vec<Approval>,
    settled: HashMap<(String, String, Option<PathBuf>), Approved>,
    accept: bool,
    /// The load's tree digests: each tree hashed once, not once per hook.
    trees: TreeCache,
    /// Why the allowlist could not be read (it then reads as empty; the
    /// warning is given once, at open).
    unreadable: Option<String>,
}

impl ConsentBook {
    /// Reads the allowlist of `home`; `accept` approves unapproved hooks.
    pub(crate) fn open(home: &Path, accept: bool) -> Self {
        let allowlist = Allowlist::in_home(home);
        let snapshot = allowlist.read();
        if let Some(warning) = &snapshot.warning {
            tracing::warn!("{warning}");
        }
        ConsentBook {
            allowlist,
            approvals: snapshot.approvals,
            settled: HashMap::new(),
            accept,
            trees: TreeCache::new(),
            unreadable: snapshot.warning,
        }
    }

    /// Whether unapproved hooks are approved without asking.
    pub(crate) fn accepts(&self) -> bool {
        self.accept
    }

    /// The allowlist decided with.
    pub(crate) fn allowlist(&self) -> &Allowlist {
        &self.allowlist
    }

    /// Decides `subject`: already settled, approved for what it runs now, or
    /// asked through `consent` (which records the approval it gets, bound).
    pub(crate) fn decide(&mut self, consent: &mut Consent, subject: &Subject) -> Verdict {
        let _trees = self.trees.enter();
        let key = (
            subject.event.clone(),
            subject.command.clone(),
            subject.project.clone(),
        );
        if let Some(approved) = self.settled.get(&key) {
            return Verdict::Approved(approved.clone());
        }
        let standing = standing(&self.approvals, subject);
        let why = standing.why_not().unwrap_or_default();
        let changed = standing.is_stale();
        let verdict = match standing {
            Standing::Approved(approved) => Verdict::Approved(approved),
            Standing::Unbindable(_) => Verdict::Denied {
                changed,
                why,
                unbindable: true,
            },
            // A command whose own text computes what it runs: never "approve
            // it", though nobody is asked (its text is read, no file opened).
            Standing::NotApproved | Standing::Changed(_) | Standing::Unbound
                if !consent.may_approve(self.accept)
                    && let Some(error) = subject.computed_in_command() =>
            {
                Verdict::Denied {
                    changed,
                    why: error.to_string(),
                    unbindable: true,
                }
            }
            // Nobody to ask and nothing accepted: no binding is computed
            // for a hook that cannot run (a repository naming a 28 MB file
            // held every tool call for minutes; red team round 7, R7a-3).
            // Refused when last tried (a name its script computes): never
            // "approve it" (R43-12).
            Standing::NotApproved | Standing::Changed(_) | Standing::Unbound
                if !consent.may_approve(self.accept) =>
            {
                match self.allowlist.refusals().last(subject) {
                    Some((refused, at)) => Verdict::Denied {
                        changed,
                        why: format!(
                            "approving it was refused when last tried ({at}): {refused}; \
                             change what it runs first"
                        ),
                        unbindable: true,
                    },
                    None => Verdict::Denied {
                        changed,
                        why,
                        unbindable: false,
                    },
                }
            }
            Standing::NotApproved | Standing::Changed(_) | Standing::Unbound => {
                let (binding, files) = subject.binding_and_run_files();
                match binding {
                    Ok(binding)
                        if consent.approve(
                            self.accept,
                            &self.allowlist,
                            subject,
                            &binding,
                            changed,
                        ) =>
                    {
                        Verdict::Approved(Approved::Bound(binding))
                    }
                    Ok(_) => Verdict::Denied {
                        changed,
                        why,
                        unbindable: false,
                    },
                    Err(error) => {
                        self.allowlist
                            .refusals()
                            .record(subject, &files, &error.to_string());
                        Verdict::Denied {
                            changed,
                            why: error.to_string(),
                            unbindable: true,
                        }
                    }
                }
            }
        };
        match verdict {
            Verdict::Approved(approved) => {
                self.settled.insert(key, approved.clone());
                Verdict::Approved(approved)
            }
            // Its approval may be in the file that cannot be read: say so
            // (red team R35-1).
            Verdict::Denied {
                changed,
                why,
                unbindable,
            } => Verdict::Denied {
                changed,
                unbindable,
                why: match &self.unreadable {
                    Some(_) => format!(
                        "{why}; the shell hook allowlist cannot be read, so no approval is \
                         found in it (fix it: `hooks doctor` says what is wrong)"
                    ),
                    None => why,
                },
            },
        }
    }
}
