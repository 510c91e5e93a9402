//! Snapshots of the human output of `list` and `doctor` on a copy of the
//! example home (with its native plugins built), so a wording change
//! shows up in review. Temporary paths and timings become placeholders.

use crate::harness;
use crate::support::{self, Run, TempHome, example_plugin_library, example_plugins, transcript};

/// The example home's plugins (hooks-plugin/examples), by folder.
const PLUGINS: [(&str, &str); 3] = [
    ("guard", "plugin-guard"),
    ("context", "plugin-context"),
    ("redactor", "plugin-redactor"),
];

/// A scratch HOME whose `.hermes` is a copy of `examples/home`, its plugin
/// manifests naming the built libraries.
fn example_home() -> TempHome {
    let home = support::example_home();
    for (folder, package) in PLUGINS {
        let manifest = format!("plugins/{folder}/plugin.yaml");
        let text = std::fs::read_to_string(home.hermes.join(&manifest)).expect("manifest");
        let library = example_plugin_library(package);
        let text: String = text
            .lines()
            .map(|line| {
                if line.starts_with("library:") {
                    format!("library: {}\n", library.display())
                } else {
                    format!("{line}\n")
                }
            })
            .collect();
        home.write(&manifest, &text);
    }
    home
}

/// Runs `hooks ARGS` with a fixed interpreter choice and no webhook secret.
fn run(home: &TempHome, args: &[&str]) -> Run {
    let mut command = harness::command(home, args);
    command
        .env("HERMES_HOOKS_PYTHON", "python3")
        .env_remove("HERMES_DEMO_WEBHOOK_SECRET");
    harness::within(command, std::time::Duration::from_secs(120)).expect("hooks finishes")
}

fn snapshot(name: &str, home: &TempHome, args: &[&str]) {
    let run = run(home, args);
    let text =
        transcript(home, args, &run).replace(&example_plugins().display().to_string(), "[PLUGINS]");
    insta::with_settings!({
        filters => vec![
            (r"\d+\.\d+s\)", "[T]s)"),
            (r"approved \d{4}-\d\d-\d\dT[0-9:.]+Z?", "approved [TIME]"),
            // Where this machine's Python lives, and its version.
            (r"(interpreter: .*\)): \S+ \(Python [0-9.]+\)", "$1: [PYTHON]"),
            // What this machine's kernel offers a sandbox.
            (r"Sandbox support: .*", "Sandbox support: [THIS MACHINE]"),
        ],
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn list_on_the_example_home() {
    let home = example_home();
    snapshot("list_example_home_not_inspected", &home, &["list"]);
    // What `doctor` learnt by trial-loading is what `list` shows next.
    run(&home, &["doctor"]);
    snapshot("list_example_home", &home, &["list"]);
}

#[test]
fn doctor_on_the_example_home() {
    let home = example_home();
    snapshot("doctor_example_home_not_approved", &home, &["doctor"]);
    run(&home, &["approve", "--all"]).ok();
    snapshot("doctor_example_home_approved", &home, &["doctor"]);
}
