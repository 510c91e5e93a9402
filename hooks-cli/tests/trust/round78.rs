//! Red team round 78 (issue 27's acceptance sweep, on the line-prefix
//! record of round 77's fix), through the real binary: a fail-closed guard
//! in a `config.yaml` cut short still allowed when the file was longer than
//! the lines recorded (R78-1), when the cut narrowed the guard's matcher
//! rather than dropping it (R78-2), when the records could not be written
//! (R78-3), and when the home was named through a link (R78-4).

use std::path::Path;

use crate::support::TempHome;

/// A crash guard's script (it fails, so a fail-closed guard blocks).
const CRASHES: &str = "#!/bin/sh\ncat >/dev/null\nexit 1\n";

/// `emit pre_tool_call` of `rm -rf /` with the Hermes home named `hermes`
/// (`accept`: with `--accept-hooks`):
/// the action, and what was said on stderr.
pub(crate) fn action_with_home(
    home: &TempHome,
    project: &Path,
    hermes: &Path,
    accept: bool,
) -> (String, String) {
    let payload = serde_json::json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}});
    let file = home.write("payload.json", &payload.to_string());
    let file = file.to_str().expect("UTF-8");
    let project = project.to_str().expect("UTF-8");
    let mut args = vec!["--project", project, "emit", "pre_tool_call", "--json"];
    if accept {
        args.insert(0, "--accept-hooks");
    }
    let mut emit = crate::harness::command_naming_home(home, hermes, &args);
    emit.args(["--payload-file", file]);
    let output = emit.output().expect("hooks runs");
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).expect("emit --json");
    let action = document["outcome"]["action"].as_str().unwrap_or("allow");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (action.to_owned(), stderr)
}

/// The action of the next `emit`, and its warnings (the usual spelling).
fn next_action(home: &TempHome, project: &Path) -> (String, String) {
    crate::round74::action_and_warnings(home, project, None, false)
}

/// Approves the guards of `text` (the user's config.yaml): the call blocks.
fn approved(home: &TempHome, project: &Path, text: &str) {
    home.config(text);
    assert_eq!(crate::round75::action(home, project, None, true), "block");
}

#[test]
fn a_long_config_yaml_cut_past_its_recorded_lines_keeps_its_guard_blocking() {
    // R78-1: only the first 4000 lines are recorded.
    let (home, project) = crate::dialects::home_with("[]");
    let guard = home.script("crash.sh", CRASHES);
    let notes: String = (0..4100).map(|line| format!("# note {line}\n")).collect();
    let text = format!(
        "{notes}hooks:\n  pre_tool_call:\n    - command: {}\n      matcher: terminal\n      fail_closed: true\n",
        guard.display()
    );
    approved(&home, &project, &text);
    let cut = &text[..text.find("      fail_closed").expect("the line")];
    home.config(cut);
    let (action, warnings) = next_action(&home, &project);
    assert_eq!(action, "block", "{warnings}");
    assert!(warnings.contains("first 4000 lines"), "{warnings}");
    // Taken out on purpose, with a line near the top changed: read as written.
    home.config(&format!("# the guard is gone\n{cut}"));
    assert_eq!(next_action(&home, &project).0, "allow");
}

#[test]
fn a_cut_that_narrows_a_guards_matcher_keeps_it_blocking() {
    // R78-2: cut inside a matcher's last line (no newline), and at the end
    // of a line of a matcher written over two; the guard is still read,
    // with a matcher naming fewer tools.
    let (home, project) = crate::dialects::home_with("[]");
    let guard = home.script("crash.sh", CRASHES);
    let head = format!(
        "hooks_from: []\nhooks:\n  pre_tool_call:\n    - command: {}\n      fail_closed: true\n",
        guard.display()
    );
    for (matcher, kept) in [
        (
            "      matcher: read_file|terminal\n",
            "      matcher: read_file",
        ),
        (
            "      matcher: read_file\n        |terminal\n",
            "      matcher: read_file\n",
        ),
    ] {
        approved(&home, &project, &format!("{head}{matcher}"));
        home.config(&format!("{head}{kept}"));
        let (action, warnings) = next_action(&home, &project);
        assert_eq!(action, "block", "{kept:?}: {warnings}");
    }
    // Narrowed on purpose, ended with a newline and not a cut copy.
    home.config(&format!("{head}      matcher: read_file # narrowed\n"));
    assert_eq!(next_action(&home, &project).0, "allow");
}

#[test]
fn a_config_yaml_read_through_a_linked_home_keeps_its_guard_blocking() {
    // R78-4: the records were found by the path as named only.
    for removal in ["cut", "deleted"] {
        let (home, project) = crate::dialects::home_with("[]");
        let guard = home.script("crash.sh", CRASHES);
        let text = format!(
            "hooks_from: []\nhooks:\n  pre_tool_call:\n    - command: {}\n      matcher: terminal\n      fail_closed: true\n",
            guard.display()
        );
        approved(&home, &project, &text);
        let link = home.user_home.join("hermes-link");
        std::os::unix::fs::symlink(&home.hermes, &link).expect("link");
        let file = home.hermes.join("config.yaml");
        match removal {
            "cut" => {
                home.config(&text[..text.find("    - command").expect("entry")]);
            }
            _ => std::fs::remove_file(&file).expect("delete"),
        };
        let (action, warnings) = action_with_home(&home, &project, &link, false);
        assert_eq!(action, "block", "{removal}: {warnings}");
    }
}

#[test]
fn a_clean_loss_blocks_while_the_records_cannot_be_kept() {
    // R78-3: the records' folder read-only after a good read, then an edit
    // at the top: the line record went stale, without a word, and a later
    // cut read as an edit. Run as `nobody` when the tests run as root.
    let scene = crate::sandbox::Scene::new(true);
    let guard = scene.home.join("crash.sh");
    std::fs::write(&guard, CRASHES).expect("guard");
    crate::dialects::executable(&guard);
    let text = format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n      matcher: terminal\n      fail_closed: true\n",
        guard.display()
    );
    scene.config(&text);
    let payload = scene.hermes.join("payload.json");
    let call = serde_json::json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}});
    std::fs::write(&payload, call.to_string()).expect("payload");
    let emit = |accept: bool| {
        let mut args = vec!["emit", "pre_tool_call", "--json", "--payload-file"];
        args.push(payload.to_str().expect("UTF-8"));
        if accept {
            args.insert(0, "--accept-hooks");
        }
        let output = scene.hooks(&args, &[]);
        let document: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("emit --json");
        let action = document["outcome"]["action"].as_str().unwrap_or("allow");
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        (action.to_owned(), stderr)
    };
    assert_eq!(emit(true).0, "block");
    let records = scene.hermes.join("guard-records");
    set_mode(&records, 0o555);
    scene.config(&format!("model: x\n{text}"));
    let (_, warnings) = emit(false);
    assert!(warnings.contains("cannot be written"), "{warnings}");
    let edited = format!("model: x\n{text}");
    scene.config(&edited[..edited.find("      fail_closed").expect("line")]);
    let (action, warnings) = emit(false);
    set_mode(&records, 0o755);
    assert_eq!(action, "block", "{warnings}");
    assert!(warnings.contains("cannot be kept"), "{warnings}");
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}
