//! Python plugins through the `hooks` binary: the doc's examples
//! (`examples/python-plugins/`) copied into a home as a user would, a broken
//! guard, `plugins.required`, and the interpreter rule. When the Python
//! reference is installed (`HERMES_REFERENCE_PYTHON`, which
//! `bash .ci/run` sets), the same plugin files run through its
//! `PluginManager` and must decide the same.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::harness;
use crate::support::{Run, TempHome};

/// Runs the reference's PluginManager on a home, loaded once, for each payload
/// in turn: prints one JSON list, the decision and what was printed per payload.
const REFERENCE_SCRIPT: &str = r#"
import contextlib, io, json, os, sys
home, event, payloads = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
os.environ["HERMES_HOME"] = home
from hermes_cli import plugins
manager = plugins.get_plugin_manager()
manager.discover_and_load()
answers = []
for payload in payloads:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        if event == "pre_tool_call":
            details = plugins._get_pre_tool_call_directive_details(**payload)
            decision = {"action": details.action, "message": details.message} if details.action else None
        else:
            results = manager.invoke_hook(event, **payload)
            decision = None
            if event == "pre_llm_call":
                pieces = []
                for result in results:
                    if isinstance(result, dict) and result.get("context"):
                        pieces.append(str(result["context"]))
                    elif isinstance(result, str) and result.strip():
                        pieces.append(result)
                decision = {"context": "\n\n".join(pieces)} if pieces else None
            elif event.startswith("transform_"):
                decision = next((r for r in results if isinstance(r, str)), None)
    answers.append({"decision": decision, "printed": printed.getvalue()})
print(json.dumps(answers))
"#;

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/python-plugins")
}

/// The reference interpreter (hermes-agent 0.20.1), if installed; skips
/// saying why on a developer's machine, fails in CI.
fn reference_python() -> Option<PathBuf> {
    test_support::reference::python()
}

/// Copies example plugins into `home` as a user would and enables them.
fn install(home: &TempHome, examples: &[&str], extra_config: &str) {
    for example in examples {
        let from = examples_dir().join(example);
        let to = home.hermes.join("plugins").join(example);
        std::fs::create_dir_all(&to).expect("mkdir plugin");
        for file in ["plugin.yaml", "__init__.py"] {
            std::fs::copy(from.join(file), to.join(file)).expect("copy example");
        }
    }
    home.config(&format!(
        "plugins:\n  enabled: [{}]\n{extra_config}",
        examples.join(", ")
    ));
}

/// Runs `hooks --home <hermes> ARGS` with extra environment variables.
fn hooks(home: &TempHome, args: &[&str], env: &[(&str, &str)]) -> Run {
    run_with(harness::command(home, args), env)
}

/// Runs `command` without the caller's plugin settings, with `env` added.
fn run_with(mut command: std::process::Command, env: &[(&str, &str)]) -> Run {
    command
        .env_remove("HERMES_HOOKS_PYTHON")
        .env_remove("HERMES_ENABLE_PROJECT_PLUGINS");
    for (key, value) in env {
        command.env(key, value);
    }
    Run(command.output().expect("run hooks"))
}

/// `hooks emit EVENT --payload-file <payload> --json`: the outcome and the run.
fn emit(home: &TempHome, event: &str, payload: &Value, env: &[(&str, &str)]) -> (Value, Run) {
    let run = run_with(harness::emit_json(home, event, payload), env);
    let outcome = run.json()["outcome"].clone();
    (outcome, run)
}

