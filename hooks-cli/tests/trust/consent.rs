//! Consent as a command: `hooks approve`, and what `hooks test` says about
//! hooks that are not allowlisted.

use serde_json::{Value, json};

use crate::support::TempHome;

const MARKING: &str = "#!/bin/sh\ncat >/dev/null\ntouch \"$0.ran\"\necho '{\"action\": \"block\", \"message\": \"no\"}'\n";

fn allowlist(home: &TempHome) -> Value {
    let text = std::fs::read_to_string(home.hermes.join("shell-hooks-allowlist.json"))
        .unwrap_or_else(|_| "{}".to_owned());
    serde_json::from_str(&text).expect("allowlist json")
}

fn approved_pairs(home: &TempHome) -> Vec<(String, String)> {
    allowlist(home)["approvals"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|entry| {
            (
                entry["event"].as_str().unwrap_or_default().to_owned(),
                entry["command"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[test]
fn approve_records_consent_without_running_the_hook() {
    let home = TempHome::new();
    let script = home.only_hook("pre_tool_call", "gate.sh", MARKING);
    let command = script.to_str().unwrap_or_default();
    let stdout = home.hooks(&["approve", command]).ok();
    assert!(stdout.contains("approved"), "{stdout}");
    assert!(
        !home.hermes.join("gate.sh.ran").exists(),
        "approve ran the hook"
    );
    assert_eq!(
        approved_pairs(&home),
        vec![("pre_tool_call".to_owned(), command.to_owned())]
    );
    assert!(allowlist(&home)["approvals"][0]["approved_at"].is_string());
    // A host (emit without --accept-hooks) now runs it.
    let document = home.hooks(&["emit", "pre_tool_call", "--json"]).json();
    assert_eq!(
        document["outcome"],
        json!({"action": "block", "message": "no"})
    );
}

#[test]
fn approve_of_an_unconfigured_command_lists_the_configured_ones() {
    let home = TempHome::new();
    let script = home.only_hook("pre_tool_call", "gate.sh", MARKING);
    let typo = format!("{}x", script.display());
    let run = home.hooks(&["approve", &typo]);
    assert_eq!(run.code(), Some(2));
    let stderr = run.stderr();
    assert!(
        stderr.contains("not a configured shell hook command"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("did you mean '{}'", script.display())),
        "{stderr}"
    );
    assert!(approved_pairs(&home).is_empty());
}

#[test]
fn approve_event_approves_that_event_only() {
    let home = TempHome::new();
    let script = home.script("log.sh", MARKING);
    let command = script.to_str().unwrap_or_default();
    home.config(&format!(
        "hooks:\n  post_tool_call:\n    - command: {command}\n  on_session_end:\n    - command: {command}\n"
    ));
    home.hooks(&["approve", command, "--event", "on_session_end"])
        .ok();
    assert_eq!(
        approved_pairs(&home),
        vec![("on_session_end".to_owned(), command.to_owned())]
    );
    let run = home.hooks(&["approve", command, "--event", "pre_tool_call"]);
    assert_eq!(run.code(), Some(2));
    assert!(
        run.stderr().contains("not configured for pre_tool_call"),
        "{}",
        run.stderr()
    );
}

#[test]
fn approve_all_lists_and_approves_every_hook() {
    let home = TempHome::new();
    let a = home.script("a.sh", MARKING);
    let b = home.script("b.sh", MARKING);
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n  pre_llm_call:\n    - command: {}\n",
        a.display(),
        b.display()
    ));
    let stdout = home.hooks(&["approve", "--all"]).ok();
    assert!(
        stdout.contains(&format!("[pre_tool_call] {}", a.display())),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("[pre_llm_call] {}", b.display())),
        "{stdout}"
    );
    assert_eq!(approved_pairs(&home).len(), 2);
    // Again: nothing new, said so.
    let stdout = home.hooks(&["approve", "--all"]).ok();
    assert!(stdout.contains("already approved"), "{stdout}");
    assert_eq!(approved_pairs(&home).len(), 2);
}

#[test]
fn test_marks_hooks_that_are_not_allowlisted() {
    let home = TempHome::new();
    let script = home.only_hook("pre_tool_call", "gate.sh", MARKING);
    let text = home.hooks(&["test", "pre_tool_call"]).ok();
    assert!(text.contains("not allowlisted"), "{text}");
    assert!(text.contains("Merged outcome once approved"), "{text}");
    let document = home.hooks(&["test", "pre_tool_call", "--json"]).json();
    assert_eq!(document["hooks"][0]["allowlisted"], false, "{document}");

    home.hooks(&["approve", script.to_str().unwrap_or_default()])
        .ok();
    let text = home.hooks(&["test", "pre_tool_call"]).ok();
    assert!(!text.contains("not allowlisted"), "{text}");
    let document = home.hooks(&["test", "pre_tool_call", "--json"]).json();
    assert_eq!(document["hooks"][0]["allowlisted"], true, "{document}");
}

#[test]
fn test_with_accept_hooks_approves_them() {
    let home = TempHome::new();
    let script = home.only_hook("pre_tool_call", "gate.sh", MARKING);
    let document = home
        .hooks(&["--accept-hooks", "test", "pre_tool_call", "--json"])
        .json();
    assert_eq!(document["hooks"][0]["allowlisted"], true, "{document}");
    assert_eq!(
        approved_pairs(&home),
        vec![("pre_tool_call".to_owned(), script.display().to_string())]
    );
}

#[test]
fn elapsed_ms_has_one_decimal_and_counts_agree_with_nouns() {
    let home = TempHome::new();
    home.only_hook(
        "pre_llm_call",
        "ctx.sh",
        "#!/bin/sh\ncat >/dev/null\necho '{\"context\": \"c\"}'\n",
    );
    let run = home.hooks(&["test", "pre_llm_call", "--json"]);
    let elapsed = run.json()["hooks"][0]["elapsed_ms"].to_string();
    let decimals = elapsed.split('.').nth(1).map_or(0, str::len);
    assert!(decimals <= 1, "elapsed_ms {elapsed}");
    let text = home.hooks(&["test", "pre_llm_call"]).ok();
    assert!(text.contains("Firing 1 hook for"), "{text}");

    let session = home.write("s.jsonl", "{\"event\": \"pre_llm_call\"}\n");
    let text = home
        .hooks(&[
            "--accept-hooks",
            "replay",
            session.to_str().unwrap_or_default(),
        ])
        .ok();
    assert!(text.contains("(1 reply,"), "{text}");
    assert!(text.contains("(1 event)"), "{text}");
    assert!(text.contains("Summary: 1 event replayed"), "{text}");
    let lines = home
        .hooks(&["replay", session.to_str().unwrap_or_default(), "--json"])
        .ok();
    for line in lines.lines() {
        let value: Value = serde_json::from_str(line).expect("json line");
        let elapsed = value
            .get("elapsed_ms")
            .or_else(|| value["summary"].get("elapsed_ms"))
            .map(Value::to_string)
            .unwrap_or_default();
        let decimals = elapsed.split('.').nth(1).map_or(0, str::len);
        assert!(decimals <= 1, "elapsed_ms {elapsed} in {line}");
    }
}

#[test]
fn a_malformed_allowlist_survives_approve_and_test_accept_hooks() {
    let home = TempHome::new();
    let script = home.only_hook("pre_tool_call", "gate.sh", MARKING);
    let broken = "{\"approvals\": [ {\"event\": \"pre_tool_call\", oops";
    let path = home.write("shell-hooks-allowlist.json", broken);

    let run = home.hooks(&["approve", script.to_str().unwrap_or_default()]);
    assert_eq!(run.code(), Some(2), "{}", run.stdout());
    assert!(
        run.stderr().contains("shell-hooks-allowlist.json"),
        "{}",
        run.stderr()
    );

    // `test` still runs the hook, and says the approval is for this run only.
    let run = home.hooks(&["--accept-hooks", "test", "pre_tool_call", "--json"]);
    assert_eq!(
        run.json()["outcome"],
        json!({"action": "block", "message": "no"})
    );
    assert!(run.stderr().contains("this run only"), "{}", run.stderr());

    assert_eq!(std::fs::read_to_string(&path).unwrap_or_default(), broken);
}
