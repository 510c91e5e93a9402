//! Snapshots of the human output of `list` and `doctor` on a copy of the
//! example home (with its native plugins built), so a wording change
//! shows up in review. Temporary paths and timings become placeholders.

use crate::harness;
use crate::support::{self, Run, TempHome, example_plugin_library, example_plugins, transcript};

/// The example home's plugins (hooks-plugin/examples), by folder.
const PLUGINS: [(&str, &str); 3] = [
    ("guard", "plugin-guard"),
    ("context", "plugin-context"),
    ("redactor", "plugin-redactor"),
];

/// A scratch HOME whose `.hermes` is a copy of `examples/home` as a fresh
/// clone has it: without what using the home in place writes there (the
/// names its `.gitignore` lists: approvals, trial-load cache, logs).
pub fn fresh_example_home() -> TempHome {
    let home = support::example_home();
    let ignore = std::fs::read_to_string(home.hermes.join(".gitignore")).expect(".gitignore");
    for name in ignore
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
    {
        let path = home.hermes.join(name.trim_end_matches('/'));
        if path.is_dir() {
            std::fs::remove_dir_all(&path).expect("remove in-place state");
        } else if path.exists() {
            std::fs::remove_file(&path).expect("remove in-place state");
        }
    }
    home
}

/// [`fresh_example_home`] with its plugin manifests naming the built libraries.
fn example_home() -> TempHome {
    let home = fresh_example_home();
    for (folder, package) in PLUGINS {
        let manifest = format!("plugins/{folder}/plugin.yaml");
        let text = std::fs::read_to_string(home.hermes.join(&manifest)).expect("manifest");
        let library = example_plugin_library(package);
        let text: String = text
            .lines()
            .map(|line| {
                if line.starts_with("library:") {
                    format!("library: {}\n", library.display())
                } else {
                    format!("{line}\n")
                }
            })
            .collect();
        home.write(&manifest, &text);
    }
    home
}

/// Runs `hooks ARGS` with a fixed interpreter choice and no webhook secret.
fn run(home: &TempHome, args: &[&str]) -> Run {
    let mut command = harness::command(home, args);
    command
        .env("HERMES_HOOKS_PYTHON", "python3")
        .env_remove("HERMES_DEMO_WEBHOOK_SECRET");
    harness::within(command, std::time::Duration::from_secs(120)).expect("hooks finishes")
}

