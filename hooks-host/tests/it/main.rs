//! The facade as a host uses it: options, consent policies, typed warnings.

mod consent;
mod options;
mod runtime;
mod sandbox;

use std::path::{Path, PathBuf};

/// A temporary Hermes home.
#[derive(Debug)]
pub(crate) struct TempHome {
    pub(crate) dir: tempfile::TempDir,
}

impl Default for TempHome {
    fn default() -> TempHome {
        TempHome::new()
    }
}

impl TempHome {
    pub(crate) fn new() -> TempHome {
        TempHome {
            dir: tempfile::tempdir().expect("home"),
        }
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes config.yaml.
    pub(crate) fn config(&self, text: &str) {
        std::fs::write(self.path().join("config.yaml"), text).expect("config");
    }

    /// An executable script `name` answering `{}`, and its path.
    pub(crate) fn script(&self, name: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.path().join(name);
        std::fs::write(&path, "#!/bin/sh\ncat >/dev/null\necho '{}'\n").expect("script");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        path
    }

    /// Two `pre_tool_call` shell hooks, `a.sh` and `b.sh`; their commands.
    pub(crate) fn two_shell_hooks(&self) -> (String, String) {
        let a = self.script("a.sh").display().to_string();
        let b = self.script("b.sh").display().to_string();
        self.config(&format!(
            "hooks:\n  pre_tool_call:\n    - command: \"{a}\"\n    - command: \"{b}\"\n"
        ));
        (a, b)
    }
}

/// A multi-threaded runtime, as a host has.
pub(crate) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}
