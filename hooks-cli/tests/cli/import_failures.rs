//! Imported fail-closed guards never fail open (issue 27, item 5), through
//! the real binary: a file with a byte order mark is read; a file that stops
//! parsing (a `//` comment, a truncation, over 8 MiB) blocks every call its
//! last good parse guarded; a file named by `path:` that never parsed blocks
//! `pre_tool_call`; a standard one that never parsed warns on every emit and
//! fails `doctor`; a fail-closed guard whose matcher does not compile blocks
//! every call of its event; a hooks file without its `hooks` key is a
//! warning on load and a `doctor` error.

use std::path::Path;

use serde_json::{Value, json};

use crate::dialects::{bash, home_with, in_project, write};
use crate::support::{Run, TempHome};

/// A fail-closed `PreToolUse` guard on Bash that allows everything.
fn guard_settings(matcher: &str) -> Value {
    json!({"hooks": {"PreToolUse": [{"matcher": matcher, "hooks": [
        {"type": "command", "command": "true", "failClosed": true}
    ]}]}})
}

/// `hooks emit pre_tool_call --json` of `payload` with `--accept-hooks`: the
/// run (stdout JSON, stderr warnings).
fn emit(home: &TempHome, project: &Path, payload: &Value) -> Run {
    let file = home.write("payload.json", &payload.to_string());
    let file = file.to_str().expect("UTF-8");
    let args = ["--accept-hooks", "emit", "pre_tool_call", "--json"];
    let mut args = args.to_vec();
    args.extend(["--payload-file", file]);
    in_project(home, project, &args)
}

fn outcome(run: &Run) -> Value {
    run.json()["outcome"].clone()
}

#[test]
fn a_settings_file_with_a_byte_order_mark_is_imported() {
    let (home, project) = home_with("[claude]");
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo 'no shell today' >&2; exit 2", "failClosed": true}
    ]}]}});
    let text = format!("\u{feff}{settings}");
    write(&project, ".claude/settings.json", &text);
    let run = emit(&home, &project, &bash("ls"));
    assert_eq!(
        outcome(&run),
        json!({"action": "block", "message": "no shell today"}),
        "{}",
        run.stderr()
    );
    assert!(!run.stderr().contains("not valid JSON"), "{}", run.stderr());

    // Its `disableAllHooks` is read too: the project's hooks are off, and
    // the tools say so (red team R33b-5: ignored in silence).
    let mut off = settings.clone();
    off["disableAllHooks"] = json!(true);
    write(&project, ".claude/settings.json", &format!("\u{feff}{off}"));
    let run = emit(&home, &project, &bash("ls"));
    assert_eq!(outcome(&run), Value::Null, "{}", run.stderr());
    assert!(run.stderr().contains("disableAllHooks"), "{}", run.stderr());
}

#[test]
fn a_guard_file_that_stops_parsing_blocks_what_it_guarded() {
    let good = guard_settings("Bash").to_string();
    let mut huge = good.trim_end_matches('}').to_owned();
    huge.push_str(&format!(", \"pad\": \"{}\"}}", "x".repeat(9 * 1024 * 1024)));
    let breakages = [
        ("a // comment", format!("// our guard\n{good}")),
        ("a truncation", good[..good.len() / 2].to_owned()),
        ("over 8 MiB", huge),
    ];
    for (what, broken) in breakages {
        let (home, project) = home_with("[claude]");
        write(&project, ".claude/settings.json", &good);
        // The good parse: the guard runs and allows; the file is remembered as guarding.
        let allowed = emit(&home, &project, &bash("ls"));
        assert_eq!(
            outcome(&allowed),
            Value::Null,
            "{what}: {}",
            allowed.stderr()
        );

        write(&project, ".claude/settings.json", &broken);
        for _ in 0..2 {
            let run = emit(&home, &project, &bash("ls"));
            let outcome = outcome(&run);
            assert_eq!(outcome["action"], "block", "{what}: {}", run.stderr());
            let message = outcome["message"].as_str().unwrap_or_default();
            assert!(message.contains("settings.json"), "{what}: {message}");
            assert!(message.contains("hooks doctor"), "{what}: {message}");
            // Every emit warns, and says what to do.
            let stderr = run.stderr();
            assert!(
                stderr.contains("every pre_tool_call call is BLOCKED"),
                "{what}: {stderr}"
            );
            // Every call, not only the ones its matcher named.
            let read = json!({"tool_name": "read_file", "args": {"path": "a"}});
            assert_eq!(
                emit(&home, &project, &read).json()["outcome"]["action"],
                "block"
            );
        }
        let doctor = in_project(&home, &project, &["doctor"]);
        assert_eq!(doctor.code(), Some(1), "{what}: {}", doctor.stdout());
        // `hooks test` shows it blocking too (red team R33b-2: "No shell
        // hooks configured").
        let test = ["test", "pre_tool_call", "--for-tool", "terminal", "--json"];
        let tested = in_project(&home, &project, &test).json();
        assert_eq!(tested["outcome"]["action"], "block", "{what}: {tested}");
        let shown = in_project(&home, &project, &test[..4]).stdout();
        assert!(shown.contains("cannot run"), "{what}: {shown}");

        // Fixed: the guard runs again.
        write(&project, ".claude/settings.json", &good);
        assert_eq!(
            outcome(&emit(&home, &project, &bash("ls"))),
            Value::Null,
            "{what}"
        );
    }
}

