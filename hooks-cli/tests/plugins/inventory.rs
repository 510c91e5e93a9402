//! One inventory: `list`, `doctor` and the runtime (`emit`) agree on every
//! plugin case — a required plugin that will not run is a `doctor` problem
//! exactly when `emit` blocks every tool call — `list` runs no hook or
//! plugin code, and `doctor`'s trial loads run at once under one bound.

use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::harness;
use crate::support::{Run, TempHome};

/// `hooks ARGS` with `python3` as the interpreter and extra environment.
fn hooks(home: &TempHome, args: &[&str], env: &[(&str, &str)]) -> Run {
    with_env(harness::command(home, args), env)
}

/// Runs `command` with the Python these tests use and `env` on top.
fn with_env(mut command: Command, env: &[(&str, &str)]) -> Run {
    command
        .env("HERMES_HOOKS_PYTHON", "python3")
        .env_remove("HERMES_ENABLE_PROJECT_PLUGINS");
    for (key, value) in env {
        command.env(key, value);
    }
    harness::within(command, Duration::from_secs(120)).expect("hooks finishes")
}

/// The outcome of `emit pre_tool_call` for a terminal call.
fn emit_tool_call(home: &TempHome, env: &[(&str, &str)]) -> Value {
    let payload = json!({"tool_name": "terminal", "args": {"command": "ls"}});
    let run = with_env(harness::emit_json(home, "pre_tool_call", &payload), env);
    run.json()["outcome"].clone()
}

/// A Python plugin folder (`plugin.yaml` + `__init__.py`).
fn python_plugin(home: &TempHome, key: &str, init: &str) {
    home.write(
        &format!("plugins/{key}/plugin.yaml"),
        &format!("name: {key}\n"),
    );
    home.write(&format!("plugins/{key}/__init__.py"), init);
}

const REGISTERS_NOTHING: &str = "def register(ctx):\n    pass\n";

