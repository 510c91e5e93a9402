//! First-use consent for `(event, command)` pairs.
//!
//! A pair already in the allowlist runs. Otherwise: an effective accept
//! (`--accept-hooks`, `HERMES_ACCEPT_HOOKS`, `hooks_auto_accept: true`) records
//! the approval and runs it; else, with a terminal, the user is asked; without
//! one the hook is denied with a warning saying how to approve it.

use std::io::{BufRead, IsTerminal, Write};

use hermes_hooks_core::Config;
use hermes_hooks_core::display::escape;
use hermes_hooks_core::home::is_truthy_text;

use crate::allowlist::Allowlist;
use crate::binding::{Binding, Subject};

mod banner;
mod header;
mod header_key;
pub use banner::{describe_subject, subject_banner};
pub(crate) use header::shown_header_value;
pub use header_key::{FingerprintKey, KEY_FILE};

/// The question asked after the banner.
pub const QUESTION: &str = "Allow this hook to run? [y/N]: ";

/// Asks the user a yes/no question. Injectable so tests need no terminal.
pub trait Prompter: Send {
    /// Shows `banner`, asks `question` and returns the answer line, or `None`
    /// on end of input or interruption (which denies).
    fn ask(&mut self, banner: &str, question: &str) -> Option<String>;

    /// Whether it may answer yes at all (`false`: what an approval would
    /// bind is not computed for a hook it would refuse). By default: yes.
    fn may_answer(&self) -> bool {
        true
    }

    /// Asks about the unapproved pair `(event, command)` (`changed`: approved
    /// before, but its script changed since); `banner` and `question` are
    /// what a terminal shows. By default: [`Prompter::ask`]. A host's consent
    /// policy overrides it to decide on the pair itself.
    fn ask_about(
        &mut self,
        event: &str,
        command: &str,
        changed: bool,
        banner: &str,
        question: &str,
    ) -> Option<String> {
        let _ = (event, command, changed);
        self.ask(banner, question)
    }
}

/// Asks on the process's terminal: the banner and question on stdout, the answer from stdin.
#[derive(Debug, Default, Clone, Copy)]
pub struct TerminalPrompter;

impl TerminalPrompter {
    /// A terminal prompter when stdin is a terminal, else `None` (no prompt: deny).
    pub fn if_terminal() -> Option<Box<dyn Prompter>> {
        std::io::stdin()
            .is_terminal()
            .then(|| Box::new(TerminalPrompter) as Box<dyn Prompter>)
    }
}

impl Prompter for TerminalPrompter {
    fn ask(&mut self, banner: &str, question: &str) -> Option<String> {
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "{banner}");
        let _ = write!(stdout, "{question}");
        let _ = stdout.flush();
        let mut answer = String::new();
        match std::io::stdin().lock().read_line(&mut answer) {
            Ok(0) | Err(_) => {
                let _ = writeln!(stdout);
                None
            }
            Ok(_) => Some(answer),
        }
    }
}

/// How unapproved hooks are decided.
pub struct Consent {
    /// Approve (and record) every unapproved pair without asking.
    pub accept: bool,
    /// Who to ask when not accepting; `None` (no terminal) denies.
    pub prompt: Option<Box<dyn Prompter>>,
    /// Whether the user was already told that approvals cannot be saved.
    told_unsaved: bool,
}

impl std::fmt::Debug for Consent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Consent")
            .field("accept", &self.accept)
            .field("prompt", &self.prompt.is_some())
            .finish()
    }
}

impl Consent {
    /// The process's consent: `accept_flag` (`--accept-hooks`) or
    /// `HERMES_ACCEPT_HOOKS` truthy accepts; a terminal on stdin can be asked.
    /// (`hooks_auto_accept` from the config is honoured at registration.)
    pub fn from_environment(accept_flag: bool) -> Consent {
        let env = std::env::var("HERMES_ACCEPT_HOOKS").ok();
        Consent {
            accept: accept_flag || env.as_deref().is_some_and(is_truthy_text),
            prompt: TerminalPrompter::if_terminal(),
            told_unsaved: false,
        }
    }

    /// Approves every unapproved hook (and records it).
    pub fn accept_all() -> Consent {
        Consent {
            accept: true,
            prompt: None,
            told_unsaved: false,
        }
    }

    /// Registers only hooks already in the allowlist.
    pub fn allowlisted_only() -> Consent {
        Consent {
            accept: false,
            prompt: None,
            told_unsaved: false,
        }
    }

    /// Asks `prompter` about every unapproved hook.
    pub fn ask_with(prompter: Box<dyn Prompter>) -> Consent {
        Consent {
            accept: false,
            prompt: Some(prompter),
            told_unsaved: false,
        }
    }

