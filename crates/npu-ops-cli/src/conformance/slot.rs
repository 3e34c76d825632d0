//! The fields of a JSON object as written, for the readers of case files
//! and reports: serde reads each field into a [`Slot`] (never failing), and
//! the reader then checks the fields in its own order, with its own
//! messages, as the formats define them.

use serde::de::value::MapAccessDeserializer;
use serde::de::{DeserializeOwned, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

/// One field of an object: absent, `null`, a value of the type expected,
/// or another value (kept to name it in the message).
#[derive(Clone, Debug, Default)]
pub enum Slot<T> {
    /// Not in the object.
    #[default]
    Absent,
    /// `null`.
    Null,
    /// A value of the type expected.
    Got(T),
    /// Another value.
    Wrong(Value),
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Slot<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::Null => Slot::Null,
            v => match T::deserialize(&v) {
                Ok(t) => Slot::Got(t),
                Err(_) => Slot::Wrong(v),
            },
        })
    }
}

impl<T> Slot<T> {
    /// The value if one of the type expected was given (absent and `null`
    /// are none), else the value given.
    pub fn optional(self) -> Result<Option<T>, Value> {
        match self {
            Slot::Absent | Slot::Null => Ok(None),
            Slot::Got(t) => Ok(Some(t)),
            Slot::Wrong(v) => Err(v),
        }
    }

    /// Whether the field is in the object (`null` included).
    pub fn present(&self) -> bool {
        !matches!(self, Slot::Absent)
    }

    /// The value if one of the type expected was given.
    pub fn got(self) -> Option<T> {
        match self {
            Slot::Got(t) => Some(t),
            _ => None,
        }
    }
}

/// As written (`null` when absent).
impl<T: Serialize> Serialize for Slot<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Slot::Absent | Slot::Null => s.serialize_unit(),
            Slot::Got(t) => t.serialize(s),
            Slot::Wrong(v) => v.serialize(s),
        }
    }
}

impl<T: Serialize> Slot<T> {
    /// The value as JSON text (`null` when absent), as messages name it.
    pub fn written(&self) -> String {
        serde_json::to_string(self).expect("JSON values serialise")
    }
}

/// `v`'s fields when it is an object; any other value reads as an object
/// with no fields (a reader asking it for a field finds none).
pub fn fields<T: DeserializeOwned + Default>(v: Value) -> Result<T, serde_json::Error> {
    if v.is_object() {
        T::deserialize(v)
    } else {
        Ok(T::default())
    }
}

/// A field holding an object, read as [`fields`] reads it (straight from
/// the deserializer: its values are not copied).
#[derive(Clone, Debug, Default)]
pub struct Object<T>(pub T);

impl<'de, T: DeserializeOwned + Default> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ObjectVisitor(std::marker::PhantomData))
    }
}

struct ObjectVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: DeserializeOwned + Default> Visitor<'de> for ObjectVisitor<T> {
    type Value = Object<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map)).map(Object)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Object(T::default()))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Object(T::default()))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Object(T::default()))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Object(T::default()))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Object(T::default()))
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Object(T::default()))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Object(T::default()))
    }
}

/// A field that is either absent or given (`null` included), read as `T`
/// reads it when given.
#[derive(Clone, Debug)]
pub struct Given<T>(pub Option<T>);

impl<T> Default for Given<T> {
    fn default() -> Self {
        Given(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Given<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(d).map(|t| Given(Some(t)))
    }
}
