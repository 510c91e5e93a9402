//! # hooks-outbound
//!
//! Outbound webhooks for Hermes-compatible agents: every matching lifecycle
//! event is POSTed as signed JSON to the targets in `hooks.outbound:` of
//! `config.yaml`, without ever stalling the agent. [`Outbound`] implements
//! [`hermes_hooks_core::Dispatcher`]; [`verify`] and [`receiver`] are the other end.
//!
//! ```no_run
//! use std::time::Duration;
//! use hermes_hooks_core::{Config, Dispatcher, Event, HookEvent};
//! use hermes_hooks_outbound::{Outbound, OutboundOptions};
//! use serde_json::json;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let home = hermes_hooks_core::home::resolve_home(None);
//! let config = Config::load(&home)?;
//! // Lanes are spawned on the current tokio runtime.
//! let (outbound, warnings) = Outbound::from_config(&config, OutboundOptions::default())?;
//! for warning in &warnings {
//!     eprintln!("{warning}");
//! }
//! let event = Event::from_json(HookEvent::OnSessionEnd, json!({"session_id": "s1"}));
//! let accepted = outbound.enqueue(&event); // or `outbound.dispatch(&event).await`
//! outbound.flush(Duration::from_secs(5)).await; // at shutdown: at most 5 s
//! for report in outbound.take_reports() {
//!     println!("{} {} {}", report.target, report.delivery_id, report.outcome.as_str());
//! }
//! # let _ = accepted; Ok(()) }
//! ```
//!
//! ## What is sent
//! The body is [`hermes_hooks_core::wire::HookDocument`] (`hook_event_name`,
//! `tool_name`, `tool_input`, `session_id`, `cwd`, `profile`, `extra`) plus
//! `delivery_id` (32 hex digits) and `timestamp` (UTC ISO 8601 with
//! microseconds and `Z`), serialised once and sent as signed. Headers:
//! `Content-Type`, `User-Agent: Hermes-Agent-Outbound-Webhook`,
//! `X-Hermes-Event`, `X-Hermes-Delivery`, and with a secret
//! `X-Hermes-Signature-256` and `X-Hub-Signature-256` (`sha256=<hex>`); with
//! `standard_webhooks: true` also `webhook-id`, `webhook-timestamp`,
//! `webhook-signature`. See [`request`].
//!
//! ## How it is delivered
//! - `dispatch` builds the bodies on the caller (one serialisation of the
//!   borrowed event, then an id and timestamp spliced in per target) and queues
//!   them; signing happens on the lane worker. It never waits for the network
//!   and never returns a reply (webhooks observe, never steer).
//! - Each target has its own lane: a bounded queue, its slots allocated when
//!   the lane is made, served by two tasks with up to `concurrency` requests
//!   in flight between them (the target's key, 1–64, default 4), so a fast receiver is
//!   kept busy and a retry's wait holds one slot, not the lane. The emitting
//!   thread wakes a lane only when it waited for work, and a lane that had
//!   work in the last 5 ms looks by itself instead (every 1 ms, or at once
//!   when a push fills half its queue): a burst costs at most two wake-ups. Above 1, deliveries may arrive out of order (the doc
//!   promises no order; receivers dedupe on `delivery_id`); `concurrency: 1`
//!   keeps them FIFO. The queue capacity (256 by default) is split evenly
//!   between the lanes (deliveries in flight are not counted in it); a full
//!   lane drops the *new* event with a warning and a `Dropped` report, and a
//!   dead target only fills its own lane. A target's label is computed once,
//!   when the lane is made.
//! - 2xx is delivered; 3xx is never followed (logged with its `Location`); 4xx
//!   is not retried; connection errors, timeouts and 5xx are retried once after
//!   1 s. The timeout (1–60 s, default 10) bounds each whole attempt.
//! - One shared HTTP client keeps connections alive (up to `concurrency`
//!   per target in use at once). Proxies from the
//!   environment (`HTTPS_PROXY`, ...) are honoured, as the reference does.
//! - `HERMES_SAFE_MODE=1` registers no target.
//! - Secrets and signatures never appear in logs, `Debug` output or reports;
//!   neither do credentials inside URLs ([`redact`]).
//!
//! ## Features
//! - `sender` (default): [`Outbound`], the dispatcher that delivers webhooks
//!   (reqwest with rustls).
//! - `receiver` (default): [`receiver`], a local server that verifies and
//!   prints deliveries (hyper, no TLS client).
//! - `durable` (default): [`spool`], the SQLite spool of `delivery: durable`
//!   targets (rusqlite, SQLite bundled) and its delivery worker.
//! - `nats` (default): `url: nats://` targets on NATS JetStream and the
//!   stream worker of `hooks deliver --from` (`nats`, async-nats).
//!
//! [`verify`] and [`signing`] are always there: a service that only checks
//! signatures builds `--no-default-features` and pulls neither HTTP stack.
//! These four are the only features: optional dependencies are enabled with
//! `dep:`, so none of them (`tokio`, `reqwest`, ...) is a feature of its own.
//!
//! hooks-outbound depends on hooks-core only, and on no sibling mechanism.
//!

