//! The host's one background runtime: a host loaded from a plain `fn main`
//! (no tokio anywhere) runs every mechanism (shell hooks and their queue,
//! webhook lanes, gateway hooks, the Python plugin worker) on its runtime
//! threads and starts no other runtime; dropping it without a shutdown, or
//! shutting it down under an executor that is not tokio, leaves no process
//! and no runtime thread behind.
//!
//! Thread counts see the whole process, so each test body runs alone in a
//! fresh process of this test binary (no other test's runtimes in it).

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use hermes_hooks::core::payloads::{PostToolCall, PreToolCall};
use hermes_hooks::{Event, Host, HostOptions, Stopped};
use serde_json::json;

use crate::TempHome;

/// Set in the child process that runs one test body.
const CHILD: &str = "HERMES_HOOKS_HOST_RUNTIME_CHILD";

/// Generous: the machine is loaded and shared.
const BOUND: Duration = Duration::from_secs(20);

/// `true` in the child (run the body); in the parent, runs test `name` alone
/// in a child process and asserts it passed.
fn in_child(name: &str) -> bool {
    if std::env::var_os(CHILD).is_some() {
        return true;
    }
    let exe = std::env::current_exe().expect("test binary");
    let output = Command::new(exe)
        .args([name, "--exact", "--test-threads=1", "--nocapture"])
        .env(CHILD, "1")
        .output()
        .expect("run the test alone");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{name} failed alone:\n{text}");
    assert!(text.contains("1 passed"), "{name} did not run:\n{text}");
    false
}

/// The names of this process's threads.
fn thread_names() -> Vec<String> {
    std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task")
        .filter_map(Result::ok)
        .filter_map(|task| std::fs::read_to_string(task.path().join("comm")).ok())
        .map(|comm| comm.trim().to_owned())
        .collect()
}

fn count(name: &str) -> usize {
    thread_names().iter().filter(|n| *n == name).count()
}

/// Threads of a runtime other than the host's: tokio's default name, the
/// process default, the gateway's old thread.
fn foreign_runtime_threads() -> Vec<String> {
    thread_names()
        .into_iter()
        .filter(|name| {
            name.starts_with("tokio-runtime") || name == "hooks-default" || name == "hooks-gateway"
        })
        .collect()
}

fn wait_until(mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while !done() {
        if start.elapsed() > BOUND {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

/// Whether `pid` is a live (not zombie) process.
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X']))
    })
}

fn read_pid(path: &Path) -> i32 {
    assert!(
        wait_until(|| std::fs::read_to_string(path).is_ok_and(|t| t.ends_with('\n'))),
        "{} never written",
        path.display()
    );
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let pid = text.trim().parse().unwrap_or(-1);
    assert!(pid > 0 && alive(pid), "pid {pid} of {}", path.display());
    pid
}

use test_support::python_available;

fn write(home: &TempHome, relative: &str, text: &str) {
    let path = home.path().join(relative);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
    std::fs::write(&path, text).expect("write");
}

