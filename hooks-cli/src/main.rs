//! The `hooks` command: list, test, emit, replay, approve, revoke, doctor,
//! events, listen and completions for Hermes-compatible hooks. Its interface
//! is stable: others script against it.

mod cli;
mod cmd;
mod fire;
mod help;
mod output;
mod payload;
mod setup;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::payload::UsageError;
use crate::setup::Home;

fn main() -> ExitCode {
    let cli = Cli::parse();
    output::init_logging(cli.verbose);
    output::set_home_flag(cli.home.as_deref());
    // The one runtime of the process: the commands, the host's mechanisms
    // (`setup.rs` hands it to the host) and the library's blocking helpers
    // (trial loads, inspections) all run on it.
    let runtime = match hermes_hooks_process::runtime::Background::start() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("hooks: cannot start the async runtime: {error}");
            return ExitCode::from(2);
        }
    };
    let _entered = runtime.enter();
    if !matches!(cli.command, Command::Listen(_) | Command::Deliver(_)) {
        // `listen` stops itself on Ctrl-C (its server winds down first);
        // `deliver` runs no hook, and drains its deliveries in flight on
        // SIGTERM/SIGINT before exiting 0.
        kill_trees_on_interrupt(&runtime);
    }
    let mut out = std::io::stdout();
    let result = runtime
        .handle()
        .block_on(run(&cli, &mut out))
        .and_then(|()| Ok(out.flush()?));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of stdout is gone (`hooks list | head -1`): nothing left to do.
        Err(error) if output::is_broken_pipe(&error) => ExitCode::SUCCESS,
        // `doctor` found problems and said which: status 1, nothing more to print.
        Err(error) if error.is::<cmd::doctor::ProblemsFound>() => ExitCode::from(1),
        Err(error) => {
            eprintln!("hooks: {}", error_text(&error));
            ExitCode::from(2)
        }
    }
}

/// On SIGINT, SIGTERM or SIGHUP: kills every process tree a hook, plugin
/// worker or gateway handler started (they run in process groups of their
/// own, so a terminal's Ctrl-C never reaches them, and no `Drop` runs when a
/// signal ends the process), then exits with the conventional status
/// (130, 143, 129).
///
/// The handlers are installed before any hook runs; a signal that arrives
/// earlier ends `hooks` by its default action, with nothing started yet.
fn kill_trees_on_interrupt(runtime: &hermes_hooks_process::runtime::Background) {
    use tokio::signal::unix::{SignalKind, signal};

    let _entered = runtime.enter();
    let installed = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    );
    let (Ok(mut interrupt), Ok(mut terminate), Ok(mut hangup)) = installed else {
        output::warn_once(
            "cannot handle SIGINT/SIGTERM/SIGHUP: an interrupted hook would keep running",
        );
        return;
    };
    runtime.handle().spawn(async move {
        let status = tokio::select! {
            _ = interrupt.recv() => 130,
            _ = terminate.recv() => 143,
            _ = hangup.recv() => 129,
        };
        hermes_hooks_process::kill_all_trees();
        std::process::exit(status);
    });
}

async fn run(cli: &Cli, out: &mut dyn Write) -> anyhow::Result<()> {
    match &cli.command {
        Command::Events(args) => cmd::events::run(args, out),
        Command::Listen(args) => cmd::listen::run(args).await,
        Command::Completions(args) => cmd::completions::completions(args, out),
        Command::Manpage => cmd::completions::manpage(out),
        Command::InspectNativePlugin { library } => {
            Ok(hermes_hooks_cli::inspect::run_child(library, out)?)
        }
        Command::TrialPythonPlugin { key, python, with } => {
            Ok(hermes_hooks_cli::inventory::trial::run_python_child(
                &hermes_hooks_cli::Home::load(cli.home.clone())?,
                key,
                with,
                python.as_deref(),
                out,
            )?)
        }
        Command::List(args) => cmd::list::run(&Home::load(cli)?, args, out),
        Command::Test(args) => cmd::test::run(&reading(cli)?, cli.accept_hooks, args, out).await,
        Command::Emit(args) => {
            let home = match reading(cli) {
                Ok(home) => home,
                // A host reading only the JSON still reads an outcome
                // (round 77, R77-U4); the command fails all the same.
                Err(error) if args.json => {
                    cmd::emit::print_unread_config(args, &error_text(&error), out)?;
                    return Err(error);
                }
                Err(error) => return Err(error),
            };
            cmd::emit::run(&home, cli.accept_hooks, args, out).await
        }
        Command::Replay(args) => {
            cmd::replay::run(&reading(cli)?, cli.accept_hooks, args, out).await
        }
        Command::Approve(args) => cmd::approve::run(&writing(cli)?, args, out),
        Command::Revoke { command } => cmd::revoke::run(&writing(cli)?, command, out),
        Command::Deliver(args) => cmd::deliver::run(&reading(cli)?, args, out).await,
        Command::Spool(args) => cmd::spool::run(&reading(cli)?, args, out),
        Command::Doctor(args) => cmd::doctor::run(&Home::load(cli)?, args, out).await,
    }
}

/// The home for a command that only reads it: one that does not exist is
/// probably a typo, worth a warning (there is nothing to run, but nothing is harmed).
fn reading(cli: &Cli) -> anyhow::Result<Home> {
    let home = Home::load(cli)?;
    if !home.path.is_dir() {
        // The same words as the host loader's, so the two never both show.
        output::warn_once(&format!(
            "the Hermes home {} does not exist; nothing is configured there",
            hermes_hooks_core::display::escape(&home.path.display().to_string())
        ));
    }
    Ok(home)
}

/// The home for a command that writes into it (the allowlist): one that does
/// not exist is an error, rather than a new home made from a typo.
fn writing(cli: &Cli) -> anyhow::Result<Home> {
    let home = Home::load(cli)?;
    if !home.path.is_dir() {
        return Err(UsageError(format!(
            "the Hermes home {} does not exist; give an existing one with --home or HERMES_HOME",
            hermes_hooks_core::display::escape(&home.path.display().to_string())
        ))
        .into());
    }
    Ok(home)
}

/// An error with its causes, each said once: a cause its message already
/// ends with (`cannot read: is a folder`) is not repeated.
fn error_text(error: &anyhow::Error) -> String {
    let mut text = error.to_string();
    for cause in error.chain().skip(1).map(ToString::to_string) {
        if !text.ends_with(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}
