//! Stop hooks run after every turn, once, as Claude Code runs them: at
//! `pre_verify` on turns that edited code (where they can keep the agent
//! going), else at the turn's `post_llm_call`.

use hermes_hooks_core::Outcome;
use serde_json::json;

use super::{World, emit};

#[tokio::test]
async fn a_stop_hook_runs_once_after_every_turn() {
    let world = World::new();
    let log = world.project().join("stops.log");
    let command = world.hook_script(
        "stop.sh",
        &format!(
            "python3 -c 'import json,sys; d=json.load(sys.stdin); print(d[\"session_id\"], d[\"last_assistant_message\"])' >> '{}'\n\
             echo '{{\"decision\": \"block\", \"reason\": \"run the tests\"}}'\n",
            log.display()
        ),
    );
    world.claude_settings(json!({"hooks": {"Stop": [{"hooks": [{"command": command}]}]}}));
    let bus = world.bus(json!(["claude"]));
    // A turn that edited no code: no pre_verify, the Stop hook runs at its end.
    let ended = |session: &str| {
        json!({"session_id": session, "user_message": "hi", "assistant_response": "answer",
               "conversation_history": [], "model": "m", "platform": "cli"})
    };
    assert_eq!(
        emit(&bus, "post_llm_call", ended("s1")).await,
        Outcome::Nothing
    );
    // A turn that edited code: it runs at pre_verify (and keeps the agent going) ...
    let verify = json!({"session_id": "s2", "platform": "cli", "model": "m", "coding": true,
                        "attempt": 0, "final_response": "edited", "changed_paths": ["a.rs"]});
    assert_eq!(
        emit(&bus, "pre_verify", verify).await,
        Outcome::Continue {
            message: "run the tests".into()
        }
    );
    // ... and not again at that turn's post_llm_call; the next turn runs it again.
    emit(&bus, "post_llm_call", ended("s2")).await;
    emit(&bus, "post_llm_call", ended("s2")).await;
    let seen = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(seen, "s1 answer\ns2 edited\ns2 answer\n", "{seen}");
}

#[tokio::test]
async fn a_session_start_hook_can_write_to_claude_env_file() {
    let world = World::new();
    let command = world.hook_script(
        "env.sh",
        "cat >/dev/null; echo 'export PROJECT_MODE=ci' >> \"$CLAUDE_ENV_FILE\" || exit 1\n",
    );
    world.claude_settings(json!({"hooks": {"SessionStart": [{"hooks": [{"command": command}]}]}}));
    let bus = world.bus(json!(["claude"]));
    emit(
        &bus,
        "on_session_start",
        json!({"session_id": "sess/1", "model": "m", "platform": "cli"}),
    )
    .await;
    let folder = hermes_hooks_shell::dialect::session_env::folder_name("sess/1");
    let file = world
        .home
        .path()
        .join("plugin-data/claude-env")
        .join(folder)
        .join("env.sh");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap_or_default(),
        "export PROJECT_MODE=ci\n",
        "{}",
        file.display()
    );
}

#[tokio::test]
async fn a_stop_hook_reads_the_turn_in_its_transcript() {
    let world = World::new();
    let out = world.project().join("last.txt");
    let command = world.hook_script(
        "last.sh",
        &format!(
            "python3 -c 'import json,sys; d=json.load(sys.stdin); \
             lines=open(d[\"transcript_path\"]).read().splitlines(); \
             print(json.loads(lines[-1])[\"message\"][\"content\"][0][\"text\"])' > '{}'\n",
            out.display()
        ),
    );
    world.claude_settings(json!({"hooks": {"Stop": [{"hooks": [{"command": command}]}]}}));
    let bus = world.bus(json!(["claude"]));
    let history = json!([
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "what is 2+2?"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": "terminal", "arguments": "{\"command\": \"echo 4\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "4"},
        {"role": "assistant", "content": "It is 4."}
    ]);
    emit(
        &bus,
        "post_llm_call",
        json!({"session_id": "s1", "user_message": "what is 2+2?", "assistant_response": "It is 4.",
               "conversation_history": history, "model": "m", "platform": "cli"}),
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(&out).unwrap_or_default(),
        "It is 4.\n"
    );
    let transcript = world
        .home
        .path()
        .join("plugin-data/claude/transcripts/s1.jsonl");
    let lines = std::fs::read_to_string(&transcript).unwrap_or_default();
    assert_eq!(lines.lines().count(), 4, "system left out: {lines}");
    assert!(lines.contains(r#""type":"tool_use""#), "{lines}");
}