/// The reference's decision and what its plugins printed for each of
/// `payloads`, for the same files: one interpreter (the reference's import
/// is most of its cost), its plugins loaded once, as in one session.
fn reference(
    examples: &[&str],
    event: &str,
    payloads: &[Value],
    env: &[(&str, &str)],
) -> Option<Vec<Value>> {
    let python = reference_python()?;
    let home = TempHome::new();
    install(&home, examples, "");
    let mut command = Command::new(python);
    command
        .arg("-c")
        .arg(REFERENCE_SCRIPT)
        .arg(&home.hermes)
        .arg(event)
        .arg(Value::from(payloads.to_vec()).to_string())
        .env("HOME", &home.user_home);
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().expect("run the reference");
    assert!(
        output.status.success(),
        "reference failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().expect("a JSON line");
    let answers: Vec<Value> = serde_json::from_str(last).expect("reference JSON");
    assert_eq!(answers.len(), payloads.len(), "one answer per payload");
    Some(answers)
}

#[test]
fn the_rm_guard_blocks_rm_rf_as_in_the_reference() {
    if !harness::python_available() {
        return;
    }
    let home = TempHome::new();
    install(&home, &["rm-guard"], "");
    let cases = [
        (
            "rm -rf /",
            json!({"action": "block", "message": "blocked: rm -rf / is not permitted"}),
        ),
        ("ls -la", Value::Null),
    ];
    let payloads: Vec<Value> = cases
        .iter()
        .map(|(command, _)| {
            json!({"tool_name": "terminal", "args": {"command": command}, "task_id": "t1"})
        })
        .collect();
    for ((command, expected), payload) in cases.iter().zip(&payloads) {
        let (outcome, run) = emit(&home, "pre_tool_call", payload, &[]);
        assert_eq!(&outcome, expected, "{command}: {}", run.stderr());
        assert!(!run.stderr().contains("warning"), "{}", run.stderr());
    }
    if let Some(answers) = reference(&["rm-guard"], "pre_tool_call", &payloads, &[]) {
        for ((command, expected), answer) in cases.iter().zip(&answers) {
            assert_eq!(&answer["decision"], expected, "reference for {command}");
        }
    }
}

/// Serves every request with `body` until the test ends; returns the base URL.
fn memory_api(body: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = listener.local_addr().expect("address");
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let mut request = Vec::new();
            let mut buffer = [0u8; 4096];
            // Read the headers and the JSON body (Content-Length bytes).
            while let Ok(read) = stream.read(&mut buffer) {
                if read == 0 {
                    break;
                }
                request.extend_from_slice(&buffer[..read]);
                let text = String::from_utf8_lossy(&request);
                if let Some(end) = text.find("\r\n\r\n") {
                    let length = text[..end]
                        .lines()
                        .find_map(|line| {
                            let lower = line.to_ascii_lowercase();
                            lower
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                        })
                        .unwrap_or(0);
                    if request.len() >= end + 4 + length {
                        break;
                    }
                }
            }
            let response = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(response.as_bytes());
        }
    });
    format!("http://{address}")
}

#[test]
fn memory_recall_adds_its_context_as_in_the_reference() {
    if !harness::python_available() {
        return;
    }
    let api = memory_api(
        r#"{"results": [{"text": "User likes Python"}, {"text": "Working on hermes-agent"}]}"#,
    );
    let env = [("MEMORY_API", api.as_str())];
    let home = TempHome::new();
    install(&home, &["memory-recall"], "");
    let payload = json!({"session_id": "s1", "user_message": "what do I like?", "is_first_turn": true,
                         "conversation_history": [], "model": "m", "platform": "cli"});
    let (outcome, run) = emit(&home, "pre_llm_call", &payload, &env);
    let expected =
        json!({"context": "Recalled context:\n- User likes Python\n- Working on hermes-agent"});
    assert_eq!(outcome, expected, "{}", run.stderr());
    if let Some(answers) = reference(&["memory-recall"], "pre_llm_call", &[payload], &env) {
        assert_eq!(answers[0]["decision"], expected);
    }
}

#[test]
fn the_redactor_replaces_sk_keys_as_in_the_reference() {
    if !harness::python_available() {
        return;
    }
    let home = TempHome::new();
    install(&home, &["secret-redactor"], "");
    let key = format!("sk-{}", "A1b2".repeat(10));
    let cases = [
        (
            format!("{{\"output\": \"token {key} done\"}}"),
            json!("{\"output\": \"token [REDACTED] done\"}"),
        ),
        ("{\"output\": \"nothing secret\"}".to_owned(), Value::Null),
    ];
    let payloads: Vec<Value> = cases
        .iter()
        .map(|(result, _)| {
            json!({"tool_name": "terminal", "args": {}, "result": result, "task_id": "t"})
        })
        .collect();
    for ((_, expected), payload) in cases.iter().zip(&payloads) {
        let (outcome, run) = emit(&home, "transform_tool_result", payload, &[]);
        assert_eq!(&outcome, expected, "{}", run.stderr());
    }
    if let Some(answers) = reference(
        &["secret-redactor"],
        "transform_tool_result",
        &payloads,
        &[],
    ) {
        for ((_, expected), answer) in cases.iter().zip(&answers) {
            assert_eq!(&answer["decision"], expected);
        }
    }
}

