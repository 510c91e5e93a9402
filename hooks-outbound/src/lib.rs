//! # hooks-outbound
//!
//! Outbound webhooks: signed JSON POSTs of lifecycle events to the targets in
//! `hooks.outbound:`. Implements [`hooks_core::Dispatcher`].

pub mod config;
mod delivery;
pub mod outbound;
mod queue;
pub mod receiver;
pub mod report;
pub mod request;
pub mod signing;
pub mod verify;

pub use config::{OutboundConfig, TargetSpec, parse_config, parse_config_with_env};
pub use outbound::{EnqueuedDelivery, Outbound, OutboundError, OutboundOptions};
pub use report::{DeliveryOutcome, DeliveryReport, OutboundStats};
pub use signing::Secret;
