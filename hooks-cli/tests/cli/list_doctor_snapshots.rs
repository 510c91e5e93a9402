//! Snapshots of the human output of `list` and `doctor` on a copy of the
//! example home (with its native plugins built), so a wording change
//! shows up in review. Temporary paths and timings become placeholders.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::harness;
use crate::support::{Run, TempHome};

/// The example home's plugins (hooks-plugin/examples), by folder.
const PLUGINS: [(&str, &str); 3] = [
    ("guard", "plugin-guard"),
    ("context", "plugin-context"),
    ("redactor", "plugin-redactor"),
];

/// Where the example plugins are built, once per run, into the target dir the
/// plugin tests use (its own, so the nested cargo never waits for the outer
/// build lock).
fn built_plugins() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let target = root.join("target").join("fixture-plugin");
        let mut build = Command::new(env!("CARGO"));
        build
            .args(["build", "--quiet", "--manifest-path"])
            .arg(root.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(&target);
        for (_, package) in PLUGINS {
            build.args(["-p", package]);
        }
        let output = build.output().expect("cargo runs");
        assert!(
            output.status.success(),
            "building the example plugins failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        target.join("debug")
    })
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read example home") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// A scratch HOME whose `.hermes` is a copy of `examples/home`, its plugin
/// manifests naming the built libraries.
fn example_home() -> TempHome {
    let home = TempHome::new();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/home");
    copy_dir(&source, &home.hermes);
    for (folder, package) in PLUGINS {
        let manifest = format!("plugins/{folder}/plugin.yaml");
        let text = std::fs::read_to_string(home.hermes.join(&manifest)).expect("manifest");
        let library = built_plugins().join(format!(
            "{}{}{}",
            std::env::consts::DLL_PREFIX,
            package.replace('-', "_"),
            std::env::consts::DLL_SUFFIX
        ));
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
    let text = format!(
        "$ hooks {}\n--- stdout\n{}--- stderr\n{}--- exit: {:?}\n",
        args.join(" "),
        run.stdout(),
        run.stderr(),
        run.code()
    )
    .replace(&home.user_home.display().to_string(), "[HOME]")
    .replace(&built_plugins().display().to_string(), "[PLUGINS]");
    insta::with_settings!({
        filters => vec![
            (r"\d+\.\d+s\)", "[T]s)"),
            (r"approved \d{4}-\d\d-\d\dT[0-9:.]+Z?", "approved [TIME]"),
            // Where this machine's Python lives, and its version.
            (r"(interpreter: .*\)): \S+ \(Python [0-9.]+\)", "$1: [PYTHON]"),
        ],
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn list_on_the_example_home() {
    let home = example_home();
    snapshot("list_example_home", &home, &["list"]);
}

#[test]
fn doctor_on_the_example_home() {
    let home = example_home();
    snapshot("doctor_example_home_not_approved", &home, &["doctor"]);
    run(&home, &["approve", "--all"]).ok();
    snapshot("doctor_example_home_approved", &home, &["doctor"]);
}
