//! The one place YAML is parsed. Everything else sees `serde_json::Value`, so
//! the YAML parser can be swapped here alone.

use serde_json::Value;

/// A YAML document that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct YamlError {
    /// The parser's message, with line and column when known.
    pub message: String,
    /// 1-based line of the error, when known.
    pub line: Option<usize>,
}

/// Parses YAML text into a JSON value (an empty document is `null`).
///
/// Mapping keys that are not strings (numbers, booleans) are turned into their
/// YAML spelling, as a Python loader would give them to `str()`.
pub fn parse(text: &str) -> Result<Value, YamlError> {
    let yaml: serde_yaml::Value = serde_yaml::from_str(text).map_err(|error| YamlError {
        line: error.location().map(|location| location.line()),
        message: error.to_string(),
    })?;
    Ok(to_json(yaml))
}

fn to_json(yaml: serde_yaml::Value) -> Value {
    match yaml {
        serde_yaml::Value::Null => Value::Null,
        serde_yaml::Value::Bool(flag) => Value::Bool(flag),
        serde_yaml::Value::Number(number) => {
            if let Some(int) = number.as_i64() {
                Value::from(int)
            } else if let Some(uint) = number.as_u64() {
                Value::from(uint)
            } else {
                number
                    .as_f64()
                    .and_then(serde_json::Number::from_f64)
                    .map_or(Value::Null, Value::Number)
            }
        }
        serde_yaml::Value::String(text) => Value::String(text),
        serde_yaml::Value::Sequence(items) => {
            Value::Array(items.into_iter().map(to_json).collect())
        }
        serde_yaml::Value::Mapping(mapping) => Value::Object(
            mapping
                .into_iter()
                .map(|(key, value)| (key_text(key), to_json(value)))
                .collect(),
        ),
        serde_yaml::Value::Tagged(tagged) => to_json(tagged.value),
    }
}

fn key_text(key: serde_yaml::Value) -> String {
    match key {
        serde_yaml::Value::String(text) => text,
        serde_yaml::Value::Null => "null".to_owned(),
        other => serde_yaml::to_string(&other)
            .map(|text| text.trim_end().to_owned())
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn parses_nested_documents_in_order() {
        let value = parse("hooks:\n  pre_tool_call:\n    - command: a\n      timeout: 5\nx: 1.5\n");
        assert_eq!(
            value,
            Ok(json!({"hooks": {"pre_tool_call": [{"command": "a", "timeout": 5}]}, "x": 1.5}))
        );
    }

    #[test]
    fn empty_document_is_null() {
        assert_eq!(parse(""), Ok(Value::Null));
    }

    #[test]
    fn errors_carry_the_line() {
        let error = parse("a: [1,\nb: {").err();
        assert!(error.is_some_and(|e| e.line.is_some()));
    }
}
