//! Run records (issue 16): one `pre_tool_call` through a shell hook, a native
//! plugin (plugin-guard), a Python plugin (rm-guard) and a webhook gives one
//! record per hook, to a host (`Host` + `emit_with_report`) and in
//! `hooks emit --json`'s `runs` list.

use std::time::Duration;

use hermes_hooks::{Host, HostOptions};
use hermes_hooks_core::{Event, HookEvent, RunStatus, ToolGate};
use serde_json::{Value, json};

use crate::support::{TempHome, example_plugin_library};

/// A home with one of each: an observer shell hook, plugin-guard, rm-guard
/// and a webhook to a port nothing listens on.
fn home_with_every_mechanism() -> TempHome {
    let home = TempHome::new();
    let guard = example_plugin_library("plugin-guard");
    assert!(guard.is_file(), "{} missing after build", guard.display());
    home.write(
        "plugins/plugin-guard/plugin.yaml",
        &format!("name: plugin-guard\nlibrary: {}\n", guard.display()),
    );
    let examples = crate::support::workspace_root().join("examples/python-plugins/rm-guard");
    for file in ["plugin.yaml", "__init__.py"] {
        let text = std::fs::read_to_string(examples.join(file)).expect("read rm-guard");
        home.write(&format!("plugins/rm-guard/{file}"), &text);
    }
    let shell = home.script("observe.sh", "#!/bin/sh\ncat >/dev/null\necho '{}'\n");
    home.config(&format!(
        "plugins:\n  enabled: [plugin-guard, rm-guard]\n\
         hooks:\n  pre_tool_call:\n    - command: {}\n  outbound:\n    - name: audit\n      \
         url: http://127.0.0.1:9/events\n      events: [pre_tool_call]\n      timeout: 2\n",
        shell.display()
    ));
    home
}

fn rm_rf() -> Value {
    json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}, "session_id": "s1"})
}

#[test]
fn a_host_sees_one_record_per_hook_of_every_mechanism() {
    let home = home_with_every_mechanism();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let host = Host::load(HostOptions::new().home(&home.hermes).accept_hooks(true))
            .await
            .expect("loads");
        let event = Event::from_json(HookEvent::PreToolCall, rm_rf());
        let report = host.hooks().emit_with_report(&event).await;
        let seen: Vec<(&str, &str, &str)> = report
            .runs
            .iter()
            .map(|run| (&*run.mechanism, &*run.source, run.status.as_str()))
            .collect();
        assert_eq!(seen.len(), 4, "{seen:?}");
        assert_eq!(seen[0], ("plugins", "plugin:plugin-guard", "blocked"));
        assert_eq!(seen[1], ("plugins", "plugin:rm-guard", "blocked"));
        assert_eq!(seen[2].0, "shell");
        assert_eq!(seen[2].2, "completed");
        assert_eq!(seen[3], ("outbound", "webhook:audit", "queued"));
        for run in &report.runs[..3] {
            assert!(run.elapsed > Duration::ZERO, "{run:?}");
            assert_eq!(&*run.event, "pre_tool_call");
        }
        assert!(matches!(report.outcome.tool_gate(), ToolGate::Block { .. }));
        // The first valid block wins the merge, and the report says whose it was.
        assert_eq!(report.block_source.as_deref(), Some("plugin:plugin-guard"));
        let gate = report.outcome.tool_gate();
        let source = gate.block_source().expect("a block");
        assert_eq!(
            source.to_string(),
            format!(
                "plugin:plugin-guard (plugins, {} ms)",
                report.runs[0].elapsed.as_millis()
            )
        );
        assert_eq!(
            report.blocked_by().map(|run| run.status.clone()),
            Some(RunStatus::Blocked)
        );
        host.shutdown(Duration::from_secs(5)).await;
    });
}

