//! A fail-closed imported hook that may not run blocks the calls it
//! matches, as a fail-closed native shell hook with a changed script does:
//! its script changed since consent, it was never approved, its script is
//! gone, its type cannot run here, its server cannot be reached.

use hermes_hooks_core::{Dispatcher, Event, HookRun, Hooks, Outcome, RunStatus, ToolGate};
use hermes_hooks_shell::{Consent, ImportRegistration, ImportedHooks, RegisterOptions};
use serde_json::{Value, json};

use super::{World, bash_call, emit};

fn register(world: &World, consent: Consent, safe_mode: bool) -> ImportRegistration {
    let mut options = RegisterOptions::new(consent);
    options.safe_mode = safe_mode;
    ImportedHooks::register_discovered(
        &world.config(json!(["claude"])),
        world.discover(json!(["claude"])),
        options,
    )
}

/// A `Bash` guard that allows everything and leaves `marker` behind when it runs.
fn guard(world: &World, fail_closed: bool) -> std::path::PathBuf {
    let marker = world.project().join("ran");
    let command = world.hook_script(
        "guard.sh",
        &format!("touch '{}'\necho '{{}}'\n", marker.display()),
    );
    world.claude_settings(json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": command, "failClosed": fail_closed}]}
    ]}}));
    marker
}

fn change_script(world: &World) {
    World::write(
        world.project(),
        ".claude/hooks/guard.sh",
        "echo '{}' # new code\n",
    );
}

fn bus(registration: ImportRegistration) -> Hooks {
    Hooks::builder().with(registration.hooks).build()
}

async fn runs_of(hooks: &ImportedHooks, payload: Value) -> (Vec<Value>, Vec<HookRun>) {
    let mut runs = Vec::new();
    let event = Event::from_json("pre_tool_call", payload);
    let replies = hooks.dispatch_recorded(&event, &mut runs).await;
    (replies.into_iter().map(|reply| reply.value).collect(), runs)
}

fn blocks_with(outcome: &Outcome, words: &[&str]) -> bool {
    matches!(outcome, Outcome::Tool(ToolGate::Block { message, .. })
        if words.iter().all(|word| message.contains(word)))
}

#[tokio::test]
async fn a_changed_fail_closed_hook_blocks_what_it_matches_without_running() {
    let world = World::new();
    let marker = guard(&world, true);
    assert_eq!(
        register(&world, Consent::accept_all(), false).hooks.len(),
        1
    );
    change_script(&world);

    let registration = register(&world, Consent::allowlisted_only(), false);
    assert!(registration.hooks.is_empty(), "nothing of it runs");
    let (replies, runs) = runs_of(&registration.hooks, bash_call("ls")).await;
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0].status, RunStatus::Blocked);
    assert_eq!(runs[0].mechanism.as_ref(), "imported");
    assert!(
        runs[0].diagnostics[0].contains("changed since it was approved"),
        "{runs:?}"
    );
    assert_eq!(replies.len(), 1);
    let bus = bus(registration);
    let outcome = emit(&bus, "pre_tool_call", bash_call("ls")).await;
    assert!(
        blocks_with(
            &outcome,
            &["failed closed", "changed since it was approved"]
        ),
        "{outcome:?}"
    );
    // Only what it matches: a file read is not `Bash`.
    let read = json!({"tool_name": "read_file", "args": {"path": "a"}});
    assert_eq!(emit(&bus, "pre_tool_call", read).await, Outcome::Nothing);
    assert!(!marker.exists(), "the changed script never ran");
}

#[tokio::test]
async fn a_changed_fail_open_hook_is_skipped_and_its_run_says_so() {
    let world = World::new();
    let marker = guard(&world, false);
    register(&world, Consent::accept_all(), false);
    change_script(&world);

    let registration = register(&world, Consent::allowlisted_only(), false);
    let (replies, runs) = runs_of(&registration.hooks, bash_call("ls")).await;
    assert!(replies.is_empty());
    assert_eq!(runs.len(), 1, "the skipped guard shows: {runs:?}");
    assert!(matches!(runs[0].status, RunStatus::Skipped(_)), "{runs:?}");
    assert!(!marker.exists());
}

#[tokio::test]
async fn an_unapproved_fail_closed_hook_blocks_until_approved() {
    let world = World::new();
    let marker = guard(&world, true);
    let registration = register(&world, Consent::allowlisted_only(), false);
    assert_eq!(registration.denied.len(), 1);
    let bus = bus(registration);
    let outcome = emit(&bus, "pre_tool_call", bash_call("ls")).await;
    assert!(
        blocks_with(&outcome, &["failed closed", "not approved"]),
        "{outcome:?}"
    );
    assert!(!marker.exists(), "nothing runs before consent");

    // Approved, it runs and allows.
    let approved = bus_of_accepted(&world);
    assert_eq!(
        emit(&approved, "pre_tool_call", bash_call("ls")).await,
        Outcome::Nothing
    );
    assert!(marker.exists());
}

