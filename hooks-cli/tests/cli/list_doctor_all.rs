//! `list` and `doctor` beyond shell hooks: every mechanism checked, native
//! plugins inspected in a child process (a library that aborts while loading
//! is a finding), config text escaped, secrets in URLs redacted, `--json`
//! shapes, doctor's exit status, a home that does not exist.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

use crate::harness;
use crate::support::TempHome;

const OK_HOOK: &str = "#!/bin/sh\ncat >/dev/null\necho '{}'\n";

/// `rustc` next to the cargo running the tests (same toolchain), else from PATH.
fn rustc() -> PathBuf {
    let beside_cargo = Path::new(env!("CARGO")).with_file_name("rustc");
    if beside_cargo.is_file() {
        beside_cargo
    } else {
        PathBuf::from("rustc")
    }
}

/// The library whose constructor aborts, compiled once per run.
fn aborting_library() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("abort-plugin");
        std::fs::create_dir_all(&dir).expect("mkdir");
        let library = dir.join(format!(
            "{}abort_plugin{}",
            std::env::consts::DLL_PREFIX,
            std::env::consts::DLL_SUFFIX
        ));
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/abort_plugin.rs");
        let output = Command::new(rustc())
            .args(["--crate-type", "cdylib", "--edition", "2021", "-o"])
            .arg(&library)
            .arg(&source)
            .output()
            .expect("rustc runs");
        assert!(
            output.status.success(),
            "compiling the aborting plugin failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        library
    })
}

/// A home with one enabled native plugin `crashy` whose library aborts on load.
fn home_with_aborting_plugin() -> TempHome {
    let home = TempHome::new();
    home.config("plugins:\n  enabled: [crashy]\n");
    home.write(
        "plugins/crashy/plugin.yaml",
        &format!("name: crashy\nlibrary: {}\n", aborting_library().display()),
    );
    home
}

#[test]
fn a_plugin_that_aborts_while_loading_does_not_kill_list() {
    let home = home_with_aborting_plugin();
    // `list` loads nothing; `doctor` trial-loads in a child and `list` shows its verdict.
    let text = home.hooks(&["list"]).ok();
    assert!(
        text.contains("crashy (native, enabled) — not inspected yet"),
        "{text}"
    );
    assert_eq!(home.hooks(&["doctor"]).code(), Some(1));
    let text = home.hooks(&["list"]).ok();
    assert!(text.contains("crashy (native, failed)"), "{text}");
    assert!(text.contains("SIGABRT"), "{text}");
    assert!(text.contains("full trust"), "{text}");
}

#[test]
fn doctor_reports_a_plugin_that_aborts_while_loading_naming_it_and_the_signal() {
    let home = home_with_aborting_plugin();
    let run = home.hooks(&["doctor", "--json"]);
    assert_eq!(run.code(), Some(1), "{}", run.stderr());
    let document: Value = serde_json::from_str(run.stdout().trim()).expect("one JSON object");
    assert_eq!(document["ok"], false);
    let problem = &document["problems"][0];
    assert_eq!(problem["kind"], "plugin");
    assert_eq!(problem["name"], "crashy");
    let message = problem["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("crashy") && message.contains("SIGABRT"),
        "{message}"
    );
}

#[test]
fn an_escape_sequence_in_config_text_is_shown_escaped_by_list_and_doctor() {
    let home = TempHome::new();
    let script = home.script("lint.sh", OK_HOOK);
    // The command and the matcher carry a "clear line" sequence and a bidi override.
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: \"{} \\e[2K\\u202e\"\n      matcher: \"term\\e[1Ainal\"\n  outbound:\n    - name: \"ci\\e[31m\"\n      url: https://ci.example.com/hook\n      events: [on_session_end]\n",
        script.display()
    ));
    for args in [&["list"][..], &["doctor"][..]] {
        let run = home.hooks(args);
        let text = run.stdout();
        assert!(!text.contains('\u{1b}'), "raw ESC in `{args:?}`:\n{text}");
        assert!(
            !text.contains('\u{202e}'),
            "raw bidi override in `{args:?}`:\n{text}"
        );
        assert!(text.contains("\\e[2K\\u{202e}"), "{text}");
        assert!(!run.stderr().contains('\u{1b}'), "{}", run.stderr());
    }
    let listed = home.hooks(&["list"]).ok();
    assert!(listed.contains("matcher='term\\e[1Ainal'"), "{listed}");
    assert!(listed.contains("ci\\e[31m"), "{listed}");
}

