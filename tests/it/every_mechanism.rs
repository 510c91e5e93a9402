//! One bus holding every mechanism, in the order a host builds it: in-process
//! callbacks, shell hooks, outbound webhooks, gateway hooks. Checks order,
//! merging across mechanisms, and that webhooks see the events without steering.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hermes_hooks_callbacks::Callbacks;
use hermes_hooks_core::config::PluginSettings;
use hermes_hooks_core::wire::WireContext;
use hermes_hooks_core::{Config, Event, HookEvent, Hooks, Outcome, ToolGate};
use hermes_hooks_gateway::{GatewayHooks, GatewayOptions};
use hermes_hooks_outbound::receiver::{ReceivedDelivery, serve};
use hermes_hooks_outbound::{Outbound, OutboundOptions};
use hermes_hooks_shell::{Consent, RegisterOptions, ShellHooks};
use serde_json::json;

fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, body).expect("write script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path.display().to_string()
}

struct Bus {
    hooks: Hooks,
    received: Arc<Mutex<Vec<ReceivedDelivery>>>,
    _home: tempfile::TempDir,
}

async fn bus() -> Bus {
    let home = tempfile::tempdir().expect("tempdir");
    let dir = home.path();

    // A receiver on loopback for the webhook target.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let received = Arc::new(Mutex::new(Vec::new()));
    let sink = received.clone();
    tokio::spawn(serve(
        listener,
        Some(b"it-secret".to_vec()),
        move |delivery| {
            sink.lock().expect("lock").push(delivery);
        },
    ));

    let block = script(
        dir,
        "block.sh",
        "#!/bin/sh\ncat >/dev/null\necho 'shell says no' >&2\nexit 2\n",
    );
    let modify = script(
        dir,
        "modify.sh",
        "#!/bin/sh\ncat >/dev/null\necho '{\"decision\": \"modify\", \"tool_input\": {\"path\": \"/safe\", \"by\": \"shell\"}}'\n",
    );
    let context = script(
        dir,
        "context.sh",
        "#!/bin/sh\ncat >/dev/null\necho '{\"context\": \"from shell\"}'\n",
    );
    let yaml = format!(
        "hooks:\n  pre_tool_call:\n    - command: {block}\n      matcher: terminal\n    - command: {modify}\n      matcher: write_file\n  pre_llm_call:\n    - command: {context}\n  outbound:\n    - name: sink\n      url: http://127.0.0.1:{port}/events\n      events: [pre_tool_call, on_session_end]\n      secret: it-secret\n      timeout: 5\n"
    );
    let config = Config::parse(dir, &dir.join("config.yaml"), &yaml).expect("config");

    let callbacks = Callbacks::new(PluginSettings::default());
    callbacks.register("pre_tool_call", "guard", |event| {
        Ok(match event.tool_name() {
            Some("write_file") => {
                Some(json!({"action": "modify", "args": {"by": "plugin", "mode": "0644"}}))
            }
            _ => None,
        })
    });
    callbacks.register("pre_llm_call", "memory", |_| {
        Ok(Some(json!({"context": "from plugin"})))
    });

    let mut options = RegisterOptions::new(Consent::accept_all());
    options.safe_mode = false;
    options.context = WireContext::current();
    let shell = ShellHooks::register(&config, options);
    assert!(shell.warnings.is_empty(), "{:?}", shell.warnings);

    let outbound_options = OutboundOptions::default().with_safe_mode(false);
    let (outbound, warnings) = Outbound::from_config(&config, outbound_options).expect("outbound");
    assert!(
        warnings.iter().all(|w| w.message.contains("plain http")),
        "{warnings:?}"
    );

    std::fs::create_dir_all(dir.join("hooks/deny")).expect("mkdir");
    std::fs::write(
        dir.join("hooks/deny/HOOK.yaml"),
        "name: deny\nevents: ['command:*']\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("hooks/deny/handler"),
        "#!/bin/sh\ncat >/dev/null\necho '{\"decision\": \"deny\", \"message\": \"not here\"}'\n",
    )
    .expect("write");
    std::fs::set_permissions(
        dir.join("hooks/deny/handler"),
        std::fs::Permissions::from_mode(0o755),
    )
    .expect("chmod");
    let (gateway, _) = GatewayHooks::discover(dir, GatewayOptions::default());

    let hooks = Hooks::builder()
        .with_shared(callbacks)
        .with(shell.hooks)
        .with(outbound)
        .with(gateway)
        .build();
    Bus {
        hooks,
        received,
        _home: home,
    }
}

