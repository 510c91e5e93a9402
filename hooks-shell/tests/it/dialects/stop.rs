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
    assert_eq!(emit(&bus, "post_llm_call", ended("s1")).await, Outcome::Nothing);
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
