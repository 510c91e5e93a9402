//! # hooks-outbound
//!
//! Outbound webhooks: signed JSON POSTs of lifecycle events to the targets in
//! `hooks.outbound:`. Implements [`hooks_core::Dispatcher`].

pub mod config;
pub mod signing;
