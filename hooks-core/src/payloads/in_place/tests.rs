//! Tests of the in-place decoder: for every payload struct, decoding into a
//! struct left over from another payload gives what a fresh decode gives.

use serde_json::{Map, Value, json};

use crate::payloads::{HookPayload, PreToolCall};

/// A value of the schema type `ty` (without `?`), `variant` picking one of a few shapes.
fn sample(ty: &str, variant: usize) -> Value {
    match (ty.trim_end_matches('?'), variant % 3) {
        ("string", 0) => json!("a longer string value, with an escape \" inside"),
        ("string", 1) => json!("short"),
        ("string", _) => json!(""),
        ("integer", v) => json!(7 - v as i64 * 5),
        ("number", v) => json!(1.5 + v as f64),
        ("boolean", v) => json!(v == 0),
        ("object", 0) => json!({"command": "ls -la", "nested": {"a": [1, 2.5]}, "n": 1e300}),
        ("object", 1) => json!({"command": "rm", "extra": true}),
        ("object", _) => json!({"nested": {"a": "now a string"}, "command": "x"}),
        ("array", 0) => json!([1, "two", {"three": 3.25}, -0.5]),
        ("array", 1) => json!([{"three": "x", "four": 4}]),
        ("array", _) => json!([]),
        (_, 0) => json!({"k": "v"}),
        (_, 1) => json!(["k"]),
        (_, _) => json!("k"),
    }
}

/// Decodes `json` into `place` in place, as the SDK does.
fn in_place<P: HookPayload>(json: &str, place: &mut P) -> Result<(), String> {
    let mut deserializer = serde_json::Deserializer::from_str(json);
    P::decode_in_place(&mut deserializer, place).map_err(|error| error.to_string())?;
    deserializer.end().map_err(|error| error.to_string())
}

/// Every payload: in-place decodes of a sequence of different payloads
/// (full, changed, empty, all null, partial, with unknown keys) into one
/// struct each equal the fresh decode, and bad payloads fail the same way.
pub(crate) fn in_place_matches_fresh<P>()
where
    P: HookPayload + Default + PartialEq + std::fmt::Debug,
{
    let meta = P::EVENT.meta();
    let payload = |variant: usize, keep: &dyn Fn(usize) -> bool| {
        let mut map = Map::new();
        for (index, field) in meta.fields.iter().enumerate() {
            if keep(index) {
                map.insert(field.name.to_owned(), sample(field.ty, variant + index));
            }
        }
        map.insert("not_in_the_schema".to_owned(), json!({"ignored": [1]}));
        Value::Object(map).to_string()
    };
    let nulls = Value::Object(
        meta.fields
            .iter()
            .map(|field| (field.name.to_owned(), Value::Null))
            .collect(),
    )
    .to_string();
    let sequence = [
        payload(0, &|_| true),
        payload(1, &|_| true),
        payload(2, &|_| true),
        "{}".to_owned(),
        payload(0, &|_| true),
        nulls,
        payload(1, &|index| index % 2 == 0),
        payload(2, &|index| index % 2 == 1),
    ];
    let mut place = P::default();
    for (step, json) in sequence.iter().enumerate() {
        let fresh: P = serde_json::from_str(json).expect("decodes fresh");
        in_place(json, &mut place).expect("decodes in place");
        assert_eq!(place, fresh, "{} step {step}: {json}", meta.name);
    }

    // A wrong type, a duplicate field and trailing bytes fail in place as fresh.
    let bad_type = match meta.fields.iter().find(|field| field.ty != "any") {
        Some(field) if field.ty.starts_with("string") => format!(r#"{{"{}": 3}}"#, field.name),
        Some(field) => format!(r#"{{"{}": "text"}}"#, field.name),
        None => "[1]".to_owned(),
    };
    let mut failing = vec![bad_type, "{} x".to_owned()];
    if let Some(field) = meta.fields.first() {
        let value = sample(field.ty, 0);
        failing.push(format!(r#"{{"{0}": {value}, "{0}": {value}}}"#, field.name));
    }
    for json in failing {
        let fresh = serde_json::from_str::<P>(&json)
            .map(drop)
            .map_err(|e| e.to_string());
        let mut place = P::default();
        let error = in_place(&json, &mut place).expect_err("fails in place");
        assert_eq!(Err(error), fresh, "{}: {json}", meta.name);
    }

    // serde's derive also takes the fields as an array, by position; the
    // ABI passes an object, and the in-place decoder takes nothing else.
    let error = in_place("[]", &mut P::default()).expect_err("an array is refused");
    let expected = format!(
        "invalid type: sequence, expected a {} payload object",
        meta.name
    );
    assert!(error.starts_with(&expected), "{error}");
}

#[test]
fn an_object_whose_keys_change_order_or_repeat_decodes_as_fresh() {
    let mut place = PreToolCall::default();
    for json in [
        r#"{"args": {"a": 1, "b": "x", "c": [1, {"d": 2}]}}"#,
        r#"{"args": {"a": 2, "c": [{"d": "y"}], "b": "z"}}"#,
        r#"{"args": {"a": 3, "a": 4, "b": null}}"#,
        r#"{"args": {"b": 1, "a": 2, "b": 3}}"#,
        r#"{"args": {"a": "\u00e9\n", "b": {"x": {}}}}"#,
        r#"{"args": {}}"#,
        r#"{"args": null}"#,
    ] {
        let fresh: PreToolCall = serde_json::from_str(json).expect("decodes");
        in_place(json, &mut place).expect("decodes in place");
        assert_eq!(place, fresh, "{json}");
        let keys: Vec<&String> = place.args.keys().collect();
        assert_eq!(
            keys,
            fresh.args.keys().collect::<Vec<_>>(),
            "key order of {json}"
        );
    }
}

#[test]
fn numbers_come_as_numbers_in_this_build() {
    // Without serde_json's `arbitrary_precision` (not enabled in this
    // workspace) objects are decoded in place; with it they are decoded by
    // serde_json's `Value`. `cargo test -p hermes-hooks-core --lib --features
    // serde_json/arbitrary_precision payloads` runs the checks above that
    // way (their floats fail without the fallback), and this one fails.
    assert!(!super::json::numbers_come_as_maps());
}

/// Any JSON value, nested a few levels, with keys drawn from a small set so
/// that consecutive objects share, reorder, drop and repeat keys.
fn any_json() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let key = prop::sample::select(vec!["command", "cwd", "a", "b", "path", "é\n"]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        "[a-z\"\\\\ \n\u{e9}]{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::vec((key.clone(), inner), 0..5).prop_map(|pairs| {
                // Built as JSON text below, so repeated keys stay repeated.
                Value::Array(
                    pairs
                        .into_iter()
                        .map(|(key, value)| json!({"__pair": [key, value]}))
                        .collect(),
                )
            }),
        ]
    })
}