/// The statuses the home of every mechanism does not show, through the same
/// `Host` report: a callback that raises and a hook that exits 1 (`failed`),
/// one that outlives its timeout (`timed_out`), one not approved (`skipped`).
#[test]
fn a_host_sees_failed_timed_out_and_skipped_runs() {
    let home = TempHome::new();
    let fails = home.script("fails.sh", "#!/bin/sh\ncat >/dev/null\nexit 1\n");
    let slow = home.script("slow.sh", "#!/bin/sh\ncat >/dev/null\nsleep 30\n");
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n    - command: {}\n      timeout: 1\n",
        fails.display(),
        slow.display()
    ));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let event = Event::from_json(HookEvent::PreToolCall, rm_rf());
        // Not approved: both hooks are skipped, saying why, and take no time.
        let host = Host::load(HostOptions::new().home(&home.hermes))
            .await
            .expect("loads");
        let report = host.hooks().emit_with_report(&event).await;
        let skipped: Vec<(&str, Option<&str>)> = report
            .runs
            .iter()
            .map(|run| (run.status.as_str(), run.status.skip_reason()))
            .collect();
        assert_eq!(
            skipped,
            [
                ("skipped", Some("not allowlisted")),
                ("skipped", Some("not allowlisted"))
            ],
            "{:?}",
            report.runs
        );
        assert!(report.runs.iter().all(|run| run.elapsed == Duration::ZERO));
        host.shutdown(Duration::from_secs(5)).await;

        let host = Host::load(HostOptions::new().home(&home.hermes).accept_hooks(true))
            .await
            .expect("loads");
        host.callbacks().register("pre_tool_call", "raises", |_| {
            Err(hermes_hooks::callbacks::CallbackError::new(
                "ValueError",
                "bad",
            ))
        });
        let report = host.hooks().emit_with_report(&event).await;
        let seen: Vec<(&str, &str)> = report
            .runs
            .iter()
            .map(|run| (&*run.mechanism, run.status.as_str()))
            .collect();
        assert_eq!(
            seen,
            [
                ("plugins", "failed"),
                ("shell", "failed"),
                ("shell", "timed_out")
            ],
            "{:?}",
            report.runs
        );
        assert_eq!(report.runs[0].diagnostics[0], "raised ValueError: bad");
        assert_eq!(report.runs[1].diagnostics[0], "exited with status 1");
        assert!(
            report.runs[2].diagnostics[0].starts_with("timed out after 1s"),
            "{:?}",
            report.runs[2].diagnostics
        );
        assert!(report.runs[2].elapsed >= Duration::from_millis(900));
        host.shutdown(Duration::from_secs(5)).await;
    });
}

#[test]
fn emit_json_lists_the_same_runs() {
    let home = home_with_every_mechanism();
    let file = home.write("payload.json", &rm_rf().to_string());
    let run = home.hooks(&[
        "emit",
        "pre_tool_call",
        "--accept-hooks",
        "--json",
        "--payload-file",
        &file.display().to_string(),
    ]);
    let document = run.json();
    // Every field DESIGN.md lists is still there.
    for key in ["event", "outcome", "replies", "deliveries", "runs"] {
        assert!(document.get(key).is_some(), "{key} missing: {document}");
    }
    let runs = document["runs"].as_array().cloned().unwrap_or_default();
    assert_eq!(runs.len(), 4, "{document}");
    for run in &runs {
        for key in [
            "mechanism",
            "source",
            "event",
            "status",
            "elapsed_ms",
            "decision",
            "diagnostics",
        ] {
            assert!(run.get(key).is_some(), "{key} missing from {run}");
        }
    }
    let statuses: Vec<&str> = runs.iter().filter_map(|r| r["status"].as_str()).collect();
    assert_eq!(statuses, ["blocked", "blocked", "completed", "queued"]);
    assert_eq!(runs[0]["decision"]["action"], "block");
    assert_eq!(runs[3]["source"], "webhook:audit");
}

