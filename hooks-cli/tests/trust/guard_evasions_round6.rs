//! The user's fail-closed guards against red-team round 6: a Bash `if`
//! rule the old list of spellings let commands slip past (R6-8), a
//! `read_file` naming two paths (R6-9), a V4A `patch` naming its files in
//! its body (R6-10), a Cursor content guard handed `""` (R6-11).

use serde_json::{Value, json};

use crate::dialects::{emit_json, emit_terminal, home_with, write};
use crate::support::TempHome;

/// Denies every call it is run for.
const DENY_ALL: &str = "#!/bin/sh\ncat >/dev/null\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"user guard\"}}'\n";

/// Denies a call whose stdin names a `.env` file.
const ENV_GUARD: &str = "#!/bin/sh\ncase \"$(cat)\" in *'.env\"'*) echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no .env\"}}' ;; esac\n";

/// The user's `~/.claude/settings.json` with one fail-closed handler
/// running `script` for `matcher`, narrowed by `rule` when given.
fn user_guard(home: &TempHome, matcher: &str, script: &str, rule: Option<&str>) {
    let guard = home.script("guard.sh", script);
    let mut handler = json!({"type": "command", "command": guard.display().to_string(),
        "failClosed": true});
    if let Some(rule) = rule {
        handler["if"] = json!(rule);
    }
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": matcher, "hooks": [handler]}]}});
    write(
        &home.user_home,
        ".claude/settings.json",
        &settings.to_string(),
    );
}

fn action(emitted: &Value) -> Value {
    emitted["outcome"]["action"].clone()
}

/// Each of `commands` runs the user's `Bash(rm *)` guard (which denies).
fn each_runs_the_rm_guard(commands: &[&str]) {
    let (home, project) = home_with("[claude]");
    user_guard(&home, "Bash", DENY_ALL, Some("Bash(rm *)"));
    for command in commands {
        let emitted = emit_terminal(&home, &project, command, true);
        assert_eq!(action(&emitted), json!("block"), "{command}: {emitted}");
    }
}

#[test]
fn interpreters_fed_code_on_stdin_or_in_a_file_run_the_guard() {
    each_runs_the_rm_guard(&[
        "python3 <<< 'import os; os.system(\"rm -rf /\")'",
        "echo 'import shutil; shutil.rmtree(\"/\")' | python3",
        "perl <<< 'system \"rm -rf /\"'",
        "printf 'import os' > /tmp/x.py; python3 /tmp/x.py",
    ]);
}

#[test]
fn programs_that_run_a_command_run_the_guard() {
    each_runs_the_rm_guard(&[
        "sed -n '1e rm -rf /' /etc/hostname",
        "tar -cf /dev/null x --checkpoint=1 --checkpoint-action=exec='rm -rf /'",
        "git -c alias.x='!rm -rf /' x",
        "gdb -batch -ex 'shell rm -rf /'",
        "make -f /dev/stdin <<< x",
        "rsync -e 'rm -rf / #' x: y",
    ]);
}

#[test]
fn wrappers_on_no_list_run_the_guard() {
    each_runs_the_rm_guard(&[
        "ionice -c3 rm -rf /",
        "chrt -i 0 rm -rf /",
        "taskset 1 rm -rf /",
        "unbuffer rm -rf /",
        "valgrind rm -rf /",
        "bwrap --bind / / rm -rf /",
    ]);
}

#[test]
fn the_program_under_another_name_runs_the_guard() {
    each_runs_the_rm_guard(&[
        "hash -p /usr/bin/rm del; del -rf /",
        "cp /usr/bin/rm /tmp/del; /tmp/del -rf /",
        "ln -sf /usr/bin/rm ./del && ./del -rf /",
        "shopt -s expand_aliases; alias del=rm\ndel -rf /",
        "PATH=/tmp/evil:$PATH ls",
    ]);
}

#[test]
fn bash_evaluating_a_variables_index_runs_the_guard() {
    each_runs_the_rm_guard(&[
        "printf -v 'a[$(rm -rf /)]' x",
        "test -v 'a[$(rm -rf /)]'",
        "BASH_ENV=/tmp/x.sh bash -c true",
    ]);
}

#[test]
fn programs_known_to_run_nothing_still_skip_the_guard() {
    let (home, project) = home_with("[claude]");
    user_guard(&home, "Bash", DENY_ALL, Some("Bash(rm *)"));
    for command in [
        "ls -la",
        "echo 'rm -rf /' | grep -c rm 2>/dev/null",
        "cd /tmp && cat < /etc/hosts | wc -l",
        "bash -c 'ls'",
    ] {
        let emitted = emit_terminal(&home, &project, command, true);
        assert_eq!(action(&emitted), Value::Null, "{command}: {emitted}");
    }
}

fn emit_tool(home: &TempHome, project: &std::path::Path, tool: &str, args: Value) -> Value {
    let payload = json!({"tool_name": tool, "args": args, "task_id": "t", "session_id": "s"});
    emit_json(
        home,
        project,
        &["--accept-hooks"],
        "pre_tool_call",
        &payload,
    )
}

