//! Tests of the codegen: generated files are fresh, the schema matches the user
//! documentation's catalog, and schema mistakes are reported by event and key.

use std::collections::BTreeSet;
use std::path::PathBuf;

use super::schema::Schema;
use super::{ensure_file_contents_at, load_schema, project_root};

/// rust-analyzer style: fails, with the command that fixes it, when a committed
/// generated file differs from what the schema gives.
#[test]
fn generated_files_are_fresh() {
    if let Err(error) = super::run(true) {
        panic!("{error:#}");
    }
}

#[test]
fn check_mode_reports_a_stale_file_and_leaves_it_alone() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("generated.rs");
    std::fs::write(&path, "old").expect("write");

    let error = ensure_file_contents_at(&path, "x/generated.rs", "new", true)
        .expect_err("stale file must fail the check");
    let message = error.to_string();
    assert!(message.contains("x/generated.rs"), "{message}");
    assert!(message.contains("run `cargo xtask codegen`"), "{message}");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "old");

    ensure_file_contents_at(&path, "x/generated.rs", "new", false).expect("write mode");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "new");
    ensure_file_contents_at(&path, "x/generated.rs", "new", true).expect("fresh now");
}

fn committed_schema() -> Schema {
    match load_schema(&project_root()) {
        Ok(schema) => schema,
        Err(error) => panic!("{error:#}"),
    }
}

fn fixture_path() -> PathBuf {
    project_root().join("xtask/fixtures/doc-catalog-names.txt")
}

/// The committed copy of the doc's catalog names (comments and blanks skipped).
fn fixture_names() -> Vec<String> {
    let text =
        std::fs::read_to_string(fixture_path()).expect("xtask/fixtures/doc-catalog-names.txt");
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// The event names in the first column of the doc's catalog table, in order.
fn doc_catalog_names(doc: &str) -> Vec<String> {
    let mut lines = doc
        .lines()
        .skip_while(|line| !line.contains("同梱のプラグインフック一覧"))
        .skip(1)
        .skip_while(|line| !line.starts_with('|'));
    let mut names = Vec::new();
    // The header row names no event; data rows start with the event in backticks.
    for line in lines.by_ref().take_while(|line| line.starts_with('|')) {
        let first_cell = line.split('|').nth(1).unwrap_or_default();
        if let Some(name) = first_cell.split('`').nth(1) {
            names.push(name.to_owned());
        }
    }
    names
}

/// The user documentation (the hook reference whose catalog table the schema
/// follows), when `HOOKS_USER_DOC` names a copy of it. The repository keeps
/// only the committed list of its event names.
fn doc_path() -> Option<PathBuf> {
    std::env::var_os("HOOKS_USER_DOC")
        .map(PathBuf::from)
        .filter(|path| path.is_file())
}

fn read_doc() -> Option<String> {
    doc_path().and_then(|path| std::fs::read_to_string(path).ok())
}

#[test]
fn schema_doc_events_are_the_doc_catalog() {
    let schema = committed_schema();
    let from_schema: Vec<&str> = schema
        .events
        .iter()
        .filter(|event| event.source == "doc")
        .map(|event| event.name.as_str())
        .collect();
    // Against the doc itself when this checkout has it, else against the
    // committed copy (which the next test keeps equal to the doc).
    let expected = match read_doc() {
        Some(doc) => doc_catalog_names(&doc),
        None => fixture_names(),
    };
    assert_eq!(expected.len(), 37, "the doc's catalog table has 37 rows");
    assert_eq!(
        from_schema, expected,
        "schema `source: doc` events vs the doc's catalog table"
    );
    // The committed copy is compared too, so a checkout without the doc
    // cannot drift unnoticed.
    assert_eq!(
        from_schema,
        fixture_names(),
        "schema vs xtask/fixtures/doc-catalog-names.txt"
    );
}

#[test]
fn fixture_is_the_doc_catalog() {
    match read_doc() {
        Some(doc) => assert_eq!(
            fixture_names(),
            doc_catalog_names(&doc),
            "xtask/fixtures/doc-catalog-names.txt is out of date with $HOOKS_USER_DOC"
        ),
        // Without the documentation only the committed copy can be checked, and
        // `schema_doc_events_are_the_doc_catalog` does that.
        None => eprintln!(
            "note: HOOKS_USER_DOC is not set to the user documentation; \
             compared the schema with the committed fixture only"
        ),
    }
}

#[test]
fn doc_catalog_extraction_reads_the_first_column() {
    let doc = "## 同梱のプラグインフック一覧\n\ntext\n\n| フック | 分類 |\n|---|---|\n\
               | [`pre_tool_call`](#pre_tool_call) | 指示 |\n| `post_tool_call` | 観測 |\n\nafter\n| `not_this` | x |\n";
    assert_eq!(doc_catalog_names(doc), ["pre_tool_call", "post_tool_call"]);
}

#[test]
fn catalog_has_the_doc_events_and_the_four_upstream_ones() {
    let schema = committed_schema();
    assert_eq!(schema.events.len(), 41);
    let upstream: Vec<&str> = schema
        .events
        .iter()
        .filter(|event| event.source == "upstream")
        .map(|event| event.name.as_str())
        .collect();
    assert_eq!(
        upstream,
        [
            "agent_loop_stopped",
            "on_room_member_activity",
            "pre_auxiliary_call",
            "post_auxiliary_call"
        ]
    );
}

#[test]
fn gateway_events_are_listed() {
    let schema = committed_schema();
    let names: Vec<&str> = schema
        .gateway_events
        .iter()
        .map(|event| event.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "gateway:startup",
            "session:start",
            "session:end",
            "session:reset",
            "session:compress",
            "agent:start",
            "agent:step",
            "agent:end",
            "reaction:added",
            "reaction:removed",
            "command:*",
        ]
    );
    for event in &schema.gateway_events {
        let expected = if event.name == "command:*" {
            "command_decision"
        } else {
            "ignore"
        };
        assert_eq!(event.merge, expected, "{}", event.name);
        assert!(!event.fields.is_empty(), "{} has context keys", event.name);
    }
}

