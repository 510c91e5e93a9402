//! The observe line: one batch of one callback's events, encoded by the
//! observer pipeline's writer (`observe.rs`) into one reused buffer.
//!
//! A run of payloads with the same keys in the same order (a stream's
//! deltas) is sent as one `template` (the first payload, its nested values
//! as `null`) and, per event, only the fields that differ from it: the
//! worker decodes a few bytes per delta instead of a whole object and
//! rebuilds each payload, in its own key order, with one dict copy and
//! update. Nested values always travel with their event, so no call sees
//! what another one changed.

use serde_json::{Map, Value};

use super::observe::Item;

/// `{"op":"observe","callback":..,"event":..,"template":{..}|null,"payloads":[..]}`
/// and its newline, into `line`: `items` are events for `callback`. With a template every payload has its keys
/// in its order, and a payload carries only the fields whose value is not
/// the template's (nested values always travel: each call gets its own).
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
    write_json(line, callback);
    line.extend_from_slice(b",\"event\":");
    write_json(line, first.event.name().as_str());
    line.extend_from_slice(b",\"template\":");
    if shared {
        line.push(b'{');
        for (index, (key, value)) in template.iter().enumerate() {
            if index > 0 {
                line.push(b',');
            }
            write_json(line, key);
            line.push(b':');
            if is_scalar(value) {
                write_json(line, value);
            } else {
                line.extend_from_slice(b"null");
            }
        }
        line.push(b'}');
    } else {
        line.extend_from_slice(b"null");
    }
    line.extend_from_slice(b",\"payloads\":[");
    for (index, item) in items.iter().enumerate() {
        if index > 0 {
            line.push(b',');
        }
        line.push(b'{');
        let mut fields = 0;
        // With a template the keys match it one for one (`same_keys`).
        let mut bases = template.values();
        for (key, value) in item.event.payload() {
            let base = bases.next().filter(|_| shared);
            if base.is_some_and(|base| is_scalar(value) && base == value) {
                continue;
            }
            if fields > 0 {
                line.push(b',');
            }
            fields += 1;
            write_json(line, key);
            line.push(b':');
            write_json(line, value);
        }
        line.push(b'}');
    }
    line.extend_from_slice(b"]}\n");
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

fn write_json<T: serde::Serialize + ?Sized>(line: &mut Vec<u8>, value: &T) {
    // Writing to a Vec cannot fail, and these values (from JSON) always encode.
    if serde_json::to_writer(&mut *line, value).is_err() {
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
    fn a_stream_is_one_template_and_what_differs() {
        let value = decoded(&items(&[
            json!({"delta": "a", "kind": "text", "n": 1, "extra": {"x": 1}}),
            json!({"delta": "b", "kind": "text", "n": 2, "extra": {"x": 1}}),
            json!({"delta": "a", "kind": "text", "n": 1, "extra": []}),
        ]));
        assert_eq!(
            value,
            json!({"op": "observe", "callback": "p:on_stream_delta:f", "event": "on_stream_delta",
                   "template": {"delta": "a", "kind": "text", "n": 1, "extra": null},
                   "payloads": [{"extra": {"x": 1}}, {"delta": "b", "n": 2, "extra": {"x": 1}},
                                {"extra": []}]})
        );
        // The template keeps the payload's key order (the worker rebuilds it from it).
        let keys: Vec<&String> = value["template"]
            .as_object()
            .map(|template| template.keys().collect())
            .unwrap_or_default();
        assert_eq!(keys, ["delta", "kind", "n", "extra"]);
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
        assert_eq!(decoded(&items(&[json!({})]))["payloads"], json!([{}]));
    }
}