#[test]
fn a_file_that_never_parsed_blocks_when_named_and_warns_when_standard() {
    // Named by path: (the user asked for this file): blocks pre_tool_call.
    let (home, project) = home_with("[{format: claude, path: guards/hooks.json}]");
    write(
        &project,
        "guards/hooks.json",
        "{ \"hooks\": { // unfinished",
    );
    let run = emit(&home, &project, &bash("ls"));
    assert_eq!(outcome(&run)["action"], "block", "{}", run.stderr());
    assert!(
        run.stderr()
            .contains("named in hooks_from: and was never read"),
        "{}",
        run.stderr()
    );

    // A standard location: the call goes through, loudly, and doctor fails.
    let (home, project) = home_with("[claude]");
    write(
        &project,
        ".claude/settings.json",
        "{ \"hooks\": { // unfinished",
    );
    let run = emit(&home, &project, &bash("ls"));
    assert_eq!(outcome(&run), Value::Null);
    assert!(
        run.stderr().contains("ANY GUARD IN IT IS NOT RUNNING"),
        "{}",
        run.stderr()
    );
    let doctor = in_project(&home, &project, &["doctor"]);
    assert_eq!(doctor.code(), Some(1), "{}", doctor.stdout());
    assert!(
        doctor.stdout().contains("ANY GUARD IN IT IS NOT RUNNING"),
        "{}",
        doctor.stdout()
    );
}

#[test]
fn a_fail_closed_guard_whose_matcher_does_not_compile_blocks_every_call() {
    let (home, project) = home_with("[claude]");
    let settings = guard_settings("Bash(rm");
    write(&project, ".claude/settings.json", &settings.to_string());
    for payload in [
        bash("ls"),
        json!({"tool_name": "read_file", "args": {"path": "a"}}),
    ] {
        let run = emit(&home, &project, &payload);
        let outcome = outcome(&run);
        assert_eq!(outcome["action"], "block", "{}", run.stderr());
        let message = outcome["message"].as_str().unwrap_or_default();
        assert!(message.contains("not a valid regex"), "{message}");
    }
    let listed = in_project(&home, &project, &["list", "--json"]).json();
    assert_eq!(
        listed["imported_guards_down"][0]["blocks"], "pre_tool_call",
        "{listed}"
    );
    assert_eq!(in_project(&home, &project, &["doctor"]).code(), Some(1));

    // A matcher that does not compile on a guard that fails open: compared literally, as before.
    let (home, project) = home_with("[claude]");
    let mut open = guard_settings("Bash(rm");
    open["hooks"]["PreToolUse"][0]["hooks"][0]["failClosed"] = json!(false);
    write(&project, ".claude/settings.json", &open.to_string());
    assert_eq!(outcome(&emit(&home, &project, &bash("ls"))), Value::Null);
}

#[test]
fn a_hooks_file_without_its_hooks_key_is_a_warning_and_a_doctor_error() {
    // A plugin's hooks/hooks.json written without the wrapper, named by path:.
    let (home, project) = home_with("[{format: claude, path: plugin/hooks/hooks.json}]");
    let unwrapped = json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "true"}
    ]}]});
    write(&project, "plugin/hooks/hooks.json", &unwrapped.to_string());
    let run = emit(&home, &project, &bash("ls"));
    assert_eq!(outcome(&run), Value::Null);
    let stderr = run.stderr();
    assert!(
        stderr.contains("has no top-level \"hooks\" key") && stderr.contains("PreToolUse"),
        "{stderr}"
    );
    let doctor = in_project(&home, &project, &["doctor"]);
    assert_eq!(doctor.code(), Some(1), "{}", doctor.stdout());
    assert!(
        doctor.stdout().contains("has no top-level"),
        "{}",
        doctor.stdout()
    );

    // The same shape with a fail-closed entry: the guard cannot run, so it blocks.
    let mut guarded = unwrapped;
    guarded["PreToolUse"][0]["hooks"][0]["failClosed"] = json!(true);
    write(&project, "plugin/hooks/hooks.json", &guarded.to_string());
    let run = emit(&home, &project, &bash("ls"));
    assert_eq!(outcome(&run)["action"], "block", "{}", run.stderr());

    // A Claude settings file without hooks is an ordinary settings file: nothing said.
    let (home, project) = home_with("[claude]");
    write(&project, ".claude/settings.json", r#"{"permissions": {}}"#);
    let run = emit(&home, &project, &bash("ls"));
    assert!(!run.stderr().contains("no top-level"), "{}", run.stderr());
}

#[test]
fn a_native_fail_closed_hook_whose_matcher_does_not_compile_blocks_every_call() {
    let home = TempHome::new();
    let marker = home.user_home.join("ran");
    let hook = home.script(
        "allow.sh",
        &format!("#!/bin/sh\ntouch '{}'\necho '{{}}'\n", marker.display()),
    );
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n      matcher: 'terminal('\n      fail_closed: true\n",
        hook.display()
    ));
    for tool in ["terminal", "read_file"] {
        let payload = json!({"tool_name": tool, "args": {}});
        let file = home.write("payload.json", &payload.to_string());
        let file = file.to_str().expect("UTF-8");
        let run = home.hooks(&["emit", "pre_tool_call", "--json", "--payload-file", file]);
        let document = run.json();
        assert_eq!(
            document["outcome"]["action"],
            "block",
            "{tool}: {}",
            run.stderr()
        );
        let message = document["outcome"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("not a valid regex"), "{message}");
        assert!(run.stderr().contains("is BLOCKED"), "{}", run.stderr());
    }
    assert!(!marker.exists(), "the hook never runs");
    let doctor = home.hooks(&["doctor"]);
    assert_eq!(doctor.code(), Some(1), "{}", doctor.stdout());
}
