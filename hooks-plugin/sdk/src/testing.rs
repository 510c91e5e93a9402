//! [`TestPlugin`]: a plugin's `register` run in-process, without a host or a
//! library, so plugin authors can unit-test their hooks.

use serde_json::Value;

use crate::PluginContext;
use crate::context::{SectionSpec, SessionInfo};
use crate::runtime::{RegisterOutcome, Registered, STATUS_OK, run_register};

/// A plugin registered in this process, called as the host would call it
/// (JSON in, JSON out, panics caught).
pub struct TestPlugin {
    registered: Registered,
}

impl TestPlugin {
    /// Runs `register`; `Err` with the message the host would refuse the plugin with.
    pub fn new<R: RegisterOutcome>(register: fn(&mut PluginContext) -> R) -> Result<Self, String> {
        let (registered, error) = run_register(|ctx| register(ctx).into_register_result());
        match error {
            None => Ok(TestPlugin { registered }),
            Some(message) => Err(message),
        }
    }

    /// The registered events, in order.
    pub fn hooks(&self) -> Vec<&str> {
        self.registered.hook_names().collect()
    }

    /// The declared system-prompt sections, in order.
    pub fn prompt_sections(&self) -> Vec<&SectionSpec> {
        self.registered.section_specs().collect()
    }

    /// Calls the hook of `event` with `payload`: `Ok(None)` for no reply,
    /// `Err` with the message the host would report as the callback's failure.
    pub fn call(&self, event: &str, payload: Value) -> Result<Option<Value>, String> {
        let payload = serde_json::to_vec(&payload).map_err(|error| error.to_string())?;
        let (status, bytes) = self.registered.call(event.as_bytes(), &payload);
        decode(status, &bytes)
    }

    /// Computes the text of section `id` for `info`.
    pub fn render_section(&self, id: &str, info: &SessionInfo) -> Result<String, String> {
        let info = serde_json::to_vec(info).map_err(|error| error.to_string())?;
        let (status, bytes) = self.registered.render_section(id.as_bytes(), &info);
        match decode(status, &bytes)? {
            Some(Value::String(text)) => Ok(text),
            other => Err(format!("section '{id}' rendered {other:?}, not a string")),
        }
    }
}

fn decode(status: i32, bytes: &[u8]) -> Result<Option<Value>, String> {
    if status != STATUS_OK {
        return Err(String::from_utf8_lossy(bytes).into_owned());
    }
    if bytes.is_empty() {
        return Ok(None);
    }
    serde_json::from_slice(bytes).map_err(|error| error.to_string())
}