    /// The effective accept of the reference: the flag, or an `HERMES_ACCEPT_HOOKS`
    /// value in `1, true, yes, on`, or `hooks_auto_accept` in `config`.
    pub fn effective_accept(accept_flag: bool, env_value: Option<&str>, config: &Config) -> bool {
        accept_flag || env_value.is_some_and(is_truthy_text) || config.hooks_auto_accept()
    }

    /// Whether [`Consent::approve`] may say yes: `accept`, or a prompt.
    pub(crate) fn may_approve(&self, accept: bool) -> bool {
        accept
            || self
                .prompt
                .as_ref()
                .is_some_and(|prompt| prompt.may_answer())
    }

    /// Decides an unapproved hook, recording its approval bound to
    /// `binding`. `accept` already includes the config's `hooks_auto_accept`.
    /// `changed`: it was approved, but what it runs changed since.
    pub(crate) fn approve(
        &mut self,
        accept: bool,
        allowlist: &Allowlist,
        subject: &Subject,
        binding: &Binding,
        changed: bool,
    ) -> bool {
        let (event, command) = (subject.event.as_str(), subject.command.as_str());
        if accept {
            self.record(allowlist, subject, binding);
            tracing::info!(
                "shell hook auto-approved via --accept-hooks / env / config: {} -> {}",
                escape(event),
                crate::shown_hook_command(command)
            );
            return true;
        }
        let Some(prompter) = self.prompt.as_mut() else {
            return false;
        };
        let key = FingerprintKey::of_allowlist(allowlist);
        let shown = subject_banner(subject, binding, changed, &key);
        let answer = prompter.ask_about(event, command, changed, &shown, QUESTION);
        let approved = answer
            .is_some_and(|answer| matches!(answer.trim().to_lowercase().as_str(), "y" | "yes"));
        if approved {
            self.record(allowlist, subject, binding);
        }
        approved
    }

    /// Records an approval. When it cannot be saved it holds for this run, and
    /// the user is told once per registration, not once per hook.
    fn record(&mut self, allowlist: &Allowlist, subject: &Subject, binding: &Binding) {
        let Err(error) = allowlist.record_bound(subject, binding.clone()) else {
            return;
        };
        if !self.told_unsaved {
            self.told_unsaved = true;
            tracing::warn!("{}", persist_failure_message(&error));
        } else {
            tracing::debug!(
                "approval of {} -> {} kept for this run only",
                escape(&subject.event),
                crate::shown_hook_command(&subject.command)
            );
        }
    }
}

/// The warning when a hook is denied for lack of consent (config text escaped).
pub fn not_allowlisted_message(event: &str, command: &str) -> String {
    let (event, command) = (escape(event), crate::shown_hook_command(command));
    format!(
        "shell hook for {event} ({command}) not allowlisted — skipped. Use --accept-hooks / \
         HERMES_ACCEPT_HOOKS=1 / hooks_auto_accept: true, or approve at the TTY prompt next run."
    )
}

/// The warning when an approved hook's script changed and no consent was
/// given again (config text escaped).
pub fn changed_message(event: &str, command: &str, fail_closed: bool) -> String {
    let (event, command) = (escape(event), crate::shown_hook_command(command));
    let outcome = if fail_closed {
        "blocking its tool calls (fail_closed)"
    } else {
        "skipped"
    };
    // An http hook runs no script: its request changed (acceptance sweep
    // 65, U3: the warning said "its script changed").
    let what = match crate::is_http_command(command.as_ref()) {
        true => "its request (URL, headers or allowed env vars)",
        false => "its script",
    };
    format!(
        "shell hook for {event} ({command}): {what} changed since it was approved — \
         {outcome}. Review it, then approve it again (`hooks approve '{command}' --event \
         {event}`, --accept-hooks, or the TTY prompt next run)."
    )
}

/// The command that approves `subject` as it is now, quoted for a shell:
/// `hooks approve` in the folder the approval is bound to, when it is bound
/// to one.
pub fn approve_hint(subject: &crate::binding::Subject) -> String {
    // An http hook's URL masked: `hooks approve` takes it so (sweep 58).
    let (event, command) = (
        escape(&subject.event),
        crate::shown_hook_command(&subject.command),
    );
    let command = command.replace('\'', "'\\''");
    match subject.bound_project_with_scripts() {
        Some(project) if subject.project.is_none() => format!(
            "`cd '{}' && hooks approve '{command}' --event {event}`",
            escape(&project.display().to_string()).replace('\'', "'\\''")
        ),
        _ => format!("`hooks approve '{command}' --event {event}`"),
    }
}