fn executable(home: &TempHome, relative: &str, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    write(home, relative, text);
    let path = home.path().join(relative);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// A gateway hook on `agent:start` whose handler starts a child and hangs.
fn hung_gateway_hook(home: &TempHome) {
    write(
        home,
        "hooks/stuck/HOOK.yaml",
        "name: stuck\ndescription: hangs\nevents: [agent:start]\n",
    );
    executable(
        home,
        "hooks/stuck/handler",
        "#!/bin/sh\nsleep 120 &\necho $! > \"$HERMES_HOME/gateway-child.pid\"\nwait\n",
    );
}

/// A local HTTP receiver answering 200 to one request; the request's text arrives on the channel.
fn receiver() -> (String, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/events", listener.local_addr().expect("addr"));
    let (sender, requests) = mpsc::channel();
    std::thread::spawn(move || {
        if let Ok((mut stream, _)) = listener.accept() {
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let mut buffer = vec![0; 64 * 1024];
            let read = stream.read(&mut buffer).unwrap_or(0);
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
            let _ = sender.send(String::from_utf8_lossy(&buffer[..read]).into_owned());
        }
    });
    (url, requests)
}

#[test]
fn a_host_in_a_plain_main_runs_everything_on_its_runtime_and_drop_leaks_nothing() {
    if !in_child(
        "runtime::a_host_in_a_plain_main_runs_everything_on_its_runtime_and_drop_leaks_nothing",
    ) {
        return;
    }
    let home = TempHome::new();
    let deltas = home.path().join("deltas");
    executable(
        &home,
        "block.sh",
        "#!/bin/sh\ncat >/dev/null\necho '{\"action\": \"block\", \"message\": \"shell says no\"}'\n",
    );
    executable(
        &home,
        "delta.sh",
        &format!("#!/bin/sh\ncat >> {0}\necho >> {0}\n", deltas.display()),
    );
    hung_gateway_hook(&home);
    let (url, requests) = receiver();
    let python = python_available();
    let plugins = if python {
        write(&home, "plugins/pyguard/plugin.yaml", "name: pyguard\n");
        write(
            &home,
            "plugins/pyguard/__init__.py",
            "import os\nwith open(os.path.join(os.environ['HERMES_HOME'], 'python.pid'), 'w') as f:\n    f.write(f'{os.getpid()}\\n')\n\n\
             def _guard(tool_name=None, **kw):\n    if tool_name == 'py_tool':\n        return {'action': 'block', 'message': 'python says no'}\n\n\
             def register(ctx):\n    ctx.register_hook('pre_tool_call', _guard)\n",
        );
        "plugins:\n  enabled: [pyguard]\n"
    } else {
        eprintln!("python3 is not available: the Python plugin part is skipped");
        ""
    };
    home.config(&format!(
        "{plugins}hooks:\n  pre_tool_call:\n    - command: \"{}\"\n      matcher: terminal\n  on_stream_delta:\n    - command: \"{}\"\n  outbound:\n    - url: {url}\n      events: [post_tool_call]\n",
        home.path().join("block.sh").display(),
        home.path().join("delta.sh").display(),
    ));
    assert!(foreign_runtime_threads().is_empty(), "{:?}", thread_names());

    let host = Host::load_blocking(HostOptions::new().home(home.path()).accept_hooks(true))
        .expect("loads outside any runtime");
    assert!(host.runtime().threads() >= 1);
    // Shell hook (a child process on the host's runtime), then the Python plugin.
    let shell: Event = PreToolCall::default().with_tool_name("terminal").into();
    assert_eq!(
        host.block_on(host.hooks().emit(&shell)).block_message(),
        Some("shell says no")
    );
    if python {
        let tool: Event = PreToolCall::default().with_tool_name("py_tool").into();
        assert_eq!(
            host.block_on(host.hooks().emit(&tool)).block_message(),
            Some("python says no")
        );
    }
    // The shell hooks' queue.
    for index in 0..2 {
        let delta = Event::from_json("on_stream_delta", json!({"delta": index}));
        host.block_on(host.hooks().emit(&delta));
    }
    // A webhook lane.
    let posted: Event = PostToolCall::default().with_tool_name("terminal").into();
    host.block_on(host.hooks().emit(&posted));
    let request = requests
        .recv_timeout(BOUND)
        .expect("the webhook was delivered");
    assert!(request.starts_with("POST /events"), "{request}");
    let report = futures::executor::block_on(host.flush(BOUND));
    assert_eq!(report.pending, 0);
    let text = std::fs::read_to_string(&deltas).unwrap_or_default();
    assert_eq!(text.lines().filter(|l| !l.is_empty()).count(), 2, "{text}");
    // A gateway hook that hangs (a flush now would wait for it).
    host.block_on(
        host.hooks()
            .emit(&Event::from_json("agent:start", json!({}))),
    );
    let gateway_child = read_pid(&home.path().join("gateway-child.pid"));

    // Everything ran, and no runtime but the host's ever started.
    assert!(foreign_runtime_threads().is_empty(), "{:?}", thread_names());
    assert!(count("hooks-runtime") >= 1, "{:?}", thread_names());

    let python_worker = python.then(|| read_pid(&home.path().join("python.pid")));
    drop(host);
    assert_runtime_and_child_gone(gateway_child, "the host");
    if let Some(pid) = python_worker {
        assert!(
            wait_until(|| !alive(pid)),
            "the Python worker outlived the host"
        );
    }
}

#[test]
fn shutdown_under_another_executor_stops_the_runtime_and_kills_the_gateway() {
    if !in_child("runtime::shutdown_under_another_executor_stops_the_runtime_and_kills_the_gateway")
    {
        return;
    }
    let home = TempHome::new();
    hung_gateway_hook(&home);
    let host = futures::executor::block_on(Host::load(HostOptions::new().home(home.path())))
        .expect("loads under an executor that is not tokio");
    futures::executor::block_on(
        host.hooks()
            .emit(&Event::from_json("agent:start", json!({}))),
    );
    let gateway_child = read_pid(&home.path().join("gateway-child.pid"));
    // The flush waits for the hung handler until the bound; the stop then kills it.
    let report = futures::executor::block_on(host.shutdown(Duration::from_secs(1)));
    assert_eq!(report.runtime, Some(Stopped::Clean), "{report:?}");
    assert!(!report.bound_hit);
    assert_runtime_and_child_gone(gateway_child, "the shutdown");
    assert!(foreign_runtime_threads().is_empty(), "{:?}", thread_names());
}

#[test]
fn a_given_runtime_is_used_and_left_running() {
    let runtime = hermes_hooks::Background::with_threads("host-given", 1).expect("runtime");
    let home = TempHome::new();
    let host = Host::load_blocking(
        HostOptions::new()
            .home(home.path())
            .runtime(runtime.clone()),
    )
    .expect("loads");
    assert_eq!(host.runtime(), &runtime);
    let report = futures::executor::block_on(host.shutdown(Duration::from_secs(5)));
    assert_eq!(report.runtime, None, "not the host's to stop");
    assert!(runtime.is_running());
    assert_eq!(runtime.shutdown(BOUND), Stopped::Clean);
}

#[test]
fn an_unbounded_shutdown_does_not_overflow() {
    let home = TempHome::new();
    let host = Host::load_blocking(HostOptions::new().home(home.path())).expect("loads");
    let report = futures::executor::block_on(host.shutdown(Duration::MAX));
    assert_eq!(report.runtime, Some(Stopped::Clean), "{report:?}");
}

/// No `hooks-runtime` thread is left and the gateway handler's child is
/// dead (each waited for, bounded) once `what` is over.
fn assert_runtime_and_child_gone(gateway_child: i32, what: &str) {
    assert!(
        wait_until(|| count("hooks-runtime") == 0),
        "{:?}",
        thread_names()
    );
    assert!(
        wait_until(|| !alive(gateway_child)),
        "the gateway handler's child outlived {what}"
    );
}