fn tool_call(tool: &str, args: serde_json::Value) -> Event {
    Event::from_json(
        HookEvent::PreToolCall,
        json!({"tool_name": tool, "args": args, "session_id": "s1", "tool_call_id": "c1"}),
    )
}

#[tokio::test]
async fn a_shell_block_wins_over_nothing_from_plugins() {
    let bus = bus().await;
    let outcome = bus
        .hooks
        .emit(&tool_call("terminal", json!({"command": "rm -rf /"})))
        .await;
    assert_eq!(outcome.block_message(), Some("shell says no"));
}

#[tokio::test]
async fn modifies_from_plugins_and_shell_merge_in_bus_order() {
    let bus = bus().await;
    let outcome = bus
        .hooks
        .emit(&tool_call(
            "write_file",
            json!({"path": "/etc/passwd", "content": "x"}),
        ))
        .await;
    let expected = json!({"path": "/safe", "content": "x", "by": "shell", "mode": "0644"});
    match outcome {
        Outcome::Tool(ToolGate::Modify { args }) => {
            assert_eq!(serde_json::Value::Object(args), expected)
        }
        other => panic!("expected a modify, got {other:?}"),
    }
}

#[tokio::test]
async fn contexts_join_plugins_first_then_shell() {
    let bus = bus().await;
    let event = Event::from_json(
        HookEvent::PreLlmCall,
        json!({"session_id": "s1", "user_message": "hi"}),
    );
    assert_eq!(
        bus.hooks.emit(&event).await,
        Outcome::Context("from plugin\n\nfrom shell".into())
    );
}

#[tokio::test]
async fn gateway_commands_are_decided_by_gateway_hooks() {
    let bus = bus().await;
    let event = Event::from_json("command:reset", json!({"command": "reset"}));
    let outcome = bus.hooks.emit(&event).await;
    assert_eq!(
        outcome.to_wire(),
        Some(json!({"decision": "deny", "message": "not here"}))
    );
}

#[tokio::test]
async fn webhooks_observe_without_steering_and_arrive_signed() {
    let bus = bus().await;
    let replies = bus
        .hooks
        .collect(&tool_call("read_file", json!({"path": "/x"})))
        .await;
    assert!(
        replies.iter().all(|r| !r.source.starts_with("outbound")),
        "{replies:?}"
    );
    let end = Event::from_json(
        HookEvent::OnSessionEnd,
        json!({"session_id": "s1", "completed": true}),
    );
    assert_eq!(bus.hooks.emit(&end).await, Outcome::Nothing);
    bus.hooks.flush(Duration::from_secs(5)).await;
    let received = bus.received.lock().expect("lock");
    let events: Vec<_> = received.iter().filter_map(|d| d.event.clone()).collect();
    assert_eq!(events, ["pre_tool_call", "on_session_end"]);
    assert!(
        received.iter().all(|d| d.verification.is_verified()),
        "{received:?}"
    );
}

#[tokio::test]
async fn an_unhooked_event_reaches_nobody() {
    let bus = bus().await;
    assert!(!bus.hooks.is_hooked(HookEvent::OnKanbanDispatchTick));
    assert!(bus.hooks.is_hooked(HookEvent::PreToolCall));
    assert!(bus.hooks.is_hooked(HookEvent::OnSessionEnd));
}
