//! Python-compatible readings of JSON values. The reference decides with
//! `bool(x)`, `str(x)` and `int(x)` and quotes `type(x).__name__` and `repr(x)` in
//! its warnings; every mechanism that mirrors it reads values through here.

use serde_json::Value;

/// Python's `type(value).__name__` for the value as a YAML loader would give it.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(number) if number.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// A `repr()`-like rendering for warnings: strings quoted, `None`, `True`/`False`.
pub fn repr(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::String(text) => repr_str(text),
        other => other.to_string(),
    }
}

/// Strips what Python's `str.strip()` strips: Rust's Unicode whitespace plus
/// the separators U+001C..U+001F, which Python also treats as whitespace.
pub fn strip(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// Quotes `text` the way Python's `repr` quotes a plain string, so error
/// messages read exactly like the reference's `{value!r}`.
pub fn repr_str(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python truthiness of a JSON value.
pub fn is_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::Number(number) => number.as_f64().is_some_and(|n| n != 0.0),
        Value::String(text) => !text.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(map) => !map.is_empty(),
    }
}

/// Python's `str(value)` of the value `json.loads` gives: strings verbatim,
/// `None`, `True`/`False`, numbers as Python writes them, lists and dicts as
/// their `repr` (`['x', 1]`, `{'k': None}`): the reference renders a hook's
/// non-string context or reason with `str()`.
pub fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => {
            let mut out = String::new();
            write_repr(other, &mut out);
            out
        }
    }
}

/// Python's `repr()` of a `json.loads` value, appended to `out`.
fn write_repr(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(number) => match (number.as_i64(), number.as_u64(), number.as_f64()) {
            (Some(int), _, _) => out.push_str(&int.to_string()),
            (None, Some(uint), _) => out.push_str(&uint.to_string()),
            (None, None, Some(float)) => out.push_str(&float_repr(float)),
            _ => out.push_str(&number.to_string()),
        },
        Value::String(text) => out.push_str(&repr_str(text)),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                write_repr(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (index, (key, item)) in map.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                out.push_str(&repr_str(key));
                out.push_str(": ");
                write_repr(item, out);
            }
            out.push('}');
        }
    }
}

/// Python's `repr(float)`: the shortest digits that round-trip, positional
/// for exponents -4..16 (with `.0` when integral), else `1.5e+300` / `1e-05`.
fn float_repr(value: f64) -> String {
    if value.is_nan() {
        return "nan".to_owned();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    // `{:e}` writes the shortest round-trip digits: "-1.25e-7", "1e300".
    let scientific = format!("{value:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if (-4..16).contains(&exponent) {
        let positional = value.to_string();
        return if positional.contains('.') {
            positional
        } else {
            format!("{positional}.0")
        };
    }
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.unsigned_abs())
}

/// Python's `int(value)`: integers as is, floats truncated, `True` → 1, and
/// strings of an optionally signed decimal integer (surrounding whitespace and
/// single underscores between digits allowed). `None` when `int()` would raise.
pub fn python_int(value: &Value) -> Option<i128> {
    match value {
        Value::Bool(flag) => Some(i128::from(*flag)),
        Value::Number(number) => {
            if let Some(int) = number.as_i64() {
                Some(i128::from(int))
            } else if let Some(uint) = number.as_u64() {
                Some(i128::from(uint))
            } else {
                // `as` saturates for out-of-range floats; non-finite ones raise in Python.
                number
                    .as_f64()
                    .filter(|float| float.is_finite())
                    .map(|float| float.trunc() as i128)
            }
        }
        Value::String(text) => parse_python_int_text(text),
        _ => None,
    }
}

fn parse_python_int_text(text: &str) -> Option<i128> {
    let trimmed = text.trim();
    let (negative, digits) = match trimmed.as_bytes().first()? {
        b'-' => (true, &trimmed[1..]),
        b'+' => (false, &trimmed[1..]),
        _ => (false, trimmed),
    };
    let valid_underscores =
        !digits.starts_with('_') && !digits.ends_with('_') && !digits.contains("__");
    if digits.is_empty() || !valid_underscores {
        return None;
    }
    let cleaned: String = digits.chars().filter(|c| *c != '_').collect();
    if !cleaned.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    // Longer than i128 can hold: saturate, the caller clamps anyway.
    let magnitude = cleaned.parse::<i128>().unwrap_or(i128::MAX);
    Some(if negative { -magnitude } else { magnitude })
}

#[cfg(test)]
mod tests {
    #[test]
    fn text_of_is_pythons_str() {
        use super::text_of;
        use serde_json::json;
        let cases = [
            (json!("x"), "x"),
            (json!(["x"]), "['x']"),
            (
                json!([1, 2.5, true, null, "it's"]),
                "[1, 2.5, True, None, \"it's\"]",
            ),
            (
                json!({"k": [1.0], "n": {"a": false}}),
                "{'k': [1.0], 'n': {'a': False}}",
            ),
            (json!(1e300), "1e+300"),
            (json!(1.5e-7), "1.5e-07"),
            (json!(0.0001), "0.0001"),
            (json!(123456789012345680.0), "1.2345678901234568e+17"),
            (json!(-3.0), "-3.0"),
            (json!(18446744073709551615_u64), "18446744073709551615"),
        ];
        for (value, python) in cases {
            assert_eq!(text_of(&value), python, "{value}");
        }
    }

    use serde_json::json;

    use super::*;

    #[test]
    fn python_int_matches_cpython() {
        assert_eq!(python_int(&json!(30)), Some(30));
        assert_eq!(python_int(&json!(30.9)), Some(30));
        assert_eq!(python_int(&json!(-0.5)), Some(0));
        assert_eq!(python_int(&json!(true)), Some(1));
        assert_eq!(python_int(&json!(false)), Some(0));
        assert_eq!(python_int(&json!(" 42 ")), Some(42));
        assert_eq!(python_int(&json!("+7")), Some(7));
        assert_eq!(python_int(&json!("1_000")), Some(1000));
        assert_eq!(python_int(&json!("1__0")), None);
        assert_eq!(python_int(&json!("30.5")), None);
        assert_eq!(python_int(&json!("thirty")), None);
        assert_eq!(python_int(&json!("")), None);
        assert_eq!(python_int(&json!(null)), None);
        assert_eq!(python_int(&json!([1])), None);
    }

    #[test]
    fn strip_matches_python_whitespace() {
        assert_eq!(strip("\u{1c}\u{1f} x \u{3000}\u{85}\u{a0}"), "x");
        // Python keeps zero-width space and BOM: they are not whitespace there.
        assert_eq!(strip("\u{200b}x\u{feff}"), "\u{200b}x\u{feff}");
    }

    #[test]
    fn repr_quotes_like_python() {
        assert_eq!(repr_str("plain"), "'plain'");
        assert_eq!(repr_str("it's"), "\"it's\"");
        assert_eq!(repr_str("both ' and \""), "'both \\' and \"'");
        assert_eq!(repr_str("a\nb\\"), "'a\\nb\\\\'");
    }

    #[test]
    fn repr_and_type_names() {
        assert_eq!(repr(&json!("x")), "'x'");
        assert_eq!(repr(&json!(null)), "None");
        assert_eq!(repr(&json!(true)), "True");
        assert_eq!(type_name(&json!({})), "dict");
        assert_eq!(type_name(&json!(1.5)), "float");
        assert_eq!(type_name(&json!("s")), "str");
    }
}
