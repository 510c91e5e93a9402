//! Running both CLIs: one temporary home per group of cases that share the
//! command line (event, `--for-tool`, `--payload-file`), so the slow Python
//! CLI starts once per group; each report is then split back per case by the
//! hooks' commands, which are unique in a group.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::model::{Case, Fired, Report, RunEnd, nothing};
use crate::support::TempHome;

/// The reference CLI, if it is installed here: `$HERMES_REFERENCE_BIN`, else
/// the `hermesx` beside `$HERMES_REFERENCE_PYTHON` (`bash .ci/run` installs
/// hermes-agent 0.20.1 and sets both). Without it the table is checked alone
/// on a developer's machine; in CI that fails ([`test_support::reference::cli`]).
pub fn reference_bin() -> Result<PathBuf, PathBuf> {
    test_support::reference::cli().ok_or_else(|| PathBuf::from("(HERMES_REFERENCE_BIN is not set)"))
}

/// The most cases one home holds: both CLIs run a home's hooks one after
/// another, so a bigger group would be the long pole of the whole test.
const MAX_GROUP: usize = 35;

/// Indices of `cases` grouped by identical command line (at most
/// [`MAX_GROUP`] per group), the groups with the most hooks first.
pub fn group_by_command_line(cases: &[Case]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (index, case) in cases.iter().enumerate() {
        let same_line = |other: &Case| {
            (other.event, other.for_tool, other.payload_file)
                == (case.event, case.for_tool, case.payload_file)
        };
        let open = groups
            .iter_mut()
            .find(|group| group.len() < MAX_GROUP && same_line(&cases[group[0]]));
        match open {
            Some(group) => group.push(index),
            None => groups.push(vec![index]),
        }
    }
    let hook_count =
        |group: &Vec<usize>| -> usize { group.iter().map(|&index| cases[index].hooks.len()).sum() };
    groups.sort_by_key(|group| std::cmp::Reverse(hook_count(group)));
    groups
}

/// A group's home, with every case's hooks written and configured.
pub struct Prepared {
    pub home: TempHome,
    /// The configured commands of each case, in the group's order.
    pub commands: Vec<Vec<String>>,
}

/// Writes every hook of the cases `ids` into one home and one `config.yaml`.
pub fn prepare(cases: &[Case], ids: &[usize]) -> Prepared {
    let home = TempHome::new();
    let event = cases[ids[0]].event;
    let mut config = format!("hooks:\n  {event}:\n");
    let mut commands = Vec::new();
    for &id in ids {
        let mut case_commands = Vec::new();
        for (position, hook) in cases[id].hooks.iter().enumerate() {
            // The prefix keeps files, and so commands, unique across the group.
            let relative = format!("c{id}h{position}-{}", hook.file);
            let path = home.hermes.join(&relative);
            if let Some(body) = &hook.body {
                home.write(&relative, body);
                let mode = if hook.executable { 0o755 } else { 0o644 };
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))
                    .expect("chmod hook");
            }
            let command = hook
                .command
                .replace(
                    "{script_dir}",
                    &path.parent().unwrap_or(&path).display().to_string(),
                )
                .replace("{script}", &path.display().to_string())
                .replace("{name}", &relative);
            // Both CLIs report the command as configured, surrounding whitespace stripped.
            let command = command.trim().to_owned();
            let quoted = serde_json::to_string(&command).expect("a string serialises");
            config.push_str(&format!("    - command: {quoted}\n"));
            for option in &hook.options {
                config.push_str(&format!("      {option}\n"));
            }
            case_commands.push(command);
        }
        commands.push(case_commands);
    }
    let all: Vec<&String> = commands.iter().flatten().collect();
    for (index, command) in all.iter().enumerate() {
        assert!(
            !all[..index].contains(command),
            "two hooks of one group share the command {command}: give one a {{script}} path"
        );
    }
    home.config(&config);
    Prepared { home, commands }
}

/// One CLI's report for a whole group: fired hooks by command, or an unknown event.
#[derive(Debug)]
pub enum Listing {
    Hooks(Vec<(String, Fired)>),
    UnknownEvent,
}

impl Listing {
    /// The part of the listing that belongs to a case with `commands`, and
    /// the commands that fired, in order.
    pub fn select(&self, commands: &[String]) -> (Report, Vec<String>) {
        match self {
            Listing::UnknownEvent => (Report::UnknownEvent, Vec::new()),
            Listing::Hooks(hooks) => {
                let mine: Vec<&(String, Fired)> = hooks
                    .iter()
                    .filter(|(command, _)| commands.contains(command))
                    .collect();
                let fired = mine.iter().map(|(_, fired)| fired.clone()).collect();
                let names = mine.iter().map(|(command, _)| command.clone()).collect();
                (Report::Hooks(fired), names)
            }
        }
    }
}

