//! Whether each hook `hooks test` fires may run: approved for what it
//! runs now, or approved first with `--accept-hooks`.

use hermes_hooks_shell::{Allowlist, Consent, ShellHookSpec, Subject, standing};

use hermes_hooks_cli::inventory::ImportedRow;

use crate::output;
use crate::setup::Home;

/// Whether each hook is approved for what it runs now, and why not; with
/// `--accept-hooks` (or its environment variable or `hooks_auto_accept`), the
/// ones that are not are approved (bound to what they run) first.
pub(super) fn consent(home: &Home, accept: bool, specs: &[ShellHookSpec]) -> Vec<(bool, String)> {
    let subjects = specs
        .iter()
        .map(|spec| Subject::native(spec.event.as_str(), &spec.command, Some(home.config.path())));
    decide(home, accept, subjects.collect())
}

/// [`consent`] for `subjects`.
fn decide(home: &Home, accept: bool, subjects: Vec<Subject>) -> Vec<(bool, String)> {
    let allowlist = Allowlist::in_home(&home.path);
    let env = std::env::var("HERMES_ACCEPT_HOOKS").ok();
    let accept = Consent::effective_accept(accept, env.as_deref(), &home.config);
    let approved = allowlist.approvals();
    // Each hook tree hashed once for all the hooks, not once per hook.
    let _trees = hermes_hooks_shell::binding::TreeCache::new().enter();
    subjects
        .iter()
        .map(|subject| {
            let standing = standing(&approved, subject);
            let Some(why) = standing.why_not() else {
                return (true, String::new());
            };
            if !accept {
                return (false, why);
            }
            match allowlist.record_subject(subject) {
                Ok(_) => (true, String::new()),
                // Cannot bind: never approved, never run.
                Err(error @ hermes_hooks_shell::AllowlistError::Unbindable { .. }) => {
                    (false, error.to_string())
                }
                Err(error) => {
                    // The error names the file; the approval holds for this run.
                    output::warn_once(&format!(
                        "{error}; the approval of {} holds for this run only",
                        subject.command
                    ));
                    (true, String::new())
                }
            }
        })
        .collect()
}

/// [`consent`] for imported hooks.
pub(super) fn consent_imported(
    home: &Home,
    accept: bool,
    rows: &[ImportedRow],
) -> Vec<(bool, String)> {
    decide(
        home,
        accept,
        rows.iter().map(|row| row.hook.subject()).collect(),
    )
}