/// Why a fail-closed hook whose binding cannot be computed blocks (what
/// follows in parentheses says why, and what to change).
pub const CANNOT_BE_APPROVED_REASON: &str = "it cannot be approved as it is";
/// The reason a fail-closed hook that was never approved blocks with.
pub const NOT_APPROVED_REASON: &str = "it is not approved yet; review it, then approve it (`hooks approve`, --accept-hooks, or the TTY prompt)";

/// The reason a fail-closed hook whose script changed blocks with.
pub const CHANGED_REASON: &str =
    "its script changed since it was approved; review it and approve it again";

/// The banner shown before asking again about a hook whose script changed.
pub fn changed_banner(event: &str, command: &str) -> String {
    format!(
        "{}\n\n  ⚠ This hook was approved before, but its script has CHANGED\n  since: \
         review the new code before approving it again.",
        banner(event, command)
    )
}

/// The banner shown before asking about a hook. The command comes from the
/// config file, so it is shown escaped: a control sequence in it cannot make
/// the prompt show one script while `y` approves another.
pub fn banner(event: &str, command: &str) -> String {
    let (event, command) = (escape(event), crate::shown_hook_command(command));
    format!(
        "\n⚠ Hermes is about to register a shell hook that will run a\n  command on your behalf.\n\n    \
         Event:   {event}\n    Command: {command}\n\n  Commands run with your full user credentials.  \
         Only approve\n  commands you trust."
    )
}

/// The actionable warning when an approval cannot be saved.
pub fn persist_failure_message(error: &crate::allowlist::AllowlistError) -> String {
    let scope = match error {
        crate::allowlist::AllowlistError::Unusable { .. } => "Approvals made now are",
        _ => "The approval is",
    };
    format!(
        "{error}. {scope} in-memory for this run, but the next startup will re-prompt (or skip \
         registration on non-TTY runs without --accept-hooks / HERMES_ACCEPT_HOOKS)."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The attack: the real command is `evil.sh`, then an escape sequence
    /// erases the line and prints a harmless-looking path instead.
    const DISGUISED: &str =
        "/tmp/evil.sh\x1b[2K\r    Command: ~/.hermes/agent-hooks/lint.sh\u{202e}";

    #[test]
    fn the_prompt_shows_config_text_escaped() {
        let shown = banner("pre_tool_call\x07", DISGUISED);
        assert!(!shown.contains('\x1b') && !shown.contains('\r') && !shown.contains('\u{202e}'));
        assert!(!shown.contains('\x07'));
        assert!(
            shown.contains(
                "/tmp/evil.sh\\e[2K\\r    Command: ~/.hermes/agent-hooks/lint.sh\\u{202e}"
            ),
            "{shown}"
        );
        let denied = not_allowlisted_message("pre_tool_call", DISGUISED);
        assert!(
            !denied.contains('\x1b') && denied.contains("\\e[2K"),
            "{denied}"
        );
    }

    #[test]
    fn invisible_characters_in_the_prompt_are_shown_escaped() {
        // `lint.sh` and `lint.sh` + a zero-width space look the same on a terminal.
        let shown = banner("pre_tool_call", "~/lint.sh\u{200b}\u{2060}\u{3164}");
        assert!(
            shown.contains("Command: ~/lint.sh\\u{200b}\\u{2060}\\u{3164}\n"),
            "{shown}"
        );
        let changed = changed_banner("pre_tool_call", "~/lint.sh\u{feff}");
        assert!(changed.contains("lint.sh\\u{feff}") && changed.contains("CHANGED"));
        let message = changed_message("pre_tool_call", "~/lint.sh\u{2028}", true);
        assert!(message.contains("lint.sh\\u{2028}") && message.contains("fail_closed"));
    }

    #[test]
    fn a_changed_http_hook_is_told_by_its_request_not_a_script() {
        let http = changed_message("pre_tool_call", "POST https://hooks.example/h", true);
        assert!(http.contains("its request (URL, headers"), "{http}");
        assert!(!http.contains("its script"), "{http}");
        let shell = changed_message("pre_tool_call", "~/lint.sh", false);
        assert!(shell.contains("its script changed"), "{shell}");
    }

    #[test]
    fn plain_commands_are_shown_as_they_are() {
        let shown = banner("pre_tool_call", "~/.hermes/agent-hooks/lint.sh --fix");
        assert!(
            shown.contains("    Command: ~/.hermes/agent-hooks/lint.sh --fix\n"),
            "{shown}"
        );
    }
}