fn test_arguments(case: &Case) -> Vec<String> {
    let mut args = vec!["test".to_owned(), case.event.to_owned()];
    if let Some(tool) = case.for_tool {
        args.extend(["--for-tool".to_owned(), tool.to_owned()]);
    }
    if let Some(fixture) = case.payload_file {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/reference")
            .join(fixture);
        args.extend(["--payload-file".to_owned(), path.display().to_string()]);
    }
    args
}

/// Runs `hooks test ... --json` for the group whose first case is `case`.
pub fn run_ours(home: &TempHome, case: &Case) -> Result<Listing, String> {
    let mut args = test_arguments(case);
    args.push("--json".to_owned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = home.hooks(&args);
    if run.code() != Some(0) {
        return Err(format!(
            "`hooks {}` exited {:?}\nstderr: {}",
            args.join(" "),
            run.code(),
            run.stderr()
        ));
    }
    let document: Value = serde_json::from_str(run.stdout().trim()).map_err(|error| {
        format!(
            "`hooks test --json` printed no JSON ({error}): {}",
            run.stdout()
        )
    })?;
    let hooks = document["hooks"]
        .as_array()
        .ok_or_else(|| format!("no `hooks` array in {document}"))?;
    let listing = hooks
        .iter()
        .map(|hook| {
            let end = if !hook["error"].is_null() {
                RunEnd::SpawnError
            } else if hook["timed_out"] == Value::Bool(true) {
                RunEnd::TimedOut
            } else {
                RunEnd::Exited
            };
            let parsed = Some(hook["parsed"].clone()).filter(|parsed| !parsed.is_null());
            let command = hook["command"].as_str().unwrap_or_default().to_owned();
            (command, Fired { end, parsed })
        })
        .collect();
    Ok(Listing::Hooks(listing))
}

/// Runs `hermes hooks test ...` with `HOME` and `HERMES_HOME` pointing at the group's home.
pub fn run_reference(bin: &Path, home: &TempHome, case: &Case) -> Result<Listing, String> {
    let args = test_arguments(case);
    let output = Command::new(bin)
        .arg("hooks")
        .args(&args)
        .env("HOME", &home.user_home)
        .env("HERMES_HOME", &home.hermes)
        .env_remove("HERMES_ACCEPT_HOOKS")
        .env_remove("HERMES_SAFE_MODE")
        .current_dir(&home.user_home)
        .output()
        .map_err(|error| format!("cannot run {}: {error}", bin.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(format!(
            "`hermes hooks {}` failed ({}):\n{stdout}\n{stderr}",
            args.join(" "),
            output.status
        ));
    }
    parse_reference_output(&stdout).map_err(|problem| format!("{problem}\nstderr: {stderr}"))
}

/// Reads `hermes hooks test` text: `  → <command>` opens a hook; `✗ error:` and
/// `✗ timed out` end it without a `parsed` line; otherwise `parsed (Hermes
/// wire shape): <json>` or `parsed: <none ...>` gives its decision.
pub fn parse_reference_output(stdout: &str) -> Result<Listing, String> {
    if stdout.starts_with("Unknown event:") {
        return Ok(Listing::UnknownEvent);
    }
    let mut hooks: Vec<(String, Fired)> = Vec::new();
    for line in stdout.lines() {
        let line = line.trim_start();
        if let Some(command) = line.strip_prefix("→ ") {
            hooks.push((command.to_owned(), nothing()));
            continue;
        }
        let Some((_, current)) = hooks.last_mut() else {
            continue;
        };
        if line.starts_with("✗ error:") {
            current.end = RunEnd::SpawnError;
        } else if line.starts_with("✗ timed out") {
            current.end = RunEnd::TimedOut;
        } else if let Some(json) = line.strip_prefix("parsed (Hermes wire shape): ") {
            let value = serde_json::from_str(json)
                .map_err(|error| format!("unreadable parsed line ({error}): {line}"))?;
            current.parsed = Some(value);
        }
    }
    if hooks.is_empty() && !stdout.contains("No shell hooks configured for event") {
        return Err(format!("unexpected `hermes hooks test` output:\n{stdout}"));
    }
    Ok(Listing::Hooks(hooks))
}

/// `expected` with `{command}` in every string replaced by the command of the
/// hook at the same position in `fired`.
pub fn with_commands(expected: &Report, fired: &[String]) -> Report {
    match expected {
        Report::UnknownEvent => Report::UnknownEvent,
        Report::Hooks(hooks) => Report::Hooks(
            hooks
                .iter()
                .enumerate()
                .map(|(position, hook)| {
                    let command = fired.get(position).map_or("{command}", String::as_str);
                    Fired {
                        end: hook.end,
                        parsed: hook
                            .parsed
                            .as_ref()
                            .map(|value| replace_in_strings(value, command)),
                    }
                })
                .collect(),
        ),
    }
}

fn replace_in_strings(value: &Value, command: &str) -> Value {
    match value {
        Value::String(text) => Value::String(text.replace("{command}", command)),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| replace_in_strings(item, command))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, item)| (key.clone(), replace_in_strings(item, command)))
                .collect(),
        ),
        other => other.clone(),
    }
}
