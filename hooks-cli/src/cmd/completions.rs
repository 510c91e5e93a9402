//! `hooks completions SHELL` and the hidden `hooks manpage`: generated from the
//! clap definitions, so they never drift from the real flags.

use std::io::Write;

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};

/// Writes the completion script for the shell asked for.
pub fn completions(args: &CompletionsArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    // Generated into memory first: the generators panic on a failed write,
    // and a closed pipe must end the command quietly instead.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "hooks", &mut script);
    out.write_all(&script)?;
    Ok(())
}

/// Writes the roff man page of `hooks` (the release tooling installs it).
pub fn manpage(out: &mut dyn Write) -> anyhow::Result<()> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut page)?;
    out.write_all(&page)?;
    Ok(())
}
