//! `hooks test` agrees with `hermesx hooks test` (hermes-agent 0.20.1).
//!
//! A table of cases (event, hook entries, hook scripts, `--for-tool`,
//! `--payload-file`) each says what `hooks test --json` must report per fired
//! hook: how the run ended and the parsed decision in the Hermes wire shape.
//! When the reference CLI is installed (`HERMES_REFERENCE_BIN`, else the
//! `hermesx` beside `HERMES_REFERENCE_PYTHON`; `bash .ci/run` installs it),
//! the same homes are run through `hermesx hooks test` and its text is read
//! back into the same shape: it must agree, except in rows that name what the
//! reference lacks, a design call, or a reported divergence — those rows also
//! say what the reference reports instead. Without the reference only our side
//! is checked on a developer's machine; in CI the test fails.

mod divergences;
mod exits;
mod matching;
pub(crate) mod model;
mod other_events;
mod run;
mod tool_gate;

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use model::{Case, Reference, Report};
use run::Listing;

/// How many groups run at once: the reference CLI mostly waits on Python's start-up.
const WORKERS: usize = 4;

pub(crate) fn all_cases() -> Vec<Case> {
    let mut cases = tool_gate::cases();
    cases.extend(exits::cases());
    cases.extend(matching::cases());
    cases.extend(other_events::cases());
    cases.extend(divergences::cases());
    cases
}

#[test]
fn hooks_test_reports_what_the_table_and_the_reference_report() {
    let cases = all_cases();
    let groups = run::group_by_command_line(&cases);
    let reference = run::reference_bin();
    let next_group = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..WORKERS {
            scope.spawn(|| {
                while let Some(group) = groups.get(next_group.fetch_add(1, Ordering::Relaxed)) {
                    let found = check_group(&cases, group, reference.as_deref().ok());
                    failures
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .extend(found);
                }
            });
        }
    });
    match &reference {
        Ok(bin) => eprintln!("{}", summary(&cases, bin)),
        Err(bin) => eprintln!(
            "reference comparison skipped: {} not found (set HERMES_REFERENCE_BIN); \
             checked {} cases against the table only",
            bin.display(),
            cases.len()
        ),
    }
    let failures = failures
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    assert!(
        failures.is_empty(),
        "{} mismatch(es):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Runs one group through both CLIs; one message per mismatch.
fn check_group(cases: &[Case], ids: &[usize], reference: Option<&Path>) -> Vec<String> {
    let prepared = run::prepare(cases, ids);
    let first = &cases[ids[0]];
    // Both CLIs run their hooks one after another: run the two side by side.
    let (ours, theirs) = std::thread::scope(|scope| {
        let theirs =
            scope.spawn(|| reference.map(|bin| run::run_reference(bin, &prepared.home, first)));
        let ours = run::run_ours(&prepared.home, first);
        let theirs = theirs
            .join()
            .unwrap_or_else(|_| Some(Err("the reference run panicked".to_owned())));
        (ours, theirs)
    });
    let mut failures = Vec::new();
    for (&id, commands) in ids.iter().zip(&prepared.commands) {
        let case = &cases[id];
        let ours = match &ours {
            Ok(listing) => listing,
            Err(problem) => {
                failures.push(format!("{}: {problem}", case.name));
                continue;
            }
        };
        let our_fired = compare(
            case,
            "hooks test",
            ours,
            commands,
            &case.ours,
            &mut failures,
        );
        let Some(theirs) = &theirs else { continue };
        let theirs = match theirs {
            Ok(listing) => listing,
            Err(problem) => {
                failures.push(format!("{}: {problem}", case.name));
                continue;
            }
        };
        let expected = case.reference_report();
        let their_fired = compare(
            case,
            "hermes hooks test",
            theirs,
            commands,
            expected,
            &mut failures,
        );
        if matches!(case.reference, Reference::Agrees) && our_fired != their_fired {
            failures.push(format!(
                "{}: different hooks fired\n  ours:      {our_fired:?}\n  reference: {their_fired:?}",
                case.name
            ));
        }
    }
    failures
}

/// Checks one CLI's report for `case` against `expected`; returns the commands that fired.
fn compare(
    case: &Case,
    cli: &str,
    listing: &Listing,
    commands: &[String],
    expected: &Report,
    failures: &mut Vec<String>,
) -> Vec<String> {
    let (report, fired) = listing.select(commands);
    let expected = run::with_commands(expected, &fired);
    if report != expected {
        failures.push(format!(
            "{} ({}): `{cli}` reported\n  {}\nexpected\n  {}\n  (commands: {commands:?})",
            case.name,
            relation(&case.reference),
            report.describe(),
            expected.describe(),
        ));
    }
    fired
}

fn relation(reference: &Reference) -> String {
    match reference {
        Reference::Agrees => "the reference agrees".to_owned(),
        Reference::Lacks { feature, .. } => format!("reference lacks: {feature}"),
        Reference::ByDesign { call, .. } => format!("by design: {call}"),
        Reference::Diverges { finding, .. } => format!("reported divergence: {finding}"),
    }
}

fn summary(cases: &[Case], bin: &Path) -> String {
    let count = |wanted: fn(&Reference) -> bool| {
        cases.iter().filter(|case| wanted(&case.reference)).count()
    };
    format!(
        "reference comparison: {} cases against {}: {} agree, {} the reference lacks, \
         {} differ by design, {} reported divergences",
        cases.len(),
        bin.display(),
        count(|r| matches!(r, Reference::Agrees)),
        count(|r| matches!(r, Reference::Lacks { .. })),
        count(|r| matches!(r, Reference::ByDesign { .. })),
        count(|r| matches!(r, Reference::Diverges { .. })),
    )
}

#[test]
fn reference_output_is_read_per_hook() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/reference/hermes-hooks-test.txt"),
    )
    .expect("fixture");
    let Ok(Listing::Hooks(hooks)) = run::parse_reference_output(&text) else {
        panic!("the fixture lists hooks");
    };
    let fired: Vec<(&str, model::Fired)> = hooks
        .iter()
        .map(|(command, fired)| (command.as_str(), fired.clone()))
        .collect();
    assert_eq!(
        fired,
        [
            ("/tmp/h/block.sh", model::parsed(model::block("nope"))),
            ("/tmp/h/quiet.sh", model::nothing()),
            ("/tmp/h/missing.sh", model::spawn_error()),
            ("/tmp/h/slow.sh", model::timed_out()),
        ]
    );
}

#[test]
fn reference_output_without_hooks_or_with_an_unknown_event() {
    let none = run::parse_reference_output(
        "No shell hooks configured for event: pre_tool_call\n(with matcher filter --for-tool=x)\n",
    );
    assert!(matches!(none, Ok(Listing::Hooks(hooks)) if hooks.is_empty()));
    let unknown = run::parse_reference_output("Unknown event: 'nope'\nValid events: a, b\n");
    assert!(matches!(unknown, Ok(Listing::UnknownEvent)));
    assert!(run::parse_reference_output("Traceback (most recent call last):\n").is_err());
    let bad_json = run::parse_reference_output("  → /x\n      parsed (Hermes wire shape): {oops\n");
    assert!(bad_json.is_err());
}
