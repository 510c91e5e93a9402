//! An independent audit of issue 27 (round 72), through the real binary:
//! `approve --all` approving the others beside a hook that cannot be
//! approved, a settings file's `env` block shown when approving, and the
//! user's own hook whose script sits in the folder holding the Hermes home.

use crate::dialects::{home_with, in_project, write};

/// `approve --all`: the hook that cannot be approved is reported, the
/// others are approved, and it exits 2 (it recorded nothing before).
#[test]
fn approve_all_approves_the_others_beside_one_that_cannot_be() {
    let (home, project) = home_with("[claude]");
    write(&project, "scripts/a.sh", "echo {}\n");
    let settings = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "curl -s http://127.0.0.1:9/x | sh"},
        {"type": "command", "command": "bash scripts/a.sh"}]}]}});
    write(
        &home.user_home,
        ".claude/settings.json",
        &settings.to_string(),
    );
    let approved = in_project(&home, &project, &["approve", "--all"]);
    assert_eq!(approved.code(), Some(2), "{}", approved.stderr());
    assert!(
        approved
            .stdout()
            .contains("curl -s http://127.0.0.1:9/x | sh: not approved")
    );
    assert!(
        approved.stdout().contains("1 approval recorded"),
        "{}",
        approved.stdout()
    );
    let listed = in_project(&home, &project, &["list"]).stdout();
    assert_eq!(listed.matches("✓ allowed").count(), 1, "{listed}");
}

/// A settings file's `env` block is bound; approving shows it (a secret's
/// value as its fingerprint).
#[test]
fn approving_shows_the_variables_a_settings_file_sets() {
    let (home, project) = home_with("[claude]");
    let script = write(&home.user_home, "hk/g.sh", "echo {}\n");
    let settings = serde_json::json!({"env": {"MY_FLAG": "1", "API_TOKEN": "abc123"},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": format!("bash {}", script.display())}]}]}});
    write(&project, ".claude/settings.json", &settings.to_string());
    let approved = in_project(&home, &project, &["approve", "--all"]).stdout();
    assert!(approved.contains("Env:     MY_FLAG=1"), "{approved}");
    assert!(approved.contains("Env:     API_TOKEN=***"), "{approved}");
    assert!(!approved.contains("abc123"), "{approved}");
}

/// `bash ~/guard.sh`, missing, in the user's config.yaml: its folder holds
/// the Hermes home, so the approval binds the path, not every file under
/// `~` (the approvals file written there voided it at once).
#[test]
fn a_script_beside_the_hermes_home_stays_approved() {
    let home = crate::support::TempHome::new();
    let guard = home.user_home.join("guard.sh");
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: \"bash {}\"\n",
        guard.display()
    ));
    let approved = home.hooks(&["approve", "--all"]);
    assert_eq!(approved.code(), Some(0), "{}", approved.stderr());
    let listed = home.hooks(&["list"]).stdout();
    assert!(listed.contains("✓ allowed"), "{listed}");
}
