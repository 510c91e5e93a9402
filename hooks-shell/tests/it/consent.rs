//! §7.1 49–56 and §7.2 83–105: consent, the allowlist file, script helpers.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hermes_hooks_core::Config;
use hermes_hooks_shell::consent::QUESTION;
use hermes_hooks_shell::{
    Allowlist, Consent, Drift, Prompter, RegisterOptions, Registration, ShellHooks, mtime_drift,
    script_is_executable, script_mtime_iso, script_path,
};
use serde_json::{Value, json};

use crate::support::{Home, context};

/// Answers from a list; records what it was asked.
struct Scripted {
    answers: VecDeque<Option<&'static str>>,
    asked: Arc<Mutex<Vec<String>>>,
}

impl Prompter for Scripted {
    fn ask(&mut self, banner: &str, question: &str) -> Option<String> {
        if let Ok(mut asked) = self.asked.lock() {
            asked.push(format!("{banner}\n{question}"));
        }
        self.answers.pop_front().flatten().map(str::to_owned)
    }
}

fn scripted(answers: &[Option<&'static str>]) -> (Consent, Arc<Mutex<Vec<String>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let prompter = Scripted {
        answers: answers.iter().copied().collect(),
        asked: Arc::clone(&asked),
    };
    (Consent::ask_with(Box::new(prompter)), asked)
}

fn options(consent: Consent) -> RegisterOptions {
    RegisterOptions::new(consent)
        .with_context(context())
        .with_safe_mode(false)
        .with_queue_capacity(8)
}

fn one_hook(home: &Home) -> Config {
    home.config(json!({"hooks": {"on_session_start": [{"command": "/x/hook.sh"}]}}))
}

fn register(config: &Config, consent: Consent) -> Registration {
    ShellHooks::register(config, options(consent))
}

#[test]
fn t83_first_use_prompts_and_approves() {
    let home = Home::new();
    let (consent, asked) = scripted(&[Some("y\n")]);
    let registration = register(&one_hook(&home), consent);
    assert_eq!(registration.hooks.len(), 1);
    assert!(Allowlist::in_home(home.path()).is_allowed("on_session_start", "/x/hook.sh"));
    let asked = asked.lock().map(|a| a.clone()).unwrap_or_default();
    assert_eq!(asked.len(), 1);
    assert!(asked[0].contains("⚠ Hermes is about to register a shell hook that will run a"));
    assert!(asked[0].contains("    Event:   on_session_start\n    Command: /x/hook.sh"));
    assert!(asked[0].ends_with(QUESTION));
}

#[test]
fn t84_first_use_prompts_and_rejects() {
    for answer in [Some("n"), Some(""), Some("maybe"), None] {
        let home = Home::new();
        let (consent, _) = scripted(&[answer]);
        let registration = register(&one_hook(&home), consent);
        assert!(registration.hooks.is_empty(), "{answer:?}");
        assert_eq!(registration.denied.len(), 1);
        assert!(!Allowlist::in_home(home.path()).path().exists());
    }
    let home = Home::new();
    let (consent, _) = scripted(&[Some("  YES ")]);
    assert_eq!(register(&one_hook(&home), consent).hooks.len(), 1);
}

#[test]
fn t85_subsequent_use_does_not_prompt() {
    let home = Home::new();
    register(&one_hook(&home), Consent::accept_all());
    let (consent, asked) = scripted(&[]);
    assert_eq!(register(&one_hook(&home), consent).hooks.len(), 1);
    assert!(asked.lock().map(|a| a.is_empty()).unwrap_or(false));
}

#[test]
fn t86_no_tty_no_flag_skips_registration() {
    let home = Home::new();
    let registration = register(&one_hook(&home), Consent::allowlisted_only());
    assert!(registration.hooks.is_empty());
    assert_eq!(registration.denied[0].command, "/x/hook.sh");
    assert!(
        hermes_hooks_shell::consent::not_allowlisted_message("on_session_start", "/x/hook.sh")
            .contains("Use --accept-hooks / HERMES_ACCEPT_HOOKS=1 / hooks_auto_accept: true")
    );
}

#[test]
fn t87_no_tty_with_argument_flag_accepts_and_persists() {
    let home = Home::new();
    assert_eq!(
        register(&one_hook(&home), Consent::accept_all())
            .hooks
            .len(),
        1
    );
    assert!(Allowlist::in_home(home.path()).is_allowed("on_session_start", "/x/hook.sh"));
}

