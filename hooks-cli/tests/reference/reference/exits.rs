//! How a run ends: exit statuses, signals, timeouts, commands that cannot run,
//! and what `fail_closed` makes of failures. `§7.n` = reference test n.

use super::model::{
    Case, block, context, missing_file, nothing, parsed, raw_file, script, spawn_error, timed_out,
};

const TOOL: &str = "pre_tool_call";
const BLOCK_JSON: &str = r#"echo '{"action": "block", "message": "stdout block"}'"#;
/// What `hermesx hooks test` shows of a fail-closed failure it cannot run.
const PRINTS_NO_DECISION: &str = "`hermesx hooks test` prints no decision for a hook that timed \
     out or could not start (`_print_run_result` returns first); its runtime blocks a fail_closed \
     one (`shell_hooks._evaluate_result`), as `hooks test` shows";

pub fn cases() -> Vec<Case> {
    vec![
        // §7.29, §7.67
        Case::new("exit 1 with a block still blocks", TOOL)
            .hook(script(&format!("cat >/dev/null\n{BLOCK_JSON}\nexit 1")))
            .expect(vec![parsed(block("stdout block"))]),
        // §7.68
        Case::new("exit 1 without output", TOOL)
            .hook(script("exit 1"))
            .expect(vec![nothing()]),
        Case::new("exit 3 with only stderr", TOOL)
            .hook(script("echo 'something broke' >&2\nexit 3"))
            .expect(vec![nothing()]),
        Case::new("killed by a signal after printing a block", TOOL)
            .hook(script(&format!("{BLOCK_JSON}\nkill -9 $$")))
            .expect(vec![parsed(block("stdout block"))]),
        // §7.63, §7.78
        Case::new("exit 2 with stderr", TOOL)
            .hook(script("echo '  policy violation  ' >&2\nexit 2"))
            .expect(vec![parsed(block("policy violation"))]),
        // §7.64
        Case::new("exit 2 without output", TOOL)
            .hook(script("exit 2"))
            .expect(vec![parsed(block("Blocked by shell hook."))]),
        // §7.65: the reference agrees because it parses stdout on any exit.
        Case::new("exit 2: a stdout block beats stderr", TOOL)
            .hook(script(&format!(
                "{BLOCK_JSON}\necho 'stderr text' >&2\nexit 2"
            )))
            .expect(vec![parsed(block("stdout block"))]),
        Case::new("exit 2 with a modify on stdout", TOOL)
            .hook(script(
                "echo '{\"action\": \"modify\", \"args\": {\"a\": 1}}'\necho denied >&2\nexit 2",
            ))
            .expect(vec![parsed(block("denied"))]),
        // §7.66
        Case::new("exit 2 on a non-blocking event", "post_tool_call")
            .hook(script(
                "echo '{\"context\": \"c\"}'\necho denied >&2\nexit 2",
            ))
            .expect(vec![parsed(context("c"))]),
        // §7.27, §7.71
        Case::new("timeout", TOOL)
            .hook(script("exec sleep 5").option("timeout: 1"))
            .expect(vec![timed_out()]),
        // §7.44 family: the timeout is read with Python's int().
        Case::new("timeout as a string and as a float", TOOL)
            .hook(script("exec sleep 5").option("timeout: '1'"))
            .hook(script("exec sleep 5").option("timeout: 1.9"))
            .expect(vec![timed_out(), timed_out()]),
        Case::new("timeout after printing a block", TOOL)
            .hook(script(&format!("{BLOCK_JSON}\nexec sleep 5")).option("timeout: 1"))
            .expect(vec![timed_out()]),
        // §7.72, §7.81
        Case::new("timeout, fail_closed", TOOL)
            .hook(
                script("exec sleep 5")
                    .option("timeout: 1")
                    .option("fail_closed: true"),
            )
            .expect(vec![timed_out().then(block(
                "hook {command} failed closed: timed out after 1s",
            ))])
            .by_design(PRINTS_NO_DECISION, vec![timed_out()]),
        Case::new("exit 1 without output, fail_closed (call 3)", TOOL)
            .hook(script("exit 1").option("fail_closed: true"))
            .expect(vec![parsed(block(
                "hook {command} failed closed: exited with status 1",
            ))])
            .by_design(
                "docs/decisions/call-03-fail-closed-closes-the-hole.md",
                vec![nothing()],
            ),
        // §7.73, §7.59
        Case::new("unparseable stdout, failClosed alias", TOOL)
            .hook(script("echo 'not json'").option("failClosed: true"))
            .expect(vec![parsed(block(
                "hook {command} failed closed: unparseable stdout (expected a JSON object)",
            ))]),
        // §7.75
        Case::new("`{}` passes fail_closed", TOOL)
            .hook(script("echo '{}'").option("fail_closed: true"))
            .expect(vec![nothing()]),
        // §7.76
        Case::new("empty stdout passes fail_closed", TOOL)
            .hook(script("true").option("fail_closed: true"))
            .expect(vec![nothing()]),
        // §7.77
        Case::new(
            "fail_closed ignored on a non-blocking event",
            "post_tool_call",
        )
        .hook(script("exit 1").option("fail_closed: true"))
        .expect(vec![nothing()]),
        // §7.36, §7.69
        Case::new("missing command", TOOL)
            .hook(missing_file())
            .expect(vec![spawn_error()]),
        // §7.70, §7.79
        Case::new("missing command, fail_closed", TOOL)
            .hook(missing_file().option("fail_closed: true"))
            .expect(vec![
                spawn_error().then(block("hook {command} failed closed: command not found")),
            ])
            .by_design(PRINTS_NO_DECISION, vec![spawn_error()]),
        Case::new("command padded with spaces", TOOL)
            .hook(script(BLOCK_JSON).command("   {script}   "))
            .expect(vec![parsed(block("stdout block"))]),
        // §7.42
        Case::new("blank command: the entry is skipped", TOOL)
            .hook(missing_file().command("   "))
            .expect(vec![]),
        Case::new("missing command on PATH", TOOL)
            .hook(missing_file().command("no-such-hook-command-{name}"))
            .expect(vec![spawn_error()]),
        // §7.37
        Case::new("non-executable script", TOOL)
            .hook(script(BLOCK_JSON).not_executable())
            .expect(vec![spawn_error()]),
        Case::new("non-executable script run by an interpreter", TOOL)
            .hook(script(BLOCK_JSON).not_executable().command("sh {script}"))
            .expect(vec![parsed(block("stdout block"))]),
        Case::new("executable without a shebang", TOOL)
            .hook(raw_file("{\"action\": \"block\"}\n"))
            .expect(vec![spawn_error()]),
        Case::new("a directory as the command", TOOL)
            .hook(
                script("true")
                    .file("as-dir/hook.sh")
                    .command("{script_dir}"),
            )
            .expect(vec![spawn_error()]),
        Case::new("unbalanced quote in the command", TOOL)
            .hook(script(BLOCK_JSON).command("{script} 'unterminated"))
            .expect(vec![spawn_error()]),
        // §7.35
        Case::new("quoted path with spaces", TOOL)
            .hook(
                script(BLOCK_JSON)
                    .file("dir with space/hook.sh")
                    .command("\"{script}\""),
            )
            .expect(vec![parsed(block("stdout block"))]),
        Case::new("`~/` command", TOOL)
            .hook(script(BLOCK_JSON).command("~/.hermes/{name}"))
            .expect(vec![parsed(block("stdout block"))]),
        // bash exits 127 on a script it cannot open (dash and python3 exit 2,
        // which the reference reads as a block).
        Case::new("`~/` in a later argument", TOOL)
            .hook(script(BLOCK_JSON).command("bash ~/.hermes/{name}"))
            .expect(vec![parsed(block("stdout block"))])
            .by_design(
                "docs/decisions/call-05-tilde-expands-in-every-argument.md: `~/` is expanded in every \
                 argument, not only the first",
                vec![nothing()],
            ),
    ]
}
