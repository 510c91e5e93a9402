//! Red-team round 6 (issue 27), Hermes's tool shapes through the real
//! binary: a `WebFetch` guard sees every URL of `web_extract` and reads
//! hosts as fetched, `search_files` is `Grep`/`Glob` and a `process` call
//! typing into a program is `Bash` (R6-13); a relative path reaches the
//! guard as the agent gave it (R6-14); `failClosed` in any spelling fails
//! closed (R6-17); an `Edit` rule covers `Write`, a `Read` rule the
//! searches (R6-19).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::dialects::{emit_json, home_with, in_project, write};
use crate::support::TempHome;

/// Denies every call it is run for.
const DENY_ALL: &str = "#!/bin/sh\ncat >/dev/null\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"user guard\"}}'\n";

/// A script that saves its stdin (one file per run, in `<HOME>/seen/`)
/// and decides nothing.
fn capture_script(home: &TempHome) -> PathBuf {
    let seen = home.user_home.join("seen");
    std::fs::create_dir_all(&seen).expect("mkdir");
    let body = format!(
        "#!/bin/sh\ncat > '{}'/$$.json\necho '{{}}'\n",
        seen.display()
    );
    home.script("capture.sh", &body)
}

/// The user's `~/.claude/settings.json` with one fail-closed PreToolUse
/// group per `(matcher, extra handler fields)`, each running `script`.
fn user_guards(home: &TempHome, script: &Path, groups: &[(&str, Value)]) {
    let groups: Vec<Value> = groups
        .iter()
        .map(|(matcher, extra)| {
            let mut handler = json!({"type": "command", "failClosed": true,
                "command": script.display().to_string()});
            if let (Value::Object(handler), Value::Object(extra)) = (&mut handler, extra) {
                handler.extend(extra.clone());
            }
            json!({"matcher": matcher, "hooks": [handler]})
        })
        .collect();
    let settings = json!({"hooks": {"PreToolUse": groups}});
    write(
        &home.user_home,
        ".claude/settings.json",
        &settings.to_string(),
    );
}

/// `emit pre_tool_call` of a `tool` call with `args`: the merged outcome.
fn outcome(home: &TempHome, project: &Path, tool: &str, args: Value) -> Value {
    let payload = json!({"tool_name": tool, "args": args, "task_id": "t", "session_id": "s"});
    let emitted = emit_json(
        home,
        project,
        &["--accept-hooks"],
        "pre_tool_call",
        &payload,
    );
    emitted["outcome"].clone()
}

fn blocked(home: &TempHome, project: &Path, tool: &str, args: Value) -> bool {
    outcome(home, project, tool, args)["action"] == json!("block")
}

/// The documents [`capture_script`] saved (taken away), parsed.
fn captured(home: &TempHome) -> Vec<Value> {
    let mut documents: Vec<(PathBuf, Value)> = std::fs::read_dir(home.user_home.join("seen"))
        .expect("read folder")
        .flatten()
        .map(|entry| {
            let text = std::fs::read_to_string(entry.path()).expect("captured");
            std::fs::remove_file(entry.path()).expect("remove");
            (entry.path(), serde_json::from_str(&text).expect("JSON"))
        })
        .collect();
    documents.sort_by(|a, b| a.0.cmp(&b.0));
    documents
        .into_iter()
        .map(|(_, document)| document)
        .collect()
}

#[test]
fn a_webfetch_rule_takes_every_url_and_reads_hosts_as_fetched() {
    let (home, project) = home_with("[claude]");
    let guard = home.script("deny.sh", DENY_ALL);
    let rule = json!({"if": "WebFetch(domain:evil.com)"});
    user_guards(&home, &guard, &[("WebFetch", rule)]);
    for urls in [
        json!(["https://evil.com/x"]),
        json!(["https://good.com/", "https://evil.com/x"]),
        json!(["https://EVIL.COM/x"]),
        json!(["https://evil.com./x"]),
        json!(["https://evil.com\\@good.com/"]),
        json!(["https://good.com\\@evil.com/"]),
        json!(["https://%65vil.com/"]),
        json!(["evil.com/x"]),
        json!([7]),
    ] {
        let args = json!({"urls": urls});
        assert!(blocked(&home, &project, "web_extract", args), "{urls}");
    }
    // Hermes reads `urls` only: a `url` beside it is not what is fetched.
    let stray = json!({"url": "https://good.com/", "urls": ["https://evil.com/"]});
    assert!(blocked(&home, &project, "web_extract", stray));
    for urls in [
        json!(["https://good.com/evil.com"]),
        json!(["https://good.com/", "https://evil.com.good.com/"]),
    ] {
        let args = json!({"urls": urls});
        assert!(!blocked(&home, &project, "web_extract", args), "{urls}");
    }
}