/// `doctor --json`'s problem messages; asserts it exited 1.
fn problems(home: &TempHome, env: &[(&str, &str)]) -> Vec<String> {
    let run = hooks(home, &["doctor", "--json"], env);
    assert_eq!(run.code(), Some(1), "{}\n{}", run.stdout(), run.stderr());
    let document: Value = serde_json::from_str(run.stdout().trim()).expect("one JSON object");
    document["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .map(|p| p["message"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn a_required_typo_is_a_problem_naming_the_installed_plugin_as_emit_blocks() {
    let home = TempHome::new();
    python_plugin(&home, "rm-guard", REGISTERS_NOTHING);
    home.config("plugins:\n  required: [rm_guard]\n");
    // The runtime: every tool call blocked.
    let outcome = emit_tool_call(&home, &[]);
    assert_eq!(outcome["action"], "block", "{outcome}");
    // doctor: the same case, with the near name.
    let found = problems(&home, &[]);
    assert!(
        found.iter().any(|m| m.contains(
            "required plugin 'rm_guard' will not be running (not installed — did you mean 'rm-guard'?)"
        ) && m.contains("every tool call is blocked")),
        "{found:?}"
    );
    let listed = hooks(&home, &["list"], &[]).ok();
    assert!(listed.contains("did you mean 'rm-guard'"), "{listed}");
}

#[test]
fn a_required_plugin_missing_not_enabled_or_under_safe_mode_is_a_problem() {
    let home = TempHome::new();
    python_plugin(&home, "rm-guard", REGISTERS_NOTHING);
    // Not installed at all, and installed but not enabled.
    home.config("plugins:\n  required: [ghost, rm-guard]\n");
    assert_eq!(emit_tool_call(&home, &[])["action"], "block");
    let found = problems(&home, &[]);
    assert!(
        found
            .iter()
            .any(|m| m.contains("required plugin 'ghost' will not be running (not installed)")),
        "{found:?}"
    );
    assert!(
        found.iter().any(|m| m
            .contains("required plugin 'rm-guard' will not be running (not enabled in config)")),
        "{found:?}"
    );
    // Enabled, but safe mode loads nothing: still blocked, still a problem.
    if !harness::python_available() {
        return;
    }
    home.config("plugins:\n  enabled: [rm-guard]\n  required: [rm-guard]\n");
    let safe = [("HERMES_SAFE_MODE", "1")];
    assert_eq!(emit_tool_call(&home, &safe)["action"], "block");
    let found = problems(&home, &safe);
    assert!(
        found.iter().any(|m| m.contains(
            "required plugin 'rm-guard' will not be running (skipped (HERMES_SAFE_MODE))"
        )),
        "{found:?}"
    );
    // And without safe mode it loads: no problem, nothing blocked.
    let run = hooks(&home, &["doctor"], &[]);
    assert_eq!(run.code(), Some(0), "{}", run.stdout());
    assert_eq!(emit_tool_call(&home, &[]), Value::Null);
}

#[test]
fn an_enabled_plugin_that_does_not_exist_is_reported() {
    if !harness::python_available() {
        return;
    }
    let home = TempHome::new();
    python_plugin(&home, "signoff", REGISTERS_NOTHING);
    home.config("plugins:\n  enabled: [signof]\n");
    let found = problems(&home, &[]);
    assert!(
        found.iter().any(
            |m| m.contains("plugin 'signof' is enabled but not installed")
                && m.contains("did you mean 'signoff'?")
        ),
        "{found:?}"
    );
    let listed = hooks(&home, &["list"], &[]).ok();
    assert!(
        listed.contains("plugin 'signof' is enabled but not installed"),
        "{listed}"
    );
}

#[test]
fn a_manifest_without_a_library_is_a_problem_not_a_loaded_native_plugin() {
    let home = TempHome::new();
    home.write("plugins/half/plugin.yaml", "name: half\n");
    home.config("plugins:\n  enabled: [half]\n");
    let listed = hooks(&home, &["list"], &[]).ok();
    assert!(
        listed.contains("half (native, failed): neither a `library`"),
        "{listed}"
    );
    assert!(!listed.contains("ABI v0"), "{listed}");
    let found = problems(&home, &[]);
    assert!(
        found
            .iter()
            .any(|m| m.contains("plugin 'half'") && m.contains("neither a `library`")),
        "{found:?}"
    );
}

#[test]
fn a_hook_name_typo_in_config_or_a_registration_is_reported_with_the_near_name() {
    let home = TempHome::new();
    home.only_hook("pre_tool_cal", "ok.sh", "#!/bin/sh\necho '{}'\n");
    let found = problems(&home, &[]);
    assert!(
        found
            .iter()
            .any(|m| m.contains("unknown hook event 'pre_tool_cal'")
                && m.contains("did you mean 'pre_tool_call'")),
        "{found:?}"
    );
    if !harness::python_available() {
        return;
    }
    let home = TempHome::new();
    python_plugin(
        &home,
        "typo",
        "def register(ctx):\n    ctx.register_hook('pre_tool_cal', lambda **kw: None)\n",
    );
    home.config("plugins:\n  enabled: [typo]\n");
    let found = problems(&home, &[]);
    assert!(
        found.iter().any(
            |m| m.contains("plugin 'typo' registers unknown hook 'pre_tool_cal'")
                && m.contains("did you mean 'pre_tool_call'?")
        ),
        "{found:?}"
    );
    // `list` shows the cached finding too, without importing anything.
    let listed = hooks(&home, &["list"], &[]).ok();
    assert!(listed.contains("unknown hook 'pre_tool_cal'"), "{listed}");
}

#[test]
fn list_runs_no_plugin_or_handler_code_and_shows_what_doctor_learnt() {
    if !harness::python_available() {
        return;
    }
    let home = TempHome::new();
    let plugin_ran = home.hermes.join("plugin-ran");
    let handler_ran = home.hermes.join("handler-ran");
    python_plugin(
        &home,
        "noisy",
        &format!(
            "open({:?}, 'w').write('imported')\n\ndef register(ctx):\n    ctx.register_hook('on_session_start', lambda **kw: None)\n",
            plugin_ran.display().to_string()
        ),
    );
    home.write(
        "hooks/greeter/HOOK.yaml",
        "name: greeter\nevents: [agent:start]\n",
    );
    home.write(
        "hooks/greeter/handler.py",
        &format!(
            "open({:?}, 'w').write('imported')\n\ndef handle(event_type, context):\n    pass\n",
            handler_ran.display().to_string()
        ),
    );
    home.config("plugins:\n  enabled: [noisy]\n");
    let listed = hooks(&home, &["list"], &[]).ok();
    assert!(!plugin_ran.exists(), "list imported the plugin");
    assert!(!handler_ran.exists(), "list imported the gateway handler");
    assert!(
        listed.contains("noisy (python, enabled) — not inspected yet"),
        "{listed}"
    );
    assert!(
        listed.contains("greeter (handler.py, not inspected yet"),
        "{listed}"
    );

    let run = hooks(&home, &["doctor"], &[]);
    assert_eq!(run.code(), Some(0), "{}", run.stdout());
    assert!(
        plugin_ran.exists() && handler_ran.exists(),
        "doctor trial-loads"
    );
    std::fs::remove_file(&plugin_ran).expect("remove");
    std::fs::remove_file(&handler_ran).expect("remove");
    let listed = hooks(&home, &["list"], &[]).ok();
    assert!(
        !plugin_ran.exists() && !handler_ran.exists(),
        "list ran code"
    );
    assert!(listed.contains("noisy (python, loaded)"), "{listed}");
    assert!(listed.contains("hooks:   on_session_start"), "{listed}");
    assert!(listed.contains("greeter (handler.py, loaded)"), "{listed}");
    // An edited plugin is not the one doctor saw.
    home.write(
        "plugins/noisy/__init__.py",
        "def register(ctx):\n    ctx.register_hook('on_session_end', lambda **kw: None)\n",
    );
    let listed = hooks(&home, &["list"], &[]).ok();
    assert!(
        listed.contains("noisy (python, enabled) — not inspected yet"),
        "{listed}"
    );
}

/// A plugin whose import leaves `started-<key>` in `marks`, waits (up to a
/// minute) for `started-<other>`, leaves `met-<key>` when it comes, then
/// hangs: `met-<key>` exists only if the other plugin's import ran while this
/// one was still running.
fn rendezvous_plugin(marks: &std::path::Path, key: &str, other: &str) -> String {
    let marks = marks.display();
    format!(
        "import os, time\n\
         open(os.path.join('{marks}', 'started-{key}'), 'w').close()\n\
         for _ in range(600):\n\
         \x20   if os.path.exists(os.path.join('{marks}', 'started-{other}')):\n\
         \x20       open(os.path.join('{marks}', 'met-{key}'), 'w').close()\n\
         \x20       break\n\
         \x20   time.sleep(0.1)\n\
         time.sleep(120)\n\n\
         def register(ctx):\n    pass\n"
    )
}

#[test]
fn doctor_trial_loads_two_hanging_plugins_in_one_bound() {
    if !harness::python_available() {
        return;
    }
    let home = TempHome::new();
    let marks = home.hermes.join("marks");
    std::fs::create_dir_all(&marks).expect("marks dir");
    for (key, other) in [("hang-a", "hang-b"), ("hang-b", "hang-a")] {
        python_plugin(&home, key, &rendezvous_plugin(&marks, key, other));
    }
    home.config("plugins:\n  enabled: [hang-a, hang-b]\n");
    let run = hooks(&home, &["doctor", "--json", "--timeout", "8"], &[]);
    assert_eq!(run.code(), Some(1), "{}", run.stdout());
    let text = run.stdout();
    assert_eq!(text.matches("timed out after 8 s").count(), 2, "{text}");
    // Together, not one after the other: each import saw the other one
    // start before its own bound killed it (one after the other, the first
    // is killed still waiting). Checked by overlap, not by a clock.
    for key in ["hang-a", "hang-b"] {
        assert!(
            marks.join(format!("met-{key}")).exists(),
            "{key} was never running while the other was: {text}"
        );
    }
}

#[test]
fn a_pip_installed_plugin_loaded_by_emit_is_shown_by_list_and_doctor() {
    if !harness::python_available() {
        return;
    }
    let home = TempHome::new();
    // A pip-installed package: its module and its dist-info on PYTHONPATH.
    let site = home.user_home.join("site");
    home.write(
        "../site/ep_guard_mod.py",
        "def _block(**kw):\n    return {'action': 'block', 'message': 'ep-guard says no'}\n\n\
         def register(ctx):\n    ctx.register_hook('pre_tool_call', _block)\n",
    );
    home.write(
        "../site/ep_guard-1.0.dist-info/METADATA",
        "Metadata-Version: 2.1\nName: ep-guard\nVersion: 1.0\n",
    );
    home.write(
        "../site/ep_guard-1.0.dist-info/entry_points.txt",
        "[hermes_agent.plugins]\nep-guard = ep_guard_mod\n",
    );
    home.config("plugins:\n  enabled: [ep-guard]\n");
    let site = site.display().to_string();
    let env = [("PYTHONPATH", site.as_str())];
    assert_eq!(emit_tool_call(&home, &env)["message"], "ep-guard says no");
    let listed = hooks(&home, &["list"], &env).ok();
    assert!(listed.contains("ep-guard (python, enabled)"), "{listed}");
    assert!(!listed.contains("is enabled but not installed"), "{listed}");
    let run = hooks(&home, &["doctor"], &env);
    let text = run.stdout();
    assert!(text.contains("- ep-guard (python)"), "{text}");
    assert!(text.contains("✓ registers: pre_tool_call"), "{text}");
    assert_eq!(run.code(), Some(0), "{text}");
}

#[test]
fn list_starts_python_at_most_once_and_not_through_a_known_shim() {
    if !harness::python_available() {
        return;
    }
    let home = TempHome::new();
    let log = home.user_home.join("shim.log");
    std::fs::create_dir_all(home.user_home.join("bin")).expect("mkdir");
    // A pyenv-shaped shim: it hands over to `pyenv exec`, which runs python3.
    std::fs::create_dir_all(home.user_home.join("pyenv/libexec")).expect("mkdir");
    let pyenv = home.script(
        "../pyenv/libexec/pyenv",
        "#!/bin/sh\nshift 2\nexec python3 \"$@\"\n",
    );
    let shim = home.script(
        "../bin/python3-shim",
        &format!(
            "#!/bin/sh\necho started >> '{}'\nexec \"{}\" exec \"python3\" \"$@\"\n",
            log.display(),
            pyenv.display()
        ),
    );
    for key in ["a", "b", "c"] {
        python_plugin(&home, key, REGISTERS_NOTHING);
    }
    // `maybe-pip` answers no folder: only Python can say whether it is pip-installed.
    home.config("plugins:\n  enabled: [a, b, c, maybe-pip]\n");
    let shim = shim.display().to_string();
    let env = [("HERMES_HOOKS_PYTHON", shim.as_str())];
    let starts = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .count()
    };
    let listed = hooks(&home, &["list"], &env).ok();
    assert!(
        listed.contains("plugin 'maybe-pip' is enabled but not installed"),
        "{listed}"
    );
    assert_eq!(
        starts(),
        1,
        "one Python start for the entry points, none per plugin"
    );
    hooks(&home, &["list"], &env).ok();
    assert_eq!(
        starts(),
        1,
        "the second list starts the real interpreter, not the shim"
    );
    // Nothing needs Python: nothing starts.
    home.config("plugins:\n  enabled: [a, b, c]\n");
    std::fs::remove_file(&log).expect("remove");
    let listed = hooks(&home, &["list"], &env).ok();
    assert!(listed.contains("a (python, enabled)"), "{listed}");
    assert_eq!(starts(), 0);
}

