//! A temporary Hermes home and a way to run `hooks` in it; the example home
//! and the example native plugins the snapshot and plugin tests share.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

/// A scratch HOME with a `.hermes` home inside.
pub struct TempHome {
    _dir: tempfile::TempDir,
    /// The HOME directory.
    pub user_home: PathBuf,
    /// The Hermes home (`<HOME>/.hermes`).
    pub hermes: PathBuf,
}

impl TempHome {
    pub fn new() -> TempHome {
        let dir = tempfile::tempdir().expect("tempdir");
        let user_home = dir.path().to_path_buf();
        let hermes = user_home.join(".hermes");
        std::fs::create_dir_all(&hermes).expect("create home");
        // The (empty) managed scope `harness::command` names: a missing one is warned about.
        std::fs::create_dir_all(user_home.join("managed-scope")).expect("managed scope");
        TempHome {
            _dir: dir,
            user_home,
            hermes,
        }
    }

    pub fn config(&self, yaml: &str) -> &Self {
        std::fs::write(self.hermes.join("config.yaml"), yaml).expect("write config");
        self
    }

    /// Writes an executable script and returns its path.
    pub fn script(&self, name: &str, body: &str) -> PathBuf {
        let path = self.hermes.join(name);
        std::fs::write(&path, body).expect("write script");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        path
    }

    /// Writes an executable script and a config with it as the only hook of `event`.
    pub fn only_hook(&self, event: &str, name: &str, body: &str) -> PathBuf {
        let script = self.script(name, body);
        self.config(&format!(
            "hooks:\n  {event}:\n    - command: {}\n",
            script.display()
        ));
        script
    }

    /// Configures one hook of `event` that saves its stdin; returns where it does.
    pub fn capturing_hook(&self, event: &str) -> PathBuf {
        let capture = self.hermes.join("stdin.json");
        self.only_hook(
            event,
            "capture.sh",
            &format!("#!/bin/sh\ncat > {}\n", capture.display()),
        );
        capture
    }

    pub fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.hermes.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&path, text).expect("write");
        path
    }

    /// Runs `hooks --home <hermes> ARGS` with HOME set to the scratch dir
    /// (the environment `harness::command` sets).
    pub fn hooks(&self, args: &[&str]) -> Run {
        Run(crate::harness::command(self, args)
            .output()
            .expect("run hooks"))
    }
}

/// The JSON a capturing hook saved.
pub fn captured(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("captured")).expect("json")
}

/// The result of one `hooks` run.
pub struct Run(pub Output);

impl Run {
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.0.stdout).into_owned()
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.0.stderr).into_owned()
    }

    pub fn code(&self) -> Option<i32> {
        self.0.status.code()
    }

    /// Asserts success and returns stdout.
    pub fn ok(&self) -> String {
        assert_eq!(
            self.code(),
            Some(0),
            "stdout:\n{}\nstderr:\n{}",
            self.stdout(),
            self.stderr()
        );
        self.stdout()
    }

    /// Asserts exit status 1 (`doctor` found problems) and returns stdout.
    pub fn problems(&self) -> String {
        assert_eq!(
            self.code(),
            Some(1),
            "stdout:\n{}\nstderr:\n{}",
            self.stdout(),
            self.stderr()
        );
        self.stdout()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(self.ok().trim()).expect("stdout is one JSON document")
    }
}

/// The workspace root (the parent of hooks-cli).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from(".."), Path::to_owned)
}

/// The directory holding the example plugin libraries: built by the outer
/// `cargo test` as this package's dev-dependencies, beside the test binary
/// (`test_support::example_plugins`).
pub fn example_plugins() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| test_support::example_plugins(false))
}

/// The built library of example plugin `package` (it may not exist: the
/// caller checks when it matters).
pub fn example_plugin_library(package: &str) -> PathBuf {
    example_plugins().join(test_support::library_file_name(package))
}

/// Copies the directory tree `from` into `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read example home") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            // fs::copy keeps the permission bits: the hook scripts stay executable.
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// A scratch HOME whose `.hermes` is a copy of `examples/home`.
pub fn example_home() -> TempHome {
    let home = TempHome::new();
    copy_dir(&workspace_root().join("examples/home"), &home.hermes);
    home
}

/// The run as one text for a snapshot: the command, stdout, stderr and
/// status, the home's path replaced by `[HOME]`.
pub fn transcript(home: &TempHome, args: &[&str], run: &Run) -> String {
    let text = format!(
        "$ hooks {}\n--- stdout\n{}--- stderr\n{}--- exit: {:?}\n",
        args.join(" "),
        run.stdout(),
        run.stderr(),
        run.code()
    );
    text.replace(&home.user_home.display().to_string(), "[HOME]")
}
