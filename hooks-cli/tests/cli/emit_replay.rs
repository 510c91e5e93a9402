//! `hooks emit` and `hooks replay`: events through every mechanism, consent applying.

use serde_json::json;

use crate::support::TempHome;

#[test]
fn emit_applies_consent_unlike_test() {
    let home = TempHome::new();
    home.only_hook(
        "pre_tool_call",
        "block.sh",
        "#!/bin/sh\ncat >/dev/null\necho '{\"action\": \"block\", \"message\": \"no\"}'\n",
    );
    let denied = home.hooks(&["emit", "pre_tool_call", "--json"]).json();
    assert_eq!(
        denied["outcome"],
        serde_json::Value::Null,
        "not approved: the hook must not run"
    );
    let accepted = home
        .hooks(&["--accept-hooks", "emit", "pre_tool_call", "--json"])
        .json();
    assert_eq!(
        accepted["outcome"],
        json!({"action": "block", "message": "no"})
    );
    // The approval was recorded: later runs need no flag.
    let again = home.hooks(&["emit", "pre_tool_call", "--json"]).json();
    assert_eq!(
        again["outcome"],
        json!({"action": "block", "message": "no"})
    );
}

#[test]
fn emit_runs_gateway_hooks_for_gateway_events() {
    let home = TempHome::new();
    home.write(
        "hooks/deny/HOOK.yaml",
        "name: deny\nevents: ['command:*']\n",
    );
    home.write(
        "hooks/deny/handler.py",
        "def handle(event_type, context):\n    return {'decision': 'deny', 'message': 'no ' + event_type}\n",
    );
    let document = home.hooks(&["emit", "command:reset", "--json"]).json();
    assert_eq!(
        document["outcome"],
        json!({"decision": "deny", "message": "no command:reset"})
    );
}

#[test]
fn emit_of_an_unknown_event_exits_two() {
    let home = TempHome::new();
    let run = home.hooks(&["emit", "on_sesion_end"]);
    assert_eq!(run.code(), Some(2));
    assert!(
        run.stderr().contains("did you mean 'on_session_end'"),
        "{}",
        run.stderr()
    );
}

#[test]
fn emit_reports_webhook_deliveries_even_when_the_target_is_down() {
    let home = TempHome::new();
    // Port 9 (discard) on loopback: nothing listens, the connection is refused.
    home.config("hooks:\n  outbound:\n    - url: http://127.0.0.1:9/x\n      events: [on_session_end]\n      timeout: 1\n");
    let document = home.hooks(&["emit", "on_session_end", "--json"]).json();
    let deliveries = document["deliveries"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(deliveries.len(), 1, "{document}");
    assert_eq!(deliveries[0]["outcome"]["kind"], "failed", "{document}");
    assert_eq!(deliveries[0]["attempts"], 2, "{document}");
}

#[test]
fn replay_reports_bad_lines_with_file_and_line_and_replays_the_rest() {
    let home = TempHome::new();
    let session = home.write(
        "session.jsonl",
        "{\"event\": \"on_session_start\", \"payload\": {\"session_id\": \"s\"}}\nnot json\n{\"event\": \"nope_event\"}\n{\"event\": \"on_session_end\", \"payload\": []}\n{\"event\": \"on_session_end\"}\n",
    );
    let run = home.hooks(&["replay", session.to_str().unwrap_or_default()]);
    assert_eq!(run.code(), Some(2));
    let stderr = run.stderr();
    assert!(stderr.contains("session.jsonl:2: invalid JSON"), "{stderr}");
    assert!(
        stderr.contains("session.jsonl:3: field 'event'"),
        "{stderr}"
    );
    assert!(
        stderr.contains("session.jsonl:4: field 'payload' must be a JSON object"),
        "{stderr}"
    );
    assert!(
        run.stdout().contains("2 events replayed"),
        "{}",
        run.stdout()
    );
}