#[test]
fn t88_env_accept_values() {
    let home = Home::new();
    let config = one_hook(&home);
    for (env, expected) in [
        (Some("1"), true),
        (Some(" TRUE "), true),
        (Some("on"), true),
        (Some("0"), false),
        (Some("no"), false),
        (None, false),
    ] {
        assert_eq!(
            Consent::effective_accept(false, env, &config),
            expected,
            "{env:?}"
        );
    }
}

#[test]
fn t89_no_tty_with_config_accepts() {
    let home = Home::new();
    let config = home.config(json!({"hooks_auto_accept": true,
                                    "hooks": {"on_session_start": [{"command": "/x/hook.sh"}]}}));
    assert_eq!(
        register(&config, Consent::allowlisted_only()).hooks.len(),
        1
    );
}

#[test]
fn t95_to_t105_auto_accept_matrix() {
    let home = Home::new();
    for (value, expected) in [
        (json!(true), true),
        (json!(false), false),
        (json!("false"), false),
        (json!("no"), false),
        (json!("true"), true),
        (json!("  TRUE  "), true),
        (json!("yes"), true),
        (json!("on"), true),
        (json!("1"), true),
        (Value::Null, false),
        (json!(1), false),
    ] {
        let config = home.config(json!({"hooks_auto_accept": value}));
        assert_eq!(
            Consent::effective_accept(false, None, &config),
            expected,
            "{value}"
        );
    }
    // 102: missing key rejects; 105: the CLI flag overrides the config.
    assert!(!Consent::effective_accept(
        false,
        None,
        &home.config(json!({}))
    ));
    assert!(Consent::effective_accept(
        true,
        None,
        &home.config(json!({"hooks_auto_accept": false}))
    ));
}

#[test]
fn t90_mtime_recorded_on_approval() {
    let home = Home::new();
    let script = home.script("hook.sh", "echo '{}'");
    let command = script.display().to_string();
    let approval = Allowlist::in_home(home.path())
        .record("on_session_start", &command)
        .ok();
    let mtime = approval
        .and_then(|a| a.script_mtime_at_approval)
        .unwrap_or_default();
    assert!(mtime.ends_with('Z'), "{mtime}");
    assert_eq!(Some(mtime), script_mtime_iso(&command));
}

#[test]
fn t91_t92_revoke_removes_entries_under_all_events() {
    let home = Home::new();
    let allowlist = Allowlist::in_home(home.path());
    for event in ["pre_tool_call", "post_tool_call"] {
        allowlist.record(event, "/x/hook.sh").ok();
    }
    allowlist.record("pre_tool_call", "/y/other.sh").ok();
    assert_eq!(allowlist.revoke("/x/hook.sh").ok(), Some(2));
    assert!(!allowlist.is_allowed("pre_tool_call", "/x/hook.sh"));
    assert!(allowlist.is_allowed("pre_tool_call", "/y/other.sh"));
    assert_eq!(allowlist.revoke("/never/approved").ok(), Some(0));
}

#[test]
fn t93_tilde_path_approval_records_resolvable_mtime() {
    let Some(user_home) = std::env::var_os("HOME") else {
        return;
    };
    let dir = tempfile::tempdir_in(&user_home);
    let Ok(dir) = dir else { return }; // HOME not writable here: nothing to check
    let script = dir.path().join("hook.sh");
    std::fs::write(&script, "#!/bin/sh\n").ok();
    let relative = script
        .strip_prefix(&user_home)
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let command = format!("~/{relative}");
    assert_eq!(
        script_mtime_iso(&command),
        script_mtime_iso(&script.display().to_string())
    );
    assert!(script_mtime_iso(&command).is_some());
}

#[test]
fn t94_duplicate_approval_replaces_the_entry() {
    let home = Home::new();
    let allowlist = Allowlist::in_home(home.path());
    allowlist.record("pre_tool_call", "/x/hook.sh").ok();
    allowlist.record("pre_tool_call", "/x/hook.sh").ok();
    assert_eq!(allowlist.approvals().len(), 1);
}