#[test]
fn the_stream_observer_shows_each_delta_naming_the_plugin() {
    if !harness::python_available() {
        return;
    }
    let home = TempHome::new();
    install(&home, &["stream-observer"], "");
    let payload = json!({"delta": "Hello, wor", "kind": "text", "turn_id": "t", "iteration": 1,
                         "session_id": "s", "model": "m", "provider": "p", "surface": "cli"});
    let (outcome, run) = emit(&home, "on_stream_delta", &payload, &[]);
    assert_eq!(outcome, Value::Null);
    assert!(
        run.stderr()
            .contains("Python plugin 'stream-observer': Hello, wor"),
        "{}",
        run.stderr()
    );
    if let Some(answers) = reference(&["stream-observer"], "on_stream_delta", &[payload], &[]) {
        assert_eq!(answers[0]["decision"], Value::Null);
        assert_eq!(answers[0]["printed"], "Hello, wor");
    }
}

#[test]
fn the_prompt_section_plugin_loads_and_lists_its_section() {
    if !harness::python_available() {
        return;
    }
    let home = TempHome::new();
    install(&home, &["worker-rules"], "");
    // `list` runs no plugin code: what it registers is known after `doctor`'s trial load.
    let out = hooks(&home, &["list"], &[]).ok();
    assert!(
        out.contains("worker-rules (python, enabled) — not inspected yet"),
        "{out}"
    );
    hooks(&home, &["doctor"], &[]);
    let out = hooks(&home, &["list"], &[]).ok();
    assert!(out.contains("worker-rules (python, loaded)"), "{out}");
    let (outcome, run) = emit(
        &home,
        "pre_tool_call",
        &json!({"tool_name": "x", "args": {}}),
        &[],
    );
    assert_eq!(outcome, Value::Null);
    assert!(!run.stderr().contains("warning"), "{}", run.stderr());
    // hermes-agent 0.19.0 has no ctx.register_system_prompt_section (a later upstream API).
    eprintln!("reference comparison skipped for worker-rules: 0.19.0 has no prompt sections");
}

/// The rm-guard example with a syntax error appended.
fn broken_guard(home: &TempHome, extra_config: &str) {
    install(home, &["rm-guard"], extra_config);
    let init = home.hermes.join("plugins/rm-guard/__init__.py");
    let mut code = std::fs::read_to_string(&init).expect("read");
    code.push_str("\ndef broken(:\n    pass\n");
    std::fs::write(init, code).expect("write");
}

#[test]
fn a_guard_that_fails_to_import_is_visible_and_required_blocks() {
    if !harness::python_available() {
        return;
    }
    let rm = json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}});
    let home = TempHome::new();
    broken_guard(&home, "");
    let (outcome, run) = emit(&home, "pre_tool_call", &rm, &[]);
    assert_eq!(outcome, Value::Null);
    let stderr = run.stderr();
    assert_eq!(
        stderr
            .matches("Python plugin 'rm-guard' (user) not loaded: SyntaxError")
            .count(),
        1,
        "{stderr}"
    );
    assert_eq!(hooks(&home, &["doctor"], &[]).code(), Some(1));
    let listed = hooks(&home, &["list"], &[]).ok();
    assert!(
        listed.contains("rm-guard (python, failed): SyntaxError"),
        "{listed}"
    );

    let home = TempHome::new();
    broken_guard(&home, "  required: [rm-guard]\n");
    for payload in [
        rm,
        json!({"tool_name": "read_file", "args": {"path": "/etc/hosts"}}),
    ] {
        let (outcome, run) = emit(&home, "pre_tool_call", &payload, &[]);
        assert_eq!(outcome["action"], "block", "{}", run.stderr());
        let message = outcome["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with(
                "required plugin 'rm-guard' is not running (failed to load: SyntaxError"
            ),
            "{message}"
        );
    }
}

