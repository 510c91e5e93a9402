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

/// PyYAML's `construct_yaml_int`: `_` dropped, one sign, then `0b`, `0x`,
/// leading-`0` octal, base-60 `a:b:c` or decimal, each part read by Python's
/// `int()` (which allows surrounding whitespace, its own sign and a matching
/// `0o`/`0x`/`0b` prefix: `!!int '- 7'` is -7). Past 64 bits Python keeps the
/// exact integer; JSON cannot, so it becomes the nearest float (readers
/// range-check it). Text `int()` refuses stays a string.
pub(super) fn int(text: &str) -> Value {
    let cleaned: String = text.chars().filter(|c| *c != '_').collect();
    let (negative, rest) = split_sign(&cleaned);
    let value = if cleaned.is_empty() {
        None
    } else if rest.starts_with('0') || rest.contains(':') {
        int_whole(rest)
    } else {
        python_int(rest, 10)
    };
    match value.map(|whole| if negative { whole.negated() } else { whole }) {
        Some(Whole::Exact(exact)) => i64::try_from(exact)
            .map(Value::from)
            .or_else(|_| u64::try_from(exact).map(Value::from))
            .unwrap_or_else(|_| float_value(exact as f64, text)),
        Some(Whole::Approx(approx)) => float_value(approx, text),
        None => Value::String(text.to_owned()),
    }
}

/// Python's `str()` of an integer key past 64 bits, exact (JSON's float
/// would print `1e+20` where Python prints every digit). `None` when the
/// value fits 64 bits (the usual path spells it) or is not an integer.
pub(super) fn int_key(text: &str) -> Option<String> {
    if let Value::Number(number) = int(text)
        && (number.is_i64() || number.is_u64())
    {
        return None;
    }
    let cleaned: String = text.chars().filter(|c| *c != '_').collect();
    let (negative, rest) = split_sign(&cleaned);
    let exact = if rest.contains(':') || rest.starts_with('0') {
        match int_whole(rest)? {
            Whole::Exact(exact) => exact.to_string(),
            Whole::Approx(_) => return None,
        }
    } else {
        // Plain decimal: Python's int() of the digits, spelled back.
        let digits = python_strip(rest);
        let (inner_negative, digits) = split_sign(digits);
        if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let digits = digits.trim_start_matches('0');
        let digits = if digits.is_empty() { "0" } else { digits };
        if inner_negative {
            format!("-{digits}")
        } else {
            digits.to_owned()
        }
    };
    Some(match (negative, exact.strip_prefix('-')) {
        (true, Some(positive)) => positive.to_owned(),
        (true, None) if exact != "0" => format!("-{exact}"),
        _ => exact,
    })
}

/// The magnitude of a non-decimal or base-60 integer body (sign removed).
fn int_whole(rest: &str) -> Option<Whole> {
    if rest == "0" {
        Some(Whole::Exact(0))
    } else if let Some(bits) = rest.strip_prefix("0b") {
        python_int(bits, 2)
    } else if let Some(hex) = rest.strip_prefix("0x") {
        python_int(hex, 16)
    } else if rest.starts_with('0') {
        python_int(rest, 8)
    } else {
        rest.split(':').try_fold(Whole::Exact(0), |acc, part| {
            Some(acc.times(60).plus(python_int(part, 10)?))
        })
    }
}

/// An integer Python holds exactly: exact while it fits, else approximate.
#[derive(Clone, Copy)]
enum Whole {
    Exact(i128),
    Approx(f64),
}

impl Whole {
    fn as_f64(self) -> f64 {
        match self {
            Whole::Exact(exact) => exact as f64,
            Whole::Approx(approx) => approx,
        }
    }

    fn times(self, factor: i128) -> Whole {
        match self {
            Whole::Exact(exact) => exact
                .checked_mul(factor)
                .map_or(Whole::Approx(exact as f64 * factor as f64), Whole::Exact),
            Whole::Approx(approx) => Whole::Approx(approx * factor as f64),
        }
    }

    fn plus(self, other: Whole) -> Whole {
        match (self, other) {
            (Whole::Exact(a), Whole::Exact(b)) => a
                .checked_add(b)
                .map_or(Whole::Approx(a as f64 + b as f64), Whole::Exact),
            (a, b) => Whole::Approx(a.as_f64() + b.as_f64()),
        }
    }

    fn negated(self) -> Whole {
        match self {
            Whole::Exact(exact) => Whole::Exact(-exact),
            Whole::Approx(approx) => Whole::Approx(-approx),
        }
    }
}

/// Python's `str.strip()`: whitespace as `str.isspace` sees it.
fn python_strip(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// Python's `int(text, base)` (underscores already gone).
fn python_int(text: &str, base: u32) -> Option<Whole> {
    let (negative, digits) = split_sign(python_strip(text));
    let prefix = match base {
        2 => Some("0b"),
        8 => Some("0o"),
        16 => Some("0x"),
        _ => None,
    };
    let digits = prefix
        .and_then(|prefix| {
            digits
                .get(..2)
                .filter(|head| head.eq_ignore_ascii_case(prefix))
                .map(|_| &digits[2..])
        })
        .unwrap_or(digits);
    if digits.is_empty() {
        return None;
    }
    let mut whole = Whole::Exact(0);
    for c in digits.chars() {
        let digit = c.to_digit(base)?;
        whole = whole
            .times(i128::from(base))
            .plus(Whole::Exact(i128::from(digit)));
    }
    Some(if negative { whole.negated() } else { whole })
}

fn float_value(float: f64, text: &str) -> Value {
    Number::from_f64(float).map_or_else(|| Value::String(text.to_owned()), Value::Number)
}

fn split_sign(text: &str) -> (bool, &str) {
    match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    }
}

/// Python's `float(text)` (underscores already gone): surrounding
/// whitespace, a sign, `inf`/`infinity`/`nan` in any case.
fn python_float(text: &str) -> Option<f64> {
    python_strip(text).parse::<f64>().ok()
}

/// PyYAML's `construct_yaml_float`: `_` dropped, lowercased, one sign, then
/// `.inf`, `.nan`, base-60 or Python's `float()`. A value JSON cannot hold
/// (infinity, NaN, an exponent past the double range) stays its text, which
/// every numeric reader rejects by key, and which is truthy, as `inf` and
/// `nan` are in Python.
pub(super) fn float(text: &str) -> Value {
    let cleaned: String = text
        .chars()
        .filter(|c| *c != '_')
        .collect::<String>()
        .to_lowercase();
    let (negative, body) = split_sign(&cleaned);
    let magnitude = if cleaned.is_empty() || body == ".inf" || body == ".nan" {
        None
    } else if body.contains(':') {
        body.split(':')
            .try_fold(0.0_f64, |acc, part| Some(acc * 60.0 + python_float(part)?))
    } else {
        python_float(body)
    };
    magnitude
        .map(|m| if negative { -m } else { m })
        .map_or_else(|| Value::String(text.to_owned()), |m| float_value(m, text))
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
