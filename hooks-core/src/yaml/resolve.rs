//! Scalars resolved as PyYAML's `safe_load` resolves them (YAML 1.1): which
//! plain spellings are booleans, nulls, integers and floats, and what an
//! explicit core tag (`!!int`, `!!float`, ...) makes of its text.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Number, Value};

/// PyYAML's implicit resolvers, in the order it tries them. Only plain
/// (unquoted, untagged) scalars are resolved; everything else is a string.
static BOOL: LazyLock<Regex> = LazyLock::new(|| {
    regex(r"^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$")
});
static FLOAT: LazyLock<Regex> = LazyLock::new(|| {
    regex(concat!(
        r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?",
        r"|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?",
        r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*",
        r"|[-+]?\.(?:inf|Inf|INF)",
        r"|\.(?:nan|NaN|NAN))$"
    ))
});
static INT: LazyLock<Regex> = LazyLock::new(|| {
    regex(concat!(
        r"^(?:[-+]?0b[0-1_]+",
        r"|[-+]?0[0-7_]+",
        r"|[-+]?(?:0|[1-9][0-9_]*)",
        r"|[-+]?0x[0-9a-fA-F_]+",
        r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$"
    ))
});
static NULL: LazyLock<Regex> = LazyLock::new(|| regex(r"^(?:~|null|Null|NULL|)$"));
static TIMESTAMP: LazyLock<Regex> = LazyLock::new(|| {
    regex(concat!(
        r"^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]",
        r"|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?",
        r"(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?",
        r"(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$"
    ))
});

/// The tag PyYAML's implicit resolvers give a plain scalar, tried in its
/// order: bool, float, int, merge (`<<`), null, timestamp, value (`=`), else str.
pub(super) fn implicit_tag(text: &str) -> &'static str {
    if BOOL.is_match(text) {
        "tag:yaml.org,2002:bool"
    } else if FLOAT.is_match(text) {
        "tag:yaml.org,2002:float"
    } else if INT.is_match(text) {
        "tag:yaml.org,2002:int"
    } else if text == "<<" {
        "tag:yaml.org,2002:merge"
    } else if NULL.is_match(text) {
        "tag:yaml.org,2002:null"
    } else if TIMESTAMP.is_match(text) {
        "tag:yaml.org,2002:timestamp"
    } else if text == "=" {
        "tag:yaml.org,2002:value"
    } else {
        "tag:yaml.org,2002:str"
    }
}

/// Python's `str()` of the float a `!!float` key holds when JSON cannot hold
/// it (`inf`, `-inf`, `nan`), so such keys are spelled as Python spells them.
pub(super) fn nonfinite_key(text: &str) -> Option<&'static str> {
    let cleaned: String = text
        .chars()
        .filter(|c| *c != '_')
        .collect::<String>()
        .to_ascii_lowercase();
    let (negative, body) = split_sign(&cleaned);
    let value = match body {
        ".inf" => f64::INFINITY,
        ".nan" => return Some("nan"),
        _ => body.parse::<f64>().ok()?,
    };
    match (value.is_infinite(), negative) {
        (true, false) => Some("inf"),
        (true, true) => Some("-inf"),
        _ => None,
    }
}

fn regex(pattern: &str) -> Regex {
    // The patterns are constants checked by the tests; a typo is a bug caught there.
    Regex::new(pattern).unwrap_or_else(|error| unreachable!("bad resolver pattern: {error}"))
}

/// The value of a scalar with the core tag `suffix` (`!!int` → `int`).
///
/// Text the tag's constructor would refuse stays a string, so the reader of
/// that key rejects it with a warning instead of the whole file failing.
pub(super) fn tagged(suffix: &str, text: &str) -> Value {
    match suffix {
        "bool" => match text.to_ascii_lowercase().as_str() {
            "yes" | "true" | "on" => Value::Bool(true),
            "no" | "false" | "off" => Value::Bool(false),
            _ => Value::String(text.to_owned()),
        },
        "null" => Value::Null,
        "int" => int(text),
        "float" => float(text),
        _ => Value::String(text.to_owned()),
    }
}

