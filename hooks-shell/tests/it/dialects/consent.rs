//! Consent for imported hooks is the shell hooks' own.

use hermes_hooks_core::{Dispatcher, Event};
use hermes_hooks_shell::{Allowlist, Consent, ImportedHooks, RegisterOptions};
use serde_json::json;

use super::{World, bash_call};

fn options(consent: Consent, safe_mode: bool) -> RegisterOptions {
    let mut options = RegisterOptions::new(consent);
    options.safe_mode = safe_mode;
    options
}

fn world_with_guard() -> (World, String) {
    let world = World::new();
    let command = world.hook_script("deny.sh", r#"echo '{"decision":"block","reason":"no"}'"#);
    world.claude_settings(json!({"hooks": {
        "PreToolUse": [{"hooks": [{"command": command}]}],
        "Notification": [{"hooks": [{"command": "notify-send hi"}]}]
    }}));
    (world, command)
}

#[tokio::test]
async fn nothing_runs_before_consent() {
    let (world, _) = world_with_guard();
    let config = world.config(json!(["claude"]));
    let discovery = world.discover(json!(["claude"]));
    let registration = ImportedHooks::register_discovered(
        &config,
        discovery,
        options(Consent::allowlisted_only(), false),
    );
    assert!(registration.hooks.is_empty());
    assert_eq!(
        registration.denied.len(),
        1,
        "the Notification hook never fires and needs no consent"
    );
    let event = Event::from_json("pre_tool_call", bash_call("ls"));
    assert!(registration.hooks.dispatch(&event).await.is_empty());
}

#[tokio::test]
async fn accepting_records_the_approval_keyed_on_the_substituted_command() {
    let (world, command) = world_with_guard();
    let config = world.config(json!(["claude"]));
    let registration = ImportedHooks::register_discovered(
        &config,
        world.discover(json!(["claude"])),
        options(Consent::accept_all(), false),
    );
    assert_eq!(registration.hooks.len(), 1);
    let expected = command.replace("$CLAUDE_PROJECT_DIR", &world.project().to_string_lossy());
    let allowlist = Allowlist::in_home(world.home.path());
    assert!(
        allowlist.is_allowed("pre_tool_call", &expected),
        "{:?}",
        allowlist.approvals()
    );
    // Approved now: the next registration needs no consent.
    let again = ImportedHooks::register_discovered(
        &config,
        world.discover(json!(["claude"])),
        options(Consent::allowlisted_only(), false),
    );
    assert_eq!(again.hooks.len(), 1);
    let event = Event::from_json("pre_tool_call", bash_call("ls"));
    assert_eq!(again.hooks.dispatch(&event).await.len(), 1);
}

#[tokio::test]
async fn safe_mode_registers_none() {
    let (world, _) = world_with_guard();
    let config = world.config(json!(["claude"]));
    let registration = ImportedHooks::register_discovered(
        &config,
        world.discover(json!(["claude"])),
        options(Consent::accept_all(), true),
    );
    assert!(registration.hooks.is_empty());
    assert!(
        Allowlist::in_home(world.home.path()).approvals().is_empty(),
        "nothing approved in safe mode"
    );
    assert_eq!(
        registration.discovery.hooks.len(),
        2,
        "still discovered, for list and doctor"
    );
}
