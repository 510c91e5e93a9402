//! The command line: global flags and subcommands (a stable interface: others
//! script against them), with the examples, environment and exit codes each
//! `--help` shows.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::help;

/// Hermes-compatible hooks: list, test, emit, replay and inspect the hooks of a Hermes home.
#[derive(Debug, Parser)]
#[command(
    name = "hooks",
    version,
    propagate_version = true,
    after_long_help = help::MAIN
)]
pub struct Cli {
    /// The Hermes home (else $HERMES_HOME, else ~/.hermes).
    #[arg(long, global = true, value_name = "DIR")]
    pub home: Option<PathBuf>,

    /// Approve shell hooks that are not allowlisted yet (also HERMES_ACCEPT_HOOKS=1).
    #[arg(long, global = true)]
    pub accept_hooks: bool,

    /// The project whose Claude Code / Codex / Cursor hooks `hooks_from:` imports (default: the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    pub project: Option<PathBuf>,

    /// More log output on stderr (-v info, -vv debug).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Shell hooks, outbound targets, plugins and gateway hooks found.
    #[command(visible_alias = "ls", after_long_help = help::LIST)]
    List(ListArgs),
    /// Fire every configured shell hook for EVENT against a synthetic payload.
    #[command(after_long_help = help::TEST)]
    Test(TestArgs),
    /// Fire EVENT through every mechanism, as a host would.
    #[command(after_long_help = help::EMIT)]
    Emit(EmitArgs),
    /// Replay a recorded session (JSON lines of {"event", "payload"}).
    #[command(after_long_help = help::REPLAY)]
    Replay(ReplayArgs),
    /// Record consent for a configured shell hook without running it.
    #[command(after_long_help = help::APPROVE)]
    Approve(ApproveArgs),
    /// Remove the allowlist entries of COMMAND (under every event).
    #[command(visible_aliases = ["remove", "rm"], after_long_help = help::REVOKE)]
    Revoke {
        /// The hook command, exactly as configured.
        command: String,
    },
    /// Check everything configured; exit 1 when a problem is found.
    #[command(after_long_help = help::DOCTOR)]
    Doctor(DoctorArgs),
    /// The event catalog.
    #[command(after_long_help = help::EVENTS)]
    Events(EventsArgs),
    /// A local receiver that verifies and prints webhook deliveries.
    #[command(after_long_help = help::LISTEN)]
    Listen(ListenArgs),
    /// Deliver the durable spool of the home until stopped (SIGTERM drains, then exits 0).
    #[command(after_long_help = help::DELIVER)]
    Deliver(DeliverArgs),
    /// The durable spool: pending and dead deliveries; retry or purge them.
    #[command(after_long_help = help::SPOOL)]
    Spool(SpoolArgs),
    /// A completion script for SHELL, on stdout.
    #[command(after_long_help = help::COMPLETIONS)]
    Completions(CompletionsArgs),
    /// The man page (roff), on stdout; the release tooling installs it.
    #[command(hide = true)]
    Manpage,
    /// Internal: load one native plugin library and print what it registers as
    /// JSON (`list` and `doctor` run it in a child process, so a library that
    /// crashes while loading cannot take them down).
    #[command(name = "__inspect-native-plugin", hide = true)]
    InspectNativePlugin {
        /// The library file.
        library: PathBuf,
    },
    /// Internal: import and register one Python plugin of the home (by key)
    /// with the runtime's discovery and print what it registered as JSON
    /// (`doctor` runs it in a child process under its `--timeout`).
    #[command(name = "__trial-python-plugin", hide = true)]
    TrialPythonPlugin {
        /// The plugin key.
        key: String,
        /// The real interpreter behind the chosen one's shim, when known.
        #[arg(long, value_name = "PATH")]
        python: Option<PathBuf>,
        /// A plugin it requires, enabled with it (repeatable).
        #[arg(long = "with", value_name = "KEY")]
        with: Vec<String>,
    },
}

/// `hooks list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// One JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `hooks doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// One JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// How long each trial load (a plugin, a handler.py) may take, in
    /// seconds; they all run at once, so this bounds the whole check.
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = parse_seconds)]
    pub timeout: std::time::Duration,
}

/// A positive number of seconds (`5`, `0.5`).
fn parse_seconds(text: &str) -> Result<std::time::Duration, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number of seconds"))?;
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= 3600.0) {
        return Err(format!(
            "'{text}' must be more than 0 and at most 3600 seconds"
        ));
    }
    Ok(std::time::Duration::from_secs_f64(seconds))
}