/// PyYAML's `construct_yaml_int`: `_` ignored, `0b`, `0x`, leading-`0` octal
/// and base-60 `a:b:c`. Past 64 bits Python keeps the exact integer; JSON
/// cannot, so it becomes the nearest float (readers range-check it).
pub(super) fn int(text: &str) -> Value {
    let cleaned: String = text.chars().filter(|c| *c != '_').collect();
    let (negative, digits) = split_sign(&cleaned);
    if let Some(exact) = exact_int(negative, digits) {
        return exact;
    }
    let magnitude = if digits == "0" {
        Some(0.0)
    } else if let Some(bits) = digits.strip_prefix("0b") {
        radix(bits, 2)
    } else if let Some(hex) = digits.strip_prefix("0x") {
        radix(hex, 16)
    } else if digits.contains(':') {
        sexagesimal(digits)
    } else if let Some(octal) = digits.strip_prefix('0') {
        radix(octal, 8)
    } else {
        // Decimal text parses to the correctly rounded double.
        digits.parse::<f64>().ok()
    };
    magnitude
        .map(|m| if negative { -m } else { m })
        .and_then(Number::from_f64)
        .map_or_else(|| Value::String(text.to_owned()), Value::Number)
}

/// The integer as an exact JSON number when it fits in 64 bits.
fn exact_int(negative: bool, digits: &str) -> Option<Value> {
    let (body, base) = if digits == "0" {
        ("0", 10)
    } else if let Some(bits) = digits.strip_prefix("0b") {
        (bits, 2)
    } else if let Some(hex) = digits.strip_prefix("0x") {
        (hex, 16)
    } else if digits.contains(':') {
        let magnitude = digits.split(':').try_fold(0_u128, |acc, part| {
            acc.checked_mul(60)?.checked_add(part.parse::<u128>().ok()?)
        })?;
        return signed(negative, magnitude);
    } else if let Some(octal) = digits.strip_prefix('0') {
        (octal, 8)
    } else {
        (digits, 10)
    };
    signed(negative, u128::from_str_radix(body, base).ok()?)
}

fn signed(negative: bool, magnitude: u128) -> Option<Value> {
    if negative {
        let value = i128::try_from(magnitude).ok()?.checked_neg()?;
        i64::try_from(value).ok().map(Value::from)
    } else {
        u64::try_from(magnitude).ok().map(Value::from)
    }
}

fn radix(digits: &str, base: u32) -> Option<f64> {
    if digits.is_empty() {
        return None;
    }
    digits.chars().try_fold(0.0_f64, |acc, c| {
        c.to_digit(base)
            .map(|d| acc * f64::from(base) + f64::from(d))
    })
}

fn sexagesimal(digits: &str) -> Option<f64> {
    digits.split(':').try_fold(0.0_f64, |acc, part| {
        part.parse::<f64>().ok().map(|part| acc * 60.0 + part)
    })
}

fn split_sign(text: &str) -> (bool, &str) {
    match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    }
}

/// PyYAML's `construct_yaml_float`. A value JSON cannot hold (infinity, NaN,
/// an exponent past the double range) stays its text, which every numeric
/// reader rejects by key, and which is truthy, as `inf` and `nan` are in Python.
pub(super) fn float(text: &str) -> Value {
    let cleaned: String = text
        .chars()
        .filter(|c| *c != '_')
        .collect::<String>()
        .to_ascii_lowercase();
    let (negative, body) = split_sign(&cleaned);
    let magnitude = if body.contains(':') {
        sexagesimal(body)
    } else if body == ".inf" || body == ".nan" {
        None
    } else {
        body.parse::<f64>().ok()
    };
    magnitude
        .map(|m| if negative { -m } else { m })
        .and_then(Number::from_f64)
        .map_or_else(|| Value::String(text.to_owned()), Value::Number)
}

/// A resolved key as Python's `str()` would spell the dict key.
pub(super) fn key_text(value: Value) -> String {
    match value {
        Value::String(text) => text,
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Number(number) => match number.as_f64() {
            Some(float) if number.is_f64() && float.fract() == 0.0 && float.abs() < 1e16 => {
                format!("{float:.1}")
            }
            _ => number.to_string(),
        },
        other => other.to_string(),
    }
}
