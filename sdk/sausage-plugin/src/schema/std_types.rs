//! `JsonSchema` for the standard types (see the table in the module docs).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::{nullable, JsonSchema, SchemaGen};

macro_rules! integers {
    ($($t:ty),*) => {$(
        impl JsonSchema for $t {
            fn json_schema(_: &mut SchemaGen) -> Value {
                json!({"type": "integer", "minimum": <$t>::MIN, "maximum": <$t>::MAX})
            }
        }
    )*};
}
integers!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

macro_rules! simple {
    ($schema:tt: $($t:ty),*) => {$(
        impl JsonSchema for $t {
            fn json_schema(_: &mut SchemaGen) -> Value {
                json!($schema)
            }
        }
    )*};
}
simple!({"type": "number"}: f32, f64);
simple!({"type": "boolean"}: bool);
simple!({"type": "string"}: String, str, PathBuf, Path);
simple!({"type": "string", "minLength": 1, "maxLength": 1}: char);
simple!({"type": "null"}: ());
simple!({}: Value);
simple!({"type": "object"}: Map<String, Value>);

impl<T: JsonSchema> JsonSchema for Option<T> {
    fn json_schema(g: &mut SchemaGen) -> Value {
        nullable(T::json_schema(g))
    }
    const __OPTIONAL: bool = true;
}

macro_rules! wrappers {
    ($($w:ident),*) => {$(
        impl<T: JsonSchema + ?Sized> JsonSchema for $w<T> {
            fn json_schema(g: &mut SchemaGen) -> Value {
                T::json_schema(g)
            }
            const __OPTIONAL: bool = T::__OPTIONAL;
        }
    )*};
}
wrappers!(Box, Rc, Arc);

impl<T: JsonSchema + ?Sized> JsonSchema for &T {
    fn json_schema(g: &mut SchemaGen) -> Value {
        T::json_schema(g)
    }
    const __OPTIONAL: bool = T::__OPTIONAL;
}

macro_rules! arrays {
    ($unique:literal: $($c:ident),*) => {$(
        impl<T: JsonSchema> JsonSchema for $c<T> {
            fn json_schema(g: &mut SchemaGen) -> Value {
                let mut s = json!({"type": "array", "items": T::json_schema(g)});
                if $unique {
                    s["uniqueItems"] = json!(true);
                }
                s
            }
        }
    )*};
}
arrays!(false: Vec, VecDeque);
arrays!(true: HashSet, BTreeSet);

impl<T: JsonSchema> JsonSchema for [T] {
    fn json_schema(g: &mut SchemaGen) -> Value {
        json!({"type": "array", "items": T::json_schema(g)})
    }
}

impl<T: JsonSchema, const N: usize> JsonSchema for [T; N] {
    fn json_schema(g: &mut SchemaGen) -> Value {
        json!({"type": "array", "items": T::json_schema(g), "minItems": N, "maxItems": N})
    }
}

macro_rules! tuples {
    ($($n:literal: ($($t:ident),+);)*) => {$(
        impl<$($t: JsonSchema),+> JsonSchema for ($($t,)+) {
            fn json_schema(g: &mut SchemaGen) -> Value {
                json!({
                    "type": "array",
                    "prefixItems": [$($t::json_schema(g)),+],
                    "items": false,
                    "minItems": $n,
                    "maxItems": $n,
                })
            }
        }
    )*};
}
tuples! {
    1: (A);
    2: (A, B);
    3: (A, B, C);
    4: (A, B, C, D);
    5: (A, B, C, D, E);
    6: (A, B, C, D, E, F);
}

/// Key types of maps that serialize as JSON object keys.
#[diagnostic::on_unimplemented(message = "map keys must be strings in a JSON Schema, not `{Self}`")]
pub trait MapKey {}
impl MapKey for String {}

macro_rules! maps {
    ($($m:ident),*) => {$(
        impl<K: MapKey, V: JsonSchema> JsonSchema for $m<K, V> {
            fn json_schema(g: &mut SchemaGen) -> Value {
                json!({"type": "object", "additionalProperties": V::json_schema(g)})
            }
        }
    )*};
}
maps!(HashMap, BTreeMap);