/// R6-9: Hermes reads `path`; the rule and the guard's stdin see it too.
#[test]
fn a_read_naming_path_and_file_path_is_judged_on_path() {
    let (home, project) = home_with("[claude]");
    write(&project, ".env", "SECRET=1\n");
    let args = json!({"path": ".env", "file_path": "README.md"});
    user_guard(&home, "Read", DENY_ALL, Some("Read(**/.env)"));
    let ruled = emit_tool(&home, &project, "read_file", args.clone());
    assert_eq!(action(&ruled), json!("block"), "{ruled:#}");
    // No rule: the guard reads `tool_input.file_path` and finds `.env`.
    user_guard(&home, "Read", ENV_GUARD, None);
    let read = emit_tool(&home, &project, "read_file", args);
    assert_eq!(action(&read), json!("block"), "{read:#}");
}

/// R6-10: a V4A patch names its files in its body.
#[test]
fn a_v4a_patch_is_judged_on_the_files_its_body_names() {
    let (home, project) = home_with("[claude]");
    user_guard(&home, "Edit|Write", DENY_ALL, Some("Edit(**/.env)"));
    let patch = |body: &str| json!({"mode": "patch", "patch": body});
    for body in [
        "*** Begin Patch\n*** Update File: .env\n@@\n-SECRET=1\n+SECRET=2\n*** End Patch",
        "*** Begin Patch\n*** Move File: notes.txt -> config/.env\n*** End Patch",
    ] {
        let emitted = emit_tool(&home, &project, "patch", patch(body));
        assert_eq!(action(&emitted), json!("block"), "{body}: {emitted:#}");
    }
    let other = "*** Begin Patch\n*** Update File: README.md\n@@\n-a\n+b\n*** End Patch";
    let emitted = emit_tool(&home, &project, "patch", patch(other));
    assert_eq!(action(&emitted), Value::Null, "{emitted:#}");
    // A file call whose path cannot be found at all runs the guard.
    let emitted = emit_tool(
        &home,
        &project,
        "patch",
        json!({"path": [".env"], "old_string": "1", "new_string": "2"}),
    );
    assert_eq!(action(&emitted), json!("block"), "{emitted:#}");
}

/// R6-11: the Cursor content guard reads `~` as Hermes does, and a file
/// too large to hand it whole blocks instead of being judged as `""`.
#[test]
fn a_cursor_content_guard_reads_what_hermes_reads_or_blocks() {
    let (home, project) = home_with("[cursor]");
    let scan = home.script(
        "scan.sh",
        "#!/bin/sh\ncase \"$(cat)\" in *AKIA*) echo '{\"permission\":\"deny\"}' ;; *) echo '{\"permission\":\"allow\"}' ;; esac\n",
    );
    let hooks = json!({"version": 1, "hooks": {"beforeReadFile": [
        {"command": scan.display().to_string(), "failClosed": true}]}});
    write(&home.user_home, ".cursor/hooks.json", &hooks.to_string());
    write(
        &home.user_home,
        ".aws/credentials",
        "aws_access_key_id = AKIAEXAMPLE\n",
    );
    let big = write(&project, "big.log", "key = AKIAEXAMPLE\n");
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&big)
        .expect("open");
    file.set_len(17 << 20).expect("grow");
    write(&project, "notes.txt", "nothing secret\n");
    for path in ["~/.aws/credentials", "big.log"] {
        let emitted = emit_tool(&home, &project, "read_file", json!({"path": path}));
        assert_eq!(action(&emitted), json!("block"), "{path}: {emitted:#}");
    }
    let emitted = emit_tool(&home, &project, "read_file", json!({"path": "notes.txt"}));
    assert_ne!(action(&emitted), json!("block"), "{emitted:#}");
}

/// R6-20: interpreters given inline code by any spelling of the flag.
#[test]
fn inline_code_flags_in_any_spelling_run_the_guard() {
    each_runs_the_rm_guard(&[
        "python3 -Ic 'import os; os.system(\"rm -rf /\")'",
        "python3 -Bc 'import os; os.system(\"rm -rf /\")'",
        "perl -we 'system \"rm -rf /\"'",
        "perl -e'system \"rm -rf /\"'",
        "node --eval='require(\"child_process\").execSync(\"rm -rf /\")'",
        "node -pe 'require(\"child_process\").execSync(\"rm -rf /\")'",
        "awk 'BEGIN{system(\"rm -rf /\")}'",
    ]);
}

/// R6-15: a `Bash(git push*)` rule and git's global options.
#[test]
fn git_global_options_before_push_run_a_git_push_guard() {
    let (home, project) = home_with("[claude]");
    user_guard(&home, "Bash", DENY_ALL, Some("Bash(git push*)"));
    for command in [
        "git -C . push origin main",
        "git --no-pager push origin main",
        "git -c push.default=current push",
        "git --git-dir=.git push",
        "git -P push",
        "git --work-tree=. push",
    ] {
        let emitted = emit_terminal(&home, &project, command, false);
        assert_eq!(action(&emitted), json!("block"), "{command}: {emitted}");
    }
}
