//! Red-team F11: every project handler binds the same tool folder; it is
//! hashed once per load and once per run, not once per handler (work
//! counted in tree walks, not time).

use hermes_hooks_core::{Dispatcher, Event};
use hermes_hooks_shell::binding::tree_walks_on_this_thread;
use hermes_hooks_shell::{Consent, ImportedHooks, RegisterOptions};
use serde_json::json;

use super::{World, bash_call};

const HANDLERS: usize = 40;

#[tokio::test(flavor = "current_thread")]
async fn a_shared_tool_folder_is_hashed_once_per_load_and_per_run() {
    let world = World::new();
    world.hook_script("check.sh", "exit 0\n");
    for n in 0..20 {
        World::write(
            world.project(),
            &format!(".claude/hooks/lib/{n}.sh"),
            ": ok\n",
        );
    }
    let handlers: Vec<_> = (0..HANDLERS)
        .map(|n| json!({"command": format!("bash \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.sh {n}")}))
        .collect();
    world.claude_settings(json!({"hooks": {"PreToolUse": [{"hooks": handlers}]}}));
    let config = world.config(json!(["claude"]));
    let register = |consent| {
        let discovery = world.discover(json!(["claude"]));
        let before = tree_walks_on_this_thread();
        let registration =
            ImportedHooks::register_discovered(&config, discovery, RegisterOptions::new(consent));
        (registration, tree_walks_on_this_thread() - before)
    };
    let (approving, walks) = register(Consent::accept_all());
    assert_eq!(approving.hooks.len(), HANDLERS);
    assert!(
        walks <= 2,
        "{walks} tree walks to approve {HANDLERS} handlers"
    );
    let (loaded, walks) = register(Consent::allowlisted_only());
    assert_eq!(loaded.hooks.len(), HANDLERS, "{:?}", loaded.denied);
    assert!(
        walks <= 2 || std::env::var_os("NOCACHE").is_some(),
        "{walks} tree walks to load {HANDLERS} handlers"
    );
    // One run of the event: the checks right before it hash the tree (and
    // copy it) once for all the handlers; the check after a run that went by
    // the paths is each handler's own.
    let before = tree_walks_on_this_thread();
    let event = Event::from_json("pre_tool_call", bash_call("ls"));
    loaded.hooks.dispatch(&event).await;
    let walks = tree_walks_on_this_thread() - before;
    assert!(
        walks <= 2 + HANDLERS,
        "{walks} tree walks to check {HANDLERS} handlers before a run"
    );
}
