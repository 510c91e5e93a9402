//! Rendered containers restore to the same sections.

use hermes_hooks_core::prompt::{
    CONVERSATION_STARTED_SENTINEL, PromptSections, SectionContent, SessionInfo, format_sections,
    parse_rendered,
};

use crate::AFTER_MEMORY;

#[test]
fn a_rendered_prompt_restores_to_the_same_sections() {
    let sections = PromptSections::new();
    sections
        .register(
            "p",
            "b.rules",
            SectionContent::text("Rules\n\nwith 🌍"),
            AFTER_MEMORY,
            100,
        )
        .expect("b");
    sections
        .register(
            "q",
            "a.notes",
            SectionContent::text("Notes"),
            AFTER_MEMORY,
            100,
        )
        .expect("a");
    let rendered = sections.render(&SessionInfo::default());
    let container = rendered.text.clone().unwrap_or_default();
    let prompt =
        format!("You are Hermes.\n\nMEMORY\n\n{container}{CONVERSATION_STARTED_SENTINEL} now");
    let restored = parse_rendered(&prompt).expect("restores");
    let restored: Vec<(&str, &str)> = restored
        .iter()
        .map(|s| (s.id.as_str(), s.content.as_str()))
        .collect();
    let accepted: Vec<(&str, &str)> = rendered
        .accepted
        .iter()
        .map(|s| (s.id.as_str(), s.content.as_str()))
        .collect();
    assert_eq!(restored, accepted);
    assert_eq!(format_sections(restored), container);
}
