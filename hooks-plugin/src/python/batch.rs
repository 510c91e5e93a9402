//! The observe line: one batch of one callback's events, encoded by the
//! observer pipeline's writer (`observe.rs`) into one reused buffer.
//!
//! A run of payloads with the same keys in the same order (a stream's
//! deltas) is sent as one `template` (the first payload, its nested values
//! as `null`) and, as columns, only the fields whose value differs from the
//! template's in some payload of the batch (`keys`, and per key the value
//! of every payload): the worker decodes a few bytes per delta and no
//! object, and rebuilds each payload, in its own key order, with one dict
//! copy and one store per key. Nested values always travel with their
//! event, so no call sees what another one changed.

use serde_json::{Map, Value};

use super::observe::Item;
use crate::json;

/// The observe line and its newline, into `line`; `items` are events for
/// `callback`. When every payload has the same keys in the same order:
/// `{"op":"observe","callback":..,"event":..,"template":{..},"count":n,
/// "keys":[..],"columns":[[..],..]}`, where payload `i` is the template
/// with `keys[j]` set to `columns[j][i]` (a key is there when some payload's
/// value is not the template's, or is nested: nested values always travel,
/// so each call gets its own). Otherwise every payload travels whole:
/// `{..,"template":null,"payloads":[{..},..]}`.
pub(super) fn encode(callback: &str, items: &[Item], line: &mut Vec<u8>) {
    line.clear();
    let Some(first) = items.first() else {
        return;
    };
    let template = first.event.payload();
    let shared = items
        .iter()
        .all(|item| same_keys(item.event.payload(), template));
    line.extend_from_slice(b"{\"op\":\"observe\",\"callback\":");
    write_str(line, callback);
    line.extend_from_slice(b",\"event\":");
    write_str(line, first.event.name().as_str());
    if shared {
        write_columns(template, items, line);
    } else {
        line.extend_from_slice(b",\"template\":null,\"payloads\":[");
        for (index, item) in items.iter().enumerate() {
            if index > 0 {
                line.push(b',');
            }
            if json::write_object(item.event.payload(), line).is_err() {
                line.extend_from_slice(b"null");
            }
        }
        line.push(b']');
    }
    line.extend_from_slice(b"}\n");
}

/// `,"template":{..},"count":n,"keys":[..],"columns":[[..],..]` for
/// `items`, whose payloads all have `template`'s keys in its order.
fn write_columns(template: &Map<String, Value>, items: &[Item], line: &mut Vec<u8>) {
    line.extend_from_slice(b",\"template\":{");
    for (index, (key, value)) in template.iter().enumerate() {
        if index > 0 {
            line.push(b',');
        }
        write_str(line, key);
        line.push(b':');
        if is_scalar(value) {
            write_json(line, value);
        } else {
            line.extend_from_slice(b"null");
        }
    }
    line.extend_from_slice(b"},\"count\":");
    line.extend_from_slice(items.len().to_string().as_bytes());
    // The fields that travel: nested in the template, or different in some
    // payload (one pass over the payloads, each compared field by field).
    let mut travels: Vec<bool> = template.values().map(|base| !is_scalar(base)).collect();
    for item in items {
        let fields = travels.iter_mut().zip(item.event.payload().values());
        for ((travel, value), base) in fields.zip(template.values()) {
            if !*travel && (!is_scalar(value) || value != base) {
                *travel = true;
            }
        }
    }
    let travels: Vec<usize> = (0..travels.len()).filter(|&index| travels[index]).collect();
    line.extend_from_slice(b",\"keys\":[");
    for (n, (_, (key, _))) in template
        .iter()
        .enumerate()
        .filter(|(index, _)| travels.contains(index))
        .enumerate()
    {
        if n > 0 {
            line.push(b',');
        }
        write_str(line, key);
    }
    line.extend_from_slice(b"],\"columns\":[");
    for (n, &index) in travels.iter().enumerate() {
        if n > 0 {
            line.push(b',');
        }
        line.push(b'[');
        for (row, item) in items.iter().enumerate() {
            if row > 0 {
                line.push(b',');
            }
            match item.event.payload().values().nth(index) {
                Some(value) => write_json(line, value),
                None => line.extend_from_slice(b"null"),
            }
        }
        line.push(b']');
    }
    line.push(b']');
}

/// Whether `payload` has exactly `template`'s keys, in the same order.
fn same_keys(payload: &Map<String, Value>, template: &Map<String, Value>) -> bool {
    payload.len() == template.len()
        && payload
            .keys()
            .zip(template.keys())
            .all(|(key, base)| key == base)
}

/// A value a template may share between calls: immutable in Python.
fn is_scalar(value: &Value) -> bool {
    !matches!(value, Value::Array(_) | Value::Object(_))
}

/// `value` as JSON (serde_json's bytes, strings without its per-byte
/// escape loop when they need no escape).
fn write_json(line: &mut Vec<u8>, value: &Value) {
    // Writing to a Vec cannot fail, and these values (from JSON) always encode.
    if json::write_value(value, line).is_err() {
        line.extend_from_slice(b"null");
    }
}