#[test]
fn t51_parallel_record_approval_does_not_lose_entries() {
    let home = Home::new();
    let threads: Vec<_> = (0..32)
        .map(|index| {
            let allowlist = Allowlist::in_home(home.path());
            std::thread::spawn(move || {
                allowlist
                    .record("pre_tool_call", &format!("/hooks/{index}.sh"))
                    .is_ok()
            })
        })
        .collect();
    assert!(
        threads
            .into_iter()
            .all(|thread| thread.join().unwrap_or(false))
    );
    let approvals = Allowlist::in_home(home.path()).approvals();
    assert_eq!(approvals.len(), 32);
    // 56: temporary files are unique and none is left behind.
    let leftovers = std::fs::read_dir(home.path()).map(|entries| {
        entries
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .count()
    });
    assert_eq!(leftovers.ok(), Some(0));
}

#[test]
fn t51_parallel_processes_do_not_lose_entries() {
    // The same under separate processes: flock excludes across them too.
    let home = Home::new();
    let children: Vec<_> = (0..8)
        .filter_map(|index| {
            std::process::Command::new(std::env::current_exe().ok()?)
                .args(["--exact", "consent::record_from_environment", "--nocapture"])
                .env("HOOKS_SHELL_TEST_HOME", home.path())
                .env("HOOKS_SHELL_TEST_COMMAND", format!("/proc/{index}.sh"))
                .spawn()
                .ok()
        })
        .collect();
    assert_eq!(children.len(), 8);
    for mut child in children {
        assert!(child.wait().is_ok_and(|status| status.success()));
    }
    assert_eq!(Allowlist::in_home(home.path()).approvals().len(), 8);
}

/// Helper run as a child process by the test above; a no-op otherwise.
#[test]
fn record_from_environment() {
    let (Some(home), Some(command)) = (
        std::env::var_os("HOOKS_SHELL_TEST_HOME"),
        std::env::var("HOOKS_SHELL_TEST_COMMAND").ok(),
    ) else {
        return;
    };
    let allowlist = Allowlist::in_home(std::path::Path::new(&home));
    for _ in 0..4 {
        assert!(allowlist.record("pre_tool_call", &command).is_ok());
    }
}

#[test]
fn t53_save_failure_message_is_actionable() {
    let home = Home::new();
    let not_a_dir = home.path().join("file");
    std::fs::write(&not_a_dir, "x").ok();
    let error = Allowlist::in_home(&not_a_dir)
        .record("pre_tool_call", "/x")
        .err();
    let message = error
        .map(|e| hermes_hooks_shell::consent::persist_failure_message(&e))
        .unwrap_or_default();
    assert!(
        message.contains(&not_a_dir.display().to_string()),
        "{message}"
    );
    assert!(message.contains("os error"), "{message}");
    assert!(message.contains("re-prompt"), "{message}");
    // Registration still goes ahead for this run.
    let config = Config::from_value(
        &not_a_dir,
        json!({"hooks": {"on_session_start": [{"command": "/x"}]}}),
    );
    assert_eq!(register(&config, Consent::accept_all()).hooks.len(), 1);
}

#[test]
fn allowlist_reading_is_tolerant() {
    let home = Home::new();
    let allowlist = Allowlist::in_home(home.path());
    let write = |text: &str| std::fs::write(allowlist.path(), text).ok();
    write(
        "\u{feff}{\"approvals\": [{\"event\": \"pre_tool_call\", \"command\": \"/x\"}, 5, {\"path\": \"/y\", \"sha256\": \"ab\"}]}",
    );
    assert!(allowlist.is_allowed("pre_tool_call", "/x"));
    assert_eq!(allowlist.approvals().len(), 1);
    for bad in ["not json", "[1]", "{\"approvals\": 3}"] {
        write(bad);
        let snapshot = allowlist.read();
        assert!(snapshot.approvals.is_empty());
        assert!(
            snapshot
                .warning
                .is_some_and(|w| w.contains(&allowlist.path().display().to_string())),
            "{bad}"
        );
    }
    // A bad file is never replaced: the next approval fails and leaves it as is.
    assert!(allowlist.record("pre_tool_call", "/z").is_err());
    assert_eq!(
        std::fs::read_to_string(allowlist.path()).ok().as_deref(),
        Some("{\"approvals\": 3}")
    );
}

