//! Shared helpers: settings, events, a release gate, captured log lines.

use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

use hermes_hooks_core::config::PluginSettings;
use hermes_hooks_core::{Event, HookEvent};
use serde_json::json;

/// Settings with a callback timeout of `millis` (0 disables it).
pub fn settings(millis: u64) -> PluginSettings {
    PluginSettings::default()
        .with_callback_timeout((millis > 0).then(|| Duration::from_millis(millis)))
        .with_stream_reasoning_deltas(false)
}

/// A tool event with `tool_call_id` = `id`.
pub fn tool_event(event: HookEvent, id: &str) -> Event {
    Event::from_json(
        event,
        json!({"tool_name": "terminal", "args": {"command": "ls"}, "tool_call_id": id}),
    )
}

/// A latch callbacks wait on until the test opens it (or 10 s pass, so a
/// failing test cannot hang the suite).
#[derive(Clone, Default)]
pub struct Gate(Arc<(Mutex<bool>, Condvar)>);

impl Gate {
    pub fn wait(&self) {
        let (open, changed) = &*self.0;
        let guard = open.lock().unwrap_or_else(|e| e.into_inner());
        let _ = changed.wait_timeout_while(guard, Duration::from_secs(10), |open| !*open);
    }

    pub fn open(&self) {
        let (open, changed) = &*self.0;
        *open.lock().unwrap_or_else(|e| e.into_inner()) = true;
        changed.notify_all();
    }
}

#[derive(Clone)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn captured() -> &'static Arc<Mutex<Vec<u8>>> {
    static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let writer = Capture(Arc::clone(&buffer));
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .with_max_level(tracing::Level::DEBUG)
            .finish();
        // Another test binary module may have installed it first; either way logs land here.
        let _ = tracing::subscriber::set_global_default(subscriber);
        buffer
    })
}

/// Starts capturing logs process-wide (call before the code under test runs).
pub fn capture_logs() {
    captured();
}

/// Captured WARN lines that contain `needle` (tests use unique owner names).
pub fn warnings(needle: &str) -> Vec<String> {
    lines(needle, " WARN ")
}

/// Captured DEBUG lines that contain `needle`.
pub fn debugs(needle: &str) -> Vec<String> {
    lines(needle, " DEBUG ")
}

fn lines(needle: &str, level: &str) -> Vec<String> {
    let buffer = captured().lock().unwrap_or_else(|e| e.into_inner());
    String::from_utf8_lossy(&buffer)
        .lines()
        .filter(|line| line.contains(level) && line.contains(needle))
        .map(str::to_owned)
        .collect()
}

/// Polls `condition` until it holds or `limit` passes; returns whether it held.
pub fn eventually(limit: Duration, condition: impl Fn() -> bool) -> bool {
    let deadline = std::time::Instant::now() + limit;
    while std::time::Instant::now() < deadline {
        if condition() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    condition()
}