/// A JSON object (as `any_json` writes one) of up to six entries with keys
/// from the small set: what a tool call's `args` is.
fn any_object() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let key = prop::sample::select(vec!["command", "cwd", "a", "b", "path", "é\n"]);
    prop::collection::vec((key, any_json()), 0..7).prop_map(|pairs| {
        let pairs: Vec<Value> = pairs
            .into_iter()
            .map(|(key, value)| json!({"__pair": [key, value]}))
            .collect();
        // An empty pair list is an empty array to `text`: an empty object is `{}`.
        if pairs.is_empty() {
            json!({})
        } else {
            Value::Array(pairs)
        }
    })
}

/// `value` as JSON text, where `{"__pair": [k, v]}` lists become objects
/// (keeping repeated keys, which a `Map` would merge).
fn text(value: &Value) -> String {
    match value {
        Value::Array(items)
            if !items.is_empty() && items.iter().all(|item| item.get("__pair").is_some()) =>
        {
            let pairs: Vec<String> = items
                .iter()
                .map(|item| {
                    let pair = &item["__pair"];
                    format!("{}:{}", pair[0], text(&pair[1]))
                })
                .collect();
            format!("{{{}}}", pairs.join(","))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(text).collect();
            format!("[{}]", items.join(","))
        }
        other => other.to_string(),
    }
}

proptest::proptest! {
    /// A guard reads exactly what a fresh decode would give, whatever the
    /// previous calls left in the kept payload: any sequence of tool calls
    /// (arguments of any shape, fields present, null or absent) decodes in
    /// place to the fresh decode, key order included, and fails where it fails.
    #[test]
    fn any_sequence_of_tool_calls_decodes_in_place_as_fresh(
        calls in proptest::collection::vec(
            (
                proptest::option::of("[a-z_]{0,8}"),
                proptest::option::of(any_object()),
                proptest::option::of("[a-z0-9-]{0,10}"),
                proptest::option::of(proptest::collection::vec(any_json(), 0..3)),
            ),
            1..8,
        )
    ) {
        let mut place = PreToolCall::default();
        for (tool, args, session, trace) in calls {
            let mut fields = Vec::new();
            if let Some(tool) = tool {
                fields.push(format!(r#""tool_name":{}"#, json!(tool)));
            }
            if let Some(args) = &args {
                fields.push(format!(r#""args":{}"#, text(args)));
            }
            if let Some(session) = session {
                fields.push(format!(r#""session_id":{}"#, json!(session)));
            }
            if let Some(trace) = &trace {
                let items: Vec<String> = trace.iter().map(text).collect();
                fields.push(format!(r#""middleware_trace":[{}]"#, items.join(",")));
            }
            let json = format!("{{{}}}", fields.join(","));
            match serde_json::from_str::<PreToolCall>(&json) {
                Ok(fresh) => {
                    proptest::prop_assert_eq!(in_place(&json, &mut place), Ok(()), "{}", json);
                    proptest::prop_assert_eq!(&place, &fresh, "{}", json);
                    proptest::prop_assert_eq!(
                        place.args.keys().collect::<Vec<_>>(),
                        fresh.args.keys().collect::<Vec<_>>(),
                        "{}", json
                    );
                }
                Err(_) => {
                    proptest::prop_assert!(in_place(&json, &mut place).is_err(), "{}", json);
                    // What a failed decode left must not leak into the next call.
                    place = PreToolCall::default();
                }
            }
        }
    }
}
