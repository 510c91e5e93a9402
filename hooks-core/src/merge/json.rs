//! JSON helpers of the merge rules (replies themselves are read by
//! [`crate::replies`]).

use serde_json::Value;

/// The value when it is a non-empty string.
pub(crate) fn non_empty_str(value: Option<&Value>) -> Option<&str> {
    value
        .and_then(Value::as_str)
        .filter(|text| !text.is_empty())
}
