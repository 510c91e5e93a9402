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

/// Whether the config.yaml hook `spec` reaches the folder it runs in: its
/// reading binds that folder (`sh tools/g.sh`, `make -s lint`), or cannot
/// tell what it runs (`sh "$(git rev-parse --show-toplevel)/g.sh"`).
pub(super) fn reaches_folder(home: &Home, spec: &ShellHookSpec) -> bool {
    let subject = Subject::native(spec.event.as_str(), &spec.command, Some(home.config.path()));
    if subject.bound_project().is_some() {
        return true;
    }
    let Ok(binding) = subject.binding() else {
        return true;
    };
    // `sh tools/g.sh`: a file of the folder it runs in (the Hermes home's
    // own hooks aside, when it runs in the home folder).
    let here =
        |path: &std::path::PathBuf| path.starts_with(&subject.cwd) && !path.starts_with(&home.path);
    binding.files.keys().any(here)
        || binding.mentioned.keys().any(here)
        || binding.definitions.keys().any(here)
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

/// A hook `hooks test` does not run: where it is configured, its command,
/// why, and the `hooks approve` line that approves it.
pub(super) type Skipped = (String, String, String, String);

/// Withholds a hook `hooks test` may not run (`withheld`: its source, the
/// command as shown, why, the approve line): a fail-closed guard (`blocks`)
/// blocks its event, as in a host (sweep 59, U2); another is skipped.
pub(super) fn withhold(
    blocks: bool,
    (source, command, why, hint): (String, &str, &str, String),
    skipped: &mut Vec<Skipped>,
    down: &mut Vec<super::guards_down::GuardDown>,
) {
    match blocks {
        true => down.push(super::guards_down::refused(source, command, why, hint)),
        false => skipped.push((source, command.to_owned(), why.to_owned(), hint)),
    }
}
