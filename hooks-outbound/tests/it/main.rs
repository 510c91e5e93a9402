//! hooks-outbound integration tests: real HTTP on 127.0.0.1, one binary.
//!
//! The reference's §7.4 cases are named by number where they are ported.

mod concurrency;
mod delivery;
#[cfg(feature = "durable")]
mod durable;
mod failures;
mod hygiene;
mod isolation;
#[cfg(all(feature = "nats", feature = "durable"))]
mod jetstream;
mod receiver;
mod support;

use std::time::Duration;

use hermes_hooks_core::wire::WireContext;
use hermes_hooks_core::{Event, HookEvent};
use hermes_hooks_outbound::{OutboundOptions, Secret, TargetSpec};
use serde_json::json;

/// Options for tests: short retry delay, safe mode off, a fixed context.
pub fn options() -> OutboundOptions {
    OutboundOptions::default()
        .with_retry_delay(Duration::from_millis(50))
        .with_safe_mode(false)
        .with_context(WireContext::new("/work", "default"))
}

/// An unsigned target for `events`.
pub fn target(url: &str, events: &[HookEvent]) -> TargetSpec {
    TargetSpec::new(url, events.iter().copied())
}

/// A target signed with `secret`.
pub fn signed_target(url: &str, events: &[HookEvent], secret: &str) -> TargetSpec {
    let mut target = target(url, events);
    target.secret = Some(Secret::new(secret));
    target
}

/// A tool event for `tool`.
pub fn tool_event(event: HookEvent, tool: &str) -> Event {
    Event::from_json(
        event,
        json!({"tool_name": tool, "args": {"command": "ls -la"}, "session_id": "s1",
               "task_id": "t1", "tool_call_id": "c1"}),
    )
}

/// An `on_session_end` event like the doc's example.
pub fn session_end() -> Event {
    Event::from_json(
        HookEvent::OnSessionEnd,
        json!({"session_id": "sess_abc123", "completed": true, "interrupted": false}),
    )
}

/// Generous bound for "this finishes soon" on a loaded 2-core machine.
pub const SOON: Duration = Duration::from_secs(10);

/// The bound of a hang guard (no speed check): only a call that waits for
/// an endpoint that never answers gets there.
pub const HANG_GUARD: Duration = Duration::from_secs(300);
