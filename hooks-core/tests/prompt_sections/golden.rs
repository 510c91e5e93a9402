//! Golden comparison: the committed fixture, and Python's rendering of the same inputs.

use std::path::{Path, PathBuf};
use std::process::Command;

use hermes_hooks_core::prompt::{
    CONVERSATION_STARTED_SENTINEL, PromptSections, RenderedSections, SectionContent, SessionInfo,
    parse_rendered,
};
use serde_json::{Value, json};

use crate::{AFTER_MEMORY, skipped_lines};

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/prompt_sections")
}

/// Builds the registry described by `inputs.json` (shared with `render_model.py`).
fn sections_from_inputs(inputs: &Value) -> PromptSections {
    let sections = PromptSections::new();
    for spec in inputs["sections"].as_array().into_iter().flatten() {
        let text = |key: &str| spec[key].as_str().unwrap_or_default().to_owned();
        let content = match spec["kind"].as_str() {
            Some("text") => SectionContent::text(text("text")),
            Some("repeat") => {
                let count = spec["count"].as_u64().unwrap_or_default() as usize;
                SectionContent::text(text("char").repeat(count))
            }
            Some("template") => {
                let template = text("template");
                SectionContent::function(move |info: &SessionInfo| {
                    Ok(Value::String(
                        template
                            .replace("{session_id}", &info.session_id)
                            .replace("{model}", &info.model)
                            .replace("{provider}", &info.provider)
                            .replace("{platform}", &info.platform)
                            .replace("{profile_name}", &info.profile_name)
                            .replace("{cwd}", &info.cwd),
                    ))
                })
            }
            Some("error") => {
                let error = text("error");
                SectionContent::function(move |_| Err(error.clone()))
            }
            Some("value") => {
                let value = spec["value"].clone();
                SectionContent::function(move |_| Ok(value.clone()))
            }
            other => panic!("inputs.json: unknown section kind {other:?}"),
        };
        let max_chars = spec["max_chars"].as_u64().unwrap_or_default() as usize;
        sections
            .register(
                &text("owner"),
                &text("id"),
                content,
                AFTER_MEMORY,
                max_chars,
            )
            .unwrap_or_else(|error| panic!("inputs.json: {error}"));
    }
    sections
}

fn report(rendered: &RenderedSections) -> Value {
    json!({
        "accepted": rendered
            .accepted
            .iter()
            .map(|s| json!([s.id, s.owner, s.chars]))
            .collect::<Vec<_>>(),
        "skipped": skipped_lines(rendered),
    })
}

fn read_fixture(name: &str) -> String {
    let path = fixture_dir().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn render_golden_inputs() -> RenderedSections {
    let inputs: Value = serde_json::from_str(&read_fixture("inputs.json")).expect("inputs.json");
    let info: SessionInfo =
        serde_json::from_value(inputs["session"].clone()).expect("inputs.json: session");
    sections_from_inputs(&inputs).render(&info)
}

#[test]
fn golden_render_matches_the_committed_fixture() {
    let rendered = render_golden_inputs();
    let text = rendered.text.clone().unwrap_or_default();
    assert_eq!(text, read_fixture("expected.txt"), "container bytes differ");
    let expected: Value =
        serde_json::from_str(&read_fixture("expected_report.json")).expect("expected_report.json");
    assert_eq!(report(&rendered), expected);
    // The frozen container restores to exactly what was accepted.
    let prompt = format!("{text}{CONVERSATION_STARTED_SENTINEL} Monday");
    let restored = parse_rendered(&prompt).expect("golden container restores");
    assert_eq!(restored.len(), rendered.accepted.len());
}

#[test]
fn golden_render_matches_python_byte_for_byte() {
    let Some(python) = test_support::reference::python() else {
        return;
    };
    let output = Command::new(&python)
        .arg(fixture_dir().join("render_model.py"))
        .arg(fixture_dir().join("inputs.json"))
        .output()
        .expect("run render_model.py");
    assert!(
        output.status.success(),
        "render_model.py failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let python_report: Value = serde_json::from_slice(&output.stdout).expect("python JSON report");
    eprintln!("compared with Python ({})", python_report["source"]);

    let rendered = render_golden_inputs();
    assert_eq!(python_report["text"].as_str(), rendered.text.as_deref());
    let mut ours = report(&rendered);
    ours["source"] = python_report["source"].clone();
    let mut theirs = python_report.clone();
    theirs.as_object_mut().map(|o| o.remove("text"));
    assert_eq!(ours, theirs);
}
