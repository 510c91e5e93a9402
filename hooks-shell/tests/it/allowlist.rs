//! The allowlist file under stress: a hand-edit gone wrong is never
//! overwritten, a symlink is written through, and mtimes are recorded as the
//! reference records them, so neither tool sees drift the other does not.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hermes_hooks_core::Config;
use hermes_hooks_shell::{
    Allowlist, AllowlistError, Consent, Drift, RegisterOptions, ShellHooks, mtime_drift,
    script_mtime_iso,
};
use serde_json::json;

use crate::support::{Home, context};

/// The reference's Python (a venv with hermes-agent 0.20.1): `$HERMES_REFERENCE_PYTHON`,
/// which `bash .ci/run` sets. Empty when unset: the live comparisons skip (in CI, fail).
fn reference_python() -> PathBuf {
    test_support::reference::python().unwrap_or_default()
}

/// The reference's CLI (`hermesx`): `$HERMES_REFERENCE_BIN`, else beside its Python.
fn reference_hermes() -> PathBuf {
    test_support::reference::cli().unwrap_or_default()
}

/// A hand-edited allowlist with a missing comma on line 3.
const BROKEN: &str =
    "{\n  \"approvals\": [\n    {\"event\": \"pre_tool_call\" \"command\": \"/x\"}\n  ]\n}\n";

/// Runs `body` with warnings captured; returns what was logged.
fn logged(body: impl FnOnce()) -> String {
    let buffer = Arc::new(Mutex::new(Vec::<u8>::new()));
    let sink = Arc::clone(&buffer);
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::WARN)
        .with_ansi(false)
        .with_writer(move || Writer(Arc::clone(&sink)))
        .finish();
    tracing::subscriber::with_default(subscriber, body);
    let bytes = buffer.lock().map(|bytes| bytes.clone()).unwrap_or_default();
    String::from_utf8_lossy(&bytes).into_owned()
}

struct Writer(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Writer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut buffer) = self.0.lock() {
            buffer.extend_from_slice(bytes);
        }
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_malformed_allowlist_is_never_rewritten() {
    let home = Home::new();
    let allowlist = Allowlist::in_home(home.path());
    std::fs::write(allowlist.path(), BROKEN).expect("write allowlist");

    let error = allowlist.record("pre_tool_call", "/y").err();
    let Some(AllowlistError::Unusable { path, problem }) = &error else {
        panic!("expected Unusable, got {error:?}");
    };
    assert_eq!(path, allowlist.path());
    assert!(problem.contains("line 3 column"), "{problem}");
    let message = error.as_ref().map(ToString::to_string).unwrap_or_default();
    assert!(
        message.contains(&allowlist.path().display().to_string()),
        "{message}"
    );
    assert!(message.contains("fix it"), "{message}");
    assert_eq!(
        std::fs::read_to_string(allowlist.path()).ok().as_deref(),
        Some(BROKEN)
    );

    // A revoke, even of nothing, leaves it too.
    assert!(allowlist.revoke("/x").is_err());
    assert!(allowlist.revoke("/nothing").is_err());
    assert_eq!(
        std::fs::read_to_string(allowlist.path()).ok().as_deref(),
        Some(BROKEN)
    );
}

#[test]
fn approvals_made_meanwhile_last_for_the_run_and_the_user_is_told_once() {
    let home = Home::new();
    let allowlist = Allowlist::in_home(home.path());
    std::fs::write(allowlist.path(), BROKEN).expect("write allowlist");
    let config = home.config(json!({"hooks": {
        "on_session_start": [{"command": "/x/a.sh"}, {"command": "/x/b.sh"}]}}));
    let mut registered = 0;
    let logs = logged(|| {
        let registration = ShellHooks::register(
            &config,
            RegisterOptions::new(Consent::accept_all())
                .with_context(context())
                .with_safe_mode(false)
                .with_queue_capacity(8),
        );
        registered = registration.hooks.len();
    });
    assert_eq!(registered, 2, "approvals hold for this run");
    assert_eq!(logs.matches("in-memory for this run").count(), 1, "{logs}");
    assert!(logs.contains("line 3 column"), "{logs}");
    assert_eq!(
        std::fs::read_to_string(allowlist.path()).ok().as_deref(),
        Some(BROKEN)
    );
}

#[test]
fn a_symlinked_allowlist_is_written_through() {
    let home = Home::new();
    let elsewhere = home.path().join("dotfiles");
    std::fs::create_dir(&elsewhere).expect("mkdir");
    let target = elsewhere.join("allowlist.json");
    std::fs::write(&target, "{\"approvals\": []}").expect("write target");
    let allowlist = Allowlist::in_home(home.path());
    std::os::unix::fs::symlink("dotfiles/allowlist.json", allowlist.path()).expect("symlink");

    allowlist.record("pre_tool_call", "/x").expect("record");
    allowlist.record("on_session_start", "/y").expect("record");
    let link = std::fs::symlink_metadata(allowlist.path()).expect("lstat");
    assert!(
        link.file_type().is_symlink(),
        "the link was replaced by a file"
    );
    let text = std::fs::read_to_string(&target).expect("read target");
    assert!(text.contains("\"/x\"") && text.contains("\"/y\""), "{text}");
    assert_eq!(allowlist.revoke("/x").ok(), Some(1));
    assert!(std::fs::symlink_metadata(allowlist.path()).is_ok_and(|m| m.file_type().is_symlink()));
    assert!(
        !std::fs::read_to_string(&target)
            .unwrap_or_default()
            .contains("\"/x\"")
    );
}

