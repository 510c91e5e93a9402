//! The `hooks` command: list, test, emit, replay, revoke, doctor, events and
//! listen for Hermes-compatible hooks. DESIGN.md fixes its interface: others
//! script against it.

mod cli;
mod cmd;
mod fire;
#[allow(dead_code)] // Stream::Stdout and note() are adopted by the commands next.
mod output;
mod payload;
mod setup;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::setup::Home;

fn main() -> ExitCode {
    let cli = Cli::parse();
    output::init_logging(cli.verbose);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("hooks: cannot start the async runtime: {error}");
            return ExitCode::from(2);
        }
    };
    let mut out = std::io::stdout();
    let result = runtime.block_on(run(&cli, &mut out));
    let _ = out.flush();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of stdout is gone (`hooks list | head -1`): nothing left to do.
        Err(error) if output::is_broken_pipe(&error) => ExitCode::SUCCESS,
        // `doctor` found problems and said which: status 1, nothing more to print.
        Err(error) if error.is::<cmd::doctor::ProblemsFound>() => ExitCode::from(1),
        Err(error) => {
            eprintln!("hooks: {error:#}");
            ExitCode::from(2)
        }
    }
}

async fn run(cli: &Cli, out: &mut dyn Write) -> anyhow::Result<()> {
    match &cli.command {
        Command::Events(args) => cmd::events::run(args, out),
        Command::Listen(args) => cmd::listen::run(args).await,
        Command::InspectNativePlugin { library } => {
            Ok(hooks_cli::inspect::run_child(library, out)?)
        }
        Command::List(args) => cmd::list::run(&Home::load(cli)?, args, out),
        Command::Test(args) => cmd::test::run(&Home::load(cli)?, args, out).await,
        Command::Emit(args) => cmd::emit::run(&Home::load(cli)?, cli.accept_hooks, args, out).await,
        Command::Replay(args) => {
            cmd::replay::run(&Home::load(cli)?, cli.accept_hooks, args, out).await
        }
        Command::Revoke { command } => cmd::revoke::run(&Home::load(cli)?, command, out),
        Command::Doctor(args) => cmd::doctor::run(&Home::load(cli)?, args, out).await,
    }
}