#[test]
fn a_plugin_is_trial_loaded_with_the_plugins_it_requires() {
    if !harness::python_available() {
        return;
    }
    let home = TempHome::new();
    python_plugin(
        &home,
        "base",
        "VALUE = 'from base'\n\ndef register(ctx):\n    pass\n",
    );
    home.write(
        "plugins/child/plugin.yaml",
        "name: child\nrequires_plugins: [base]\n",
    );
    home.write(
        "plugins/child/__init__.py",
        "from hermes_plugins.base import VALUE\n\n\
         def register(ctx):\n    ctx.register_hook('on_session_start', lambda **kw: None)\n",
    );
    home.config("plugins:\n  enabled: [base, child]\n");
    let run = hooks(&home, &["doctor"], &[]);
    assert_eq!(run.code(), Some(0), "{}", run.stdout());
    assert!(
        run.stdout().contains("✓ registers: on_session_start"),
        "{}",
        run.stdout()
    );
    // A requirement nobody enabled: the runtime warns (and loads it anyway), so does doctor.
    home.write(
        "plugins/lonely/plugin.yaml",
        "name: lonely\nrequires_plugins: [ghost]\n",
    );
    home.write("plugins/lonely/__init__.py", REGISTERS_NOTHING);
    home.config("plugins:\n  enabled: [base, child, lonely]\n");
    let found = problems(&home, &[]);
    assert!(
        found.iter().any(|m| m
            .contains("plugin lonely requires plugin 'ghost', which is not enabled or installed")),
        "{found:?}"
    );
}