/// A script whose mtime has nanoseconds that truncation and rounding disagree on.
fn script_with_ns_mtime(dir: &Path) -> (PathBuf, SystemTime) {
    let script = dir.join("hook.sh");
    std::fs::write(&script, "#!/bin/sh\ncat >/dev/null\necho '{}'\n").expect("write script");
    let mut permissions = std::fs::metadata(&script).expect("stat").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&script, permissions).expect("chmod");
    let mtime = UNIX_EPOCH + Duration::new(1_704_067_200, 123_456_789);
    std::fs::File::options()
        .write(true)
        .open(&script)
        .and_then(|file| file.set_modified(mtime))
        .expect("set mtime");
    (script, mtime)
}

#[test]
fn mtime_is_recorded_with_pythons_rounding() {
    let home = Home::new();
    let (script, _) = script_with_ns_mtime(home.path());
    let command = script.display().to_string();
    let ours = script_mtime_iso(&command);
    // CPython: fromtimestamp(1704067200 + 123456789e-9) rounds to .123457.
    assert_eq!(ours.as_deref(), Some("2024-01-01T00:00:00.123457Z"));
    let python = reference_python();
    if !python.is_file() {
        eprintln!("skipped the live comparison: HERMES_REFERENCE_PYTHON names no Python");
        return;
    }
    let output = Command::new(&python)
        .args([
            "-c",
            "import os, sys; from datetime import datetime, timezone; \
             print(datetime.fromtimestamp(os.path.getmtime(sys.argv[1]), tz=timezone.utc)\
             .isoformat().replace('+00:00', 'Z'))",
            &command,
        ])
        .output()
        .expect("run python");
    assert_eq!(
        ours.as_deref(),
        Some(String::from_utf8_lossy(&output.stdout).trim())
    );
}

/// A home with one `pre_tool_call` hook whose script has a nanosecond mtime.
fn interop_home() -> Option<(Home, String)> {
    if !reference_hermes().is_file() {
        eprintln!("skipped: no hermes-agent (set HERMES_REFERENCE_PYTHON or HERMES_REFERENCE_BIN)");
        return None;
    }
    let home = Home::new();
    let (script, _) = script_with_ns_mtime(home.path());
    let command = script.display().to_string();
    std::fs::write(
        home.path().join("config.yaml"),
        format!("hooks:\n  pre_tool_call:\n    - command: {command}\n"),
    )
    .expect("write config");
    Some((home, command))
}

fn reference(home: &Home, program: &Path, args: &[&str]) -> String {
    let output = Command::new(program)
        .args(args)
        .env("HERMES_HOME", home.path())
        .env("HOME", home.path())
        .env_remove("HERMES_ACCEPT_HOOKS")
        .output()
        .expect("run the reference");
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn hermes_doctor_sees_no_drift_on_an_allowlist_we_wrote() {
    let Some((home, command)) = interop_home() else {
        return;
    };
    Allowlist::in_home(home.path())
        .record("pre_tool_call", &command)
        .expect("record");
    let output = reference(&home, &reference_hermes(), &["hooks", "doctor"]);
    assert!(output.contains("allowlisted (approved"), "{output}");
    assert!(
        output.contains("script unchanged since approval"),
        "{output}"
    );
    assert!(!output.contains("modified since approval"), "{output}");
}

#[test]
fn we_see_no_drift_on_an_allowlist_hermes_wrote() {
    let Some((home, command)) = interop_home() else {
        return;
    };
    let script = "import sys\nfrom agent.shell_hooks import _record_approval\n\
                  _record_approval('pre_tool_call', sys.argv[1])\n";
    let output = reference(&home, &reference_python(), &["-c", script, &command]);
    let config = Config::load(home.path()).expect("config");
    let entry = Allowlist::in_home(config.home()).entry_for("pre_tool_call", &command);
    let Some(entry) = entry else {
        panic!("hermes wrote no approval: {output}");
    };
    assert_eq!(
        mtime_drift(
            entry.script_mtime_at_approval.as_deref(),
            script_mtime_iso(&command).as_deref()
        ),
        Drift::Unchanged,
        "{entry:?}"
    );
}

#[test]
fn hermes_keeps_our_content_hash_and_still_reads_our_approval() {
    let Some((home, command)) = interop_home() else {
        return;
    };
    let ours = Allowlist::in_home(home.path())
        .record("pre_tool_call", &command)
        .expect("record");
    let hash = ours.script_sha256_at_approval.clone().expect("a hash");
    // hermes-agent reads the entry as an approval, and rewrites the file for
    // another pair without dropping our field.
    let script = "import sys\nfrom agent.shell_hooks import _is_allowlisted, _record_approval\n\
                  print('allowlisted' if _is_allowlisted('pre_tool_call', sys.argv[1]) else 'no')\n\
                  _record_approval('on_session_start', '/other.sh')\n";
    let output = reference(&home, &reference_python(), &["-c", script, &command]);
    assert!(output.contains("allowlisted"), "{output}");
    let allowlist = Allowlist::in_home(home.path());
    let entry = allowlist
        .entry_for("pre_tool_call", &command)
        .expect("ours");
    assert_eq!(
        entry.script_sha256_at_approval.as_deref(),
        Some(hash.as_str())
    );
    assert!(
        allowlist.is_allowed("on_session_start", "/other.sh"),
        "{output}"
    );
    let doctor = reference(&home, &reference_hermes(), &["hooks", "doctor"]);
    assert!(
        doctor.contains("script unchanged since approval"),
        "{doctor}"
    );
}