#[test]
fn allowlist_file_is_the_reference_format_with_mode_0600() {
    use std::os::unix::fs::PermissionsExt;
    let home = Home::new();
    let allowlist = Allowlist::in_home(home.path());
    allowlist.record("pre_tool_call", "/x/hook.sh").ok();
    let text = std::fs::read_to_string(allowlist.path()).unwrap_or_default();
    let document: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let entry = &document["approvals"][0];
    assert_eq!(entry["event"], json!("pre_tool_call"));
    assert_eq!(entry["command"], json!("/x/hook.sh"));
    assert!(
        entry["approved_at"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z') && t.contains('.'))
    );
    assert_eq!(entry["script_mtime_at_approval"], Value::Null);
    let mode = std::fs::metadata(allowlist.path())
        .map(|m| m.permissions().mode() & 0o777)
        .unwrap_or(0);
    assert_eq!(mode, 0o600);
}

#[test]
fn t49_same_entry_twice_registers_once() {
    let home = Home::new();
    let config = home.config(json!({"hooks": {"pre_tool_call": [
        {"command": "/x/h.sh", "matcher": "terminal"}, {"command": "/x/h.sh", "matcher": "terminal"}]}}));
    assert_eq!(register(&config, Consent::accept_all()).hooks.len(), 1);
}

#[test]
fn t50_same_command_different_matcher_registers_both_one_consent() {
    let home = Home::new();
    let config = home.config(json!({"hooks": {"pre_tool_call": [
        {"command": "/x/h.sh", "matcher": "terminal"}, {"command": "/x/h.sh", "matcher": "write_file"}]}}));
    let (consent, asked) = scripted(&[Some("y")]);
    assert_eq!(register(&config, consent).hooks.len(), 2);
    assert_eq!(asked.lock().map(|a| a.len()).unwrap_or(0), 1);
}

#[test]
fn safe_mode_registers_nothing() {
    let home = Home::new();
    let mut options = options(Consent::accept_all());
    options.safe_mode = true;
    let registration = ShellHooks::register(&one_hook(&home), options);
    assert!(registration.hooks.is_empty());
    assert!(!Allowlist::in_home(home.path()).path().exists());
}

#[test]
fn t54_script_is_executable_handles_interpreter_prefix() {
    use std::os::unix::fs::PermissionsExt;
    let home = Home::new();
    let script = home.path().join("hook.py");
    std::fs::write(&script, "print('{}')\n").ok();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o644)).ok();
    let path = script.display().to_string();
    assert!(!script_is_executable(&path));
    assert!(script_is_executable(&format!("python3 {path}")));
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).ok();
    assert!(script_is_executable(&path));
    assert!(!script_is_executable("/no/such/hook.sh"));
}

#[test]
fn t55_command_script_path_resolution() {
    for (command, expected) in [
        ("/x/hook.sh", "/x/hook.sh"),
        ("python3 /x/hook.py --flag", "/x/hook.py"),
        ("/usr/bin/env bash hook.sh", "hook.sh"),
        ("nice -n 10 /opt/gate", "/opt/gate"),
        ("~/hooks/gate", "~/hooks/gate"),
        ("node ~/x/HOOK.JS", "~/x/HOOK.JS"),
        ("mytool --fast", "mytool"),
        ("echo 'unbalanced", "echo 'unbalanced"),
        ("", ""),
    ] {
        assert_eq!(script_path(command), expected, "{command}");
    }
}

#[test]
fn mtime_drift_rules() {
    let earlier = Some("2026-04-17T09:30:12.5Z");
    let later = Some("2026-04-17T09:30:13Z");
    assert_eq!(mtime_drift(earlier, later), Drift::Modified);
    assert_eq!(mtime_drift(later, later), Drift::Unchanged);
    assert_eq!(mtime_drift(later, earlier), Drift::Unknown);
    assert_eq!(mtime_drift(None, later), Drift::Unknown);
    assert_eq!(mtime_drift(Some("garbage"), later), Drift::Unknown);
}

#[test]
fn drift_after_editing_an_approved_script() {
    let home = Home::new();
    let script = home.script("hook.sh", "echo '{}'");
    let command = script.display().to_string();
    let approval = Allowlist::in_home(home.path())
        .record("pre_tool_call", &command)
        .ok();
    let approved = approval.and_then(|a| a.script_mtime_at_approval);
    let file = std::fs::File::options().write(true).open(&script);
    let later = std::time::SystemTime::now() + Duration::from_secs(5);
    assert!(file.and_then(|f| f.set_modified(later)).is_ok());
    assert_eq!(
        mtime_drift(approved.as_deref(), script_mtime_iso(&command).as_deref()),
        Drift::Modified
    );
}
