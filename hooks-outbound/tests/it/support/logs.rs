//! Captures `tracing` output into strings: every line any thread logs while a
//! capture is open, through one subscriber installed once as the global default.
//!
//! Not a subscriber per test thread (`set_default`): tracing caches whether a
//! callsite is wanted process-wide, and while a single scoped subscriber is
//! registered it asks the default of whichever thread reaches the callsite
//! first. A test thread without a subscriber that logged `outbound webhook
//! registered` first cached "never" for it, and the capturing test lost its
//! own line (in loaded CI runs). A scoped subscriber also misses what
//! other threads log. The global one wants every callsite "sometimes" and
//! asks the open captures per event, so no thread's order can hide a line.
//!
//! A capture also holds what tests running beside it log: look for leaks in
//! [`Captured::text`] (everything), for expected lines in
//! [`Captured::lines_with`] (the lines naming the test's own targets).

use std::io::Write;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Once, PoisonError};

use tracing::Metadata;
use tracing_subscriber::filter::{Targets, dynamic_filter_fn};
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::{Layer, SubscriberExt};

type Buffer = Arc<Mutex<Vec<u8>>>;

/// What one capture has seen so far (it stays readable after its guard is dropped).
#[derive(Clone, Default)]
pub struct Captured(Buffer);

impl Captured {
    /// Every line logged, by any thread, while the capture was open.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&lock(&self.0)).into_owned()
    }

    /// The lines of [`text`](Self::text) that contain one of `markers` (the
    /// labels of the test's own targets: what the test itself caused).
    pub fn lines_with<M: AsRef<str>>(&self, markers: &[M]) -> String {
        self.text()
            .lines()
            .filter(|line| markers.iter().any(|marker| line.contains(marker.as_ref())))
            .map(|line| format!("{line}\n"))
            .collect()
    }
}

/// Closes its capture when dropped.
pub struct Guard(u64);

impl Drop for Guard {
    fn drop(&mut self) {
        open().retain(|capture| capture.id != self.0);
    }
}

/// Captures `debug` and up of this crate, from every thread, until the guard is dropped.
pub fn capture() -> (Captured, Guard) {
    capture_with("hermes_hooks_outbound=debug")
}

/// Like [`capture`], with an explicit filter (`"trace"`: every crate, every level).
pub fn capture_with(filter: &str) -> (Captured, Guard) {
    install();
    static IDS: AtomicU64 = AtomicU64::new(0);
    let id = IDS.fetch_add(1, Ordering::Relaxed);
    let captured = Captured::default();
    open().push(Open {
        id,
        filter: Targets::from_str(filter).expect("a filter of targets and levels"),
        buffer: captured.0.clone(),
    });
    (captured, Guard(id))
}

/// An open capture.
struct Open {
    id: u64,
    filter: Targets,
    buffer: Buffer,
}

impl Open {
    fn wants(&self, metadata: &Metadata<'_>) -> bool {
        self.filter
            .would_enable(metadata.target(), metadata.level())
    }
}

static OPEN: Mutex<Vec<Open>> = Mutex::new(Vec::new());

/// The open captures (a test that panicked elsewhere poisons nothing here).
fn open() -> MutexGuard<'static, Vec<Open>> {
    OPEN.lock().unwrap_or_else(PoisonError::into_inner)
}

fn lock(buffer: &Buffer) -> MutexGuard<'_, Vec<u8>> {
    buffer.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The global subscriber, once per test binary: a `fmt` layer whose filter is
/// dynamic (every callsite "sometimes", decided per event by the open
/// captures) and whose writer hands each line to the captures that want it.
fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let layer = tracing_subscriber::fmt::layer()
            .with_ansi(false)
            .with_writer(Fanout)
            .with_filter(dynamic_filter_fn(|metadata, _| {
                open().iter().any(|capture| capture.wants(metadata))
            }));
        tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer))
            .expect("no other global subscriber in this test binary");
    });
}

/// Writes each formatted line to the open captures that want its event.
struct Fanout;

impl<'a> MakeWriter<'a> for Fanout {
    type Writer = Lines;

    fn make_writer(&'a self) -> Lines {
        Lines(Vec::new())
    }

    fn make_writer_for(&'a self, metadata: &Metadata<'_>) -> Lines {
        Lines(
            open()
                .iter()
                .filter(|capture| capture.wants(metadata))
                .map(|capture| capture.buffer.clone())
                .collect(),
        )
    }
}

/// One line's destinations (`fmt` writes a line at once).
struct Lines(Vec<Buffer>);

impl Write for Lines {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        for buffer in &self.0 {
            lock(buffer).extend_from_slice(bytes);
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
