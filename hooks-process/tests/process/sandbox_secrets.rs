//! The home's secret stores a `project` hook cannot read (red-team round 6,
//! R6-21: each of these was copied into the project by an approved project
//! hook), while the tool folders that hold some of them stay readable.

#![cfg(all(target_os = "linux", feature = "sandbox"))]

use hermes_hooks_process::sandbox::Profile;

use crate::sandbox::{World, stdout};

/// The stores R6-21 found readable, and files beside them a hook may read.
const STORES: &[&str] = &[
    ".gemini/oauth_creds.json",
    ".config/github-copilot/hosts.json",
    ".pgpass",
    ".my.cnf",
    ".yarnrc.yml",
    ".m2/settings.xml",
    ".m2/settings-security.xml",
    ".gradle/gradle.properties",
    ".gem/credentials",
    ".bundle/config",
    ".config/composer/auth.json",
    ".terraformrc",
    ".config/configstore/firebase-tools.json",
    ".config/Code/User/globalStorage/state.vscdb",
    ".local/share/atuin/history.db",
    ".env",
    ".config/Cursor/User/globalStorage/state.vscdb",
    ".config/git/credentials",
    ".cache/huggingface/token",
    ".ollama/id_ed25519",
    ".sqlite_history",
];

const BESIDE: &[&str] = &[
    ".m2/repository/lib.pom",
    ".gradle/caches/entry",
    ".config/Code/User/settings.json",
    ".config/git/config",
    ".cache/huggingface/hub/model",
    ".ollama/models/manifest",
];

#[tokio::test]
async fn a_project_hook_reads_none_of_the_stores_round_6_copied() {
    let world = World::new();
    for file in STORES {
        let path = world.home.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("SECRET {file}")).unwrap();
    }
    for file in BESIDE {
        let path = world.home.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("FINE {file}")).unwrap();
    }
    let script: String = STORES
        .iter()
        .chain(BESIDE)
        .map(|file| format!("cat \"$HOME/{file}\" 2>/dev/null; echo\n"))
        .collect();
    let output = world.run(Profile::Project, &script).await;
    let out = stdout(&output);
    assert!(!out.contains("SECRET"), "{out}");
    for file in BESIDE {
        assert!(out.contains(&format!("FINE {file}")), "{file}: {out}");
    }
}

/// Red team round 7 (R7b-2): `PATH` folders such as `~/.local/bin` and
/// `~/.config/composer/vendor/bin` make their tool folders (`~/.local`,
/// `~/.config`) readable under every profile; `strict` hid no store beneath
/// them, so it read what `project` hides.
#[tokio::test]
async fn strict_hides_the_stores_in_a_path_tool_folder() {
    use hermes_hooks_process::run_sandboxed;
    use hermes_hooks_process::sandbox::{Context, Sandbox};
    let world = World::new();
    let stores = [
        ".local/share/keyrings/login.keyring",
        ".config/gh/hosts.yml",
    ];
    for file in stores {
        let path = world.home.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("SECRET {file}")).unwrap();
    }
    let beside = world.home.join(".local/share/tool.txt");
    std::fs::write(&beside, "FINE tool").unwrap();
    let bins = [
        world.home.join(".local/bin"),
        world.home.join(".config/composer/vendor/bin"),
    ];
    for bin in &bins {
        std::fs::create_dir_all(bin).unwrap();
    }
    let script: String = stores
        .iter()
        .map(|file| format!("cat \"$HOME/{file}\" 2>/dev/null; echo\n"))
        .chain(["cat \"$HOME/.local/share/tool.txt\"\n".to_owned()])
        .collect();
    for profile in [Profile::Strict, Profile::Project] {
        let mut context = Context::new(&world.project);
        context.home = Some(world.home.clone());
        context.path.splice(0..0, bins.iter().cloned());
        let prepared = Sandbox::new(profile.clone())
            .prepare(&context)
            .expect("prepared");
        let mut command = crate::support::sh(&script);
        command.current_dir(&world.project).env("HOME", &world.home);
        let output = run_sandboxed(command, b"", &crate::support::limits(20), prepared)
            .await
            .expect("runs");
        let out = stdout(&output);
        assert!(!out.contains("SECRET"), "{profile:?}: {out}");
        assert!(out.contains("FINE tool"), "{profile:?}: {output:?}");
    }
}
