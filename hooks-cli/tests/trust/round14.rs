//! Red team round 14. R14-2: `hooks --project P` started in `/` (a
//! service's working folder) runs `config.yaml`'s hooks with the system's
//! `PATH`, and an approval made in the project holds there. R14-4: a Codex
//! `config.toml` cut at a byte (inside a comment, just before a line break)
//! keeps blocking what it guarded. R14-5: a fail-closed guard whose
//! verdict is `null` (`{"decision": null, "reason": "blocked"}`) blocks.
//! R14-1: host variables whose value loads a project file without naming
//! it as `./x` or absolutely, or is shell code, are not passed to a user's
//! hook; ordinary ones are.

use std::path::Path;

use serde_json::{Value, json};

use crate::dialects::{
    answering, emit_terminal, emit_terminal_command, home_with, user_fail_closed_guard,
};
use crate::harness;
use crate::round11_guards::{after, codex_guard};
use crate::support::{Run, TempHome};

/// `hooks --project <project> [--accept-hooks] emit pre_tool_call --json`
/// of `terminal` running `command`, started in `folder`.
fn emit_from(home: &TempHome, project: &Path, folder: &Path, command: &str, accept: bool) -> Value {
    let mut emit = emit_terminal_command(home, project, Some(folder), command, accept);
    Run(emit.output().expect("run hooks")).json()
}

/// A home whose `config.yaml` runs a fail-closed `terminal` guard that
/// blocks `rm -rf` ("no rm") and allows the rest, and its project.
pub(crate) fn native_rm_guard() -> (TempHome, std::path::PathBuf) {
    let home = TempHome::new();
    let project = home.user_home.join("project");
    std::fs::create_dir_all(&project).expect("project");
    let guard = home.write(
        "guard.sh",
        "input=$(cat)\ncase \"$input\" in *\"rm -rf\"*) echo '{\"action\":\"block\",\"message\":\"no rm\"}';; *) echo '{}';; esac\n",
    );
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: \"sh {}\"\n      matcher: terminal\n      fail_closed: true\n",
        guard.display()
    ));
    (home, project)
}

/// A user's Claude guard answering `answer` to `rm -rf /` blocks, saying `words`.
pub(crate) fn claude_answer_blocks(answer: &Value, words: &str) {
    let (home, project) = home_with("[claude]");
    user_fail_closed_guard(&home, "Bash", &answering(answer), None);
    let emitted = emit_terminal(&home, &project, "rm -rf /", true);
    assert_eq!(
        emitted["outcome"]["action"], "block",
        "{answer}: {emitted:#}"
    );
    let said = emitted["outcome"]["message"].as_str().unwrap_or_default();
    assert!(said.contains(words), "{answer}: {said}");
}

#[test]
fn a_native_guard_run_from_the_root_folder_keeps_the_system_path() {
    let (home, project) = native_rm_guard();
    let approved = emit_from(&home, &project, &project, "ls", true);
    assert_eq!(approved["outcome"], Value::Null, "{approved:#}");
    for folder in [Path::new("/"), &project] {
        let ls = emit_from(&home, &project, folder, "ls", false);
        assert_eq!(ls["outcome"], Value::Null, "{}: {ls:#}", folder.display());
        let rm = emit_from(&home, &project, folder, "rm -rf /", false);
        assert_eq!(
            rm["outcome"]["message"],
            "no rm",
            "{}: {rm:#}",
            folder.display()
        );
    }
}

#[test]
fn a_codex_config_toml_cut_at_a_byte_keeps_blocking() {
    let head = "model = \"o3\"\n[[hooks.SessionStart]]\n[[hooks.SessionStart.hooks]]\n\
                type = \"command\"\ncommand = \"true\"\n";
    let (home, project, config) = codex_guard(&format!("{head}# the rm guard\n"));
    for cut in [
        head.trim_end_matches('\n').to_owned(),
        format!("{head}# the r"),
        format!("{head}#"),
    ] {
        after(&home, &project, &config, &cut, true);
    }
    // A last line that is no cut of the one it replaces: an edit.
    after(
        &home,
        &project,
        &config,
        &format!("{head}# the guard is gone, on purpose"),
        false,
    );
}

#[test]
fn a_fail_closed_guard_whose_verdict_is_null_blocks() {
    for answer in [
        json!({"decision": null, "reason": "blocked"}),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": null, "permissionDecisionReason": "rm -rf is blocked"}}),
        json!({"hookSpecificOutput": null, "reason": "blocked"}),
    ] {
        claude_answer_blocks(&answer, "is null");
    }
    // Native: `{"action": null, ...}`.
    let home = TempHome::new();
    let project = home.user_home.join("project");
    std::fs::create_dir_all(&project).expect("project");
    let guard = home.write(
        "guard.sh",
        "cat >/dev/null\necho '{\"action\": null, \"message\": \"rm -rf blocked\"}'\n",
    );
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: \"sh {}\"\n      fail_closed: true\n",
        guard.display()
    ));
    let emitted = emit_from(&home, &project, &project, "rm -rf /", true);
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
    // A text left null is a key left out: the guard allowed.
    let (home, project) = home_with("[claude]");
    let answer = json!({"reason": null, "systemMessage": null});
    user_fail_closed_guard(&home, "Bash", &answering(&answer), None);
    let emitted = emit_terminal(&home, &project, "ls", true);
    assert_eq!(emitted["outcome"], Value::Null, "{emitted:#}");
}