#[test]
fn a_webfetch_guard_reading_url_itself_is_run_for_each_url() {
    let (home, project) = home_with("[claude]");
    let guard = home.script(
        "url-guard.sh",
        "#!/bin/sh\nurl=$(python3 -c 'import json,sys; print(json.load(sys.stdin)[\"tool_input\"].get(\"url\",\"\"))')\ncase \"$url\" in https://evil.com/*) echo 'evil' >&2; exit 2;; esac\necho '{}'\n",
    );
    user_guards(&home, &guard, &[("WebFetch", json!({}))]);
    let evil_second = json!({"urls": ["https://good.com/", "https://evil.com/x"]});
    assert!(blocked(&home, &project, "web_extract", evil_second));
    // Hermes fetches the first five; the rest are one more run.
    let sixth = json!({"urls": ["https://a.com/", "https://b.com/", "https://c.com/",
        "https://d.com/", "https://e.com/", "https://evil.com/x", "https://f.com/"]});
    assert!(blocked(&home, &project, "web_extract", sixth));
    let good = json!({"urls": ["https://good.com/", "https://good.org/"]});
    assert!(!blocked(&home, &project, "web_extract", good));
}

#[test]
fn search_files_is_grep_or_glob_and_typing_into_a_process_is_bash() {
    let (home, project) = home_with("[claude]");
    let capture = capture_script(&home);
    user_guards(&home, &capture, &[("Grep|Glob|Bash", json!({}))]);
    let grep = json!({"pattern": "SECRET", "path": ".env", "target": "content",
        "file_glob": "*.env", "output_mode": "files_only", "glob": "ignored"});
    outcome(&home, &project, "search_files", grep);
    let glob = json!({"pattern": "*.env", "target": "files"});
    outcome(&home, &project, "search_files", glob);
    let typed = json!({"action": "submit", "session_id": "proc_1", "data": "rm -rf /",
        "command": "ls"});
    outcome(&home, &project, "process", typed);
    outcome(
        &home,
        &project,
        "process",
        json!({"action": "poll", "session_id": "proc_1"}),
    );
    let seen = captured(&home);
    let shapes: Vec<(Value, Value)> = seen
        .iter()
        .map(|doc| (doc["tool_name"].clone(), doc["tool_input"].clone()))
        .collect();
    assert_eq!(shapes.len(), 3, "{shapes:#?}");
    let find = |tool: &str| {
        shapes
            .iter()
            .find(|(name, _)| name == tool)
            .map(|(_, input)| input.clone())
            .unwrap_or_else(|| panic!("no {tool} run: {shapes:#?}"))
    };
    let grep = find("Grep");
    assert_eq!(
        (&grep["path"], &grep["glob"], &grep["output_mode"]),
        (
            &json!(".env"),
            &json!("*.env"),
            &json!("files_with_matches")
        ),
        "{grep:#}"
    );
    assert_eq!(find("Glob")["path"], json!("."));
    assert_eq!(find("Bash")["command"], json!("rm -rf /"));
}

#[test]
fn a_fail_closed_bash_rule_runs_for_any_text_typed_into_a_program() {
    let (home, project) = home_with("[claude]");
    let guard = home.script("deny.sh", DENY_ALL);
    user_guards(&home, &guard, &[("Bash", json!({"if": "Bash(rm *)"}))]);
    for data in ["rm -rf /", "import os; os.system('r' + 'm -rf /')"] {
        for action in ["submit", "write"] {
            let args = json!({"action": action, "session_id": "proc_1", "data": data});
            assert!(blocked(&home, &project, "process", args), "{action} {data}");
        }
    }
    let poll = json!({"action": "poll", "session_id": "proc_1"});
    assert!(!blocked(&home, &project, "process", poll));
}

#[test]
fn a_rewrite_reaches_the_argument_the_hermes_tool_reads() {
    let (home, project) = home_with("[claude]");
    let rewrite = |name: &str, input: Value| {
        let reply = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "allow", "updatedInput": input}});
        home.script(
            name,
            &format!("#!/bin/sh\ncat >/dev/null\necho '{reply}'\n"),
        )
    };
    let url = rewrite("url.sh", json!({"url": "https://safe.example/"}));
    user_guards(&home, &url, &[("WebFetch", json!({}))]);
    let fetched = json!({"urls": ["https://a.example/", "https://b.example/"]});
    let args = &outcome(&home, &project, "web_extract", fetched)["args"];
    assert_eq!(
        args["urls"],
        json!(["https://safe.example/", "https://safe.example/"]),
        "{args:#}"
    );
    let command = rewrite("command.sh", json!({"command": "echo safe"}));
    user_guards(&home, &command, &[("Bash", json!({}))]);
    let typed = json!({"action": "submit", "session_id": "proc_1", "data": "rm -rf /"});
    let args = &outcome(&home, &project, "process", typed)["args"];
    assert_eq!(args["data"], json!("echo safe"), "{args:#}");
    let glob = rewrite("glob.sh", json!({"glob": "*.rs"}));
    user_guards(&home, &glob, &[("Grep", json!({}))]);
    let search = json!({"pattern": "x", "file_glob": "*.env"});
    let args = &outcome(&home, &project, "search_files", search)["args"];
    assert_eq!(args["file_glob"], json!("*.rs"), "{args:#}");
}

