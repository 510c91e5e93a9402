//! Keys a JSON document gives twice in one object. `serde_json` (like Claude
//! Code's `JSON.parse`) keeps the last value and says nothing; a settings
//! file whose second `"hooks"` drops a fail-closed guard must be told apart
//! from one whose guard was taken out (red team round 10).

use std::collections::HashSet;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// The most duplicate keys noted in one document.
const MAX_NOTED: usize = 64;

/// The places (`hooks`, `hooks.PreToolUse[0].hooks[0].command`) of keys
/// `text` gives more than once in one object. Empty when it is not JSON.
pub(crate) fn duplicate_keys(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let seed = Place {
        path: String::new(),
        found: &mut found,
    };
    // A document that does not parse is reported by the parse itself.
    let _ = seed.deserialize(&mut deserializer);
    found
}

/// One value at `path`, noting duplicates into `found`.
struct Place<'a> {
    path: String,
    found: &'a mut Vec<String>,
}

impl<'de> DeserializeSeed<'de> for Place<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Place<'_> {
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut names = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = if self.path.is_empty() {
                key.clone()
            } else {
                format!("{}.{key}", self.path)
            };
            if !names.insert(key) && self.found.len() < MAX_NOTED {
                self.found.push(path.clone());
            }
            map.next_value_seed(Place {
                path,
                found: self.found,
            })?;
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0usize;
        while seq
            .next_element_seed(Place {
                path: format!("{}[{index}]", self.path),
                found: self.found,
            })?
            .is_some()
        {
            index += 1;
        }
        Ok(())
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(IgnoredAny).map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_are_found_by_place() {
        let text = r#"{"hooks": {"PreToolUse": [{"hooks": [{"command": "a", "command": "b"}]}]},
                       "hooks": {}, "x": [1, {"y": 1, "y": 2}]}"#;
        assert_eq!(
            duplicate_keys(text),
            ["hooks.PreToolUse[0].hooks[0].command", "hooks", "x[1].y"]
        );
        assert!(duplicate_keys(r#"{"a": 1, "b": {"a": 2}}"#).is_empty());
        assert!(duplicate_keys("{not json").is_empty());
    }
}
