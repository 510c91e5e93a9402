//! Hooks imported from Claude Code, Codex and Cursor (`hooks_from:`): each
//! with its format, file, event (theirs and ours), matcher, timeout and
//! consent; unsupported handler types listed beside them.

use hermes_hooks_shell::consent::FingerprintKey;
use hermes_hooks_shell::dialect::{Discovery, Handler, Unsupported, discover_in};
use hermes_hooks_shell::standing::{Standing, approval_of, standing};
use hermes_hooks_shell::{Allowlist, Binding, ImportedHook};
use serde_json::{Value, json};

use crate::home::Home;

/// What an imported hook never does, said the same way in `list` and `doctor`.
pub const NEVER_FIRED: &str = "never fired: no Hermes event";

/// One imported hook and its consent state.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ImportedRow {
    /// The hook as read from its file.
    pub hook: ImportedHook,
    /// Whether the allowlist approves it for its Hermes event, for the code
    /// it runs now (an approval of a script that changed since does not count).
    pub allowlisted: bool,
    /// Whether it was approved, but what it runs changed since (or the
    /// approval has no binding: recorded by Hermes or an older `hooks`).
    pub changed: bool,
    /// Where it stands with the allowlist.
    pub standing: Standing,
    /// What its approval is bound to, as recorded.
    pub binding: Option<Binding>,
    /// When it was approved, as recorded.
    pub approved_at: Option<String>,
    /// The key of the fingerprints shown for its secrets (its allowlist's home's).
    pub key: FingerprintKey,
}

impl ImportedRow {
    /// The rows of `home`'s `hooks_from:` (user files under `$HOME`), the
    /// unsupported handlers, and the discovery (its warnings, files, `disableAllHooks`).
    pub fn scan(home: &Home, allowlist: &Allowlist) -> (Vec<ImportedRow>, Discovery) {
        let user = hermes_hooks_shell::dialect::UserDirs::from_env();
        let discovery = discover_in(&home.config, &home.project, &user);
        let snapshot = allowlist.read();
        let key = FingerprintKey::of_allowlist(allowlist);
        // Each hook tree hashed once for all the rows, not once per handler.
        let _trees = hermes_hooks_shell::binding::TreeCache::new().enter();
        let rows = discovery
            .hooks
            .iter()
            .map(|hook| {
                let subject = hook.subject();
                let approval = hook
                    .event()
                    .and_then(|_| approval_of(&snapshot.approvals, &subject));
                let standing = match hook.event() {
                    Some(_) => standing(&snapshot.approvals, &subject),
                    None => Standing::NotApproved,
                };
                ImportedRow {
                    hook: hook.clone(),
                    allowlisted: standing.is_approved(),
                    changed: standing.is_stale(),
                    binding: approval.and_then(|a| a.binding.clone()),
                    standing,
                    approved_at: approval.and_then(|a| a.approved_at.clone()),
                    key: key.clone(),
                }
            })
            .collect();
        (rows, discovery)
    }

    /// `command` or `http`.
    pub fn kind(&self) -> &'static str {
        match self.hook.handler {
            Handler::Command { .. } => "command",
            Handler::Http { .. } => "http",
            // Handler types this build does not know.
            _ => "other",
        }
    }

    /// The row in the `list --json` shape (`imported_hooks`).
    pub fn to_json(&self) -> Value {
        let hook = &self.hook;
        json!({
            "format": hook.dialect.as_str(),
            "source": hook.source.display().to_string(),
            "key": hook.key,
            "their_event": hook.their_event,
            "event": hook.event().map(|event| event.as_str()),
            "type": self.kind(),
            "command": hook.shown_command(),
            "matcher": hook.matcher.describe(),
            "if": hook.condition.as_ref().map(condition_text),
            "timeout": hook.timeout.as_secs(),
            "timeout_clamped_from": hook.timeout_clamped_from,
            "fail_closed": hook.fail_closed,
            "project": hook.project.display().to_string(),
            "supported": true,
            "allowlisted": self.allowlisted,
            "changed_since_approval": self.changed,
            "consent": self.standing.why_not().unwrap_or_else(|| "approved".to_owned()),
            "binding": self.binding.as_ref().map(|b| b.to_shown_json(&self.key)),
            "scope": hook.scope.as_str(),
            "approved_at": self.approved_at,
            "status": status(hook),
            "sandbox": self.sandbox().to_json(),
        })
    }

    /// Its sandbox profile made concrete (an http hook's only says whether it may run).
    pub fn sandbox(&self) -> hermes_hooks_shell::sandboxing::Effective {
        hermes_hooks_shell::sandboxing::Effective::of(
            &self.hook.sandbox,
            &self.hook.project,
            hermes_hooks_shell::sandboxing::imported_own_files(&self.hook),
            &self.hook.sandbox_secrets,
        )
    }
}

/// `runs` (once consent is given), or why it never runs.
pub fn status(hook: &ImportedHook) -> &'static str {
    if hook.event().is_some() {
        "runs"
    } else {
        NEVER_FIRED
    }
}

/// An unsupported handler in the `list --json` shape.
pub fn unsupported_json(entry: &Unsupported) -> Value {
    json!({
        "format": entry.dialect.as_str(),
        "source": entry.source.display().to_string(),
        "key": entry.key,
        "their_event": entry.their_event,
        "event": hermes_hooks_shell::dialect::event_mapping(entry.dialect, &entry.their_event)
            .and_then(|mapping| mapping.ours)
            .map(|event| event.as_str()),
        "type": entry.kind,
        "supported": false,
        "status": format!(
            "unsupported: {} hooks cannot run here{}",
            entry.kind,
            fails_closed_note(entry)
        ),
    })
}

/// `; fails closed: ...` for an unsupported handler that blocks what it matches, else empty.
pub fn fails_closed_note(entry: &Unsupported) -> &'static str {
    let blocks =
        entry.fail_closed && entry.mapping.ours == Some(hermes_hooks_core::HookEvent::PreToolCall);
    if blocks {
        "; fails closed: the tool calls it matches are blocked"
    } else {
        ""
    }
}

/// The `if` rule as written.
pub fn condition_text(condition: &hermes_hooks_shell::dialect::Condition) -> String {
    match condition {
        hermes_hooks_shell::dialect::Condition::Rule {
            tool,
            pattern: Some(p),
        } => format!("{tool}({p})"),
        hermes_hooks_shell::dialect::Condition::Rule {
            tool,
            pattern: None,
        } => tool.clone(),
        hermes_hooks_shell::dialect::Condition::Unparsed(rule) => rule.clone(),
    }
}
