//! A temporary Hermes home and a way to run `hooks` in it.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Command, Output};

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

    /// Runs `hooks --home <hermes> ARGS` with HOME set to the scratch dir.
    pub fn hooks(&self, args: &[&str]) -> Run {
        let output = Command::new(env!("CARGO_BIN_EXE_hooks"))
            .arg("--home")
            .arg(&self.hermes)
            .args(args)
            .env("HOME", &self.user_home)
            .env_remove("HERMES_HOME")
            .env_remove("HERMES_ACCEPT_HOOKS")
            .env_remove("HERMES_SAFE_MODE")
            .output()
            .expect("run hooks");
        Run(output)
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