fn write_str(line: &mut Vec<u8>, text: &str) {
    if json::write_str(text, line).is_err() {
        line.extend_from_slice(b"null");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hermes_hooks_core::{Event, HookEvent};
    use serde_json::json;

    fn items(payloads: &[Value]) -> Vec<Item> {
        payloads
            .iter()
            .map(|payload| Item::of(Event::from_json(HookEvent::OnStreamDelta, payload.clone())))
            .collect()
    }

    fn decoded(items: &[Item]) -> Value {
        let mut line = Vec::new();
        encode("p:on_stream_delta:f", items, &mut line);
        assert_eq!(line.last(), Some(&b'\n'));
        serde_json::from_slice(&line).unwrap_or(Value::Null)
    }

    #[test]
    fn a_stream_is_one_template_and_columns_of_what_differs() {
        let value = decoded(&items(&[
            json!({"delta": "a", "kind": "text", "n": 1, "extra": {"x": 1}}),
            json!({"delta": "b", "kind": "text", "n": 2, "extra": {"x": 1}}),
            json!({"delta": "a", "kind": "text", "n": 1, "extra": []}),
        ]));
        assert_eq!(
            value,
            json!({"op": "observe", "callback": "p:on_stream_delta:f", "event": "on_stream_delta",
                   "template": {"delta": "a", "kind": "text", "n": 1, "extra": null},
                   "count": 3, "keys": ["delta", "n", "extra"],
                   "columns": [["a", "b", "a"], [1, 2, 1], [{"x": 1}, {"x": 1}, []]]})
        );
        // The template keeps the payload's key order (the worker rebuilds it from it).
        let keys: Vec<&String> = value["template"]
            .as_object()
            .map(|template| template.keys().collect())
            .unwrap_or_default();
        assert_eq!(keys, ["delta", "kind", "n", "extra"]);
    }

    #[test]
    fn payloads_equal_to_the_template_are_a_count() {
        let same = json!({"delta": "a", "kind": "text"});
        let value = decoded(&items(&[same.clone(), same.clone(), same]));
        assert_eq!(value["count"], 3);
        assert_eq!(value["keys"], json!([]));
        assert_eq!(value["columns"], json!([]));
        let empty = decoded(&items(&[json!({})]));
        assert_eq!(
            (&empty["template"], &empty["count"], &empty["keys"]),
            (&json!({}), &json!(1), &json!([]))
        );
    }

    #[test]
    fn a_value_nested_in_one_payload_only_travels_for_every_payload() {
        let value = decoded(&items(&[
            json!({"delta": "a", "extra": 1}),
            json!({"delta": "a", "extra": {"deep": [1]}}),
        ]));
        assert_eq!(value["template"], json!({"delta": "a", "extra": 1}));
        assert_eq!(value["keys"], json!(["extra"]));
        assert_eq!(value["columns"], json!([[1, {"deep": [1]}]]));
    }

    /// What the worker rebuilds from an observe line (`Observers.batch` and
    /// `run_columns` in `worker.py`): every payload, in order.
    fn rebuilt(line: &Value) -> Vec<Value> {
        if line["template"].is_null() {
            return line["payloads"].as_array().cloned().unwrap_or_default();
        }
        let count = line["count"].as_u64().unwrap_or(0) as usize;
        let keys = line["keys"].as_array().cloned().unwrap_or_default();
        (0..count)
            .map(|row| {
                let mut payload = line["template"].clone();
                for (column, key) in keys.iter().enumerate() {
                    payload[key.as_str().unwrap_or("")] = line["columns"][column][row].clone();
                }
                payload
            })
            .collect()
    }

    /// Mostly scalars (a stream's fields), some nested values.
    fn value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let scalar = || {
            prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::from),
                (0i64..3).prop_map(Value::from),
                prop::sample::select(vec!["a", "b", "", "é\n\""]).prop_map(Value::from),
            ]
        };
        let nested = prop_oneof![
            prop::collection::vec(scalar(), 0..3).prop_map(Value::from),
            prop::collection::btree_map(
                prop::sample::select(vec!["x", "y"]).prop_map(str::to_owned),
                scalar(),
                0..3
            )
            .prop_map(|map| Value::Object(map.into_iter().collect())),
        ];
        prop_oneof![4 => scalar(), 1 => nested]
    }

    proptest::proptest! {
        /// Any run of payloads, of one shape or several, with values equal to
        /// the first's or not, nested or not: the worker rebuilds each exactly.
        #[test]
        fn the_worker_rebuilds_every_payload_exactly(
            payloads in proptest::collection::vec(
                proptest::collection::vec(
                    (proptest::sample::select(vec!["delta", "kind", "n", "extra"]), value()),
                    0..4,
                ),
                1..12,
            ),
            one_shape in proptest::bool::ANY,
        ) {
            let payloads: Vec<Value> = payloads
                .into_iter()
                .map(|fields| {
                    let mut fields: Map<String, Value> =
                        fields.into_iter().map(|(key, value)| (key.to_owned(), value)).collect();
                    if one_shape {
                        // Every key, in one order: a stream's payloads.
                        fields = ["delta", "kind", "n", "extra"]
                            .into_iter()
                            .map(|key| (key.to_owned(), fields.remove(key).unwrap_or_default()))
                            .collect();
                    }
                    Value::Object(fields)
                })
                .collect();
            let line = decoded(&items(&payloads));
            proptest::prop_assert_eq!(rebuilt(&line), payloads);
        }
    }

    #[test]
    fn payloads_of_other_shapes_travel_whole() {
        for other in [json!({"kind": "text", "delta": "b"}), json!({"delta": "b"})] {
            let value = decoded(&items(&[
                json!({"delta": "a", "kind": "text"}),
                other.clone(),
            ]));
            assert_eq!(value["template"], Value::Null);
            assert_eq!(
                value["payloads"],
                json!([{"delta": "a", "kind": "text"}, other])
            );
        }
    }
}
