//! The command line: global flags and subcommands (DESIGN.md fixes them; others script against them).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Hermes-compatible hooks: list, test, emit, replay and inspect the hooks of a Hermes home.
#[derive(Debug, Parser)]
#[command(name = "hooks", version, about, propagate_version = true)]
pub struct Cli {
    /// The Hermes home (else $HERMES_HOME, else ~/.hermes).
    #[arg(long, global = true, value_name = "DIR")]
    pub home: Option<PathBuf>,

    /// Approve shell hooks that are not allowlisted yet (also HERMES_ACCEPT_HOOKS=1).
    #[arg(long, global = true)]
    pub accept_hooks: bool,

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
    #[command(visible_alias = "ls")]
    List(ListArgs),
    /// Fire every configured shell hook for EVENT against a synthetic payload.
    Test(TestArgs),
    /// Fire EVENT through every mechanism, as a host would.
    Emit(EmitArgs),
    /// Replay a recorded session (JSON lines of {"event", "payload"}).
    Replay(ReplayArgs),
    /// Remove the allowlist entries of COMMAND (under every event).
    #[command(visible_aliases = ["remove", "rm"])]
    Revoke {
        /// The hook command, exactly as configured.
        command: String,
    },
    /// Check every configured shell hook.
    Doctor(DoctorArgs),
    /// The event catalog.
    Events(EventsArgs),
    /// A local receiver that verifies and prints webhook deliveries.
    Listen(ListenArgs),
    /// Internal: load one native plugin library and print what it registers as
    /// JSON (`list` and `doctor` run it in a child process, so a library that
    /// crashes while loading cannot take them down).
    #[command(name = "__inspect-native-plugin", hide = true)]
    InspectNativePlugin {
        /// The library file.
        library: PathBuf,
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
}

/// `hooks test`.
#[derive(Debug, Args)]
pub struct TestArgs {
    /// The event to fire.
    pub event: String,
    /// Set the payload's tool_name (and filter hooks by their matcher).
    #[arg(long, value_name = "NAME")]
    pub for_tool: Option<String>,
    /// A JSON object merged into the synthetic payload.
    #[arg(long, value_name = "FILE")]
    pub payload_file: Option<PathBuf>,
    /// One JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `hooks emit`.
#[derive(Debug, Args)]
pub struct EmitArgs {
    /// The event to fire (a catalog or gateway event).
    pub event: String,
    /// The payload, a JSON object (default: empty).
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
