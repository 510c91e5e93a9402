//! Events: a name and a keyword payload, cheap to clone and share across workers.

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::catalog::HookEvent;

/// The keyword arguments of an event, in the order the host gave them.
pub type Payload = Map<String, Value>;

/// The name of an event: a catalog event, a gateway event or any other name.
///
/// Unknown names are kept (forward compatibility): a plugin may register for an
/// event this build does not know yet. Exhaustive on purpose: every name is
/// exactly one of these three, and a new catalog event is a new [`HookEvent`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum EventName {
    /// A plugin/shell event of the catalog.
    Hook(HookEvent),
    /// A gateway event (`namespace:action`, e.g. `agent:start`, `command:reset`).
    Gateway(Box<str>),
    /// A name outside the catalog.
    Other(Box<str>),
}

impl EventName {
    /// Classifies `name`: catalog events first, then any name with a `:` as a gateway event.
    pub fn parse(name: &str) -> Self {
        match name.parse::<HookEvent>() {
            Ok(event) => EventName::Hook(event),
            Err(_) if name.contains(':') => EventName::Gateway(name.into()),
            Err(_) => EventName::Other(name.into()),
        }
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        match self {
            EventName::Hook(event) => event.as_str(),
            EventName::Gateway(name) | EventName::Other(name) => name,
        }
    }

    /// The catalog event, if this is one.
    pub fn hook(&self) -> Option<HookEvent> {
        match self {
            EventName::Hook(event) => Some(*event),
            _ => None,
        }
    }
}

impl From<HookEvent> for EventName {
    fn from(event: HookEvent) -> Self {
        EventName::Hook(event)
    }
}

impl From<&str> for EventName {
    fn from(name: &str) -> Self {
        EventName::parse(name)
    }
}

impl fmt::Display for EventName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One firing of an event: its name and payload.
///
/// Cloning is a reference-count increment, so the same event can be handed to
/// every callback and worker without copying the payload.
#[derive(Clone, PartialEq)]
pub struct Event {
    inner: Arc<EventInner>,
}

// Aligned to a cache-line pair: the `Arc`'s reference counts sit alone on
// their lines, so cloning an event for a callback worker (on the caller's
// thread) never evicts the name and payload the worker is reading.
#[derive(PartialEq)]
#[repr(align(128))]
struct EventInner {
    name: EventName,
    payload: Payload,
}

impl Event {
    /// An event with the given name and payload.
    pub fn new(name: impl Into<EventName>, payload: Payload) -> Self {
        Event {
            inner: Arc::new(EventInner {
                name: name.into(),
                payload,
            }),
        }
    }

    /// An event whose payload is a JSON object; any other JSON value gives an empty payload.
    pub fn from_json(name: impl Into<EventName>, payload: Value) -> Self {
        let payload = match payload {
            Value::Object(map) => map,
            _ => Payload::new(),
        };
        Event::new(name, payload)
    }

    /// The event name.
    pub fn name(&self) -> &EventName {
        &self.inner.name
    }

    /// The catalog event, if the name is one.
    pub fn hook(&self) -> Option<HookEvent> {
        self.inner.name.hook()
    }

    /// The keyword payload.
    pub fn payload(&self) -> &Payload {
        &self.inner.payload
    }

    /// One payload value.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.inner.payload.get(key)
    }

    /// The payload's `tool_name`, when it is a string.
    pub fn tool_name(&self) -> Option<&str> {
        self.get("tool_name").and_then(Value::as_str)
    }

    /// The identity of this call for per-call gating: the first non-empty
    /// `tool_call_id`, else `turn_id`.
    pub fn call_identity(&self) -> Option<&str> {
        ["tool_call_id", "turn_id"]
            .into_iter()
            .filter_map(|key| self.get(key).and_then(Value::as_str))
            .find(|id| !id.is_empty())
    }
}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Payloads may hold secrets (tool arguments, messages): show only the keys.
        f.debug_struct("Event")
            .field("name", &self.inner.name.as_str())
            .field("keys", &self.inner.payload.keys().collect::<Vec<_>>())
            .finish()
    }
}
