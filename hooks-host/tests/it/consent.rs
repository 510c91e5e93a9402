//! Consent policies: the host decides unapproved hooks; the library never asks a terminal.

use std::sync::{Arc, Mutex};

use hermes_hooks::{
    ConsentAnswer, ConsentPolicy, ConsentRequest, DenyAll, Host, HostOptions, MechanismStatus,
};

use super::{TempHome, runtime};

/// Allows one command, and remembers what it was asked.
#[derive(Debug)]
struct OnlyThis {
    allowed: String,
    asked: Arc<Mutex<Vec<(String, String, bool)>>>,
}

impl ConsentPolicy for OnlyThis {
    fn decide(&self, request: &ConsentRequest<'_>) -> ConsentAnswer {
        self.asked.lock().unwrap().push((
            request.event.to_owned(),
            request.command.to_owned(),
            request.changed,
        ));
        assert!(
            request.banner.contains(request.command),
            "{}",
            request.banner
        );
        if request.command == self.allowed {
            ConsentAnswer::Allow
        } else {
            ConsentAnswer::Deny
        }
    }
}

fn shell(host: &Host) -> MechanismStatus {
    host.mechanisms()
        .iter()
        .find(|m| m.mechanism == "shell")
        .cloned()
        .expect("shell status")
}

#[test]
fn a_host_policy_decides_each_unapproved_hook_by_its_event_and_command() {
    let home = TempHome::new();
    let (a, b) = home.two_shell_hooks();
    let asked = Arc::new(Mutex::new(Vec::new()));
    runtime().block_on(async {
        let policy = OnlyThis {
            allowed: a.clone(),
            asked: asked.clone(),
        };
        let host = Host::load(HostOptions::new().home(home.path()).consent(policy))
            .await
            .expect("loads");
        assert_eq!((shell(&host).registered, shell(&host).failed), (1, 1));
        assert_eq!(
            *asked.lock().unwrap(),
            vec![
                ("pre_tool_call".to_owned(), a.clone(), false),
                ("pre_tool_call".to_owned(), b.clone(), false),
            ]
        );
        // The approval is recorded: the next host runs `a` without asking anyone.
        let host = Host::load(HostOptions::new().home(home.path()).consent(DenyAll))
            .await
            .expect("loads");
        assert_eq!((shell(&host).registered, shell(&host).failed), (1, 1));
    });
    let allowlist =
        std::fs::read_to_string(home.path().join("shell-hooks-allowlist.json")).expect("allowlist");
    assert!(
        allowlist.contains(&a) && !allowlist.contains(&b),
        "{allowlist}"
    );
}

#[test]
fn by_default_unapproved_hooks_are_denied_without_asking() {
    let home = TempHome::new();
    home.two_shell_hooks();
    runtime().block_on(async {
        let host = Host::load(HostOptions::new().home(home.path()))
            .await
            .expect("loads");
        // Counted as left out (the shell mechanism logs how to approve them).
        assert_eq!((shell(&host).registered, shell(&host).failed), (0, 2));
    });
    assert!(!home.path().join("shell-hooks-allowlist.json").exists());
}

#[test]
fn accept_hooks_approves_and_records_every_hook() {
    let home = TempHome::new();
    let (a, b) = home.two_shell_hooks();
    runtime().block_on(async {
        let host = Host::load(HostOptions::new().home(home.path()).accept_hooks(true))
            .await
            .expect("loads");
        assert_eq!((shell(&host).registered, shell(&host).failed), (2, 0));
    });
    let allowlist =
        std::fs::read_to_string(home.path().join("shell-hooks-allowlist.json")).expect("allowlist");
    assert!(
        allowlist.contains(&a) && allowlist.contains(&b),
        "{allowlist}"
    );
}
