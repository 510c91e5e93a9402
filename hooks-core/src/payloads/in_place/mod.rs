//! Decoding a payload into an existing struct, reusing its allocations.
//!
//! A native plugin decodes every call's payload into its typed struct. Done
//! from scratch, that is one allocation per string field plus the argument
//! map's table, keys and values, each freed again after the call: most of a
//! native call's cost. [`HookPayload::decode_in_place`] instead
//! overwrites a struct kept from the previous call: strings are copied into
//! the capacity they already have, and a map or array whose keys come in the
//! same order as last time is updated entry by entry (no hashing, no
//! allocation). The result is the struct a fresh decode gives, field for
//! field (the payload tests check it for every event): absent keys take their
//! default, `null` in a plain field counts as absent, unknown keys are ignored,
//! a duplicate field is an error. One difference: serde's derive also takes
//! a struct's fields as an array, by position; the ABI passes an object, and
//! this decoder refuses anything else.
//!
//! The generated code implements [`Fields`] per struct; the field types'
//! decoders are here, those of the JSON types (`Value`, its maps and arrays)
//! in `json.rs`.

use std::fmt;
use std::marker::PhantomData;

use serde::Deserializer;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};

use super::HookPayload;

mod json;
#[cfg(test)]
mod tests;

/// A payload struct seen as its fields, by index (implemented by the generated code).
#[doc(hidden)]
pub trait Fields: HookPayload {
    /// The JSON keys of the fields, in declaration order (at most 64).
    const NAMES: &'static [&'static str];

    /// The index in [`Fields::NAMES`] of the field whose key is `key`.
    fn field_index(key: &str) -> Option<usize>;

    /// Decodes the value of field `index` from `map` into the field.
    fn decode_field<'de, A: MapAccess<'de>>(
        &mut self,
        index: usize,
        map: &mut A,
    ) -> Result<(), A::Error>;

    /// Sets field `index` to its default, keeping its allocation.
    fn reset_field(&mut self, index: usize);
}

/// Decodes the JSON object of `deserializer` into `place` (the body of every
/// generated `decode_in_place`).
pub(crate) fn decode<'de, D, P>(deserializer: D, place: &mut P) -> Result<(), D::Error>
where
    D: Deserializer<'de>,
    P: Fields,
{
    deserializer.deserialize_map(StructVisitor(place))
}

struct StructVisitor<'a, P>(&'a mut P);

impl<'de, P: Fields> Visitor<'de> for StructVisitor<'_, P> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a {} payload object", P::EVENT)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let place = self.0;
        let mut seen = 0u64;
        while let Some(field) = map.next_key_seed(FieldIndex::<P>(PhantomData))? {
            let Some(index) = field else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            let bit = 1u64 << index;
            if seen & bit != 0 {
                return Err(de::Error::duplicate_field(P::NAMES[index]));
            }
            seen |= bit;
            place.decode_field(index, &mut map)?;
        }
        for index in 0..P::NAMES.len() {
            if seen & (1u64 << index) == 0 {
                place.reset_field(index);
            }
        }
        Ok(())
    }
}

/// A key: the index of the field it names, `None` for an unknown key.
struct FieldIndex<P>(PhantomData<fn() -> P>);

impl<'de, P: Fields> DeserializeSeed<'de> for FieldIndex<P> {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de, P: Fields> Visitor<'de> for FieldIndex<P> {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        Ok(P::field_index(key))
    }
}

/// A field type that decodes into an existing value.
#[doc(hidden)]
pub trait InPlace: Sized {
    /// Decodes into `place`, reusing what it holds.
    fn decode<'de, D: Deserializer<'de>>(deserializer: D, place: &mut Self)
    -> Result<(), D::Error>;

    /// The type's default, keeping the allocation.
    fn reset(&mut self);
}

/// The seed of a field decoded in place as its type decodes.
#[doc(hidden)]
pub struct Plain<'a, T>(pub &'a mut T);

impl<'de, T: InPlace> DeserializeSeed<'de> for Plain<'_, T> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        T::decode(deserializer, self.0)
    }
}

/// The seed of a plain field where `null` means absent (`null_as_default`).
#[doc(hidden)]
pub struct NullAsDefault<'a, T>(pub &'a mut T);

impl<'de, T: InPlace> DeserializeSeed<'de> for NullAsDefault<'_, T> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de, T: InPlace> Visitor<'de> for NullAsDefault<'_, T> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value or null")
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.0.reset();
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.visit_none()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        T::decode(deserializer, self.0)
    }
}

/// Types without an allocation to keep: decoded fresh and assigned.
macro_rules! assigned {
    ($($ty:ty),*) => {$(
        impl InPlace for $ty {
            fn decode<'de, D: Deserializer<'de>>(deserializer: D, place: &mut Self) -> Result<(), D::Error> {
                *place = serde::Deserialize::deserialize(deserializer)?;
                Ok(())
            }

            fn reset(&mut self) {
                *self = Default::default();
            }
        }
    )*};
}

assigned!(i64, f64, bool);

impl<T: InPlace + serde::de::DeserializeOwned> InPlace for Option<T> {
    fn decode<'de, D: Deserializer<'de>>(
        deserializer: D,
        place: &mut Self,
    ) -> Result<(), D::Error> {
        deserializer.deserialize_option(OptionVisitor(place))
    }

    fn reset(&mut self) {
        *self = None;
    }
}

struct OptionVisitor<'a, T>(&'a mut Option<T>);

impl<'de, T: InPlace + serde::de::DeserializeOwned> Visitor<'de> for OptionVisitor<'_, T> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value or null")
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        *self.0 = None;
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.visit_none()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        match self.0 {
            Some(inner) => T::decode(deserializer, inner),
            None => {
                *self.0 = Some(T::deserialize(deserializer)?);
                Ok(())
            }
        }
    }
}

impl InPlace for String {
    fn decode<'de, D: Deserializer<'de>>(
        deserializer: D,
        place: &mut Self,
    ) -> Result<(), D::Error> {
        deserializer.deserialize_string(StringVisitor(place))
    }

    fn reset(&mut self) {
        self.clear();
    }
}

pub(super) struct StringVisitor<'a>(&'a mut String);

impl<'de> Visitor<'de> for StringVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<(), E> {
        self.0.clear();
        self.0.push_str(text);
        Ok(())
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<(), E> {
        *self.0 = text;
        Ok(())
    }
}

#[cfg(test)]
pub(crate) use tests::in_place_matches_fresh;