#[test]
fn schema_invariants_of_the_catalog() {
    let schema = committed_schema();
    let closed: Vec<&str> = schema
        .events
        .iter()
        .filter(|e| e.fail == "closed")
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(closed, ["pre_tool_call"]);
    let no_shell: Vec<&str> = schema
        .events
        .iter()
        .filter(|e| !e.shell)
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(no_shell, ["transform_api_error_classification"]);
    let matcher: Vec<&str> = schema
        .events
        .iter()
        .filter(|e| e.tool_matcher)
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(matcher, ["pre_tool_call", "post_tool_call"]);
    let no_telemetry: Vec<&str> = schema
        .events
        .iter()
        .filter(|e| !e.telemetry)
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(no_telemetry, ["gateway_platform_event"]);
    let names: BTreeSet<&str> = schema.events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names.len(), 41);
}

/// Every payload struct is generated `#[non_exhaustive]` with one `with_<field>`
/// setter per field (an `Option` field's setter stores `Some`), so a field the
/// upstream catalog adds is not a breaking change and a host can still build one.
#[test]
fn payload_structs_are_non_exhaustive_with_a_setter_per_field() {
    let schema = committed_schema();
    let source = super::payloads::render(&schema);
    for event in &schema.events {
        let ty = super::camel_case(&event.name);
        assert!(
            source.contains(&format!("#[non_exhaustive]\npub struct {ty} {{")),
            "{ty} is not #[non_exhaustive]"
        );
        for field in &event.fields {
            let setter = format!("pub fn with_{}(mut self, value: ", field.name);
            assert!(
                source.contains(&setter),
                "{ty} has no setter for {}",
                field.name
            );
            if field.nullable || field.optional {
                let ident = field.name.as_str();
                assert!(
                    source.contains(&format!("self.{ident} = Some(")),
                    "{ty}.{ident}: the setter must store Some"
                );
            }
        }
    }
}
