//! Runs the example host against a copy of the example home, as its README
//! line says, and checks it acted on every gate decision.

use std::path::Path;
use std::process::Command;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read example home") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

#[test]
fn the_example_host_embeds_the_example_home_and_handles_every_gate_decision() {
    let user_home = tempfile::tempdir().expect("tempdir");
    let hermes = user_home.path().join(".hermes");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../home"),
        &hermes,
    );
    let output = Command::new(env!("CARGO_BIN_EXE_hooks-example-host"))
        .arg("--home")
        .arg(&hermes)
        .arg("--accept-hooks")
        .env("HOME", user_home.path())
        .env_remove("HERMES_HOME")
        .env_remove("HERMES_SAFE_MODE")
        .output()
        .expect("run the example host");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    // Every mechanism was wired by the one call.
    assert!(stdout.contains("4 shell hook(s)"), "{stdout}");
    assert!(stdout.contains("1 webhook target(s)"), "{stdout}");
    assert!(stdout.contains("1 gateway hook(s)"), "{stdout}");
    // Proceed: `ls` runs as asked.
    assert!(
        stdout.contains(r#"terminal: ran with {"command":"ls -la"}"#),
        "{stdout}"
    );
    // Block: the example home's shell hook refuses `rm -rf`, and the host says which hook.
    assert!(
        stdout.contains(&format!(
            "terminal: blocked by shell:{}/agent-hooks/block-rm-rf.sh (shell, ",
            hermes.display()
        )),
        "{stdout}"
    );
    assert!(
        !stdout.contains(r#"ran with {"command":"rm -rf /"}"#),
        "{stdout}"
    );
    // Modify: the modified arguments run, not the original ones.
    assert!(stdout.contains(r#""mode":"0644""#), "{stdout}");
    assert!(
        stdout.contains("(modified by host:example-host (host, "),
        "{stdout}"
    );
    // Approve: the approval is asked for, then the tool runs.
    assert!(
        stdout.contains("approval needed (deploy): deploys need a human"),
        "{stdout}"
    );
    assert!(
        stdout.contains(r#"deploy: ran with {"target":"staging"}"#),
        "{stdout}"
    );
    // Shutdown flushed the webhook lanes (the listener is not running: failed deliveries).
    assert!(stdout.contains("shutdown: "), "{stdout}");
    // The missing example plugin library is a warning, not a failure.
    assert!(stderr.contains("warning:"), "{stderr}");
}

/// A project's imported hook runs in the `project` sandbox by default. Where
/// that sandbox cannot be applied, the hook never runs: the host must hear
/// it at load (`Host::warnings`), not only from a run record it may not
/// read. With the sandbox available, the same approved hook runs and decides.
#[test]
fn a_project_hook_the_sandbox_cannot_hold_is_a_load_warning_and_runs_where_it_can() {
    let user_home = tempfile::tempdir().expect("tempdir");
    let hermes = user_home.path().join(".hermes");
    let project = user_home.path().join("project");
    let hooks_dir = project.join(".claude/hooks");
    std::fs::create_dir_all(&hermes).expect("home");
    std::fs::create_dir_all(&hooks_dir).expect("project");
    std::fs::write(hermes.join("config.yaml"), "hooks_from: [claude]\n").expect("config");
    let script = hooks_dir.join("no-rm.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\ncase \"$(cat)\" in *'rm -rf'*) echo '{\"decision\":\"block\",\"reason\":\"project says no\"}';; esac\n",
    )
    .expect("script");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    std::fs::write(
        project.join(".claude/settings.json"),
        r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/no-rm.sh"}]}]}}"#,
    )
    .expect("settings");
    let run = |unavailable: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hooks-example-host"));
        command
            .arg("--home")
            .arg(&hermes)
            .arg("--accept-hooks")
            .current_dir(&project)
            .env("HOME", user_home.path())
            .env_remove("HERMES_HOME")
            .env_remove("HERMES_SAFE_MODE")
            .env_remove("HERMES_HOOKS_SANDBOX_UNAVAILABLE");
        if let Some(what) = unavailable {
            command.env("HERMES_HOOKS_SANDBOX_UNAVAILABLE", what);
        }
        let output = command.output().expect("run the example host");
        (
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (stdout, stderr) = run(Some("landlock"));
    assert!(
        stderr.contains("warning:")
            && stderr.contains("sandbox profile 'project' cannot be applied here")
            && stderr.contains("skipped each time it would run"),
        "no load warning:\n{stderr}\n{stdout}"
    );
    assert!(
        stderr.contains("skipped:"),
        "the skipped run is not shown:\n{stderr}"
    );
    let (stdout, stderr) = run(None);
    assert!(
        stdout.contains("terminal: blocked by claude:") && stdout.contains("project says no"),
        "the project hook did not run:\n{stdout}\n{stderr}"
    );
    assert!(!stderr.contains("cannot be applied"), "{stderr}");
}
