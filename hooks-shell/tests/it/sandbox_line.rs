//! `list`'s sandbox line and the private `/tmp` (red team round 7, R7b-3): a
//! word of the hook's command naming a `/tmp` path no longer drops it, and
//! the line says such a root names nothing the hook can reach; a project in
//! `/tmp` does drop it, and the line says the hook writes a private
//! `TMPDIR` instead.

use std::path::PathBuf;

use hermes_hooks_process::sandbox::{Profile, Sandbox};
use hermes_hooks_shell::sandboxing::Effective;

#[test]
fn a_word_in_tmp_is_said_hidden_and_a_project_in_tmp_drops_the_private_tmp() {
    let outside = tempfile::Builder::new()
        .prefix("sandbox-line-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let inside = tempfile::Builder::new()
        .prefix("sandbox-line-")
        .tempdir_in("/tmp")
        .unwrap();
    let strict = Sandbox::new(Profile::Strict);
    let word = vec![PathBuf::from("/tmp/ssh-word")];
    let line = Effective::of(&strict, outside.path(), word.clone(), &[]).line();
    assert!(
        line.contains("/tmp/ssh-word (hidden by the private /tmp)")
            && line.contains("write: private /tmp"),
        "{line}"
    );
    let line = Effective::of(&strict, inside.path(), word, &[]).line();
    assert!(
        line.contains("write: a private TMPDIR (the host's /tmp, its sockets masked)")
            && !line.contains("hidden by the private /tmp"),
        "{line}"
    );
}
