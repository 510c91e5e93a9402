//! What a host learns about each call without digging: the run observer of
//! `HostOptions::on_run`, `Report` at the facade root, its own closures
//! labelled `host:<name>`, event names checked, skips told apart from
//! timeouts, and a shutdown through `block_on`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hermes_hooks::payloads::PreToolCall;
use hermes_hooks::{Event, HookRun, Host, HostOptions, Mechanism, Report, RunStatus, ToolGate};
use serde_json::{Map, Value, json};

use super::{TempHome, runtime};

/// A `pre_tool_call` for `terminal` with `command`, as call `id`.
fn tool_call(command: &str, id: &str) -> Event {
    let mut args = Map::new();
    args.insert("command".into(), Value::from(command));
    PreToolCall::default()
        .with_tool_name("terminal")
        .with_args(args)
        .with_tool_call_id(id)
        .into()
}

/// A home whose one shell hook blocks `shred` (exit 2, stderr the message).
fn home_with_an_rm_gate(home: &TempHome) -> String {
    use std::os::unix::fs::PermissionsExt;
    let path = home.path().join("no-rm.sh");
    std::fs::write(
        &path,
        "#!/bin/sh\ncase \"$(cat)\" in *shred*) echo 'no shred here' >&2; exit 2;; esac\necho '{}'\n",
    )
    .expect("script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let command = path.display().to_string();
    home.config(&format!(
        "hooks:\n  pre_tool_call:\n    - command: \"{command}\"\n      timeout: 10\n"
    ));
    command
}

#[test]
fn the_run_observer_sees_every_mechanism_and_the_report_says_who_decided() {
    let home = TempHome::new();
    let command = home_with_an_rm_gate(&home);
    let seen: Arc<Mutex<Vec<HookRun>>> = Arc::default();
    let observed = seen.clone();
    let options = HostOptions::new()
        .home(home.path())
        .accept_hooks(true)
        .only([Mechanism::Shell])
        .on_run(move |runs: &[HookRun]| {
            observed.lock().expect("lock").extend_from_slice(runs);
        });
    let host = Host::load_blocking(options).expect("loads");
    host.register("pre_tool_call", "mode", |event: &Event| {
        let writes = event.tool_name() == Some("terminal");
        Ok(writes.then(|| json!({"action": "modify", "args": {"cwd": "/tmp"}})))
    })
    .expect("a catalog event");

    // Plain `emit`: the observer still sees the runs of both mechanisms.
    let outcome = host.block_on(host.hooks().emit(&tool_call("ls", "1")));
    assert!(
        matches!(outcome.tool_gate(), ToolGate::Modify { .. }),
        "{outcome:?} {:?}",
        host.warnings()
    );
    let runs: Vec<(String, String, RunStatus)> = seen
        .lock()
        .expect("lock")
        .iter()
        .map(|run| {
            (
                run.source.to_string(),
                run.mechanism.to_string(),
                run.status.clone(),
            )
        })
        .collect();
    assert_eq!(
        runs,
        [
            ("host:mode".into(), "host".into(), RunStatus::Completed),
            (
                format!("shell:{command}"),
                "shell".into(),
                RunStatus::Completed
            ),
        ]
    );

    let modified: Report = host.block_on(host.hooks().emit_with_report(&tool_call("ls", "2")));
    let by: Vec<&str> = modified
        .modified_by()
        .iter()
        .map(|run| &*run.source)
        .collect();
    assert_eq!(by, ["host:mode"]);

    let blocked = host.block_on(
        host.hooks()
            .emit_with_report(&tool_call("shred /etc/passwd", "3")),
    );
    let blocker = blocked.blocked_by().expect("blocked");
    assert_eq!(&*blocker.source, format!("shell:{command}"));
    let gate = blocked.outcome.tool_gate();
    let source = gate.block_source().expect("a block names its source");
    assert!(
        source
            .to_string()
            .starts_with(&format!("shell:{command} (shell, ")),
        "{source}"
    );
    assert!(blocked.modified_by().is_empty());
    let report = host.block_on(host.shutdown(Duration::from_secs(5)));
    assert!(!report.bound_hit);
}

#[test]
fn a_host_closure_for_a_misspelt_event_is_refused_with_the_nearest_name() {
    let host = Host::load_blocking(HostOptions::new().home(TempHome::new().path())).expect("loads");
    let refused = host
        .register("pre_tool_cal", "guard", |_: &Event| Ok(None))
        .expect_err("refused");
    assert_eq!(
        refused.to_string(),
        "unknown hook event 'pre_tool_cal' (did you mean 'pre_tool_call'?)"
    );
    host.block_on(host.shutdown(Duration::from_secs(5)));
}

/// A host closure that hangs on `pre_tool_call` until `release` is set,
/// counting its runs; the host bounds callbacks by 100 ms.
/// Set to let the hanging closure return.
type Release = Arc<(Mutex<bool>, std::sync::Condvar)>;

fn hanging_guard(options: HostOptions) -> (Host, Arc<AtomicUsize>, Release) {
    let host = Host::load_blocking(options.callback_timeout(Some(Duration::from_millis(100))))
        .expect("loads");
    let runs = Arc::new(AtomicUsize::new(0));
    let release = Arc::new((Mutex::new(false), std::sync::Condvar::new()));
    let (counter, gate) = (runs.clone(), release.clone());
    host.register("pre_tool_call", "slow", move |_: &Event| {
        counter.fetch_add(1, Ordering::SeqCst);
        let (open, wake) = &*gate;
        let mut open = open.lock().expect("lock");
        while !*open {
            open = wake.wait(open).expect("wait");
        }
        Ok(None)
    })
    .expect("a catalog event");
    (host, runs, release)
}

fn open(release: &(Mutex<bool>, std::sync::Condvar)) {
    *release.0.lock().expect("lock") = true;
    release.1.notify_all();
}

fn block_message(host: &Host, event: &Event) -> String {
    match host.block_on(host.hooks().emit(event)).tool_gate() {
        ToolGate::Block { message, .. } => message,
        other => panic!("not blocked: {other:?}"),
    }
}

#[test]
fn a_call_skipped_after_a_timeout_says_it_was_not_run_and_the_window_is_an_option() {
    let home = TempHome::new();
    let (host, runs, release) = hanging_guard(HostOptions::new().home(home.path()));
    let first = block_message(&host, &tool_call("ls", "1"));
    assert!(
        first.starts_with("pre_tool_call host callback slow timed out after 0.1s"),
        "{first}"
    );
    let second = block_message(&host, &tool_call("ls", "2"));
    assert!(
        second.starts_with(
            "pre_tool_call host callback slow was not run: an earlier call timed out "
        ) && second.ends_with("calls are skipped for 60.0s after a timeout"),
        "{second}"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 1, "the second call never ran");
    open(&release);
    host.block_on(host.shutdown(Duration::from_secs(5)));

    // With no window, the next call runs the closure again (and times out on its own).
    let options = HostOptions::new()
        .home(home.path())
        .suppression_window(Duration::ZERO);
    let (host, runs, release) = hanging_guard(options);
    block_message(&host, &tool_call("ls", "1"));
    let second = block_message(&host, &tool_call("ls", "2"));
    assert!(second.contains("slow timed out after 0.1s"), "{second}");
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    open(&release);
    host.block_on(host.shutdown(Duration::from_secs(5)));
}

#[test]
fn shutdown_inside_an_async_runtime_still_awaits() {
    let home = TempHome::new();
    runtime().block_on(async {
        let host = Host::load(HostOptions::new().home(home.path()))
            .await
            .expect("loads");
        let first = host.shutdown(Duration::from_secs(5)).await;
        assert!(!first.bound_hit);
        // A second shutdown finds the runtime already stopped.
        let again = host.close().await;
        assert_eq!(again.runtime, Some(hermes_hooks::Stopped::AlreadyStopped));
    });
}
