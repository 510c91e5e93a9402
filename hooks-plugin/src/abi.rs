//! The C ABI a native plugin exports, re-exported from `hermes-hooks-plugin-sdk`,
//! which holds its one `#[repr(C)]` definition and documents the contract.
//!
//! These are plain declarations: reading what a library hands over happens
//! in this crate's private `ffi` module only.

pub use hermes_hooks_plugin_sdk::abi::*;
