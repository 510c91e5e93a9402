//! The conformance suite: every event of the user documentation's catalog
//! (37), each merge shape the documentation names, through hermes-agent
//! 0.20.1's `PluginManager.invoke_hook` (a Python subprocess, `conformance/
//! reference.py`) and through `hooks emit` in the same test, with the same
//! plugin file; and an outbound webhook's body and headers from both, diffed
//! field by field (`conformance/outbound.rs`).
//!
//! Where ours differs on purpose, the case names its file in
//! `docs/decisions/` and the outcome we give instead; any other difference
//! fails. Without the reference the suite skips on a developer's machine and
//! fails in CI (`test_support::reference`).

mod cases;
mod outbound;

use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

use crate::harness;
use crate::support::TempHome;
use cases::{Case, all_cases};

const PLUGIN: &str = include_str!("conformance/plugin.py");
const REFERENCE: &str = include_str!("conformance/reference.py");

/// A home with the conformance plugin enabled, registered on every event of `events`.
fn plugin_home(events: &[&str]) -> TempHome {
    let home = TempHome::new();
    home.write(
        "plugins/conformance/plugin.yaml",
        "name: conformance\nversion: 1.0.0\ndescription: conformance suite\n",
    );
    home.write("plugins/conformance/__init__.py", PLUGIN);
    home.write(
        "plugins/conformance/events.json",
        &Value::from(events.to_vec()).to_string(),
    );
    home.write("plugins/conformance/replies.json", "{}");
    home.config("plugins:\n  enabled: [conformance]\n");
    home
}

/// What the plugin's callbacks returned and what the host made of it.
#[derive(Debug, Clone, PartialEq)]
struct Observed {
    results: Value,
    outcome: Value,
}

/// How many `hooks emit` run at once: each mostly waits on its Python worker's start.
const WORKERS: usize = 4;

/// Every case through `hooks emit` (one process per case, as a host fires one
/// event), [`WORKERS`] at a time, each worker in a home of its own made by `home`.
fn ours(home: impl Fn() -> TempHome + Sync, cases: &[Case]) -> Vec<Observed> {
    let next = AtomicUsize::new(0);
    let observed = Mutex::new(vec![None; cases.len()]);
    std::thread::scope(|scope| {
        for _ in 0..WORKERS {
            scope.spawn(|| {
                let home = home();
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(case) = cases.get(index) else { break };
                    let one = our_one(&home, case);
                    observed
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)[index] = Some(one);
                }
            });
        }
    });
    observed
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .into_iter()
        .map(|one| one.expect("every case ran"))
        .collect()
}

/// One case through `hooks emit` in `home`.
fn our_one(home: &TempHome, case: &Case) -> Observed {
    home.write(
        "plugins/conformance/replies.json",
        &json!({case.event: case.replies}).to_string(),
    );
    let run = crate::support::Run(
        harness::emit_json(home, case.event, &case.payload)
            .env_remove("HERMES_HOOKS_PYTHON")
            .output()
            .expect("run hooks emit"),
    );
    let document = run.json();
    let results = document["replies"]
        .as_array()
        .map(|replies| replies.iter().map(|reply| reply["reply"].clone()).collect())
        .unwrap_or_default();
    Observed {
        results: Value::Array(results),
        outcome: document["outcome"].clone(),
    }
}

/// Every case through the reference, in one Python process.
fn reference(python: &Path, home: &TempHome, cases: &[Case]) -> Vec<Observed> {
    let cases_json: Vec<Value> = cases
        .iter()
        .map(|case| json!({"event": case.event, "payload": case.payload, "replies": case.replies}))
        .collect();
    let file = home.write("cases.json", &Value::Array(cases_json).to_string());
    let output = Command::new(python)
        .arg("-c")
        .arg(REFERENCE)
        .arg(&home.hermes)
        .arg(&file)
        .env("HOME", &home.user_home)
        .env_remove("HERMES_SAFE_MODE")
        .output()
        .expect("run the reference");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the reference failed:\n{}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    let line = stdout.lines().last().unwrap_or_default();
    let answers: Vec<Value> = serde_json::from_str(line)
        .unwrap_or_else(|error| panic!("reference output ({error}): {stdout}"));
    answers
        .into_iter()
        .map(|answer| Observed {
            results: answer["results"].clone(),
            outcome: answer["outcome"].clone(),
        })
        .collect()
}

#[test]
fn every_documented_event_and_merge_shape_as_in_the_reference() {
    let cases = all_cases();
    let events = cases::documented_events();
    assert_eq!(events.len(), 37, "the documentation's catalog");
    for event in &events {
        assert!(
            cases.iter().any(|case| case.event == *event),
            "no case fires {event}"
        );
    }
    let python = test_support::reference::python();
    // Ours and the reference's run side by side: both mostly wait on Python.
    let (observed, expected) = harness::side_by_side(
        || ours(|| plugin_home(&events), &cases),
        || {
            let python = python.as_deref()?;
            Some(reference(python, &plugin_home(&events), &cases))
        },
    );
    let (Some(python), Some(expected)) = (python, expected) else {
        return;
    };
    let mut differences = Vec::new();
    for ((case, ours), theirs) in cases.iter().zip(&observed).zip(&expected) {
        if let Some(difference) = case.compare(ours, theirs) {
            differences.push(difference);
        }
    }
    let by_design = cases.iter().filter(|case| case.by_design.is_some()).count();
    eprintln!(
        "conformance: {} cases over {} events against hermes-agent {}; {by_design} differ by design",
        cases.len(),
        events.len(),
        test_support::reference::version(&python).unwrap_or_else(|| "?".into())
    );
    assert!(
        differences.is_empty(),
        "{} difference(s) from the reference:\n\n{}",
        differences.len(),
        differences.join("\n\n")
    );
}
