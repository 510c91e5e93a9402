//! Captures `tracing` output of the current thread into a string.

use std::io::Write;
use std::sync::{Arc, Mutex};

#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().expect("lock")).into_owned()
    }
}

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("lock").extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Installs a subscriber for this thread (use a current-thread runtime) at
/// `debug` level for this crate; keep the guard alive while capturing.
pub fn capture() -> (Captured, tracing::subscriber::DefaultGuard) {
    capture_with("hermes_hooks_outbound=debug")
}

/// Like [`capture`], with an explicit filter (`"trace"`: every crate, every level).
pub fn capture_with(filter: &str) -> (Captured, tracing::subscriber::DefaultGuard) {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let guard = tracing::subscriber::set_default(subscriber);
    // Tests run in parallel, each thread with its own subscriber or none: a
    // callsite's cached interest may be one another thread's subscriber
    // gave it while this one was not yet set (the registration line went
    // missing once in a loaded CI run). Asked again with this one set.
    tracing::callsite::rebuild_interest_cache();
    (captured, guard)
}
