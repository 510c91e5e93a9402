//! Python-flavoured views of JSON values: the reference decides with `bool(x)`
//! and `str(x)`, so the merge rules need the same notions.

use serde_json::Value;

/// Python truthiness: `null`, `false`, `0`, `""`, `[]` and `{}` are false.
pub(crate) fn is_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::Number(number) => number.as_f64().is_some_and(|n| n != 0.0),
        Value::String(text) => !text.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(map) => !map.is_empty(),
    }
}

/// The value as text: strings verbatim, anything else as compact JSON.
pub(crate) fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// The value when it is a non-empty string.
pub(crate) fn non_empty_str(value: Option<&Value>) -> Option<&str> {
    value
        .and_then(Value::as_str)
        .filter(|text| !text.is_empty())
}

/// The first truthy value among `values`, like Python's `a or b`.
pub(crate) fn first_truthy<'a>(
    values: impl IntoIterator<Item = Option<&'a Value>>,
) -> Option<&'a Value> {
    values.into_iter().flatten().find(|value| is_truthy(value))
}
