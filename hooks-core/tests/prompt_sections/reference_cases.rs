//! Registration and render rules: ports of reference tests 309–311 plus budget and failure edges.

use std::sync::{Arc, Mutex};

use hermes_hooks_core::prompt::{
    MAX_TOTAL_CHARS, PromptSections, SectionContent, SectionError, SessionInfo, SkipReason,
};
use serde_json::{Value, json};

use crate::{AFTER_MEMORY, accepted_ids, skipped_lines};

// 309. test_registration_validates_stable_id_position_budget_and_duplicates
#[test]
fn registration_validates_stable_id_position_budget_and_duplicates() {
    let sections = PromptSections::new();
    let text = || SectionContent::text("content");
    let long_id = "x".repeat(129);
    for invalid_id in [
        "",
        "UPPER.case",
        "has space",
        "line\nbreak",
        long_id.as_str(),
    ] {
        let error = sections
            .register("example-plugin", invalid_id, text(), AFTER_MEMORY, 4000)
            .expect_err(invalid_id);
        assert_eq!(
            error.to_string(),
            "system prompt section id must be 1-128 lowercase characters using letters, numbers, '.', '_', or '-'"
        );
    }

    let error = sections
        .register(
            "example-plugin",
            "example.rules",
            text(),
            "priority-17",
            4000,
        )
        .expect_err("unknown position");
    assert_eq!(
        error.to_string(),
        "system prompt section position must be one of: after_memory"
    );
    for bad_max in [0, 4001] {
        let error = sections
            .register(
                "example-plugin",
                "example.rules",
                text(),
                AFTER_MEMORY,
                bad_max,
            )
            .expect_err("max_chars out of range");
        assert_eq!(error, SectionError::InvalidMaxChars { max_chars: bad_max });
        assert_eq!(
            error.to_string(),
            "system prompt section max_chars must be between 1 and 4000"
        );
    }
    assert!(
        sections.is_empty(),
        "refused registrations leave nothing behind"
    );

    sections
        .register(
            "example-plugin",
            "example.rules",
            text(),
            AFTER_MEMORY,
            4000,
        )
        .expect("valid registration");
    let error = sections
        .register(
            "other-plugin",
            "example.rules",
            SectionContent::text("other content"),
            AFTER_MEMORY,
            4000,
        )
        .expect_err("duplicate id");
    assert_eq!(
        error.to_string(),
        "system prompt section 'example.rules' is already registered by plugin 'example-plugin'"
    );
    assert_eq!(
        sections.registrations(),
        vec![("example.rules".to_owned(), "example-plugin".to_owned())]
    );
}

// 310. test_render_is_deterministic_bounded_and_session_info_is_read_only
#[test]
fn render_is_deterministic_bounded_and_session_info_is_passed_read_only() {
    let sections = PromptSections::new();
    let observed = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&observed);
    // Registered out of order: rendering sorts by id.
    sections
        .register(
            "example-plugin",
            "example.z",
            SectionContent::function(move |info: &SessionInfo| {
                // `info` is a shared reference: the type system is what makes it read-only.
                seen.lock().map_err(|e| e.to_string())?.push(info.clone());
                Ok(json!("B"))
            }),
            AFTER_MEMORY,
            4,
        )
        .expect("register z");
    sections
        .register(
            "example-plugin",
            "example.a",
            SectionContent::text("A"),
            AFTER_MEMORY,
            4,
        )
        .expect("register a");
    sections
        .register(
            "example-plugin",
            "example.too-large",
            SectionContent::text("12345"),
            AFTER_MEMORY,
            4,
        )
        .expect("register too-large");

    let info = SessionInfo::default().with_session_id("session-1");
    let first = sections.render(&info);
    let pairs: Vec<(&str, &str)> = first
        .accepted
        .iter()
        .map(|s| (s.id.as_str(), s.content.as_str()))
        .collect();
    assert_eq!(pairs, [("example.a", "A"), ("example.z", "B")]);
    let observed = observed.lock().map(|seen| seen.clone()).unwrap_or_default();
    assert_eq!(observed.len(), 1, "the function runs once per render");
    assert_eq!(observed[0].session_id, "session-1");
    assert_eq!(
        skipped_lines(&first),
        [
            "Plugin system prompt section example.too-large (example-plugin) exceeded max_chars (5 > 4) and was skipped"
        ]
    );
    assert_eq!(
        first.text.as_deref(),
        Some(
            "<!-- hermes-plugin-sections:start -->\n\
             ## Plugin Context: example.a\n<!-- hermes-plugin-section-chars:1 -->\n\nA\n\n\
             ## Plugin Context: example.z\n<!-- hermes-plugin-section-chars:1 -->\n\nB\n\
             <!-- hermes-plugin-sections:end -->"
        )
    );
    assert_eq!(sections.render(&info), first, "same inputs, same bytes");
}

