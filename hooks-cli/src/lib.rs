//! # hooks-cli
//!
//! The `hooks` command for operators, over the facade [`hermes_hooks`]
//! (which owns [`Host`]), and what only the command line needs:
//!
//! - [`inventory`]: what a home configures, read without running any of it
//!   here (what `hooks list` prints and `hooks doctor` checks): the facade's
//!   [`hermes_hooks::inspect`]; its run side (a hook run once on a synthetic
//!   payload, recorded) is [`hermes_hooks::inspect::run`].
//! - [`inspect`]: native plugins described by a child process, so a library
//!   that crashes while loading is a finding, not the end of the caller
//!   ([`hermes_hooks::inspect::native`]).
//!
//! A host embeds [`hermes_hooks`] itself; the re-exports below keep the
//! command line's own modules short.

// docs.rs (`--cfg docsrs`, nightly) marks each item with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use hermes_hooks::{Home, Host, HostError, HostOptions, home, host, show_path};

/// What a home configures: the facade's inspection API.
pub use hermes_hooks::inspect as inventory;
/// Native plugins described by a child process (the `hooks` binary answers
/// [`inspect::INSPECT_SUBCOMMAND`]).
pub use hermes_hooks::inspect::native as inspect;
