//! The `hooks` command: list, test, emit, replay, revoke, doctor, events and
//! listen for Hermes-compatible hooks. DESIGN.md fixes its interface.

mod cli;
mod cmd;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.verbose);
    let mut out = std::io::stdout().lock();
    let result = match &cli.command {
        Command::Events(args) => cmd::events::run(args, &mut out),
        _ => Err(anyhow::anyhow!("not wired yet")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("hooks: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("HOOKS_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .without_time()
        .init();
}