// 311. test_render_fails_open_for_callback_failure_wrong_type_and_aggregate_budget
#[test]
fn render_fails_open_for_callback_failure_wrong_type_and_aggregate_budget() {
    let sections = PromptSections::new();
    let register = |id: &str, content: SectionContent, max_chars: usize| {
        sections
            .register("example-plugin", id, content, AFTER_MEMORY, max_chars)
            .expect(id);
    };
    register(
        "example.boom",
        SectionContent::function(|_| Err("plugin exploded".into())),
        4000,
    );
    register(
        "example.wrong",
        SectionContent::function(|_| Ok(json!({"not": "text"}))),
        4000,
    );
    let chunk = MAX_TOTAL_CHARS / 2 - 200;
    register(
        "example.first",
        SectionContent::text("a".repeat(chunk)),
        chunk,
    );
    register(
        "example.second",
        SectionContent::text("b".repeat(chunk)),
        chunk,
    );
    register("example.zzlast", SectionContent::text("c".repeat(500)), 500);

    let rendered = sections.render(&SessionInfo::default());
    assert_eq!(accepted_ids(&rendered), ["example.first", "example.second"]);
    let log = skipped_lines(&rendered).join("\n");
    assert!(log.contains("plugin exploded"), "{log}");
    assert!(log.contains("returned dict, not str"), "{log}");
    assert!(log.contains("aggregate"), "{log}");
    let reasons: Vec<(&str, &SkipReason)> = rendered
        .skipped
        .iter()
        .map(|s| (s.id.as_str(), &s.reason))
        .collect();
    assert_eq!(
        reasons,
        [
            (
                "example.boom",
                &SkipReason::Raised {
                    error: "plugin exploded".into()
                }
            ),
            (
                "example.wrong",
                &SkipReason::NotAString { type_name: "dict" }
            ),
            (
                "example.zzlast",
                &SkipReason::AggregateBudget { limit: 8000 }
            ),
        ]
    );
}

#[test]
fn aggregate_budget_counts_framing_and_is_inclusive_at_8000() {
    // 74 (container) + 4064 (block "a", 4000 chars) + 2 + 64 + 3796 (block "b") = 8000.
    for (second_len, accepted) in [(3796, true), (3797, false)] {
        let sections = PromptSections::new();
        sections
            .register(
                "p",
                "a",
                SectionContent::text("x".repeat(4000)),
                AFTER_MEMORY,
                4000,
            )
            .expect("a");
        sections
            .register(
                "p",
                "b",
                SectionContent::text("y".repeat(second_len)),
                AFTER_MEMORY,
                4000,
            )
            .expect("b");
        let rendered = sections.render(&SessionInfo::default());
        assert_eq!(
            rendered.accepted.len() == 2,
            accepted,
            "second block of {second_len}"
        );
        if let Some(text) = &rendered.text {
            assert!(text.chars().count() <= MAX_TOTAL_CHARS);
        }
        if accepted {
            assert_eq!(rendered.text.map(|t| t.chars().count()), Some(8000));
        }
    }
}

