//! Who decides whether a shell hook (or an imported hook) that is not in the
//! allowlist yet may run: a [`ConsentPolicy`] the host chooses.
//!
//! The library never reads the terminal unless the host asks: the default is
//! [`DenyAll`] (only hooks already approved run, with a warning for the
//! others saying how to approve them). [`AcceptAll`] approves and records
//! every one; `TerminalPrompt` (feature `shell`) is the `hooks` command's behaviour
//! (`--accept-hooks`, `HERMES_ACCEPT_HOOKS`, else a y/N prompt on a terminal).
//! `hooks_auto_accept: true` in the user's own config.yaml approves under
//! every policy, as in Hermes.

use std::fmt;

/// One unapproved hook a policy is asked about.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ConsentRequest<'a> {
    /// The event it fires on, as the allowlist records it (`pre_tool_call`).
    pub event: &'a str,
    /// The command, as the allowlist records it.
    pub command: &'a str,
    /// Whether it was approved before and its script changed since.
    pub changed: bool,
    /// The text a terminal prompt shows about it (escaped).
    pub banner: &'a str,
}

/// A policy's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConsentAnswer {
    /// Run it, and record the approval in the allowlist.
    Allow,
    /// Do not register it (a warning says how to approve it).
    Deny,
}

/// Decides unapproved shell and imported hooks. Implement it to ask your
/// own UI; it is called while the host loads, once per unapproved hook.
pub trait ConsentPolicy: Send + Sync + fmt::Debug {
    /// Whether `request`'s hook may run.
    fn decide(&self, request: &ConsentRequest<'_>) -> ConsentAnswer;

    /// Whether every unapproved hook is approved without [`decide`] being
    /// asked (logged as an automatic approval, as `--accept-hooks` is).
    ///
    /// [`decide`]: ConsentPolicy::decide
    fn approves_unasked(&self) -> bool {
        false
    }

    /// Whether [`decide`] may allow at all: `false` spares computing what
    /// an unapproved hook's approval would bind (reading the project files
    /// its code names) when the answer is no anyway.
    ///
    /// [`decide`]: ConsentPolicy::decide
    fn may_allow(&self) -> bool {
        true
    }
}

/// Denies every unapproved hook without asking: the library's default.
#[derive(Debug, Clone, Copy, Default)]
pub struct DenyAll;

impl ConsentPolicy for DenyAll {
    fn decide(&self, _request: &ConsentRequest<'_>) -> ConsentAnswer {
        ConsentAnswer::Deny
    }

    fn may_allow(&self) -> bool {
        false
    }
}

/// Approves (and records) every unapproved hook, as `--accept-hooks` does.
#[derive(Debug, Clone, Copy, Default)]
pub struct AcceptAll;

impl ConsentPolicy for AcceptAll {
    fn decide(&self, _request: &ConsentRequest<'_>) -> ConsentAnswer {
        ConsentAnswer::Allow
    }

    fn approves_unasked(&self) -> bool {
        true
    }
}

/// The `hooks` command's consent: approve everything when `--accept-hooks`
/// was given or `HERMES_ACCEPT_HOOKS` is truthy, else ask `y/N` on the
/// terminal (stdout, stdin) when stdin is one, else deny.
#[cfg(feature = "shell")]
#[derive(Debug, Clone, Copy)]
pub struct TerminalPrompt {
    accept: bool,
}

#[cfg(feature = "shell")]
impl TerminalPrompt {
    /// The policy for `accept_flag` (`--accept-hooks`) and the process's
    /// `HERMES_ACCEPT_HOOKS`.
    pub fn from_environment(accept_flag: bool) -> TerminalPrompt {
        let env = std::env::var("HERMES_ACCEPT_HOOKS").ok();
        TerminalPrompt {
            accept: accept_flag
                || env
                    .as_deref()
                    .is_some_and(hermes_hooks_core::home::is_truthy_text),
        }
    }
}

#[cfg(feature = "shell")]
impl ConsentPolicy for TerminalPrompt {
    fn decide(&self, request: &ConsentRequest<'_>) -> ConsentAnswer {
        use hermes_hooks_shell::Prompter;
        use std::io::IsTerminal;
        if !std::io::stdin().is_terminal() {
            return ConsentAnswer::Deny;
        }
        let answer = hermes_hooks_shell::TerminalPrompter
            .ask(request.banner, hermes_hooks_shell::consent::QUESTION);
        read_answer(answer.as_deref())
    }

    fn approves_unasked(&self) -> bool {
        self.accept
    }

    fn may_allow(&self) -> bool {
        use std::io::IsTerminal;
        self.accept || std::io::stdin().is_terminal()
    }
}

/// `y` or `yes` (any case, surrounding blanks ignored) allows; anything
/// else, or no answer, denies.
pub fn read_answer(answer: Option<&str>) -> ConsentAnswer {
    match answer.map(|a| a.trim().to_lowercase()) {
        Some(a) if a == "y" || a == "yes" => ConsentAnswer::Allow,
        _ => ConsentAnswer::Deny,
    }
}

/// A policy as the shell mechanism's consent.
#[cfg(feature = "shell")]
pub(crate) fn shell_consent(
    policy: &std::sync::Arc<dyn ConsentPolicy>,
) -> hermes_hooks_shell::Consent {
    let mut consent =
        hermes_hooks_shell::Consent::ask_with(Box::new(PolicyPrompter(policy.clone())));
    consent.accept = policy.approves_unasked();
    consent
}

/// Asks a policy where the shell mechanism would ask a person.
#[cfg(feature = "shell")]
struct PolicyPrompter(std::sync::Arc<dyn ConsentPolicy>);

#[cfg(feature = "shell")]
impl hermes_hooks_shell::Prompter for PolicyPrompter {
    fn ask(&mut self, banner: &str, _question: &str) -> Option<String> {
        self.ask_about("", "", false, banner, "")
    }

    fn may_answer(&self) -> bool {
        self.0.may_allow()
    }

    fn ask_about(
        &mut self,
        event: &str,
        command: &str,
        changed: bool,
        banner: &str,
        _question: &str,
    ) -> Option<String> {
        let request = ConsentRequest {
            event,
            command,
            changed,
            banner,
        };
        (self.0.decide(&request) == ConsentAnswer::Allow).then(|| "y".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::{ConsentAnswer, read_answer};

    #[test]
    fn only_yes_allows() {
        assert_eq!(read_answer(Some(" Y\n")), ConsentAnswer::Allow);
        assert_eq!(read_answer(Some("yes")), ConsentAnswer::Allow);
        assert_eq!(read_answer(Some("yess")), ConsentAnswer::Deny);
        assert_eq!(read_answer(Some("")), ConsentAnswer::Deny);
        assert_eq!(read_answer(None), ConsentAnswer::Deny);
    }
}
