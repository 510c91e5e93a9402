//! A Hermes tool call as Claude Code's tools take it, and a hook's
//! `updatedInput` back in the Hermes tool's own arguments. Most tools are a
//! renaming ([`super::events`]); these take their shape from the arguments
//! (hermes-agent 0.20.1, `tools/`):
//!
//! - `search_files` is `Grep` (`target` `content`, the default) or `Glob`
//!   (`target` `files`): `file_glob` is `glob`, `limit` `head_limit`,
//!   `context` `-C`, `output_mode` `files_only` `files_with_matches`; `path`
//!   stays `path` (a folder), `.` when not given, as Hermes searches;
//! - `process` with `action` `write` or `submit` types `data` into a
//!   program the terminal started (a shell, `python3 -i`): a `Bash` call of
//!   `command` = `data`, whose effect its text does not settle;
//! - `web_extract` fetches every URL of `urls`: `WebFetch` with `url` the
//!   first (see `call_parts.rs` for one run per URL).
//!
//! Where Hermes reads one key and ignores another, the Claude view shows
//! the one Hermes reads (a stray `url`, `command` or `glob` is dropped).

use serde_json::{Map, Value};

use super::events::{their_args, their_tool};

/// One Hermes tool call seen as a Claude Code tool call.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TheirCall {
    /// The Claude Code tool (`Bash`, `Grep`), or the Hermes name of a tool
    /// Claude Code has no counterpart for.
    pub(crate) tool: String,
    /// The arguments under Claude Code's names.
    pub(crate) input: Map<String, Value>,
    /// Whether the input shows what the call does: `false` for text typed
    /// into a running program, which may be no shell at all (a fail-closed
    /// guard's rule cannot rule it out).
    pub(crate) settled: bool,
}

/// Hermes's `search_files` arguments and Claude Code's `Grep` ones.
const SEARCH_NAMES: &[(&str, &str)] = &[
    ("file_glob", "glob"),
    ("limit", "head_limit"),
    ("context", "-C"),
];

/// The `process` actions that send text to the program's stdin.
const TYPING_ACTIONS: &[&str] = &["write", "submit"];

/// The key a relative `file_path`'s best guess rides under (`stdin.rs`).
pub(crate) const FILE_PATH_AS_GIVEN: &str = "file_path_as_given";

/// The Claude Code view of a call of the Hermes tool `tool` with `args`.
pub(crate) fn their_call(tool: &str, args: &Map<String, Value>) -> TheirCall {
    let name = their_tool_of(tool, args).to_owned();
    let (input, settled) = match tool {
        "search_files" => (search_input(args), true),
        "process" if typing(args) => (typed_command(args), false),
        "web_extract" => (web_fetch(args), true),
        _ => (their_args(args), true),
    };
    TheirCall {
        tool: name,
        input,
        settled,
    }
}

/// The Claude Code tool of a call of `tool` with `args` ([`their_call`]'s
/// `tool`, without building its input).
pub(crate) fn their_tool_of<'a>(tool: &'a str, args: &Map<String, Value>) -> &'a str {
    match tool {
        // `Glob` for `target` `files` (or its alias `find`), else `Grep`.
        "search_files" => match args.get("target").and_then(Value::as_str) {
            Some("files" | "find") => "Glob",
            _ => "Grep",
        },
        "process" if typing(args) => "Bash",
        _ => their_tool(tool),
    }
}

/// The Claude Code tool of `event`'s call ([`their_tool_of`]).
pub(crate) fn their_tool_of_event(event: &hermes_hooks_core::Event) -> &str {
    let tool = event.tool_name().unwrap_or("");
    match event.get("args") {
        Some(Value::Object(args)) => their_tool_of(tool, args),
        _ => their_tool(tool),
    }
}

/// Adds [`FILE_PATH_AS_GIVEN`] to `input` when its `file_path` is relative:
/// the path joined to `cwd` (a guess: Hermes resolves it against its
/// terminal's current folder, which no hook is told).
pub(crate) fn guess_file_path(input: &mut Map<String, Value>, cwd: &str) {
    let Some(Value::String(path)) = input.get("file_path").cloned() else {
        return;
    };
    let relative = !path.is_empty() && !path.starts_with('/') && !path.starts_with('~');
    if relative && !cwd.is_empty() {
        let guess = std::path::Path::new(cwd).join(&path);
        input.insert(
            "file_path".to_owned(),
            guess.to_string_lossy().into_owned().into(),
        );
        input.insert(FILE_PATH_AS_GIVEN.to_owned(), path.into());
    }
}

/// Whether a `process` call types into the program (`action` exactly
/// `write` or `submit`, as Hermes compares it).
fn typing(args: &Map<String, Value>) -> bool {
    args.get("action")
        .and_then(Value::as_str)
        .is_some_and(|action| TYPING_ACTIONS.contains(&action))
}

/// `command` is the text Hermes sends (`str(args.get("data", ""))`).
fn typed_command(args: &Map<String, Value>) -> Map<String, Value> {
    let mut input = args.clone();
    let data = args.get("data").map_or_else(String::new, |data| {
        hermes_hooks_core::pyvalue::text_of(data)
    });
    input.remove("data");
    input.insert("command".to_owned(), data.into());
    input
}

