//! The error a callback reports, and the shape a panic is turned into.

use std::any::Any;
use std::borrow::Cow;

/// What a callback gives back: a reply value, nothing (`None`), or a failure.
///
/// A `Some(Value::Null)` counts as no reply, like a Python callback returning `None`.
pub type CallbackResult = Result<Option<serde_json::Value>, CallbackError>;

/// A callback's failure: a kind (the exception type, `panic`, ...) and a message.
///
/// Failures never reach the host. They are logged warn-once and, on a
/// fail-closed event (`pre_tool_call`), become a block naming the callback.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind}: {message}")]
pub struct CallbackError {
    kind: Cow<'static, str>,
    message: String,
}

impl CallbackError {
    /// A failure of the given kind, e.g. `CallbackError::new("RuntimeError", "db down")`.
    pub fn new(kind: impl Into<Cow<'static, str>>, message: impl Into<String>) -> Self {
        CallbackError {
            kind: kind.into(),
            message: message.into(),
        }
    }

    /// A failure of the generic kind `Error`.
    pub fn msg(message: impl Into<String>) -> Self {
        CallbackError::new("Error", message)
    }

    /// The kind of failure.
    pub fn kind(&self) -> &str {
        &self.kind
    }

    /// The failure message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The failure a caught panic stands for (kind `panic`, the panic message).
    pub(crate) fn from_panic(payload: &(dyn Any + Send)) -> Self {
        let message = payload
            .downcast_ref::<&str>()
            .map(|text| (*text).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic with a non-text payload".to_owned());
        CallbackError::new("panic", message)
    }
}

impl From<String> for CallbackError {
    fn from(message: String) -> Self {
        CallbackError::msg(message)
    }
}

impl From<&str> for CallbackError {
    fn from(message: &str) -> Self {
        CallbackError::msg(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panic_payloads_become_messages() {
        let text: Box<dyn Any + Send> = Box::new("boom");
        assert_eq!(CallbackError::from_panic(text.as_ref()).message(), "boom");
        let owned: Box<dyn Any + Send> = Box::new(String::from("owned boom"));
        assert_eq!(CallbackError::from_panic(owned.as_ref()).kind(), "panic");
        let other: Box<dyn Any + Send> = Box::new(7_u8);
        assert!(
            CallbackError::from_panic(other.as_ref())
                .message()
                .contains("non-text")
        );
    }

    #[test]
    fn display_shows_kind_and_message() {
        assert_eq!(
            CallbackError::new("RuntimeError", "x").to_string(),
            "RuntimeError: x"
        );
        assert_eq!(CallbackError::from("y").kind(), "Error");
    }
}
