//! Where one hook stands with the allowlist: approved for what it runs now,
//! never approved, approved for other code, or approved by an entry without a
//! binding. The one reading of an approval, for registration, every run,
//! `hooks list`, `test`, `approve` and `doctor`.

use crate::allowlist::Approval;
use crate::binding::{BindError, Binding, Subject};
use crate::fingerprint::still_approved;

/// What an approval that holds approves.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Approved {
    /// A bound approval: the binding it holds for.
    Bound(Binding),
    /// A config.yaml hook approved by hermes-agent or an older `hooks`
    /// (command string, script hash or mtime only): it runs as Hermes runs it.
    Legacy(Approval),
}

/// Where a hook stands.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
#[allow(clippy::large_enum_variant)] // built once per hook and check; not worth a box
pub enum Standing {
    /// Approved, for what it runs now.
    Approved(Approved),
    /// Never approved (in this project).
    NotApproved,
    /// Approved for other code: what changed.
    Changed(Vec<String>),
    /// A project hook approved by an entry without a binding (hermes-agent's,
    /// or an older `hooks`'): it needs approving again.
    Unbound,
    /// Its binding cannot be computed, so it cannot be approved.
    Unbindable(BindError),
}

impl Standing {
    /// Whether it may run.
    pub fn is_approved(&self) -> bool {
        matches!(self, Standing::Approved(_))
    }

    /// Whether an approval exists but does not hold (changed or unbound).
    pub fn is_stale(&self) -> bool {
        matches!(self, Standing::Changed(_) | Standing::Unbound)
    }

    /// Why it may not run, in a few words (`None` when it may).
    pub fn why_not(&self) -> Option<String> {
        match self {
            Standing::Approved(_) => None,
            Standing::NotApproved => Some("not approved".to_owned()),
            Standing::Changed(changes) if changes.is_empty() => {
                Some("changed since it was approved".to_owned())
            }
            Standing::Changed(changes) => Some(format!(
                "changed since it was approved: {}",
                changes.join("; ")
            )),
            Standing::Unbound => Some(
                "approved without a binding (by Hermes or an older hooks): approve it again"
                    .to_owned(),
            ),
            Standing::Unbindable(error) => Some(error.to_string()),
        }
    }
}

/// The approval slot of `subject` among `approvals`: a bound entry of its
/// project, else an unbound entry of its event and command.
pub fn approval_of<'a>(approvals: &'a [Approval], subject: &Subject) -> Option<&'a Approval> {
    approvals
        .iter()
        .rev()
        .find(|a| a.binding.is_some() && a.is_for(subject))
        .or_else(|| {
            approvals.iter().rev().find(|a| {
                a.binding.is_none() && a.event == subject.event && a.command == subject.command
            })
        })
}

/// Where `subject` stands with `approvals`, its binding computed now.
pub fn standing(approvals: &[Approval], subject: &Subject) -> Standing {
    let Some(approval) = approval_of(approvals, subject) else {
        // Nothing to compare with: the binding is not computed.
        return Standing::NotApproved;
    };
    // A file it runs that changed is a change, whatever else it reaches now.
    if let Some(approved) = &approval.binding {
        let changed = approved.changed_files();
        if !changed.is_empty() {
            return Standing::Changed(changed);
        }
    }
    standing_with(approvals, subject, subject.binding())
}

/// [`standing`] with the current binding already computed.
pub fn standing_with(
    approvals: &[Approval],
    subject: &Subject,
    now: Result<Binding, BindError>,
) -> Standing {
    let Some(approval) = approval_of(approvals, subject) else {
        return Standing::NotApproved;
    };
    match &approval.binding {
        Some(approved) => match now {
            Err(error) => Standing::Unbindable(error),
            // An approval recorded before sources were holds for its file.
            Ok(mut now) if approved.source.is_none() && now.source.is_some() => {
                now.source = None;
                match now == *approved {
                    true => Standing::Approved(Approved::Bound(now)),
                    false => Standing::Changed(now.differences(approved)),
                }
            }
            Ok(now) if now == *approved => Standing::Approved(Approved::Bound(now)),
            Ok(now) => Standing::Changed(now.differences(approved)),
        },
        // Hermes' own entries keep Hermes' meaning for the user's config.yaml
        // hooks; a project's hooks, and a user's hook that runs the
        // definitions of the folder it runs in, need a binding.
        None if subject.bound_project().is_some() => Standing::Unbound,
        None if still_approved(approval, &subject.command) => {
            Standing::Approved(Approved::Legacy(approval.clone()))
        }
        None => Standing::Changed(vec!["its script changed".to_owned()]),
    }
}