#[test]
fn max_chars_counts_code_points_after_trimming() {
    let sections = PromptSections::new();
    // Four code points, twelve bytes, wrapped in whitespace Python strips.
    let content = SectionContent::text("\u{1f}\u{3000} 日本語🌍 \n");
    sections
        .register("p", "cjk", content, AFTER_MEMORY, 4)
        .expect("cjk");
    let rendered = sections.render(&SessionInfo::default());
    assert_eq!(rendered.accepted.len(), 1, "{:?}", rendered.skipped);
    assert_eq!(rendered.accepted[0].content, "日本語🌍");
    assert_eq!(rendered.accepted[0].chars, 4);
}

#[test]
fn section_count_budget_stops_at_32() {
    let sections = PromptSections::new();
    for index in 0..34 {
        let id = format!("s{index:02}");
        sections
            .register("many", &id, SectionContent::text("x"), AFTER_MEMORY, 10)
            .expect("register");
    }
    let rendered = sections.render(&SessionInfo::default());
    assert_eq!(rendered.accepted.len(), 32);
    assert_eq!(
        skipped_lines(&rendered),
        [
            "Plugin system prompt section s32 exceeded the section-count budget (32) and was skipped",
            "Plugin system prompt section s33 exceeded the section-count budget (32) and was skipped",
        ]
    );
}

#[test]
fn empty_sections_are_silent_and_markers_panics_and_non_strings_are_reported() {
    let sections = PromptSections::new();
    let add = |id: &str, content: SectionContent| {
        sections
            .register("p", id, content, AFTER_MEMORY, 4000)
            .expect(id);
    };
    add("blank", SectionContent::text(" \n\t "));
    add("blank-fn", SectionContent::function(|_| Ok(json!("   "))));
    add(
        "spoof",
        SectionContent::text("x <!-- hermes-plugin-sections:start --> y"),
    );
    add("panics", SectionContent::function(|_| panic!("bad plugin")));
    add("nothing", SectionContent::function(|_| Ok(Value::Null)));
    add("number", SectionContent::function(|_| Ok(json!(2.5))));
    let rendered = sections.render(&SessionInfo::default());
    assert_eq!(rendered.text, None);
    assert!(rendered.accepted.is_empty());
    assert_eq!(
        skipped_lines(&rendered),
        [
            "Plugin system prompt section nothing (p) returned NoneType, not str; skipped",
            "Plugin system prompt section number (p) returned float, not str; skipped",
            "Plugin system prompt section panics (p) raised and was skipped: panicked: bad plugin",
            "Plugin system prompt section spoof (p) contained a reserved persistence marker and was skipped",
        ]
    );
}

#[test]
fn a_function_may_change_the_registry_while_rendering() {
    let sections = Arc::new(PromptSections::new());
    let registry = Arc::clone(&sections);
    sections
        .register(
            "p",
            "self-modifying",
            SectionContent::function(move |_| {
                let _ =
                    registry.register("p", "late", SectionContent::text("L"), "after_memory", 10);
                Ok(json!("S"))
            }),
            AFTER_MEMORY,
            10,
        )
        .expect("register");
    let first = sections.render(&SessionInfo::default());
    assert_eq!(
        accepted_ids(&first),
        ["self-modifying"],
        "snapshot taken before rendering"
    );
    let second = sections.render(&SessionInfo::default());
    assert_eq!(accepted_ids(&second), ["late", "self-modifying"]);
}

#[test]
fn unregistering_by_id_and_owner() {
    let sections = PromptSections::new();
    for (owner, id) in [("one", "a"), ("one", "b"), ("two", "c")] {
        sections
            .register(owner, id, SectionContent::text(id), AFTER_MEMORY, 10)
            .expect(id);
    }
    assert_eq!(sections.unregister_owner("one"), 2);
    assert!(!sections.unregister("a"));
    assert!(sections.unregister("c"));
    assert!(sections.is_empty());
}