#[test]
fn plugins_run_with_the_interpreter_the_rule_names() {
    if !harness::python_available() {
        return;
    }
    let home = TempHome::new();
    install(&home, &["rm-guard"], "");
    let marker = home.hermes.join("wrapper-ran");
    let wrapper = home.script(
        "python-wrapper",
        &format!(
            "#!/bin/sh\ntouch '{}'\nexec python3 \"$@\"\n",
            marker.display()
        ),
    );
    let wrapper = wrapper.to_string_lossy().into_owned();
    let rm = json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}});
    let file = home.write("payload.json", &rm.to_string());
    let run = hooks(
        &home,
        &[
            "-v",
            "emit",
            "pre_tool_call",
            "--payload-file",
            &file.to_string_lossy(),
            "--json",
        ],
        &[("HERMES_HOOKS_PYTHON", &wrapper)],
    );
    assert_eq!(run.json()["outcome"]["action"], "block");
    assert!(
        marker.exists(),
        "the worker did not start through HERMES_HOOKS_PYTHON"
    );
    assert!(
        run.stderr().contains("from $HERMES_HOOKS_PYTHON"),
        "{}",
        run.stderr()
    );
}

/// Whether `pid` is still a live (not zombie) process.
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z'))
    })
}

#[test]
fn nothing_the_worker_started_outlives_the_run() {
    if !harness::python_available() {
        return;
    }
    let home = TempHome::new();
    home.write("plugins/spawner/plugin.yaml", "name: spawner\n");
    home.write(
        "plugins/spawner/__init__.py",
        r#"
import os, subprocess
def register(ctx):
    child = subprocess.Popen(["sleep", "300"], start_new_session=True)
    with open(os.path.join(os.environ["HERMES_HOME"], "child.pid"), "w") as f:
        f.write(str(child.pid))
    ctx.register_hook("pre_tool_call", lambda **kw: None)
"#,
    );
    home.config("plugins:\n  enabled: [spawner]\n");
    let (outcome, run) = emit(
        &home,
        "pre_tool_call",
        &json!({"tool_name": "x", "args": {}}),
        &[],
    );
    assert_eq!(outcome, Value::Null, "{}", run.stderr());
    let pid: u32 = std::fs::read_to_string(home.hermes.join("child.pid"))
        .expect("the plugin wrote its child's pid")
        .trim()
        .parse()
        .expect("a pid");
    // A hang guard: the child, killed with the worker's tree, only has to be reaped.
    harness::wait_until(
        &format!("the plugin's detached child {pid} gone after `hooks emit`"),
        || !alive(pid),
    );
}

#[test]
fn every_line_an_observer_prints_is_shown_before_emit_exits() {
    // Observer events are pipelined: the host counts them run from a notice
    // on the protocol pipe, while the prints travel on stderr. The notice
    // says how many stderr lines came first, and `hooks emit` waits until
    // they were shown (a plugin's last prints were lost at exit under load).
    if !harness::python_available() {
        return;
    }
    let home = TempHome::new();
    home.write("plugins/chatty/plugin.yaml", "name: chatty\n");
    home.write(
        "plugins/chatty/__init__.py",
        "def on_delta(delta, **kwargs):\n    for i in range(3000):\n        print('line', i)\n\n\
         def register(ctx):\n    ctx.register_hook('on_stream_delta', on_delta)\n",
    );
    home.config("plugins:\n  enabled: [chatty]\n");
    let payload = json!({"delta": "x", "kind": "text", "turn_id": "t", "iteration": 1,
                         "session_id": "s", "model": "m", "provider": "p", "surface": "cli"});
    let (_, run) = emit(&home, "on_stream_delta", &payload, &[]);
    let shown = run
        .stderr()
        .lines()
        .filter(|line| line.contains("Python plugin 'chatty': line "))
        .count();
    assert_eq!(shown, 3000, "{}", run.stderr());
}
