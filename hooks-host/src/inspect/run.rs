//! The run side of `hooks test`, `hooks doctor` and `hooks approve`: one
//! configured or imported shell hook run once on a synthetic payload and
//! recorded, the fields of a reply its event does not take, the sandbox's
//! denials explained, the subject an approval binds described, and the
//! event tables of the imported dialects.
//!
//! These are the shell mechanism's own functions, kept out of
//! `hermes-hooks-shell`'s documented API (`#[doc(hidden)]` there: only this
//! inspection API uses them) and offered here, beside the inventory they
//! act on.

/// What an approval of `subject` binds, in the consent prompt's words.
#[doc(inline)]
pub use hermes_hooks_shell::consent::describe_subject;
/// Our tool name for a tool name of Claude Code's (`Bash` is `terminal`).
#[doc(inline)]
pub use hermes_hooks_shell::dialect::events::our_tool;
/// The Claude Code and Cursor event names, each with ours (`hooks events`,
/// and a payload file given in a dialect's own shape).
#[doc(inline)]
pub use hermes_hooks_shell::dialect::events::{CLAUDE_EVENTS, CURSOR_EVENTS};
/// An imported hook run once on an event: its result and parsed replies,
/// bare or with the run record a host would keep.
#[doc(inline)]
pub use hermes_hooks_shell::dialect::{run_imported_once, run_imported_recorded};
/// Seconds as the reference prints them (`0.012s`).
#[doc(inline)]
pub use hermes_hooks_shell::reply::format_seconds;
/// What the sandbox denied a run, one line each.
#[doc(inline)]
pub use hermes_hooks_shell::sandboxing::explain as sandbox_denials;
/// The run record of a configured hook run once, the fields of a reply its
/// event does not take, and the synthetic payload `test`/`doctor` send.
#[doc(inline)]
pub use hermes_hooks_shell::{record_spec_run, reply_field_problems, synthetic_payload};
