//! The in-place decoders of the JSON types: `Value`, and the `Map` and `Vec`
//! it nests, each reusing what the old value holds.

use std::fmt;

use std::sync::OnceLock;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Number, Value};

use super::{InPlace, Plain, StringVisitor};

impl InPlace for Vec<Value> {
    fn decode<'de, D: Deserializer<'de>>(
        deserializer: D,
        place: &mut Self,
    ) -> Result<(), D::Error> {
        deserializer.deserialize_seq(ArrayVisitor(place))
    }

    fn reset(&mut self) {
        self.clear();
    }
}

/// Fills an array element by element, each decoded into the old element at its index.
struct ArrayVisitor<'a>(&'a mut Vec<Value>);

impl<'de> Visitor<'de> for ArrayVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let items = self.0;
        let mut len = 0;
        loop {
            if len == items.len() {
                items.push(Value::Null);
            }
            if seq.next_element_seed(Plain(&mut items[len]))?.is_none() {
                break;
            }
            len += 1;
        }
        items.truncate(len);
        Ok(())
    }
}

impl InPlace for Map<String, Value> {
    fn decode<'de, D: Deserializer<'de>>(
        deserializer: D,
        place: &mut Self,
    ) -> Result<(), D::Error> {
        deserializer.deserialize_map(ObjectVisitor(place))
    }

    fn reset(&mut self) {
        self.clear();
    }
}

/// Fills an object. While the keys come in the order the old map has them,
/// each value is decoded into the old one (no hashing, no allocation); from
/// the first key that differs, the rest of the old entries are dropped and
/// the remaining keys inserted as a fresh decode would (a repeated key: the
/// last value wins, at the first one's place).
struct ObjectVisitor<'a>(&'a mut Map<String, Value>);

impl<'de> Visitor<'de> for ObjectVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<(), A::Error> {
        let map = self.0;
        if numbers_come_as_maps() {
            *map = Map::deserialize(MapAccessDeserializer::new(access))?;
            return Ok(());
        }
        // Walk the old entries in order; `retain` keeps those matched.
        let mut error = None;
        let mut ended = false;
        let mut diverged: Option<String> = None;
        map.retain(|key, value| {
            if ended || diverged.is_some() || error.is_some() {
                return false;
            }
            let matched = access
                .next_key_seed(KeyIs(key))
                .and_then(|next| match next {
                    None => {
                        ended = true;
                        Ok(false)
                    }
                    Some(Key::Same) => access.next_value_seed(Plain(value)).map(|()| true),
                    Some(Key::Other(other)) => {
                        diverged = Some(other);
                        Ok(false)
                    }
                });
            matched.unwrap_or_else(|failed| {
                error = Some(failed);
                false
            })
        });
        if let Some(error) = error {
            return Err(error);
        }
        if ended {
            return Ok(());
        }
        let mut next = match diverged {
            Some(key) => Some(key),
            None => access.next_key::<String>()?,
        };
        while let Some(key) = next {
            let mut value = Value::Null;
            access.next_value_seed(Plain(&mut value))?;
            map.insert(key, value);
            next = access.next_key::<String>()?;
        }
        Ok(())
    }
}

/// A key compared with the old map's key at the same position.
enum Key {
    Same,
    Other(String),
}

struct KeyIs<'a>(&'a str);

impl<'de> DeserializeSeed<'de> for KeyIs<'_> {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyIs<'_> {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        Ok(if key == self.0 {
            Key::Same
        } else {
            Key::Other(key.to_owned())
        })
    }

    fn visit_string<E: de::Error>(self, key: String) -> Result<Key, E> {
        Ok(if key == self.0 {
            Key::Same
        } else {
            Key::Other(key)
        })
    }
}

impl InPlace for Value {
    fn decode<'de, D: Deserializer<'de>>(
        deserializer: D,
        place: &mut Self,
    ) -> Result<(), D::Error> {
        deserializer.deserialize_any(ValueVisitor(place))
    }

    fn reset(&mut self) {
        *self = Value::Null;
    }
}

/// Decodes any JSON value into `place`, reusing a string, array or object of the same kind.
struct ValueVisitor<'a>(&'a mut Value);

impl<'de> Visitor<'de> for ValueVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<(), E> {
        *self.0 = Value::Bool(value);
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<(), E> {
        *self.0 = Value::Number(value.into());
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<(), E> {
        *self.0 = Value::Number(value.into());
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<(), E> {
        // As serde_json's own `Value` does: a non-finite number is null.
        *self.0 = Number::from_f64(value).map_or(Value::Null, Value::Number);
        Ok(())
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<(), E> {
        match self.0 {
            Value::String(old) => StringVisitor(old).visit_str(text),
            other => {
                *other = Value::String(text.to_owned());
                Ok(())
            }
        }
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<(), E> {
        *self.0 = Value::String(text);
        Ok(())
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        *self.0 = Value::Null;
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.visit_none()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        Value::decode(deserializer, self.0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        // Moving the old array out and back costs no allocation.
        let mut items = match std::mem::take(self.0) {
            Value::Array(items) => items,
            _ => Vec::new(),
        };
        let decoded = ArrayVisitor(&mut items).visit_seq(seq);
        *self.0 = Value::Array(items);
        decoded
    }

    fn visit_map<A: MapAccess<'de>>(self, access: A) -> Result<(), A::Error> {
        if numbers_come_as_maps() {
            // Maybe a number in disguise: serde_json's own `Value` knows it.
            *self.0 = Value::deserialize(MapAccessDeserializer::new(access))?;
            return Ok(());
        }
        let mut map = match std::mem::take(self.0) {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        let decoded = ObjectVisitor(&mut map).visit_map(access);
        *self.0 = Value::Object(map);
        decoded
    }
}

/// Whether serde_json hands numbers to a visitor as maps, as it does when a
/// build enables its `arbitrary_precision` feature (a plugin crate may: the
/// features of one build are shared). Objects are then decoded by
/// serde_json's own `Value` and `Map`, which know that map from an object;
/// decoding them in place would turn every number into an object. Asked
/// once per process, of serde_json itself.
pub(super) fn numbers_come_as_maps() -> bool {
    static ANSWER: OnceLock<bool> = OnceLock::new();
    *ANSWER.get_or_init(|| {
        struct Probe;

        impl<'de> Visitor<'de> for Probe {
            type Value = bool;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number")
            }

            fn visit_f64<E: de::Error>(self, _: f64) -> Result<bool, E> {
                Ok(false)
            }

            fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<bool, A::Error> {
                Ok(true)
            }
        }

        // (`arbitrary_precision` hands over as maps the numbers that are
        // no `u64` or `i64`.) Anything unexpected: the path right either way.
        serde_json::Deserializer::from_str("0.5")
            .deserialize_any(Probe)
            .unwrap_or(true)
    })
}