#[test]
fn test_and_doctor_print_the_runs_they_made() {
    let home = TempHome::new();
    let hook = home.only_hook(
        "pre_tool_call",
        "noisy.sh",
        "#!/bin/sh\ncat >/dev/null\necho 'not json'\n",
    );
    let command = hook.display().to_string();
    let test = home.hooks(&["test", "pre_tool_call", "--json"]).json();
    assert_eq!(test["runs"][0]["status"], "failed", "{test}");
    assert_eq!(test["runs"][0]["source"], format!("shell:{command}"));
    assert!(
        test["runs"][0]["diagnostics"][0]
            .as_str()
            .is_some_and(|d| d.starts_with("reply is not valid JSON")),
        "{test}"
    );
    // `test` still exits 0: the command worked, the hook did not.
    let text = home.hooks(&["test", "pre_tool_call"]).ok();
    assert!(text.contains("      status: failed\n"), "{text}");
    assert!(text.contains("      ! reply is not valid JSON"), "{text}");

    home.hooks(&["approve", &command, "--event", "pre_tool_call"])
        .ok();
    let doctor = home.hooks(&["doctor", "--json"]);
    assert_eq!(doctor.code(), Some(1));
    let document: Value = serde_json::from_str(doctor.stdout().trim()).expect("doctor JSON");
    assert_eq!(document["ok"], false);
    assert_eq!(
        document["runs"].as_array().map(Vec::len),
        Some(1),
        "{document}"
    );
    assert_eq!(document["runs"][0]["status"], "failed");
}

#[test]
fn a_reply_with_a_wrong_field_fails_its_run_in_test_and_doctor_naming_the_field() {
    let home = TempHome::new();
    let hook = home.only_hook(
        "pre_tool_call",
        "wrong.sh",
        "#!/bin/sh\ncat >/dev/null\necho '{\"action\": \"block\", \"message\": 42}'\n",
    );
    let test = home.hooks(&["test", "pre_tool_call", "--json"]).json();
    assert_eq!(test["runs"][0]["status"], "failed", "{test}");
    assert_eq!(
        test["runs"][0]["diagnostics"],
        json!(["reply field `message`: expected string, got number 42"])
    );
    // The block still blocks (a guard never fails open on a typo).
    assert_eq!(test["outcome"]["action"], "block");
    let text = home.hooks(&["test", "pre_tool_call"]).ok();
    assert!(
        text.contains("      ! reply field `message`: expected string, got number 42"),
        "{text}"
    );

    home.hooks(&[
        "approve",
        &hook.display().to_string(),
        "--event",
        "pre_tool_call",
    ])
    .ok();
    let doctor = home.hooks(&["doctor"]);
    assert_eq!(doctor.code(), Some(1));
    assert!(
        doctor
            .stdout()
            .contains("✗ reply field `message`: expected string, got number 42"),
        "{}",
        doctor.stdout()
    );
}

#[test]
fn a_python_plugins_reply_with_a_wrong_field_fails_its_run_in_emit_naming_the_field() {
    let home = TempHome::new();
    home.write("plugins/typo-guard/plugin.yaml", "name: typo-guard\n");
    home.write(
        "plugins/typo-guard/__init__.py",
        "def guard(tool_name, **kwargs):\n    \
         return {\"action\": \"block\", \"message\": \"no\", \"rule_key\": 7}\n\n\
         def register(ctx):\n    ctx.register_hook(\"pre_tool_call\", guard)\n",
    );
    home.config("plugins:\n  enabled: [typo-guard]\n");
    let payload = home.write("rm.json", &rm_rf().to_string());
    let payload = payload.display().to_string();
    let document = home
        .hooks(&[
            "emit",
            "pre_tool_call",
            "--payload-file",
            &payload,
            "--json",
        ])
        .json();
    let run = &document["runs"][0];
    assert_eq!(run["source"], "plugin:typo-guard", "{document}");
    assert_eq!(run["status"], "failed", "{document}");
    assert_eq!(
        run["diagnostics"],
        json!(["reply field `rule_key`: expected string, got number 7"])
    );
    // The block still blocks (a guard never fails open on a typo).
    assert_eq!(document["outcome"]["action"], "block");
    let text = home
        .hooks(&["emit", "pre_tool_call", "--payload-file", &payload])
        .ok();
    assert!(
        text.contains("  run plugin:typo-guard (plugins) failed ",)
            && text.contains("      ! reply field `rule_key`: expected string, got number 7"),
        "{text}"
    );
}