#[test]
fn invisible_characters_in_config_text_are_shown_escaped() {
    let home = TempHome::new();
    let script = home.script("lint.sh", OK_HOOK);
    // Two commands that would look the same: one carries invisible characters.
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: \"{0}\"\n    - command: \"{0}\\u200b\\u2060\\ufeff\\u3164\\u2028\\U000E0041\"\n",
        script.display()
    ));
    for args in [&["list"][..], &["doctor"][..]] {
        let text = home.hooks(args).stdout();
        for c in [
            '\u{200b}',
            '\u{2060}',
            '\u{feff}',
            '\u{3164}',
            '\u{2028}',
            '\u{e0041}',
        ] {
            assert!(
                !text.contains(c),
                "raw U+{:04X} in `{args:?}`:\n{text}",
                c as u32
            );
        }
        assert!(
            text.contains("lint.sh\\u{200b}\\u{2060}\\u{feff}\\u{3164}\\u{2028}\\u{e0041}"),
            "{text}"
        );
    }
}

#[test]
fn webhook_secrets_in_the_path_never_appear_in_list() {
    let home = TempHome::new();
    home.config(
        "hooks:\n  outbound:\n    - url: https://hooks.zapier.com/hooks/catch/1234567/abcd3fg/\n      events: [on_session_end]\n    - url: https://contoso.webhook.office.com/webhookb2/6f1c2a3b-4d5e-6f70-8192-a3b4c5d6e7f8@9a8b7c6d-5e4f-3a2b-1c0d-e9f8a7b6c5d4/IncomingWebhook/0a1b2c3d4e5f/1f2e3d4c-5b6a-7980-a1b2-c3d4e5f6a7b8\n      events: [on_session_end]\n    - url: https://matrix.example.org/_matrix/hook;token=hunter2\n      events: [on_session_end]\n",
    );
    for args in [&["list"][..], &["list", "--json"][..], &["doctor"][..]] {
        let text = home.hooks(args).stdout();
        for secret in [
            "1234567",
            "abcd3fg",
            "6f1c2a3b",
            "9a8b7c6d",
            "0a1b2c3d4e5f",
            "1f2e3d4c",
            "hunter2",
        ] {
            assert!(!text.contains(secret), "`{args:?}` shows {secret}:\n{text}");
        }
        assert!(
            text.contains("hooks.zapier.com/hooks/catch/***/***/"),
            "{text}"
        );
    }
}

#[test]
fn a_url_password_never_appears_in_list() {
    let home = TempHome::new();
    home.config(
        "hooks:\n  outbound:\n    - url: https://bot:hunter2@hooks.example.com/in?token=s3cr3t\n      events: [on_session_end]\n",
    );
    for args in [&["list"][..], &["list", "--json"][..]] {
        let text = home.hooks(args).ok();
        assert!(!text.contains("hunter2"), "{text}");
        assert!(!text.contains("s3cr3t"), "{text}");
        assert!(text.contains("hooks.example.com/in"), "{text}");
    }
}

#[test]
fn list_json_is_one_object_in_the_documented_shape() {
    let home = TempHome::new();
    let script = home.script("ok.sh", OK_HOOK);
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n      matcher: terminal\n      fail_closed: true\n  outbound:\n    - name: ci\n      url: https://ci.example.com/hook\n      events: [on_session_end]\n      secret: abc\n    - name: tools\n      url: https://ci.example.com/tools\n      events: [pre_tool_call]\n      matcher: terminal|write_.*\nplugins:\n  enabled: [crashy]\n",
        script.display()
    ));
    home.write(
        "plugins/crashy/plugin.yaml",
        &format!("name: crashy\nlibrary: {}\n", aborting_library().display()),
    );
    home.write(
        "hooks/greeter/HOOK.yaml",
        "name: greeter\nevents: [agent:start]\n",
    );
    home.script("hooks/greeter/handler", "#!/bin/sh\ncat >/dev/null\n");
    let document = home.hooks(&["list", "--json"]).json();
    assert_eq!(document["plugins"][0]["status"], "not_inspected");
    assert_eq!(document["gateway_hooks"][0]["status"], "loaded");
    home.hooks(&["doctor"]);
    let document = home.hooks(&["list", "--json"]).json();
    assert_eq!(document["home"], home.hermes.display().to_string());
    let hook = &document["shell_hooks"][0];
    for key in [
        "event",
        "command",
        "matcher",
        "timeout",
        "fail_closed",
        "allowlisted",
        "approved_at",
        "drift",
    ] {
        assert!(hook.get(key).is_some(), "shell hook lacks {key}: {hook}");
    }
    assert_eq!(hook["matcher"], "terminal");
    assert_eq!(hook["fail_closed"], true);
    assert_eq!(hook["allowlisted"], false);
    let target = &document["outbound"][0];
    assert_eq!(target["name"], "ci");
    assert_eq!(target["signed"], true);
    assert_eq!(target["events"][0], "on_session_end");
    assert_eq!(target["delivery"], "best_effort");
    assert_eq!(target["concurrency"], 4, "the default: {target}");
    assert_eq!(target["matcher"], serde_json::Value::Null, "{target}");
    assert_eq!(document["outbound"][1]["matcher"], "terminal|write_.*");
    let plugin = &document["plugins"][0];
    assert_eq!(plugin["name"], "crashy");
    assert_eq!(plugin["kind"], "native");
    assert_eq!(plugin["source"], "user");
    assert_eq!(plugin["status"], "failed");
    assert!(
        plugin["error"]
            .as_str()
            .unwrap_or_default()
            .contains("SIGABRT"),
        "{plugin}"
    );
    assert!(plugin.get("abi_version").is_some() && plugin.get("hooks").is_some());
    let gateway = &document["gateway_hooks"][0];
    assert_eq!(gateway["name"], "greeter");
    assert_eq!(gateway["status"], "loaded");
    assert_eq!(gateway["interpreter"], Value::Null);
    assert!(document["warnings"].is_array());
}

