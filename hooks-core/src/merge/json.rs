//! Python-flavoured views of JSON values: the reference decides with `bool(x)`
//! and `str(x)`, so the merge rules need the same notions.

use serde_json::Value;

pub(crate) use crate::pyvalue::{is_truthy, text_of};

/// The value when it is a non-empty string.
pub(crate) fn non_empty_str(value: Option<&Value>) -> Option<&str> {
    value
        .and_then(Value::as_str)
        .filter(|text| !text.is_empty())
}
