//! Native plugins built on `hermes-hooks-plugin-sdk` (the examples in
//! `hooks-plugin/examples/`), loaded by the real `hooks` binary.
//!
//! The libraries are built once per test run (`support::example_plugins`).

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::harness;
use crate::support::{TempHome, example_plugin_library};

/// The library file of example `package`.
fn library(package: &str) -> PathBuf {
    let path = example_plugin_library(package);
    assert!(path.is_file(), "{} missing after build", path.display());
    path
}

/// A home with `packages` installed under `plugins/<package>/` and enabled.
fn home_with(packages: &[&str], extra_plugin_config: &str) -> TempHome {
    let home = TempHome::new();
    for package in packages {
        home.write(
            &format!("plugins/{package}/plugin.yaml"),
            &format!("name: {package}\nlibrary: {}\n", library(package).display()),
        );
    }
    home.config(&format!(
        "plugins:\n  enabled: [{}]\n{extra_plugin_config}",
        packages.join(", ")
    ));
    home
}

/// `hooks emit EVENT --json` with `payload`: (outcome, stderr, exit code).
fn emit(home: &TempHome, event: &str, payload: Value) -> (Value, String, Option<i32>) {
    let file = home.write("payload.json", &payload.to_string());
    // A hang guard only (plugin-hangs sleeps an hour): a stuck plugin thread
    // must not keep `hooks` alive.
    let run = harness::within(
        harness::command(
            home,
            &[
                "emit",
                event,
                "--json",
                "--payload-file",
                &file.display().to_string(),
            ],
        ),
        harness::HANG_GUARD,
    )
    .expect("hooks emit waited for a stuck plugin");
    let stdout = run.stdout();
    let document: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|error| {
        panic!(
            "stdout is not JSON ({error}):\n{stdout}\nstderr:\n{}",
            run.stderr()
        )
    });
    (document["outcome"].clone(), run.stderr(), run.code())
}

fn terminal(command: &str) -> Value {
    json!({"tool_name": "terminal", "args": {"command": command}, "session_id": "s1"})
}

#[test]
fn the_guard_blocks_rm_rf_and_lets_ls_through() {
    let home = home_with(&["plugin-guard"], "");
    let (outcome, stderr, code) = emit(&home, "pre_tool_call", terminal("rm -rf /"));
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        outcome,
        json!({"action": "block", "message": "plugin-guard: refusing `rm -rf /`"})
    );
    let (outcome, stderr, code) = emit(&home, "pre_tool_call", terminal("ls"));
    assert_eq!((code, outcome), (Some(0), Value::Null), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
}

#[test]
fn a_panicking_plugin_next_to_the_guard_still_blocks_and_hooks_exits_0() {
    let home = home_with(&["plugin-guard", "plugin-panics"], "");
    let (outcome, stderr, code) = emit(&home, "pre_tool_call", terminal("rm -rf /"));
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(outcome["action"], "block", "{outcome}");
    // Alone in deciding, the panic fails closed: the tool call is blocked too.
    let (outcome, stderr, code) = emit(&home, "pre_tool_call", terminal("ls"));
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(outcome["action"], "block", "{outcome}");
    let message = outcome["message"].as_str().unwrap_or_default();
    assert!(message.contains("plugin-panics"), "{message}");
}

#[test]
fn a_hanging_plugin_is_blocked_at_the_callback_timeout() {
    let home = home_with(&["plugin-hangs"], "  hook_callback_timeout: 2\n");
    let (outcome, stderr, code) = emit(&home, "pre_tool_call", terminal("ls"));
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(outcome["action"], "block", "{outcome}");
    // Blocked by the timeout, not by anything sooner: the record says so
    // (no clock; `emit` guards against a hang).
    assert!(
        format!("{outcome}{stderr}").contains("timed out"),
        "{outcome}\n{stderr}"
    );
}

#[test]
fn a_library_of_another_abi_is_a_warning_and_the_others_keep_working() {
    let home = home_with(&["plugin-other-abi", "plugin-guard"], "");
    let (outcome, stderr, code) = emit(&home, "pre_tool_call", terminal("rm -rf /"));
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(outcome["action"], "block", "{outcome}");
    let warning = stderr
        .lines()
        .find(|line| line.contains("plugin-other-abi"))
        .unwrap_or_else(|| panic!("no warning naming the plugin:\n{stderr}"));
    let file = library("plugin-other-abi").display().to_string();
    assert!(warning.starts_with("warning: "), "{warning}");
    assert!(warning.contains(&file), "{warning}");
    assert!(
        warning.contains("plugin ABI version 2 is not supported (this host speaks version 1)"),
        "{warning}"
    );
}

#[test]
fn the_redactor_masks_the_key() {
    let home = home_with(&["plugin-redactor"], "");
    let key = format!("sk-{}", "Ab3".repeat(12));
    let payload = json!({
        "tool_name": "terminal",
        "args": {"command": "env"},
        "result": format!("OPENAI_API_KEY={key}\nHOME=/root"),
    });
    let (outcome, stderr, code) = emit(&home, "transform_tool_result", payload);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(outcome, json!("OPENAI_API_KEY=[REDACTED]\nHOME=/root"));
}

#[test]
fn the_context_plugin_adds_context() {
    let home = home_with(&["plugin-context"], "");
    let payload = json!({"user_message": "tidy the build dir", "session_id": "s1"});
    let (outcome, stderr, code) = emit(&home, "pre_llm_call", payload);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        outcome,
        json!({"context": "plugin-context: the user wrote 4 word(s); answer in kind."})
    );
}
