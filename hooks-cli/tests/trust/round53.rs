//! This session's own attack (round 53): the user's guard running a
//! program in the folder of the file the tool call names
//! (`cwd=os.path.dirname(file_path)`, approved since round 52). That folder
//! is any folder of the project, chosen when the hook runs: git there ran
//! the `core.fsmonitor` of a bare repository the project commits in it,
//! and make ran its Makefile. Git never uses a repository it only finds
//! (`safe.bareRepository=explicit` for every hook), and a program that
//! runs a folder's definitions cannot be approved there.

use serde_json::json;

use crate::dialects::{emit_json, home_with, user_fail_closed_command, write};
use crate::round8_modules::installed;

/// A Python guard: runs `argv` in the folder of the tool input's file,
/// then blocks.
fn in_the_files_folder(argv: &str) -> String {
    format!(
        "import json, os, subprocess, sys\ndata = json.load(sys.stdin)\n\
         fp = data.get(\"tool_input\", {{}}).get(\"file_path\", \"\")\n\
         if fp:\n    subprocess.run({argv}, cwd=os.path.dirname(fp), capture_output=True)\n\
         print(json.dumps({{\"decision\": \"block\", \"reason\": \"guarded\"}}))\n"
    )
}

/// The guard's outcome for a `terminal` call naming `file`.
fn emit_naming(
    home: &crate::support::TempHome,
    project: &std::path::Path,
    file: &std::path::Path,
    accept: bool,
) -> serde_json::Value {
    let payload = json!({"tool_name": "terminal", "task_id": "t",
        "args": {"command": "ls", "file_path": file.to_str().expect("UTF-8")}});
    let extra: &[&str] = if accept { &["--accept-hooks"] } else { &[] };
    emit_json(home, project, extra, "pre_tool_call", &payload)
}

#[test]
fn git_in_a_folder_the_tool_call_names_never_uses_a_bare_repository_found_there() {
    if !installed("python3") || !installed("git") {
        return;
    }
    let (home, project) = home_with("[claude]");
    let mark = project.join("PWNED");
    write(&project, "src/app.py", "print(1)\n");
    // A folder shaped as a bare repository, as a repository may commit it.
    let bare = project.join("vendor/lib");
    for (file, text) in [
        ("HEAD", "ref: refs/heads/main\n".to_owned()),
        (
            "config",
            format!(
                "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\
                 \tfsmonitor = \"touch {}; false\"\n",
                mark.display()
            ),
        ),
        ("objects/.keep", String::new()),
        ("refs/heads/.keep", String::new()),
        ("notes.py", "x = 1\n".to_owned()),
    ] {
        write(&bare, file, &text);
    }
    let hook = in_the_files_folder("[\"git\", \"status\", \"--short\"]");
    write(&home.user_home, ".claude/hooks/g.py", &hook);
    user_fail_closed_command(&home, "python3 ~/.claude/hooks/g.py");
    let accepted = emit_naming(&home, &project, &project.join("src/app.py"), true);
    assert_eq!(accepted["outcome"]["message"], "guarded", "{accepted:#}");
    let emitted = emit_naming(&home, &project, &bare.join("notes.py"), false);
    assert!(!mark.exists(), "the found repository's fsmonitor ran");
    assert_eq!(emitted["outcome"]["message"], "guarded", "{emitted:#}");
}

#[test]
fn make_in_a_folder_the_tool_call_names_cannot_be_approved() {
    if !installed("python3") || !installed("make") {
        return;
    }
    let (home, project) = home_with("[claude]");
    write(&project, "src/app.py", "print(1)\n");
    write(
        &project,
        "vendor/lib/Makefile",
        "lint:\n\t@touch ../../PWNED\n",
    );
    write(&project, "vendor/lib/notes.py", "x = 1\n");
    let hook = in_the_files_folder("[\"make\", \"-s\", \"lint\"]");
    write(&home.user_home, ".claude/hooks/m.py", &hook);
    user_fail_closed_command(&home, "python3 ~/.claude/hooks/m.py");
    for (file, accept) in [("src/app.py", true), ("vendor/lib/notes.py", false)] {
        let emitted = emit_naming(&home, &project, &project.join(file), accept);
        assert!(!project.join("PWNED").exists(), "the folder's Makefile ran");
        assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
        let message = emitted["outcome"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("runs make in the folder of a path the tool call names"),
            "{message}"
        );
    }
}
