//! The interpreter behind a shim, resolved once and remembered.
//!
//! A pyenv or asdf `python3` on `PATH` is a shell script that works out which
//! Python to run (~100 ms) before it starts it. When `list` must start Python
//! (to list pip-installed plugins), it starts the real interpreter if an
//! earlier run learnt it: the worker reports `sys.executable`, and the
//! inventory cache keeps it keyed by the shim's
//! [`VersionShim::fingerprint`](hermes_hooks_core::interpreter::VersionShim::fingerprint)
//! (the shim and everything it decides by). An edited shim, another version
//! choice or a real path that is gone means the shim runs again, once. Any
//! other script named as the interpreter is a wrapper and runs every time.

use std::path::{Path, PathBuf};

use hermes_hooks_core::interpreter::{PythonInterpreter, VersionShim};
use serde_json::json;

use super::cache::Cache;

/// The interpreter to start: `interpreter` itself, or the real program its
/// shim chose last time. The second value is the cache entry to record the
/// real path under after the start (`None` when `interpreter` is no shim).
pub fn through_cache(
    interpreter: &PythonInterpreter,
    cache: &Cache,
) -> (PythonInterpreter, Option<(String, String)>) {
    let Some(shim) = VersionShim::detect(&interpreter.program) else {
        return (interpreter.clone(), None);
    };
    let print = shim.fingerprint();
    let key = format!("interpreter:{}", shim.path().display());
    let known = cache
        .get(&key, &print)
        .and_then(|entry| entry["executable"].as_str())
        .map(PathBuf::from)
        .filter(|path| path.is_file());
    match known {
        Some(real) => (
            PythonInterpreter::new(real, interpreter.source.clone()),
            None,
        ),
        None => (interpreter.clone(), Some((key, print))),
    }
}

/// Records what the shim started (the worker's `sys.executable`).
pub fn remember(cache: &mut Cache, entry: (String, String), executable: &Path) {
    let (key, print) = entry;
    cache.put(
        key,
        print,
        json!({ "executable": executable.display().to_string() }),
    );
}

/// Asks `interpreter` (a shim) which program it runs (`sys.executable`): one
/// Python start, bounded by `timeout`, so the trial children that follow
/// start the real program directly instead of one shim each.
pub fn ask_shim(interpreter: &PythonInterpreter, timeout: std::time::Duration) -> Option<PathBuf> {
    let mut command = tokio::process::Command::new(&interpreter.program);
    command.args(["-c", "import sys; print(sys.executable)"]);
    let limits = hermes_hooks_process::RunLimits::new(
        timeout,
        64 * 1024,
        std::time::Duration::from_millis(200),
    );
    // On the process's one background runtime, from any thread.
    let output = hermes_hooks_process::runtime::block_on(async move {
        hermes_hooks_process::run(command, b"", &limits).await
    })?
    .ok()?;
    if output.exit_code != Some(0) {
        return None;
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let path = PathBuf::from(text.lines().next()?.trim());
    (path.is_absolute() && path.is_file()).then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hermes_hooks_core::interpreter::InterpreterSource;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_shim_is_started_once_then_its_real_interpreter() {
        let dir = tempfile::tempdir().expect("temp dir");
        let shim = dir.path().join("python3");
        let pyenv =
            "#!/usr/bin/env bash\nexec \"/opt/pyenv/libexec/pyenv\" exec \"python3\" \"$@\"\n";
        std::fs::write(&shim, pyenv).expect("write");
        std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let real = dir.path().join("real-python");
        std::fs::write(&real, b"\x7fELF").expect("write");
        let interpreter = PythonInterpreter::new(shim.clone(), InterpreterSource::Environment);
        let mut cache = Cache::open(dir.path());
        // First: the shim itself, with an entry to record.
        let (first, entry) = through_cache(&interpreter, &cache);
        assert_eq!(first.program, shim);
        remember(&mut cache, entry.expect("a shim"), &real);
        // Then: the real program, nothing to record.
        let (second, entry) = through_cache(&interpreter, &cache);
        assert_eq!(second.program, real);
        assert!(entry.is_none());
        // An edited shim decides again.
        std::fs::write(&shim, format!("{pyenv}# edited\n")).expect("write");
        assert_eq!(through_cache(&interpreter, &cache).0.program, shim);
        // A wrapper (it may set PYTHONPATH, pass options) always runs.
        std::fs::write(&shim, "#!/bin/sh\nexec /usr/bin/env python3 -I \"$@\"\n").expect("write");
        let (wrapped, entry) = through_cache(&interpreter, &cache);
        assert_eq!(wrapped.program, shim);
        assert!(entry.is_none(), "nothing is learnt about a wrapper");
        // A binary is no shim.
        let binary = PythonInterpreter::new(real.clone(), InterpreterSource::Environment);
        assert!(through_cache(&binary, &cache).1.is_none());
    }
}
