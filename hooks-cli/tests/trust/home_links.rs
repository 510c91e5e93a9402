//! A project hook under `project` reads the home minus its secret stores,
//! and a link never hands it one: neither a link among the home's entries
//! (`~/x -> .ssh`) nor a secret store that is itself a link (`~/.aws ->
//! dotfiles/aws`: where it leads is hidden too). The library's tests of the
//! same rules are hooks-process/tests/process/sandbox_read_links.rs.

use std::os::unix::fs::symlink;

use serde_json::json;

use crate::sandbox::{Scene, words};

const PROBE: &str = r#"#!/bin/sh
for probe in "LINK $HOME/x/id_ed25519" "TARGET $HOME/dotfiles/aws/credentials" \
             "STORE $HOME/.aws/credentials" "NOTES $HOME/notes-link"; do
  set -- $probe
  if out=$(cat "$2" 2>/dev/null); then echo "$1-READ $out"; else echo "$1-DENIED"; fi
done
exit 0
"#;

#[test]
fn a_link_in_the_home_hands_a_project_hook_no_secret_store() {
    let scene = Scene::new(false);
    let home = &scene.home;
    std::fs::create_dir_all(home.join("dotfiles/aws")).unwrap();
    std::fs::write(home.join("dotfiles/aws/credentials"), "FAKE-AWS-KEY\n").unwrap();
    std::fs::write(home.join("notes"), "home notes\n").unwrap();
    symlink(".ssh", home.join("x")).unwrap();
    symlink("dotfiles/aws", home.join(".aws")).unwrap();
    symlink("notes", home.join("notes-link")).unwrap();
    scene
        .config("hooks_from: [claude]\n")
        .claude_hook("probe.sh", PROBE, json!({}));
    let line = scene.test_hook(&[]);
    assert_eq!(line["sandbox"], "project", "{line}");
    let out = words(&line);
    assert!(!out.contains("FAKE"), "{line}");
    for word in [
        "LINK-DENIED",
        "TARGET-DENIED",
        "STORE-DENIED",
        "NOTES-READ home notes",
    ] {
        assert!(out.contains(word), "{word} missing: {line}");
    }
}
