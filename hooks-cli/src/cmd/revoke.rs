//! `hooks revoke COMMAND`: remove the allowlist entries of a command.

use std::io::Write;

use hermes_hooks_shell::Allowlist;

use crate::fire::plural;
use crate::setup::Home;

/// Removes every allowlist entry of `command`, under every event.
pub fn run(home: &Home, command: &str, out: &mut dyn Write) -> anyhow::Result<()> {
    let allowlist = Allowlist::in_home(&home.path);
    // The error names the file; a file that does not parse is left as it is.
    let removed = allowlist.revoke(command)?;
    if removed == 0 {
        writeln!(
            out,
            "No allowlist entry found for command: {}",
            hermes_hooks_shell::shown_hook_command(command)
        )?;
        return Ok(());
    }
    writeln!(
        out,
        "Removed {} for: {}",
        plural(removed, "allowlist entry", "allowlist entries"),
        hermes_hooks_shell::shown_hook_command(command)
    )?;
    writeln!(
        out,
        "Note: currently running CLI / gateway processes keep their already-registered \
         callbacks until they restart."
    )?;
    Ok(())
}
