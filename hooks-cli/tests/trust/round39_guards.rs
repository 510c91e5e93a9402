//! Red team round 39's fail-closed rows outside the imported formats: a
//! Hermes home that is there but is no folder (a file, a link to
//! `/dev/zero`, a link to nothing) was read as "nothing configured", so the
//! native guard in it allowed `rm -rf /` with warnings only (R39-2).

use std::process::Command;

use serde_json::json;

use crate::dialects::{answering, emit_terminal, home_with};

#[test]
fn a_hermes_home_that_is_no_folder_is_an_error_never_an_empty_config() {
    let (home, project) = home_with("[]");
    let guard = home.script(
        "guard.sh",
        &format!(
            "#!/bin/sh\n{}",
            answering(&json!({"action": "block", "message": "native guard"}))
        ),
    );
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: {}\n      fail_closed: true\n",
        guard.display()
    ));
    let approved = emit_terminal(&home, &project, "rm -rf /", true);
    assert_eq!(
        approved["outcome"]["message"],
        json!("native guard"),
        "{approved:#}"
    );
    let payload = home.user_home.join("rm.json");
    let call = json!({"tool_name": "terminal", "args": {"command": "rm -rf /"}});
    std::fs::write(&payload, call.to_string()).expect("payload");
    std::fs::rename(&home.hermes, home.user_home.join("hermes-moved")).expect("move");
    type Replace = fn(&std::path::Path);
    let replacements: [(&str, Replace); 3] = [
        ("a file", |at| std::fs::write(at, "").expect("file")),
        ("a link to /dev/zero", |at| {
            std::os::unix::fs::symlink("/dev/zero", at).expect("link")
        }),
        ("a link to nothing", |at| {
            std::os::unix::fs::symlink("/nonexistent/hermes", at).expect("link")
        }),
    ];
    for (what, replace) in replacements {
        replace(&home.hermes);
        let emitted = Command::new(env!("CARGO_BIN_EXE_hooks"))
            .arg("--home")
            .arg(&home.hermes)
            .args(["emit", "pre_tool_call", "--json", "--payload-file"])
            .arg(&payload)
            .env("HOME", &home.user_home)
            .env("HERMES_MANAGED_DIR", home.user_home.join("managed-scope"))
            .env_remove("HERMES_HOME")
            .current_dir(&project)
            .output()
            .expect("hooks runs");
        let stdout = String::from_utf8_lossy(&emitted.stdout);
        let stderr = String::from_utf8_lossy(&emitted.stderr);
        assert_eq!(emitted.status.code(), Some(2), "{what}: {stdout}\n{stderr}");
        // Never an allow: the document a JSON host reads blocks (R77-U4).
        let document: serde_json::Value = serde_json::from_str(&stdout).expect("one document");
        assert_eq!(document["outcome"]["action"], "block", "{what}: {stdout}");
        assert!(stderr.contains("cannot read"), "{what}: {stderr}");
        std::fs::remove_file(&home.hermes).expect("remove");
    }
}
