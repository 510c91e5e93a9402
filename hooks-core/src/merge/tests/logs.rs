//! A minimal tracing subscriber that records events, to check warning texts.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use tracing::field::{Field, Visit};
use tracing::{Level, Metadata, Subscriber, span};

/// The level and message of every event seen while installed.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<(Level, String)>>>);

struct MessageOf<'a>(&'a mut String);

impl Visit for MessageOf<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "message" {
            *self.0 = format!("{value:?}");
        }
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &span::Attributes<'_>) -> span::Id {
        span::Id::from_u64(1)
    }
    fn record(&self, _: &span::Id, _: &span::Record<'_>) {}
    fn record_follows_from(&self, _: &span::Id, _: &span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut message = String::new();
        event.record(&mut MessageOf(&mut message));
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((*event.metadata().level(), message));
    }
    fn enter(&self, _: &span::Id) {}
    fn exit(&self, _: &span::Id) {}
}

/// Runs `body` with a recording subscriber; returns its result and the
/// warnings logged on this thread meanwhile.
pub(super) fn warnings_of<T>(body: impl FnOnce() -> T) -> (T, Vec<String>) {
    let recorder = Recorder::default();
    let result = tracing::subscriber::with_default(recorder.clone(), body);
    let events = recorder.0.lock().unwrap_or_else(PoisonError::into_inner);
    let warnings = events
        .iter()
        .filter(|(level, _)| *level == Level::WARN)
        .map(|(_, message)| message.clone())
        .collect();
    (result, warnings)
}
