//! Red-team F7 through the binary, as an unprivileged user (`nobody`, dropped
//! to with `setpriv` when the tests run as root, as CI does): a helper the
//! user may run but not read (mode `0111`, as `tar` extracts some) is bound
//! by its metadata, so swapping it for another program under sandbox `none`
//! is a change that asks again, never a run of the new program.

use std::path::Path;

use serde_json::{Value, json};

use crate::sandbox::Scene;

const CHECK: &str = "#!/bin/sh\ncat >/dev/null\n\
                     \"$CLAUDE_PROJECT_DIR/.claude/hooks/helper\" \"$CLAUDE_PROJECT_DIR/pwned\"\n\
                     exit 0\n";

/// `program` copied to `to`, mode `0111`.
fn exec_only(program: &str, to: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::remove_file(to);
    std::fs::copy(program, to).expect("copy the program");
    std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o111)).expect("chmod");
}

/// `hooks emit pre_tool_call --json` for a Bash call (`--accept-hooks` when `accept`).
fn emit(scene: &Scene, accept: bool) -> Value {
    let payload = scene.hermes.join("payload.json");
    let call = json!({"tool_name": "terminal", "args": {"command": "ls"}});
    std::fs::write(&payload, call.to_string()).expect("payload");
    let mut args = vec![
        "emit",
        "pre_tool_call",
        "--payload-file",
        payload.to_str().expect("utf-8"),
        "--json",
    ];
    if accept {
        args.push("--accept-hooks");
    }
    let output = scene.hooks(&args, &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(stdout.trim()).unwrap_or_else(|_| {
        panic!(
            "not JSON: {stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

#[test]
fn an_exec_only_helper_swapped_for_another_program_does_not_run_unasked() {
    let touch = ["/usr/bin/touch", "/bin/touch"]
        .into_iter()
        .find(|p| Path::new(p).is_file())
        .expect("touch");
    let scene = Scene::new(true);
    scene.config("hooks_from: [claude]\nhooks_sandbox: {project: none}\n");
    scene.claude_hook("check.sh", CHECK, json!({}));
    let helper = scene.project.join(".claude/hooks/helper");
    exec_only("/bin/true", &helper);
    let approved = emit(&scene, true);
    assert_eq!(
        approved["runs"][0]["status"],
        json!("completed"),
        "{approved}"
    );
    exec_only(touch, &helper);
    let after = emit(&scene, false);
    assert!(
        !scene.project.join("pwned").exists(),
        "the swapped-in program ran unasked: {after}"
    );
    assert_ne!(after["runs"][0]["status"], json!("completed"), "{after}");
    // The recorded binding says what it holds by metadata.
    let listed = scene.hooks(&["list", "--json"], &[]);
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listed.contains("bound_by_metadata") && listed.contains(&*helper.to_string_lossy()),
        "the listing says the helper is bound by its metadata: {listed}"
    );
}