/// `search_files` arguments under `Grep`'s (and `Glob`'s) names.
fn search_input(args: &Map<String, Value>) -> Map<String, Value> {
    let mut input = args.clone();
    for (ours, theirs) in SEARCH_NAMES {
        input.remove(*theirs);
        if let Some(value) = input.remove(*ours) {
            input.insert((*theirs).to_owned(), value);
        }
    }
    if input.get("output_mode").and_then(Value::as_str) == Some("files_only") {
        input.insert("output_mode".to_owned(), "files_with_matches".into());
    }
    input.entry("path").or_insert_with(|| ".".into());
    input
}

/// `url` is the first of `urls` (what Hermes fetches first); a `url` beside
/// a list Hermes ignores is dropped.
fn web_fetch(args: &Map<String, Value>) -> Map<String, Value> {
    let mut input = args.clone();
    if let Some(Value::Array(urls)) = args.get("urls") {
        input.remove("url");
        if let Some(first) = urls.first() {
            input.insert("url".to_owned(), first.clone());
        }
    }
    input
}

/// The inputs an `if` rule is tried on for a call of the Claude tool
/// `tool` with `input`: the input itself and, where one call acts on
/// several things, one per thing: each URL of `urls`, each path of a search
/// path Hermes splits ("src .env", "a,b": it searches each that exists).
pub(crate) fn rule_inputs(tool: &str, input: Map<String, Value>) -> Vec<Map<String, Value>> {
    let with = |key: &str, value: Value| {
        let mut each = input.clone();
        each.insert(key.to_owned(), value);
        each
    };
    let mut more = Vec::new();
    if let Some(Value::Array(urls)) = input.get("urls") {
        more.extend(urls.iter().map(|url| with("url", url.clone())));
    }
    if matches!(tool, "Grep" | "Glob")
        && let Some(Value::String(path)) = input.get("path")
    {
        let parts: Vec<&str> = path.split(',').flat_map(str::split_whitespace).collect();
        if parts.len() > 1 {
            more.extend(parts.iter().map(|part| with("path", (*part).into())));
        }
    }
    let mut inputs = vec![input];
    inputs.append(&mut more);
    inputs
}

/// A hook's `updatedInput` for a call of `tool` with `args` (already in
/// Hermes's names for the renamed tools: `file_path` is `path`), in the
/// arguments the Hermes tool reads: `glob` as `file_glob`, `command` as a
/// typed `data`, a rewritten `url` in place of the first of `urls`; the
/// path as the agent gave it ([`FILE_PATH_AS_GIVEN`]) back in `file_path`.
pub(crate) fn our_update(
    tool: &str,
    args: &Map<String, Value>,
    mut update: Map<String, Value>,
) -> Map<String, Value> {
    // The agent's own spelling goes back to the tool (the guess made for
    // the hook is not the tool's), unless the hook changed the path.
    if let Some(Value::String(given)) = update.remove(FILE_PATH_AS_GIVEN) {
        let unchanged = match (
            update.get("file_path"),
            args.get("path").or_else(|| args.get("file_path")),
        ) {
            (Some(Value::String(now)), Some(Value::String(before))) => {
                !now.starts_with('/') || std::path::Path::new(now).ends_with(before)
            }
            _ => false,
        };
        if unchanged {
            update.insert("file_path".to_owned(), given.into());
        }
    }
    match tool {
        "search_files" => {
            for (ours, theirs) in SEARCH_NAMES {
                if let Some(value) = update.remove(*theirs) {
                    update.insert((*ours).to_owned(), value);
                }
            }
            if update.get("output_mode").and_then(Value::as_str) == Some("files_with_matches") {
                update.insert("output_mode".to_owned(), "files_only".into());
            }
        }
        "process" if typing(args) => {
            if let Some(command) = update.remove("command") {
                update.insert("data".to_owned(), command);
            }
        }
        "web_extract" => {
            if let Some(urls) = rewritten_urls(args, &mut update) {
                update.insert("urls".to_owned(), Value::Array(urls));
            }
        }
        _ => {}
    }
    update
}

/// The `urls` after a `WebFetch` rewrite: the hook's `urls` if it gave a
/// list, else the call's, with the first replaced by a `url` that differs
/// from it; `None` when neither changed.
fn rewritten_urls(
    args: &Map<String, Value>,
    update: &mut Map<String, Value>,
) -> Option<Vec<Value>> {
    let url = update.remove("url");
    let given = match update.remove("urls") {
        Some(Value::Array(urls)) => Some(urls),
        Some(other) => {
            update.insert("urls".to_owned(), other);
            None
        }
        None => None,
    };
    let changed = given.is_some();
    let mut urls = given.unwrap_or_else(|| match args.get("urls") {
        Some(Value::Array(urls)) => urls.clone(),
        _ => Vec::new(),
    });
    match url {
        Some(url) if urls.first() != Some(&url) => {
            match urls.first_mut() {
                Some(first) => *first = url,
                None => urls.push(url),
            }
            Some(urls)
        }
        _ => changed.then_some(urls),
    }
}

#[cfg(test)]
#[path = "calls_tests.rs"]
mod tests;
