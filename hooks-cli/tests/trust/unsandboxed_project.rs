//! A project's hooks configured to run without a sandbox
//! (`hooks_sandbox: {project: none}`): an approved one has the user's full
//! power (red-team round 5, attack 28: it wrote into the user's guard's
//! stdout through `/proc`). Not contained, but said: `list` and `doctor`
//! per project file, and one warning line in every `emit` that runs one.

use serde_json::json;

use crate::dialects::{home_with, in_project, write};

const FULL_POWER: &str =
    "approved project code runs with your full power and can disable your own guards";

/// The project of `hooks_sandbox_project` with two approved command hooks
/// for `terminal` calls, and the path of their settings file.
fn project_with_two_hooks(
    hooks_sandbox_project: &str,
) -> (
    crate::support::TempHome,
    std::path::PathBuf,
    std::path::PathBuf,
) {
    let (home, project) = home_with("[claude]");
    home.config(&format!(
        "hooks_from: [claude]\nhooks_sandbox: {{project: {hooks_sandbox_project}}}\n"
    ));
    write(&project, ".claude/hooks/a.sh", "cat >/dev/null\n");
    write(&project, ".claude/hooks/b.sh", "cat >/dev/null\n");
    let handler = |script: &str| json!({"type": "command", "command": format!("sh \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/{script}")});
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash",
        "hooks": [handler("a.sh"), handler("b.sh")]}]}});
    let file = write(&project, ".claude/settings.json", &settings.to_string());
    (home, project, file)
}

/// `emit pre_tool_call` for `tool` in `project` (`accept`: every hook
/// accepted first): the run statuses and stderr's lines saying full power.
fn emit(
    home: &crate::support::TempHome,
    project: &std::path::Path,
    tool: &str,
    accept: bool,
) -> (serde_json::Value, usize) {
    let payload =
        json!({"tool_name": tool, "args": {"command": "ls", "path": "x"}, "task_id": "t"});
    let file = home.write("payload.json", &payload.to_string());
    let mut args = vec!["emit", "pre_tool_call", "--json", "--payload-file"];
    args.push(file.to_str().expect("UTF-8"));
    if accept {
        args.insert(0, "--accept-hooks");
    }
    let run = in_project(home, project, &args);
    let said = run
        .stderr()
        .lines()
        .filter(|line| line.contains(FULL_POWER))
        .count();
    (run.json(), said)
}

#[test]
fn project_hooks_run_without_a_sandbox_by_configuration_are_said_to_have_full_power() {
    let (home, project, settings) = project_with_two_hooks("none");
    let listed = in_project(&home, &project, &["list"]).ok();
    let line = format!("UNSANDBOXED: {}: ", settings.display());
    assert!(listed.contains(&line), "{listed}");
    assert!(listed.contains(FULL_POWER), "{listed}");
    let json = in_project(&home, &project, &["list", "--json"]).json();
    assert_eq!(
        json["imported_unsandboxed"],
        json!([settings.display().to_string()]),
        "{json:#}"
    );

    let (approved, said) = emit(&home, &project, "terminal", true);
    assert_eq!(
        approved["runs"][1]["status"],
        json!("completed"),
        "{approved}"
    );
    assert_eq!(said, 1, "one line for the emit: {approved}");
    let (again, said) = emit(&home, &project, "terminal", false);
    assert_eq!(again["runs"][0]["status"], json!("completed"), "{again}");
    assert_eq!(said, 1, "{again}");
    // An emit that runs none of them says nothing.
    let (unmatched, said) = emit(&home, &project, "read_file", false);
    assert_eq!(unmatched["runs"], json!([]), "{unmatched}");
    assert_eq!(said, 0, "{unmatched}");

    let doctor = in_project(&home, &project, &["doctor"]);
    let report = doctor.stdout();
    assert!(
        report.contains(&format!("⚠ {}: ", settings.display())) && report.contains(FULL_POWER),
        "{report}"
    );
}

#[test]
fn sandboxed_project_hooks_are_not_said_to_have_full_power() {
    let (home, project, _) = project_with_two_hooks("project");
    let listed = in_project(&home, &project, &["list"]).ok();
    assert!(!listed.contains("UNSANDBOXED"), "{listed}");
    let (approved, said) = emit(&home, &project, "terminal", true);
    assert_eq!(
        approved["runs"][0]["sandbox"],
        json!("project"),
        "{approved}"
    );
    assert_eq!(said, 0, "{approved}");
}
