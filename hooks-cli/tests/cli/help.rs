//! Discoverable: every subcommand's `--help` has examples, environment and exit
//! status; completions for five shells; a man page.

use crate::support::TempHome;

const SUBCOMMANDS: [&str; 10] = [
    "list",
    "test",
    "emit",
    "replay",
    "approve",
    "revoke",
    "doctor",
    "events",
    "listen",
    "completions",
];

#[test]
fn every_help_has_examples_environment_and_exit_status() {
    let home = TempHome::new();
    let mut all = vec![vec!["--help"]];
    all.extend(SUBCOMMANDS.iter().map(|name| vec![*name, "--help"]));
    for args in all {
        let help = home.hooks(&args).ok();
        for section in [
            "Examples:",
            "Environment:",
            "Exit status:",
            "NO_COLOR",
            "HERMES_HOME",
        ] {
            assert!(help.contains(section), "{args:?} lacks {section}:\n{help}");
        }
    }
    let help = home.hooks(&["emit", "--help"]).ok();
    for variable in [
        "HERMES_ACCEPT_HOOKS",
        "HERMES_SAFE_MODE",
        "HERMES_HOOKS_PYTHON",
        "CLICOLOR_FORCE",
    ] {
        assert!(help.contains(variable), "emit --help lacks {variable}");
    }
}

#[test]
fn completions_for_every_shell() {
    let home = TempHome::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = home.hooks(&["completions", shell]).ok();
        assert!(
            script.contains("approve"),
            "{shell}: no subcommands in\n{script}"
        );
        assert!(script.contains("payload-file"), "{shell}");
    }
    assert_eq!(home.hooks(&["completions", "tcsh"]).code(), Some(2));
}

#[test]
fn the_man_page_is_roff() {
    let home = TempHome::new();
    let page = home.hooks(&["manpage"]).ok();
    assert!(
        page.starts_with(".ie") || page.contains(".TH hooks"),
        "{}",
        &page[..page.len().min(300)]
    );
    assert!(page.contains("approve"));
    // Hidden: not offered in the help.
    assert!(!home.hooks(&["--help"]).ok().contains("manpage"));
}