// docs.rs (`--cfg docsrs`, nightly) marks each item with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
// The links above name modules and types of optional features: a build
// without one points them at the feature list, so the docs of every feature
// set build with `-D warnings` (rustdoc joins these lines to the text above, after its blank line).
#![cfg_attr(
    feature = "sender",
    doc = "[`Outbound`]: crate::Outbound\n[`request`]: crate::request\n[`redact`]: crate::redact"
)]
#![cfg_attr(
    not(feature = "sender"),
    doc = "[`Outbound`]: crate#features\n[`request`]: crate#features\n[`redact`]: crate#features"
)]
#![cfg_attr(feature = "receiver", doc = "[`receiver`]: crate::receiver")]
#![cfg_attr(not(feature = "receiver"), doc = "[`receiver`]: crate#features")]
#![cfg_attr(feature = "durable", doc = "[`spool`]: crate::spool")]
#![cfg_attr(not(feature = "durable"), doc = "[`spool`]: crate#features")]

/// The tokio this crate is built on, re-exported on purpose as part of its
/// API: the spool worker runs on the host's runtime
/// (`spool::SpoolWorker::spawn` takes its `Handle`), delivery reports
/// arrive on a `broadcast` channel (`outbound::Outbound::subscribe`) and
/// the receiver serves a `TcpListener` (`receiver::serve_with`). Name those
/// types through this re-export and the versions always match.
#[cfg(any(feature = "sender", feature = "receiver"))]
pub use tokio;

/// A prepared delivery's body ([`request::PreparedDelivery::body`]): the
/// `bytes` crate's `Bytes` (through hyper), re-exported on purpose, since a
/// retry resends the same bytes without copying them.
#[cfg(feature = "sender")]
pub use hyper::body::Bytes;

/// `with_<field>` setters for a `#[non_exhaustive]` struct, so code outside
/// this crate builds one from `Default` (or `new`) and keeps compiling when
/// it gains fields.
#[allow(unused_macros)]
macro_rules! setters {
    ($type:ident { $($setter:ident => $field:ident: $ty:ty),* $(,)? }) => {
        impl $type {
            $(
                #[doc = concat!("Sets `", stringify!($field), "`.")]
                #[must_use]
                pub fn $setter(mut self, value: $ty) -> Self {
                    self.$field = value;
                    self
                }
            )*
        }
    };
}

#[cfg(feature = "sender")]
pub mod config;
#[cfg(feature = "sender")]
mod delivery;
#[cfg(feature = "sender")]
mod jobs;
#[cfg(feature = "nats")]
pub mod nats;
#[cfg(feature = "sender")]
pub mod outbound;
#[cfg(feature = "sender")]
mod pool;
#[cfg(feature = "sender")]
mod queue;
#[cfg(feature = "receiver")]
pub mod receiver;
/// Webhook URLs as people may see them: credentials never shown (the
/// contract's [`hermes_hooks_core::redact`], which http hooks share).
#[cfg(feature = "sender")]
pub use hermes_hooks_core::redact;
pub mod report;
#[cfg(feature = "sender")]
pub mod request;
pub mod signing;
#[cfg(feature = "durable")]
pub mod spool;
pub mod verify;

#[cfg(feature = "sender")]
pub use config::{
    DeliveryMode, Durability, OutboundConfig, TargetSpec, parse_config, parse_config_with_env,
};
#[cfg(feature = "sender")]
pub use outbound::{
    EnqueuedDelivery, EventDeliveries, Outbound, OutboundError, OutboundOptions, SpoolLeft,
    SpoolStatus,
};
#[cfg(feature = "sender")]
pub use report::{DeliveryOutcome, DeliveryReport, DeliveryTotals, OutboundStats, ReportBatch};
pub use signing::Secret;