#[test]
fn doctor_checks_outbound_targets_and_gateway_handlers() {
    let home = TempHome::new();
    home.config(
        "hooks:\n  outbound:\n    - name: ci\n      url: https://ci.example.com/hook\n      events: [on_session_end]\n      secret_env: HOOKS_TEST_SECRET_THAT_IS_NOT_SET\n    - url: ftp://nope.example.com/\n      events: [on_session_end]\n",
    );
    home.write(
        "hooks/broken/HOOK.yaml",
        "name: broken\nevents: [agent:start]\n",
    );
    home.write(
        "hooks/broken/handler.py",
        "def handle(event_type, context):\n    return (\n",
    );
    let run = harness::within(
        {
            let mut command = harness::command(&home, &["doctor", "--json"]);
            command.env_remove("HOOKS_TEST_SECRET_THAT_IS_NOT_SET");
            command
        },
        std::time::Duration::from_secs(120),
    )
    .expect("doctor finishes");
    assert_eq!(run.code(), Some(1), "{}", run.stderr());
    let document: Value = serde_json::from_str(run.stdout().trim()).expect("json");
    let problems = document["problems"].as_array().cloned().unwrap_or_default();
    let about = |kind: &str, needle: &str| {
        problems.iter().any(|p| {
            p["kind"] == kind && p["message"].as_str().unwrap_or_default().contains(needle)
        })
    };
    assert!(
        about("outbound", "HOOKS_TEST_SECRET_THAT_IS_NOT_SET"),
        "{document}"
    );
    assert!(about("outbound", "http(s)"), "{document}");
    assert!(
        problems
            .iter()
            .any(|p| p["kind"] == "gateway_hook" && p["name"] == "broken"),
        "{document}"
    );
}

#[test]
fn doctor_exits_zero_when_nothing_is_wrong_and_one_when_something_is() {
    let home = TempHome::new();
    home.only_hook("pre_tool_call", "ok.sh", OK_HOOK);
    assert_eq!(home.hooks(&["doctor"]).code(), Some(1), "not approved yet");
    home.hooks(&["approve", "--all"]).ok();
    let document = home.hooks(&["doctor", "--json"]).json();
    assert_eq!(document["ok"], true, "{document}");
    assert_eq!(document["problems"], serde_json::json!([]), "{document}");
    // The smoke test's run record (issue 16), beside the documented keys.
    assert_eq!(document["runs"][0]["status"], "completed", "{document}");
}

#[test]
fn a_home_that_does_not_exist_is_a_warning_and_a_doctor_problem() {
    let home = TempHome::new();
    let missing = home.user_home.join("no-such-home");
    let run = Command::new(env!("CARGO_BIN_EXE_hooks"))
        .arg("--home")
        .arg(&missing)
        .arg("doctor")
        .env("HOME", &home.user_home)
        .output()
        .expect("run");
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(stderr.matches("does not exist").count(), 1, "{stderr}");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(!stdout.contains("No problems found"), "{stdout}");
}

#[test]
fn list_shows_a_python_plugin_that_is_not_loaded_and_doctor_flags_it() {
    let home = TempHome::new();
    home.config("plugins:\n  enabled: [guard]\n");
    home.write("plugins/guard/plugin.yaml", "name: guard\n");
    home.write("plugins/guard/__init__.py", "import no_such_module_here\n");
    let run_with_python = |args: &[&str]| {
        let mut command = harness::command(&home, args);
        command.env("HERMES_HOOKS_PYTHON", "python3");
        harness::within(command, std::time::Duration::from_secs(120)).expect("hooks finishes")
    };
    let run = run_with_python(&["doctor", "--json"]);
    assert_eq!(run.code(), Some(1));
    assert!(
        run.stdout().contains("\"kind\":\"plugin\""),
        "{}",
        run.stdout()
    );
    let listed = run_with_python(&["list"]).ok();
    assert!(listed.contains("guard (python, failed)"), "{listed}");
    assert!(listed.contains("from $HERMES_HOOKS_PYTHON"), "{listed}");
}
