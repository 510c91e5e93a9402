//! Tests of the Claude Code view of Hermes's tool calls.

use serde_json::{Map, Value, json};

use super::{our_update, rule_inputs, their_call};

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

#[test]
fn search_files_is_grep_or_glob_with_hermes_keys_renamed() {
    let grep = their_call(
        "search_files",
        &object(json!({"pattern": "x", "file_glob": "*.rs", "glob": "stray",
            "limit": 5, "context": 2, "output_mode": "files_only"})),
    );
    assert_eq!(grep.tool, "Grep");
    assert_eq!(
        Value::Object(grep.input),
        json!({"pattern": "x", "glob": "*.rs", "head_limit": 5, "-C": 2,
            "output_mode": "files_with_matches", "path": "."})
    );
    for target in ["files", "find"] {
        let glob = their_call(
            "search_files",
            &object(json!({"pattern": "*.py", "target": target})),
        );
        assert_eq!(glob.tool, "Glob", "{target}");
    }
    let other = their_call(
        "search_files",
        &object(json!({"pattern": "x", "target": ["files"]})),
    );
    assert_eq!(other.tool, "Grep");
}

#[test]
fn only_typing_into_a_process_is_bash_and_it_is_not_settled() {
    let typed = their_call(
        "process",
        &object(json!({"action": "write", "session_id": "p", "data": ["rm", 1], "command": "ls"})),
    );
    assert_eq!(typed.tool, "Bash");
    assert!(!typed.settled);
    assert_eq!(typed.input["command"], json!("['rm', 1]"));
    for action in [json!("poll"), json!("Submit"), json!(["submit"])] {
        let call = their_call("process", &object(json!({"action": action, "data": "x"})));
        assert_eq!(call.tool, "process", "{action}");
        assert!(call.settled);
    }
}

#[test]
fn web_extract_shows_its_first_url_and_rules_try_them_all() {
    let call = their_call(
        "web_extract",
        &object(json!({"url": "https://stray/", "urls": ["https://a/", "https://b/"]})),
    );
    assert_eq!(call.tool, "WebFetch");
    assert_eq!(call.input["url"], json!("https://a/"));
    let tried: Vec<Value> = rule_inputs(&call.tool, call.input)
        .into_iter()
        .map(|input| input["url"].clone())
        .collect();
    assert_eq!(
        tried,
        [
            json!("https://a/"),
            json!("https://a/"),
            json!("https://b/")
        ]
    );
    let empty = their_call(
        "web_extract",
        &object(json!({"url": "https://stray/", "urls": []})),
    );
    assert!(!empty.input.contains_key("url"));
}

#[test]
fn a_search_path_hermes_splits_is_tried_part_by_part() {
    let call = their_call(
        "search_files",
        &object(json!({"pattern": "x", "path": "src, .env"})),
    );
    let paths: Vec<Value> = rule_inputs(&call.tool, call.input)
        .into_iter()
        .map(|input| input["path"].clone())
        .collect();
    assert_eq!(paths, [json!("src, .env"), json!("src"), json!(".env")]);
}

#[test]
fn a_rewrite_comes_back_in_the_arguments_hermes_reads() {
    let search = object(json!({"pattern": "x"}));
    let update =
        object(json!({"glob": "*.rs", "head_limit": 3, "output_mode": "files_with_matches"}));
    assert_eq!(
        Value::Object(our_update("search_files", &search, update)),
        json!({"file_glob": "*.rs", "limit": 3, "output_mode": "files_only"})
    );
    let typed = object(json!({"action": "submit", "data": "rm -rf /"}));
    let update = object(json!({"command": "echo safe", "file_path_as_given": "x"}));
    assert_eq!(
        Value::Object(our_update("process", &typed, update)),
        json!({"data": "echo safe"})
    );
    let fetch = object(json!({"urls": ["https://a/", "https://b/"]}));
    let rewrite = |update: Value| Value::Object(our_update("web_extract", &fetch, object(update)));
    assert_eq!(
        rewrite(json!({"url": "https://safe/"})),
        json!({"urls": ["https://safe/", "https://b/"]})
    );
    assert_eq!(
        rewrite(json!({"url": "https://a/", "prompt": "p"})),
        json!({"prompt": "p"})
    );
    assert_eq!(
        rewrite(json!({"urls": ["https://c/"]})),
        json!({"urls": ["https://c/"]})
    );
}