#[test]
fn code_valued_host_variables_never_reach_a_users_hook() {
    let home = TempHome::new();
    let project = home.user_home.join("project");
    std::fs::create_dir_all(&project).expect("project");
    let seen = home.user_home.join("seen.env");
    let guard = home.write(
        "guard.sh",
        &format!("cat >/dev/null\nenv > {seen:?}\necho '{{}}'\n"),
    );
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: \"sh {}\"\n      fail_closed: true\n",
        guard.display()
    ));
    emit_from(&home, &project, &project, "ls", true);
    // What the values name is in the project (a word naming nothing there
    // loads nothing, and is passed: R16-8).
    for file in [
        "agent.jar",
        "tools/x.sh",
        "evilgit/config",
        "certs/ca.pem",
        "lib/x.pm",
    ] {
        crate::dialects::write(&project, file, "");
    }
    let withheld = [
        ("PERL5OPT", "-Mlib=lib"),
        ("JAVA_TOOL_OPTIONS", "-javaagent:agent.jar"),
        ("NODE_OPTIONS", "--openssl-config=tools/ssl.cnf"),
        ("PYTHONWARNINGS", "ignore::tools.mod.W"),
        ("GIT_SSH_COMMAND", "sh tools/ssh.sh"),
        ("GIT_DIR", "evilgit"),
        ("EDITOR", "sh tools/ed.sh"),
        ("MAKEFLAGS", "-f tools/x.mk"),
        ("VIMINIT", "source tools/x.vim"),
        ("PSQLRC", "tools/psqlrc"),
        ("SSL_CERT_FILE", "certs/ca.pem"),
        ("PS4", "$(sh tools/x.sh)"),
        ("BASH_FUNC_git%%", "() { sh tools/x.sh; }"),
        ("GIT_CONFIG_VALUE_0", "fsmon"),
        ("GIT_CONFIG_COUNT", "1"),
    ];
    let kept = [
        ("GIT_CONFIG_KEY_0", "core.fsmonitor"),
        ("NODE_OPTIONS_KEEP", "x"),
        ("PYTHONIOENCODING", "utf-8"),
        ("RUBY_VERSION", "ruby-3.2.2"),
        ("GIT_AUTHOR_EMAIL", "jane@example.com"),
        ("TZ", "Europe/Berlin"),
    ];
    // Git's settings through the environment are set on every run: the
    // value is withheld, and so is the count (git then reads none of them);
    // the only pair the hook's git reads is every hook's own
    // (`safe.bareRepository`, round 53).
    for (name, value) in withheld.iter().chain(&kept) {
        let mut command = harness::command(
            &home,
            &[
                "--project",
                project.to_str().expect("UTF-8"),
                "emit",
                "pre_tool_call",
                "--json",
            ],
        );
        command
            .current_dir(&project)
            .env(name, value)
            .env("GIT_CONFIG_KEY_0", "core.fsmonitor")
            .env("GIT_CONFIG_VALUE_0", "fsmon")
            .env("GIT_CONFIG_COUNT", "1")
            .stdin(std::process::Stdio::null());
        let _ = std::fs::remove_file(&seen);
        let out = command.output().expect("run hooks");
        let env = std::fs::read_to_string(&seen)
            .unwrap_or_else(|_| panic!("{name}: the guard did not run: {out:?}"));
        let pairs = git_pairs(&env);
        assert_eq!(
            pairs,
            [("safe.bareRepository".to_owned(), "explicit".to_owned())],
            "{name}={value}: {env}"
        );
        if name.starts_with("GIT_CONFIG_") {
            continue;
        }
        let passed = env
            .lines()
            .any(|line| line.starts_with(&format!("{name}=")));
        let expected = kept.iter().any(|(k, _)| k == name);
        assert_eq!(passed, expected, "{name}={value}");
    }
}

/// The `GIT_CONFIG_KEY_n` / `GIT_CONFIG_VALUE_n` pairs git reads from the
/// environment `env` (`NAME=value` lines): as many as `GIT_CONFIG_COUNT`.
pub(crate) fn git_pairs(env: &str) -> Vec<(String, String)> {
    let value = |name: &str| {
        env.lines()
            .find_map(|line| line.strip_prefix(&format!("{name}=")))
            .map(str::to_owned)
    };
    let count = value("GIT_CONFIG_COUNT")
        .and_then(|count| count.parse::<usize>().ok())
        .unwrap_or(0);
    (0..count)
        .map(|at| {
            let key = value(&format!("GIT_CONFIG_KEY_{at}")).unwrap_or_default();
            (
                key,
                value(&format!("GIT_CONFIG_VALUE_{at}")).unwrap_or_default(),
            )
        })
        .collect()
}