#[test]
fn a_relative_path_reaches_the_guard_with_the_agents_spelling_and_runs_a_folder_rule() {
    let (home, project) = home_with("[claude]");
    let capture = capture_script(&home);
    user_guards(&home, &capture, &[("Read", json!({}))]);
    outcome(&home, &project, "read_file", json!({"path": "id_ed25519"}));
    let seen = captured(&home);
    let input = &seen.first().expect("the guard ran")["tool_input"];
    let guess = project.join("id_ed25519").display().to_string();
    assert_eq!(input["file_path"], json!(guess), "{input:#}");
    assert_eq!(
        input["file_path_as_given"],
        json!("id_ed25519"),
        "{input:#}"
    );

    // After a `cd secrets` in the terminal, `key` is `secrets/key`.
    let guard = home.script("deny.sh", DENY_ALL);
    user_guards(
        &home,
        &guard,
        &[("Read", json!({"if": "Read(secrets/**)"}))],
    );
    assert!(blocked(
        &home,
        &project,
        "read_file",
        json!({"path": "key"})
    ));
    let elsewhere = project.join("src/main.rs").display().to_string();
    let args = json!({"path": elsewhere});
    assert!(!blocked(&home, &project, "read_file", args));
}

#[test]
fn every_spelling_of_fail_closed_fails_closed_and_is_warned_about() {
    let (home, project) = home_with("[claude]");
    let missing = home.user_home.join(".claude/hooks/missing-guard.sh");
    for (spelling, warned) in [
        ("failClosed", false),
        ("fail_closed", false),
        ("FailClosed", true),
        ("failclosed", true),
        ("fail-closed", true),
        ("FAIL_CLOSED", true),
    ] {
        let handler = json!({"type": "command", "command": missing.display().to_string(),
            spelling: true});
        let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}});
        write(
            &home.user_home,
            ".claude/settings.json",
            &settings.to_string(),
        );
        let payload = json!({"tool_name": "terminal", "args": {"command": "ls"}});
        let file = home.write("payload.json", &payload.to_string());
        let file = file.to_str().expect("UTF-8");
        let args = [
            "--accept-hooks",
            "emit",
            "pre_tool_call",
            "--json",
            "--payload-file",
            file,
        ];
        let run = in_project(&home, &project, &args);
        let emitted: Value = serde_json::from_str(run.ok().trim()).expect("JSON");
        assert_eq!(
            emitted["outcome"]["action"],
            json!("block"),
            "{spelling}: {emitted:#}"
        );
        let warning = format!("{spelling}: read as failClosed");
        assert_eq!(run.stderr().contains(&warning), warned, "{}", run.stderr());
        let list = in_project(&home, &project, &["list"]);
        let listed = format!("{}{}", list.stdout(), list.stderr());
        assert_eq!(listed.contains(&warning), warned, "{listed}");
    }
}

#[test]
fn an_edit_rule_covers_every_edit_and_a_read_rule_the_searches() {
    let (home, project) = home_with("[claude]");
    let guard = home.script("deny.sh", DENY_ALL);
    user_guards(
        &home,
        &guard,
        &[
            ("Edit|Write|MultiEdit", json!({"if": "Edit(**/.env)"})),
            ("Read|Grep|Glob", json!({"if": "Read(**/.env)"})),
        ],
    );
    let env = json!({"path": ".env", "content": "X=1"});
    assert!(blocked(&home, &project, "write_file", env));
    let readme = json!({"path": "README.md", "content": "x"});
    assert!(!blocked(&home, &project, "write_file", readme));
    for search in [
        json!({"pattern": "SECRET", "path": ".env"}),
        json!({"pattern": "SECRET", "path": "src .env"}),
        json!({"pattern": "SECRET", "path": "src,.env", "target": "files"}),
    ] {
        assert!(
            blocked(&home, &project, "search_files", search.clone()),
            "{search}"
        );
    }
    let replayed = json!({"pattern": "SECRET", "path": ".env"});
    assert!(blocked(&home, &project, "Grep", replayed));
    let src = project.join("src").display().to_string();
    let elsewhere = json!({"pattern": "SECRET", "path": src});
    assert!(!blocked(&home, &project, "search_files", elsewhere));
}
