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

/// Allows what it is asked first, denies the rest; counts every question.
#[derive(Debug, Default)]
struct FirstOnly {
    asked: Arc<Mutex<Vec<bool>>>,
}

impl ConsentPolicy for FirstOnly {
    fn decide(&self, request: &ConsentRequest<'_>) -> ConsentAnswer {
        let mut asked = self.asked.lock().unwrap();
        asked.push(request.changed);
        if asked.len() == 1 {
            ConsentAnswer::Allow
        } else {
            ConsentAnswer::Deny
        }
    }
}

fn write_script(path: &std::path::Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, body).expect("script");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

#[test]
fn a_long_lived_host_asks_again_the_first_time_a_changed_hook_would_run() {
    use hermes_hooks::Event;
    use hermes_hooks::core::payloads::PreToolCall;
    let home = TempHome::new();
    let script = home.path().join("guard.sh");
    let marker = home.path().join("changed-ran");
    write_script(&script, "#!/bin/sh\ncat >/dev/null\nexit 0\n");
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: \"{}\"\n      fail_closed: true\n",
        script.display()
    ));
    let asked = Arc::new(Mutex::new(Vec::new()));
    let policy = FirstOnly {
        asked: asked.clone(),
    };
    let host =
        Host::load_blocking(HostOptions::new().home(home.path()).consent(policy)).expect("loads");
    let call: Event = PreToolCall::default().with_tool_name("terminal").into();
    assert_eq!(
        host.block_on(host.hooks().emit(&call)).block_message(),
        None
    );
    // Overwritten while the host runs: new code, asked about before it runs.
    write_script(
        &script,
        &format!("#!/bin/sh\ncat >/dev/null\ntouch {}\n", marker.display()),
    );
    let blocked = host.block_on(host.hooks().emit(&call));
    assert!(
        blocked
            .block_message()
            .is_some_and(|m| m.contains("failed closed")),
        "denied and fail-closed: blocked, {blocked:?}"
    );
    assert!(!marker.exists(), "the changed script ran unasked");
    assert_eq!(*asked.lock().unwrap(), vec![false, true]);
    // Refused once: not asked again about the same code, still blocked.
    assert!(
        host.block_on(host.hooks().emit(&call))
            .block_message()
            .is_some()
    );
    assert_eq!(asked.lock().unwrap().len(), 2);
}

#[test]
fn an_unapproved_fail_closed_native_hook_blocks_under_deny_all_and_says_so() {
    use hermes_hooks::Event;
    use hermes_hooks::core::payloads::PreToolCall;
    let home = TempHome::new();
    let script = home.script("guard.sh");
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: \"{}\"\n      fail_closed: true\n",
        script.display()
    ));
    let host = Host::load_blocking(HostOptions::new().home(home.path())).expect("loads");
    let call: Event = PreToolCall::default().with_tool_name("terminal").into();
    assert!(
        host.block_on(host.hooks().emit(&call))
            .block_message()
            .is_some(),
        "an unapproved guard was skipped and the tool allowed"
    );
    assert!(
        host.warnings()
            .iter()
            .any(|w| w.to_string().contains("fail-closed hook")),
        "{:?}",
        host.warnings()
    );
}
