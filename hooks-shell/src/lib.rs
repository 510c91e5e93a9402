//! # hooks-shell
//!
//! Shell hooks: `hooks:` entries in `$HERMES_HOME/config.yaml` run as
//! subprocesses that read the event as JSON on stdin and may answer on stdout
//! (block / modify a tool call, add LLM context, keep a turn going).
//! [`ShellHooks`] implements [`hermes_hooks_core::Dispatcher`].
//!
//! ```yaml
//! hooks:
//!   pre_tool_call:
//!     - matcher: "terminal|write_file"
//!       command: "~/.hermes/agent-hooks/secret-scan.sh"
//!       timeout: 10
//!       fail_closed: true
//! ```
//!
//! ```no_run
//! use hermes_hooks_core::{Config, Dispatcher, Event};
//! use hermes_hooks_shell::{Consent, RegisterOptions, ShellHooks};
//! use serde_json::json;
//!
//! # async fn demo() -> Result<(), hermes_hooks_core::ConfigError> {
//! let home = hermes_hooks_core::home::resolve_home(None);
//! let config = Config::load(&home)?;
//! let registration = ShellHooks::register(&config, RegisterOptions::new(Consent::from_environment(false)));
//! for warning in &registration.warnings {
//!     eprintln!("{warning}");
//! }
//! let event = Event::from_json("pre_tool_call", json!({"tool_name": "terminal", "args": {"command": "ls"}}));
//! let replies = registration.hooks.dispatch(&event).await; // e.g. [{"action": "block", ...}]
//! # let _ = replies; Ok(()) }
//! ```
//!
//! For the `hooks` command line: [`parse_config`] (what `list` and `doctor`
//! show, without registering), [`run_once`] (`test` and the doctor's smoke
//! test), [`synthetic_payload`], [`Allowlist`] (`revoke`, consent status),
//! [`script_path`], [`script_is_executable`], [`script_mtime_iso`],
//! [`mtime_drift`] and [`approval_drift`] (content hash first, then mtime).
//!
//! Shell hooks are the isolation story of the hook system: each runs in its
//! own process group, bounded by its own timeout, with no shell in between;
//! in-process plugins, by contrast, are trusted code.

// docs.rs (`--cfg docsrs`, nightly) marks each item with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod allowlist;
mod ansi_quotes;
pub mod binding;
mod build_folders;
mod bytecode;
pub mod clock;
pub mod config;
pub mod consent;
mod consent_book;
pub mod dialect;
pub mod dispatcher;
pub mod fingerprint;
mod gate;
mod git_env;
mod guard_record;
pub mod host_env;
pub mod launch;
pub mod queue;
pub mod record;
mod refusals;
mod register_options;
pub mod reply;
pub mod run;
pub mod safe_mode;
pub mod sandboxing;
pub mod schedule;
pub mod script;
pub mod snapshot;
pub mod standing;
pub mod synthetic;
pub mod unsandboxed;
mod verdict_words;
mod watched;

pub use allowlist::{ALLOWLIST_FILE, Allowlist, AllowlistError, AllowlistSnapshot, Approval};
pub use binding::{Binding, Subject};
pub use config::{
    DEFAULT_TIMEOUT_SECS, MAX_TIMEOUT_SECS, ShellConfig, ShellHookSpec, parse_config,
};
pub use consent::{Consent, Prompter, TerminalPrompter};
pub use dialect::{Dialect, ImportRegistration, ImportedHook, ImportedHooks};
pub use dispatcher::{RegisterOptions, Registration, ShellHooks, run_once};
pub use fingerprint::{approval_drift, code_sha256, still_approved};
pub use record::{record_run, record_spec_run, reply_field_problems};
pub use reply::{DEFAULT_BLOCK_MESSAGE, evaluate, parse_stdout};
pub use run::{RunResult, run_hook, run_with_input};
pub use script::{Drift, mtime_drift, script_is_executable, script_mtime_iso, script_path};
pub use standing::{Approved, Standing, standing};
pub use synthetic::synthetic_payload;

/// A hook's command (its consent key) as people are shown it, its text
/// escaped: an http hook's `POST <url>` with the URL's secrets masked
/// ([`shown_url`]), as every warning, log line and prompt prints it (sweep
/// 58, S58-1 and S58-3: the "not allowlisted" warning and the auto-approval
/// log printed `http://user:password@…?token=…` whole).
pub fn shown_hook_command(command: &str) -> String {
    let http = http_parts(command);
    let shown = match http {
        Some((method, url)) => format!("{method} {}", shown_url(url)),
        None => command.to_owned(),
    };
    hermes_hooks_core::display::escape(&shown).into_owned()
}

/// Whether `command` is an http hook's (`POST https://…`), not a shell
/// command.
pub fn is_http_command(command: &str) -> bool {
    http_parts(command).is_some()
}

/// An http hook's method and URL.
fn http_parts(command: &str) -> Option<(&str, &str)> {
    command.split_once(' ').filter(|(method, url)| {
        !method.is_empty()
            && method.chars().all(|c| c.is_ascii_uppercase())
            && (url.starts_with("http://") || url.starts_with("https://"))
    })
}

/// An http hook's URL as people are shown it: credentials, query values and
/// secret-looking path segments masked (`hermes_hooks_core::redact`). A build
/// without `http` cannot run such a hook and shows only where it would go.
pub fn shown_url(url: &str) -> String {
    #[cfg(feature = "http")]
    {
        hermes_hooks_core::redact::redact_url(url)
    }
    #[cfg(not(feature = "http"))]
    {
        let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
        let host = rest.split(['/', '?', '#']).next().unwrap_or("");
        let host = host.rsplit_once('@').map_or(host, |(_, host)| host);
        format!(
            "{}://{host}/***",
            url.split_once("://").map_or("http", |(s, _)| s)
        )
    }
}