/// `hooks test`.
#[derive(Debug, Args)]
pub struct TestArgs {
    /// The event to fire.
    pub event: String,
    /// Set the payload's tool_name (and filter hooks by their matcher).
    #[arg(long, value_name = "NAME")]
    pub for_tool: Option<String>,
    /// A JSON object merged into the synthetic payload (`-`: stdin; at most 16 MiB).
    #[arg(long, value_name = "FILE")]
    pub payload_file: Option<PathBuf>,
    /// One JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Say which accesses each sandboxed hook was denied (read from the
    /// kernel's errors on its stderr: EACCES, EPERM, EROFS, no network).
    #[arg(long)]
    pub explain: bool,
}

/// `hooks emit`.
#[derive(Debug, Args)]
pub struct EmitArgs {
    /// The event to fire (a catalog or gateway event).
    pub event: String,
    /// The payload, a JSON object (default: empty; `-`: stdin; at most 16 MiB).
    #[arg(long, value_name = "FILE")]
    pub payload_file: Option<PathBuf>,
    /// One JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `hooks replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The recorded session: one `{"event": ..., "payload": {...}}` per line.
    pub file: PathBuf,
    /// One JSON object per event, then a summary object, instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `hooks approve`.
#[derive(Debug, Args)]
pub struct ApproveArgs {
    /// The hook command, exactly as configured.
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    pub command: Option<String>,
    /// Approve it for this event only (default: every event it is configured for).
    #[arg(long, value_name = "EVENT", conflicts_with = "all")]
    pub event: Option<String>,
    /// List every configured shell hook and approve them all.
    #[arg(long)]
    pub all: bool,
}

/// `hooks events`.
#[derive(Debug, Args)]
pub struct EventsArgs {
    /// The catalog as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `hooks listen`.
#[derive(Debug, Args)]
pub struct ListenArgs {
    /// The port on 127.0.0.1.
    #[arg(long, default_value_t = 8644)]
    pub port: u16,
    /// The environment variable holding the signing secret.
    #[arg(long, value_name = "VAR")]
    pub secret_env: Option<String>,
    /// One JSON line per delivery.
    #[arg(long)]
    pub json: bool,
    /// Stop after this many deliveries (default: run until interrupted).
    #[arg(long, value_name = "N")]
    pub count: Option<u64>,
}

/// `hooks completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    pub shell: clap_complete::Shell,
}

/// `hooks deliver`.
#[derive(Debug, Args)]
pub struct DeliverArgs {
    /// Stop when the spool is empty or only backing-off deliveries remain (exit 0).
    #[arg(long, conflicts_with = "from")]
    pub once: bool,
    /// Consume a NATS JetStream stream instead of the spool: nats://HOST:PORT (or tls://).
    #[arg(long, value_name = "URL")]
    pub from: Option<String>,
    /// The stream to consume (with --from).
    #[arg(
        long,
        value_name = "NAME",
        default_value = "HERMES_HOOKS",
        requires = "from"
    )]
    pub stream: String,
    /// The subject prefix of the stream: events on SUBJECT.EVENT, dead letters on SUBJECT.dead.
    #[arg(
        long,
        value_name = "SUBJECT",
        default_value = "hermes.hooks",
        requires = "from"
    )]
    pub subject: String,
    /// The durable consumer every worker shares (with --from).
    #[arg(
        long,
        value_name = "NAME",
        default_value = "hooks-deliver",
        requires = "from"
    )]
    pub consumer: String,
    /// Attempts per message before it goes to SUBJECT.dead (with --from).
    #[arg(long, value_name = "N", default_value_t = 5, requires = "from")]
    pub max_deliver: i64,
    /// Seconds without an ack before JetStream redelivers a message (with --from).
    #[arg(long, value_name = "SECS", default_value_t = 30, requires = "from")]
    pub ack_wait: u64,
    /// The environment variable holding the NATS user (with --password-env).
    #[arg(long, value_name = "VAR", requires = "password_env")]
    pub user_env: Option<String>,
    /// The environment variable holding the NATS password.
    #[arg(long, value_name = "VAR", requires = "user_env")]
    pub password_env: Option<String>,
    /// The environment variable holding the NATS token.
    #[arg(long, value_name = "VAR")]
    pub token_env: Option<String>,
}

/// `hooks spool`.
#[derive(Debug, Args)]
pub struct SpoolArgs {
    /// One JSON object instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// What to do (default: list the pending and dead deliveries).
    #[command(subcommand)]
    pub action: Option<SpoolAction>,
}

/// `hooks spool retry` / `hooks spool purge`.
#[derive(Debug, Subcommand)]
pub enum SpoolAction {
    /// Make a delivery (pending or dead) due now; a dead one goes back to pending.
    Retry {
        /// The delivery id (as `hooks spool` lists it).
        #[arg(required_unless_present = "all", conflicts_with = "all")]
        delivery_id: Option<String>,
        /// Every pending and dead delivery.
        #[arg(long)]
        all: bool,
    },
    /// Delete every delivery in the spool (with --dead: only the dead letters).
    Purge {
        /// Only the dead letters.
        #[arg(long)]
        dead: bool,
    },
}
