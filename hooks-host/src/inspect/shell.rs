//! Shell hooks as configured: matcher, timeout, fail mode, consent and drift.

use hermes_hooks_core::config::Scope;
use std::path::Path;

use hermes_hooks_shell::consent::FingerprintKey;
use hermes_hooks_shell::standing::{Standing, approval_of, standing};
use hermes_hooks_shell::{
    Allowlist, Binding, Drift, ShellHookSpec, Subject, approval_drift, script_mtime_iso,
};
use serde_json::{Value, json};

/// One configured shell hook and its consent state.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ShellHookRow {
    /// The validated config entry.
    pub spec: ShellHookSpec,
    /// Whether the allowlist approves it for its event, for what it runs now.
    pub allowlisted: bool,
    /// Where it stands with the allowlist (approved, changed, unbound, ...).
    pub standing: Standing,
    /// What its approval is bound to, as recorded.
    pub binding: Option<Binding>,
    /// When it was approved, as recorded.
    pub approved_at: Option<String>,
    /// The script's mtime recorded at approval.
    pub mtime_at_approval: Option<String>,
    /// The script's mtime now.
    pub mtime_now: Option<String>,
    /// Whether the script changed since approval (`None` when not approved):
    /// [`Drift::ContentChanged`] means it will not run until approved again.
    pub drift: Option<Drift>,
    /// Which config file the entry came from (the managed scope's wins).
    pub scope: Scope,
    /// The key of the fingerprints shown for its secrets (its allowlist's home's).
    pub key: FingerprintKey,
}

impl ShellHookRow {
    /// The rows of `specs`, with the approvals of `allowlist` read once.
    /// The second value is the allowlist's own problem (unreadable, malformed).
    pub fn scan(
        specs: &[ShellHookSpec],
        allowlist: &Allowlist,
        config: &Path,
    ) -> (Vec<ShellHookRow>, Option<String>) {
        let snapshot = allowlist.read();
        let key = FingerprintKey::of_allowlist(allowlist);
        // Each hook tree hashed once for all the rows.
        let _trees = hermes_hooks_shell::binding::TreeCache::new().enter();
        let rows = specs
            .iter()
            .map(|spec| {
                let subject = Subject::native(spec.event.as_str(), &spec.command, Some(config));
                let approval = approval_of(&snapshot.approvals, &subject);
                let standing = standing(&snapshot.approvals, &subject);
                let mtime_now = script_mtime_iso(&spec.command);
                let mtime_at_approval = approval.and_then(|a| a.script_mtime_at_approval.clone());
                // By content hash when the approval recorded one, else by mtime.
                let drift = approval.map(|approval| match &standing {
                    Standing::Changed(_) => Drift::ContentChanged,
                    _ => approval_drift(approval, &spec.command),
                });
                ShellHookRow {
                    spec: spec.clone(),
                    allowlisted: standing.is_approved(),
                    binding: approval.and_then(|a| a.binding.clone()),
                    standing,
                    approved_at: approval.and_then(|a| a.approved_at.clone()),
                    mtime_at_approval,
                    mtime_now,
                    drift,
                    // The caller knows the config; it sets the real scope.
                    scope: Scope::User,
                    key: key.clone(),
                }
            })
            .collect();
        (rows, snapshot.warning)
    }

    /// The row in the `list --json` shape.
    pub fn to_json(&self) -> Value {
        json!({
            "event": self.spec.event.as_str(),
            "command": self.spec.command,
            "matcher": self.spec.matcher.pattern(),
            "timeout": self.spec.timeout.as_secs(),
            "fail_closed": self.spec.fail_closed,
            "allowlisted": self.allowlisted,
            "consent": self.standing.why_not().unwrap_or_else(|| "approved".to_owned()),
            "binding": self.binding.as_ref().map(|b| b.to_shown_json(&self.key)),
            "approved_at": self.approved_at,
            "drift": self.drift.map(drift_name),
            "scope": self.scope.as_str(),
            "sandbox": self.sandbox().to_json(),
        })
    }

    /// Its sandbox profile made concrete (the project: its own, else the current directory).
    pub fn sandbox(&self) -> hermes_hooks_shell::sandboxing::Effective {
        let project = (self.spec.project.clone())
            .unwrap_or_else(|| std::env::current_dir().unwrap_or_default());
        let own = hermes_hooks_shell::sandboxing::spec_own_files(&self.spec, &project);
        hermes_hooks_shell::sandboxing::Effective::of(
            &self.spec.sandbox,
            &project,
            own,
            &self.spec.sandbox_secrets,
        )
    }
}

/// `unchanged`, `modified` (mtime), `changed` (content: needs approval again) or `unknown`.
pub fn drift_name(drift: Drift) -> &'static str {
    match drift {
        Drift::Unchanged => "unchanged",
        Drift::Modified => "modified",
        Drift::ContentChanged => "changed",
        // `Unknown`, and any kind of drift this build does not know.
        _ => "unknown",
    }
}
