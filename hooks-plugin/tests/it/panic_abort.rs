//! A plugin built with `panic = "abort"` does not compile: the SDK's export
//! macro refuses it with a message that says why (an aborting panic would
//! take the whole agent down, where an unwinding one is caught).

use std::process::Command;

use crate::support::workspace_root;

#[test]
fn building_a_plugin_with_panic_abort_fails_with_the_reason() {
    // `cargo check` is enough: the refusal is a compile error. A target dir
    // of its own inside CARGO_TARGET_DIR (built once, then up to date),
    // since the profile change rebuilds every dependency.
    let output = Command::new(env!("CARGO"))
        .args(["check", "--quiet", "-p", "plugin-guard", "--manifest-path"])
        .arg(workspace_root().join("Cargo.toml"))
        .arg("--target-dir")
        .arg(test_support::target_dir().join("fixture-panic-abort"))
        .env("CARGO_PROFILE_DEV_PANIC", "abort")
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success(),
        "built with panic=abort:\n{stderr}"
    );
    assert!(
        stderr.contains("this plugin is being built with `panic = \"abort\"`")
            && stderr.contains("would kill the agent"),
        "{stderr}"
    );
    assert!(stderr.contains("plugin-guard"), "{stderr}");
}