fn bus_of_accepted(world: &World) -> Hooks {
    bus(register(world, Consent::accept_all(), false))
}

#[tokio::test]
async fn an_unapproved_fail_open_hook_is_skipped_with_a_record() {
    let world = World::new();
    let marker = guard(&world, false);
    let registration = register(&world, Consent::allowlisted_only(), false);
    let (replies, runs) = runs_of(&registration.hooks, bash_call("ls")).await;
    assert!(replies.is_empty());
    assert_eq!(
        runs.iter().map(|r| r.status.clone()).collect::<Vec<_>>(),
        vec![RunStatus::Skipped("not allowlisted".into())]
    );
    assert!(!marker.exists());
}

#[tokio::test]
async fn a_fail_closed_hook_whose_script_is_gone_blocks() {
    let world = World::new();
    let marker = guard(&world, true);
    register(&world, Consent::accept_all(), false);
    std::fs::remove_file(world.project().join(".claude/hooks/guard.sh")).expect("rm");
    for consent in [Consent::allowlisted_only(), Consent::accept_all()] {
        // Refused as new code, or approved again and failing to run: blocked either way.
        let bus = bus(register(&world, consent, false));
        let outcome = emit(&bus, "pre_tool_call", bash_call("ls")).await;
        assert!(blocks_with(&outcome, &["failed closed"]), "{outcome:?}");
    }
    assert!(!marker.exists());
}

#[tokio::test]
async fn an_unsupported_fail_closed_handler_blocks_what_it_matches() {
    let world = World::new();
    world.claude_settings(json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "Is this safe? $ARGUMENTS", "failClosed": true}]},
        {"matcher": "Write", "hooks": [{"type": "agent", "prompt": "review"}]}
    ]}}));
    let found = world.discover(json!(["claude"]));
    assert_eq!(found.unsupported.len(), 2);
    assert!(
        found
            .warnings
            .iter()
            .any(|w| w.key.ends_with(".type") && w.to_string().contains("fails closed")),
        "{:?}",
        found.warnings
    );
    let registration = register(&world, Consent::allowlisted_only(), false);
    let (_, runs) = runs_of(&registration.hooks, bash_call("ls")).await;
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0].status, RunStatus::Blocked);
    let bus = bus(registration);
    let outcome = emit(&bus, "pre_tool_call", bash_call("ls")).await;
    assert!(
        blocks_with(
            &outcome,
            &["failed closed", "'prompt' hooks cannot run here"]
        ),
        "{outcome:?}"
    );
    // The fail-open `agent` handler on Write is listed, and guards nothing.
    let write = json!({"tool_name": "write_file", "args": {"path": "a", "content": ""}});
    assert_eq!(emit(&bus, "pre_tool_call", write).await, Outcome::Nothing);
}

#[tokio::test]
async fn a_fail_closed_http_hook_that_cannot_connect_blocks() {
    // A port nobody listens on (bound, then released).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let world = World::new();
    world.claude_settings(json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "http", "url": format!("http://127.0.0.1:{port}/hook"), "timeout": 5, "failClosed": true}
    ]}]}}));
    let bus = bus_of_accepted(&world);
    let outcome = emit(&bus, "pre_tool_call", bash_call("ls")).await;
    assert!(blocks_with(&outcome, &["failed closed"]), "{outcome:?}");
}

#[tokio::test]
async fn safe_mode_registers_no_guard_either() {
    let world = World::new();
    let marker = guard(&world, true);
    let registration = register(&world, Consent::accept_all(), true);
    assert!(registration.hooks.is_empty());
    let event = Event::from_json("pre_tool_call", bash_call("ls"));
    assert!(!registration.hooks.interest(event.name()));
    assert!(registration.hooks.dispatch(&event).await.is_empty());
    assert!(!marker.exists());
    assert!(
        !world
            .home
            .path()
            .join(hermes_hooks_shell::ALLOWLIST_FILE)
            .exists()
    );
}

#[tokio::test]
async fn an_async_hook_cannot_fail_closed() {
    let world = World::new();
    let command = world.hook_script("log.sh", "cat >/dev/null\n");
    world.claude_settings(json!({"hooks": {"PreToolUse": [{"hooks": [
        {"command": command, "async": true, "failClosed": true}
    ]}]}}));
    let found = world.discover(json!(["claude"]));
    assert!(!found.hooks[0].fail_closed);
    assert!(
        found
            .warnings
            .iter()
            .any(|w| w.key.ends_with("failClosed") && w.to_string().contains("async")),
        "{:?}",
        found.warnings
    );
}