fn snapshot(name: &str, home: &TempHome, args: &[&str]) {
    let run = run(home, args);
    let text =
        transcript(home, args, &run).replace(&example_plugins().display().to_string(), "[PLUGINS]");
    insta::with_settings!({
        filters => vec![
            (r"\d+\.\d+s\)", "[T]s)"),
            (r"approved \d{4}-\d\d-\d\dT[0-9:.]+Z?", "approved [TIME]"),
            // Where this machine's Python lives, and its version.
            (r"(interpreter: .*\)): \S+ \(Python [0-9.]+\)", "$1: [PYTHON]"),
            // What this machine's kernel offers a sandbox.
            (r"Sandbox support: .*", "Sandbox support: [THIS MACHINE]"),
        ],
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn list_on_the_example_home() {
    let home = example_home();
    snapshot("list_example_home_not_inspected", &home, &["list"]);
    // What `doctor` learnt by trial-loading is what `list` shows next.
    run(&home, &["doctor"]);
    snapshot("list_example_home", &home, &["list"]);
}

#[test]
fn doctor_on_the_example_home() {
    let home = example_home();
    snapshot("doctor_example_home_not_approved", &home, &["doctor"]);
    run(&home, &["approve", "--all"]).ok();
    snapshot("doctor_example_home_approved", &home, &["doctor"]);
}

/// `examples/home` used in place, as a fresh clone has it after `cargo xtask
/// demo` built the plugins: a copy at `<repo>/examples/home` beside a
/// `<repo>/target/debug` holding the built libraries, checked with `--home`
/// while HOME is elsewhere (no `~/.hermes` anywhere).
struct InPlace {
    home: TempHome,
    example: std::path::PathBuf,
}

impl InPlace {
    fn new() -> InPlace {
        let home = fresh_example_home();
        let repo = home.user_home.join("repo");
        let example = repo.join("examples/home");
        std::fs::create_dir_all(repo.join("examples")).expect("mkdir");
        std::fs::rename(&home.hermes, &example).expect("move the home");
        std::fs::create_dir_all(repo.join("target")).expect("mkdir");
        std::os::unix::fs::symlink(support::example_plugins(), repo.join("target/debug"))
            .expect("link the built plugins");
        InPlace { home, example }
    }

    /// `hooks --home <repo>/examples/home ARGS`, the webhook secret set to
    /// the example's documented value.
    fn run(&self, args: &[&str]) -> Run {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_hooks"));
        command
            .arg("--home")
            .arg(&self.example)
            .args(args)
            .env("HOME", self.home.user_home.join("elsewhere"))
            .env(
                "HERMES_MANAGED_DIR",
                self.home.user_home.join("managed-scope"),
            )
            .env("HERMES_HOOKS_PYTHON", "python3")
            .env("HERMES_DEMO_WEBHOOK_SECRET", "demo-secret-please-change")
            .env_remove("HERMES_HOME")
            .env_remove("HERMES_ACCEPT_HOOKS")
            .env_remove("HERMES_SAFE_MODE");
        harness::within(command, std::time::Duration::from_secs(120)).expect("hooks finishes")
    }
}

#[test]
fn the_example_home_runs_in_place() {
    let in_place = InPlace::new();
    let home = in_place.example.display().to_string();
    // Fresh: only unapproved hooks are problems, each naming the command
    // that approves it in this home.
    let doctor = in_place.run(&["doctor"]);
    let problems: Vec<&str> = doctor
        .0
        .stdout
        .split(|b| *b == b'\n')
        .filter_map(|line| {
            let line = std::str::from_utf8(line).ok()?;
            line.contains('✗').then_some(line)
        })
        .collect();
    assert_eq!(problems.len(), 5, "{}", doctor.stdout());
    for line in &problems {
        assert!(line.contains("not allowlisted"), "{line}");
        assert!(
            line.contains(&format!("`hooks --home {home} approve '")),
            "{line}"
        );
    }
    // Approved, everything is healthy.
    in_place.run(&["approve", "--all"]).ok();
    let doctor = in_place.run(&["doctor"]);
    assert_eq!(
        doctor.code(),
        Some(0),
        "{}\n{}",
        doctor.stdout(),
        doctor.stderr()
    );
    assert!(
        doctor.stdout().contains("No problems found"),
        "{}",
        doctor.stdout()
    );
    // list, test and emit work there too, through every mechanism.
    assert_eq!(in_place.run(&["list"]).code(), Some(0));
    let payload = in_place.example.join("rm.json");
    std::fs::write(
        &payload,
        r#"{"tool_name": "terminal", "args": {"command": "rm -rf build /"}}"#,
    )
    .expect("payload");
    let emit = in_place.run(&[
        "emit",
        "pre_tool_call",
        "--payload-file",
        &payload.to_string_lossy(),
    ]);
    assert!(
        emit.stdout()
            .starts_with("pre_tool_call: BLOCK by plugin:guard"),
        "{}",
        emit.stdout()
    );
    assert!(
        emit.stdout().contains(&format!(
            "shell:{home}/agent-hooks/block-rm-rf.sh (shell) blocked"
        )),
        "{}",
        emit.stdout()
    );
    let test = in_place.run(&["test", "pre_llm_call"]);
    assert_eq!(test.code(), Some(0), "{}", test.stderr());
    assert!(test.stdout().contains("Project rules"), "{}", test.stdout());
}
