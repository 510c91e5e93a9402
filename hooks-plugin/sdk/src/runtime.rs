//! A plugin's registrations once `register` ran, and the panic-safe calls
//! into them that both the C exports and [`TestPlugin`](crate::TestPlugin) use.

use std::any::Any;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};

use serde_json::Value;

use crate::context::{PluginContext, SectionSpec, SessionInfo};

/// The status of a successful call.
pub(crate) const STATUS_OK: i32 = 0;
/// The status of a hook that returned an error.
pub(crate) const STATUS_FAILED: i32 = 1;
/// The status of a hook that panicked.
pub(crate) const STATUS_PANICKED: i32 = 2;

/// What `register` left behind.
pub(crate) struct Registered {
    pub context: PluginContext,
}

/// The signature a plugin's `register` has after the macro adapted it.
pub type RegisterFn = fn(&mut PluginContext) -> Result<(), String>;

/// Adapts what a plugin's `register` returns: `()` or `Result<(), E: Display>`.
pub trait RegisterOutcome {
    /// `Err` with the message when registration failed.
    fn into_register_result(self) -> Result<(), String>;
}

impl RegisterOutcome for () {
    fn into_register_result(self) -> Result<(), String> {
        Ok(())
    }
}

impl<E: fmt::Display> RegisterOutcome for Result<(), E> {
    fn into_register_result(self) -> Result<(), String> {
        self.map_err(|error| error.to_string())
    }
}

/// Runs `register`; a panic or an error becomes the message the host refuses the plugin with.
pub(crate) fn run_register(
    register: impl FnOnce(&mut PluginContext) -> Result<(), String>,
) -> (Registered, Option<String>) {
    let mut context = PluginContext::new();
    let outcome = catch_unwind(AssertUnwindSafe(|| register(&mut context)));
    let error = match outcome {
        Ok(Ok(())) => None,
        Ok(Err(message)) => Some(format!("register failed: {message}")),
        Err(panic) => Some(format!("register panicked: {}", panic_message(panic))),
    };
    (Registered { context }, error)
}

impl Registered {
    /// The registered event names, in order.
    pub fn hook_names(&self) -> impl Iterator<Item = &str> {
        self.context.hooks.iter().map(|(name, _)| name.as_str())
    }

    /// The declared sections, in order.
    pub fn section_specs(&self) -> impl Iterator<Item = &SectionSpec> {
        self.context.sections.iter().map(|(spec, _)| spec)
    }

    /// Runs the hook of `event` on `payload` (JSON bytes). Never unwinds: a
    /// panic is caught and reported with [`STATUS_PANICKED`].
    pub fn call(&self, event: &[u8], payload: &[u8]) -> (i32, Vec<u8>) {
        guarded(|| {
            let Some((_, handler)) = self
                .context
                .hooks
                .iter()
                .find(|(name, _)| name.as_bytes() == event)
            else {
                let event = String::from_utf8_lossy(event);
                return Err(format!("no hook is registered for '{event}'"));
            };
            handler(payload).map(|reply| match reply {
                Some(reply) => serde_json::to_vec(&reply).unwrap_or_default(),
                None => Vec::new(),
            })
        })
    }

    /// Computes the text of section `id` for the session described by
    /// `session_info` (a JSON object); the reply is a JSON string.
    pub fn render_section(&self, id: &[u8], session_info: &[u8]) -> (i32, Vec<u8>) {
        guarded(|| {
            let Some((_, render)) = self
                .context
                .sections
                .iter()
                .find(|(spec, _)| spec.id.as_bytes() == id)
            else {
                let id = String::from_utf8_lossy(id);
                return Err(format!("no system prompt section '{id}'"));
            };
            let info: SessionInfo = serde_json::from_slice(session_info)
                .map_err(|error| format!("the session info does not decode: {error}"))?;
            let text = render(&info)?;
            Ok(serde_json::to_vec(&Value::String(text)).unwrap_or_default())
        })
    }
}

/// Runs `body`, turning `Err` and panics into a status and a message.
fn guarded(body: impl FnOnce() -> Result<Vec<u8>, String>) -> (i32, Vec<u8>) {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(reply)) => (STATUS_OK, reply),
        Ok(Err(message)) => (STATUS_FAILED, message.into_bytes()),
        Err(panic) => (
            STATUS_PANICKED,
            format!("panicked: {}", panic_message(panic)).into_bytes(),
        ),
    }
}

/// The text of a panic payload. Dropping the payload could itself panic
/// (a payload type with a panicking `Drop`): that second panic is caught too
/// and the payload leaked, so nothing ever unwinds past the boundary.
fn panic_message(panic: Box<dyn Any + Send>) -> String {
    let message = panic
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with a non-text payload".to_owned());
    if let Err(second) = catch_unwind(AssertUnwindSafe(move || drop(panic))) {
        std::mem::forget(second);
    }
    message
}
