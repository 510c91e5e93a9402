//! The doc's gateway hook examples (`examples/gateway-hooks/`), copied into a
//! home as a user would, run through the real `hooks` binary; and the gateway's
//! bounds as the binary applies them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::harness;
use crate::support::{Run, TempHome};

/// `examples/gateway-hooks/<name>`.
fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/gateway-hooks")
        .join(name)
}

/// Copies the example hook `name` into `<hermes>/hooks/<name>/`.
fn install(home: &TempHome, name: &str) {
    let target = home.hermes.join("hooks").join(name);
    std::fs::create_dir_all(&target).expect("hook dir");
    for entry in std::fs::read_dir(example(name)).expect("example dir") {
        let path = entry.expect("entry").path();
        let file_name = path.file_name().expect("file name");
        std::fs::copy(&path, target.join(file_name)).expect("copy");
    }
}

/// Runs `hooks --home <hermes> ARGS` with HOME set and extra environment.
fn hooks_with_env(home: &TempHome, args: &[&str], env: &[(&str, &Path)]) -> Run {
    let mut command = harness::command(home, args);
    command.env_remove("HERMES_HOOKS_PYTHON");
    for (key, value) in env {
        command.env(key, value);
    }
    Run(command.output().expect("run hooks"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn json_lines(path: &Path) -> Vec<serde_json::Value> {
    read(path)
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

#[test]
fn my_hook_logs_agent_activity() {
    let home = TempHome::new();
    install(&home, "my-hook");
    let payload = home.write(
        "start.json",
        r#"{"platform": "telegram", "user_id": "42", "message": "hi"}"#,
    );
    let payload = payload.to_string_lossy();
    home.hooks(&["emit", "agent:start", "--payload-file", &payload])
        .ok();
    home.hooks(&["emit", "agent:end", "--payload-file", &payload])
        .ok();
    let log = json_lines(&home.hermes.join("hooks/my-hook/activity.log"));
    let events: Vec<_> = log.iter().map(|entry| entry["event"].clone()).collect();
    assert_eq!(events, ["agent:start", "agent:end"]);
    assert_eq!(log[0]["platform"], "telegram");
    assert_eq!(log[0]["message"], "hi");
    assert!(log[0]["timestamp"].is_string());
}

#[test]
fn command_logger_records_slash_commands() {
    let home = TempHome::new();
    install(&home, "command-logger");
    let payload = home.write(
        "command.json",
        r#"{"platform": "slack", "user_id": "u1", "command": "model", "args": "gpt-5"}"#,
    );
    let run = home.hooks(&[
        "emit",
        "command:model",
        "--payload-file",
        &payload.to_string_lossy(),
        "--json",
    ]);
    assert_eq!(
        run.json()["outcome"],
        serde_json::Value::Null,
        "it only logs"
    );
    let log = json_lines(&home.hermes.join("logs/command_usage.jsonl"));
    assert_eq!(log.len(), 1);
    assert_eq!(log[0]["command"], "model");
    assert_eq!(log[0]["args"], "gpt-5");
    assert_eq!(log[0]["platform"], "slack");
    assert_eq!(log[0]["user"], "u1");
}

/// A `python3 -S` wrapper: an interpreter without site-packages, so `httpx`
/// is missing whatever the machine has installed.
fn bare_python(home: &TempHome) -> PathBuf {
    home.script("python3-bare", "#!/bin/sh\nexec python3 -S \"$@\"\n")
}

#[test]
fn the_httpx_examples_say_clearly_that_httpx_is_missing() {
    for (name, event) in [
        ("session-webhook", "session:start"),
        ("long-task-alert", "agent:step"),
    ] {
        let home = TempHome::new();
        install(&home, name);
        let python = bare_python(&home);
        let run = hooks_with_env(&home, &["emit", event], &[("HERMES_HOOKS_PYTHON", &python)]);
        run.ok();
        let stderr = run.stderr();
        assert!(
            stderr.contains(&format!("{name}/handler.py"))
                && stderr.contains("No module named 'httpx'")
                && stderr.contains(&python.display().to_string())
                && stderr.contains("HERMES_HOOKS_PYTHON"),
            "the warning names the file, the module and the interpreter: {stderr}"
        );
    }
}

#[test]
fn boot_md_posts_its_fixed_notice_when_boot_md_exists() {
    let home = TempHome::new();
    install(&home, "boot-md");
    let notices = home.hermes.join("logs/boot-md.log");
    home.hooks(&["emit", "gateway:startup"]).ok();
    assert!(!notices.exists(), "no BOOT.md, no notice");

    home.write(
        "BOOT.md",
        "# Startup Checklist\n\n1. Check the cron jobs.\n",
    );
    let run = home.hooks(&["emit", "gateway:startup"]);
    run.ok();
    let log = read(&notices);
    assert_eq!(log.lines().count(), 1, "{log}");
    assert!(log.contains("BOOT.md startup checklist is due"), "{log}");
    assert!(
        run.stderr().contains("boot-md") && run.stderr().contains("checklist is due"),
        "the handler's log line is shown naming the hook: {}",
        run.stderr()
    );
}

#[test]
fn a_hung_handler_holds_emit_only_for_the_flush_bound_and_is_killed() {
    let home = TempHome::new();
    home.write(
        "hooks/hung/HOOK.yaml",
        "name: hung\nevents: [agent:start]\n",
    );
    home.write(
        "hooks/hung/handler.py",
        "import os, time\ndef handle(event_type, context):\n    \
         open(os.path.join(os.environ['HERMES_HOME'], 'hung.pid'), 'w').write(str(os.getpid()))\n    \
         time.sleep(600)\n",
    );
    // A hang guard, not a speed check: only an emit that waited for the
    // handler (it sleeps 600 s) reaches half of that.
    harness::within(
        harness::command(&home, &["emit", "agent:start"]),
        harness::HANG_GUARD,
    )
    .expect("emit waited for the hung handler")
    .ok();
    let pid = read(&home.hermes.join("hung.pid"));
    assert!(!pid.is_empty(), "the handler ran before emit exited");
    std::thread::sleep(Duration::from_millis(500));
    let alive = Path::new(&format!("/proc/{}", pid.trim())).exists()
        && !read(Path::new(&format!("/proc/{}/stat", pid.trim()))).contains(") Z ");
    assert!(!alive, "the hung worker {pid} outlived `hooks emit`");
}

#[test]
fn an_executable_deny_arrives_despite_a_background_child() {
    let home = TempHome::new();
    home.write(
        "hooks/guard/HOOK.yaml",
        "name: guard\nevents: [command:*]\n",
    );
    let handler = home.write(
        "hooks/guard/handler",
        "#!/bin/sh\nsleep 600 &\necho '{\"decision\": \"deny\", \"message\": \"not now\"}'\n",
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&handler, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    // A hang guard: waiting on the background child would take its 600 s.
    let run = harness::within(
        harness::command(&home, &["emit", "command:model", "--json"]),
        harness::HANG_GUARD,
    )
    .expect("emit waited for the handler's background child");
    let document = run.json();
    assert!(
        document.to_string().contains("not now"),
        "the deny reached the outcome: {document}"
    );
}

#[test]
fn bad_gateway_settings_warn_naming_file_and_key() {
    let home = TempHome::new();
    home.config("gateway_hooks:\n  command_timeout: soon\n  queue_size: 0\n");
    install(&home, "command-logger");
    let run = home.hooks(&["emit", "command:help"]);
    run.ok();
    let stderr = run.stderr();
    for key in ["gateway_hooks.command_timeout", "gateway_hooks.queue_size"] {
        assert!(
            stderr.contains(key) && stderr.contains("config.yaml"),
            "{key}: {stderr}"
        );
    }
}

/// Writes a Python gateway hook `name` subscribed to `events` whose module
/// appends `name` to `imports.log` in the home each time it is imported.
fn counting_hook(home: &TempHome, name: &str, events: &str) {
    home.write(
        &format!("hooks/{name}/HOOK.yaml"),
        &format!("name: {name}\nevents: {events}\n"),
    );
    home.write(
        &format!("hooks/{name}/handler.py"),
        &format!(
            "import os\n\
             with open(os.path.join(os.environ['HERMES_HOME'], 'imports.log'), 'a') as log:\n\
             \x20   log.write('{name}\\n')\n\
             def handle(event_type, context):\n\
             \x20   return None\n"
        ),
    );
}

/// The handler names imported so far, sorted.
fn imports(home: &TempHome) -> Vec<String> {
    let mut names: Vec<String> = read(&home.hermes.join("imports.log"))
        .lines()
        .map(str::to_owned)
        .collect();
    names.sort();
    names
}

#[test]
fn emit_starts_only_the_gateway_handlers_its_event_reaches() {
    let home = TempHome::new();
    for (name, events) in [
        ("on-start", "['agent:start']"),
        ("on-agent", "['agent:*']"),
        ("on-session", "['session:start']"),
        ("on-command", "['command:reset']"),
        ("on-end", "['agent:end']"),
    ] {
        counting_hook(&home, name, events);
    }
    home.only_hook("pre_tool_call", "guard.sh", "#!/bin/sh\nexit 0\n");
    // An event no gateway hook subscribes to starts no Python at all (it
    // used to start one trial import per handler).
    for args in [
        &["emit", "pre_tool_call", "--accept-hooks"][..],
        &["test", "pre_tool_call"][..],
    ] {
        home.hooks(args).ok();
        assert_eq!(imports(&home), Vec::<String>::new(), "hooks {args:?}");
    }
    // `agent:start` starts the two hooks it reaches, each imported once
    // (by its worker: no throwaway trial import before it).
    home.hooks(&["emit", "agent:start"]).ok();
    assert_eq!(imports(&home), ["on-agent", "on-start"]);
}

#[test]
fn a_broken_handler_is_reported_at_its_first_event_naming_file_and_interpreter() {
    let home = TempHome::new();
    home.write(
        "hooks/broken/HOOK.yaml",
        "name: broken\nevents: ['agent:start']\n",
    );
    home.write(
        "hooks/broken/handler.py",
        "import module_that_does_not_exist\ndef handle(event_type, context):\n    return None\n",
    );
    let quiet = home.hooks(&["emit", "pre_tool_call"]);
    assert!(
        !quiet.stderr().contains("module_that_does_not_exist"),
        "not imported for an event it does not take: {}",
        quiet.stderr()
    );
    let run = home.hooks(&["emit", "agent:start"]);
    run.ok();
    let stderr = run.stderr();
    assert!(
        stderr.contains("broken/handler.py")
            && stderr.contains("No module named 'module_that_does_not_exist'")
            && stderr.contains("python"),
        "the warning names the file, the module and the interpreter: {stderr}"
    );
}
