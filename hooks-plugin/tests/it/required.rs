//! `plugins.required` read as a guard list: one name is a one-element list,
//! and a value that cannot be read as names blocks every tool call (never open).

use serde_json::json;

use crate::python::{fire, options, register};
use crate::support::Home;

fn block_messages(config: &str) -> Vec<String> {
    let home = Home::new();
    let loaded = register(&home, config, options(), Some(30.0));
    fire(
        &loaded.callbacks,
        "pre_tool_call",
        json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}}),
    )
    .into_iter()
    .filter(|reply| reply["action"] == "block")
    .filter_map(|reply| reply["message"].as_str().map(str::to_owned))
    .collect()
}

#[test]
fn one_required_name_guards_like_a_list_of_one() {
    let messages = block_messages("plugins: {required: guard}");
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].starts_with("required plugin 'guard' is not running (not installed)"),
        "{messages:?}"
    );
}

#[test]
fn a_required_value_that_cannot_be_read_fails_closed_naming_the_key() {
    for (config, key) in [
        (
            "plugins: {required: {guard: true}}",
            "plugins.required must be",
        ),
        ("plugins: {required: 7}", "plugins.required must be"),
        (
            "plugins: {required: [[guard]]}",
            "plugins.required[0] must be",
        ),
    ] {
        let messages = block_messages(config);
        assert_eq!(messages.len(), 1, "{config}: {messages:?}");
        assert!(messages[0].starts_with(key), "{config}: {messages:?}");
        assert!(
            messages[0].contains("config.yaml"),
            "{config}: {messages:?}"
        );
    }
}
