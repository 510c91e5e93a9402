//! A host sets a sandbox profile per source through `HostOptions`: the
//! same config.yaml hook writes outside its project under `none` (the
//! user's default) and cannot under `strict` set by the host.
#![cfg(target_os = "linux")]

use hermes_hooks::payloads::PreToolCall;
use hermes_hooks::{Event, Host, HostOptions, Profile, Sandbox};

use super::TempHome;

#[test]
fn a_host_sandboxes_config_hooks_with_a_profile_of_its_own() {
    let outside = tempfile::Builder::new()
        .prefix("host-sandbox-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("scratch");
    let marker = outside.path().join("written");
    for (sandbox, writes) in [(None, true), (Some(Sandbox::new(Profile::Strict)), false)] {
        let _ = std::fs::remove_file(&marker);
        let home = TempHome::new();
        let script = home.path().join("writer.sh");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\ncat >/dev/null\necho x > {}\necho '{{}}'\n",
                marker.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        home.config(&format!(
            "hooks:\n  pre_tool_call:\n    - command: \"{}\"\n",
            script.display()
        ));
        let mut options = HostOptions::new().home(home.path()).accept_hooks(true);
        if let Some(sandbox) = sandbox.clone() {
            options = options.sandbox_config_hooks(sandbox);
        }
        let host = Host::load_blocking(options).expect("loads");
        let event: Event = PreToolCall::default().with_tool_name("terminal").into();
        let _ = host.block_on(host.hooks().emit(&event));
        assert_eq!(marker.exists(), writes, "under {sandbox:?}");
    }
}
