//! JSON Schema from Rust types, for `rpc.discover` (section 10).
//!
//! [`JsonSchema`] gives the schema of a type. `#[schema]` implements it for
//! structs and enums; this module implements it for the standard types. The
//! schemas use a small subset of JSON Schema (2020-12), the same shape that
//! `schemars` writes, so that the interface check and the client generator
//! can read them:
//!
//! | Rust | schema |
//! | --- | --- |
//! | `bool` | `{"type": "boolean"}` |
//! | `u8` … `i64`, `usize`, `isize` | `{"type": "integer", "minimum": MIN, "maximum": MAX}` (`u16`: 0 to 65535) |
//! | `f32`, `f64` | `{"type": "number"}` |
//! | `String`, `str`, `PathBuf` | `{"type": "string"}`; `char` adds `minLength`/`maxLength` 1 |
//! | `()` | `{"type": "null"}` |
//! | `Option<T>` | T plus `null`: `{"type": ["string", "null"]}`, or `{"anyOf": [T, {"type": "null"}]}`; not `required` as a field |
//! | `Vec<T>`, `VecDeque<T>`, `[T]` | `{"type": "array", "items": T}`; `[T; N]` adds `minItems`/`maxItems` N; sets add `uniqueItems` |
//! | `(A, B, …)` (up to 6) | `{"type": "array", "prefixItems": [A, B, …], "items": false, "minItems": n, "maxItems": n}` |
//! | `HashMap<String, V>`, `BTreeMap<String, V>` | `{"type": "object", "additionalProperties": V}` |
//! | `Box<T>`, `Rc<T>`, `Arc<T>`, `&T` | T |
//! | `serde_json::Value` | `{}` (anything) |
//! | a `#[schema]` struct or enum | `{"$ref": "#/$defs/<Rust name>"}`, its schema in `$defs` |
//!
//! A `#[schema]` struct with named fields is `{"type": "object",
//! "description", "properties", "required"}` (fields that are not `Option`
//! and have no `#[serde(default)]` are required); a newtype struct is the
//! schema of its field; a unit struct is `null`. An enum follows serde's
//! representation: unit variants only → `{"type": "string", "enum": [...]}`
//! (or `oneOf` of `const`s when the variants have docs); externally tagged
//! → `oneOf` of `{"type": "object", "properties": {"Variant": ...},
//! "required": ["Variant"], "additionalProperties": false}` and string
//! `const`s; `tag`, `tag` + `content` and `untagged` as serde writes them.
//! Doc comments become `description`s; a field's description sits next to
//! its `$ref`.
//!
//! A schema that stands alone (a param, a result) carries the definitions
//! it refers to in `$defs`.

use std::any::TypeId;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::{json, Map, Value};

/// A type with a JSON Schema. `#[schema]` implements it; so does this crate
/// for the standard types (see the [module docs](self)).
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no JSON Schema",
    label = "this type is not a #[schema] type",
    note = "put #[schema] on the type, or use String, bool, numbers, Option, Vec, tuples, maps with String keys or serde_json::Value"
)]
pub trait JsonSchema {
    /// The schema of the type. A named type adds its definition to `g` and
    /// returns a `$ref` to it.
    fn json_schema(g: &mut SchemaGen) -> Value;

    /// True for `Option<T>`: a field of this type is not required.
    #[doc(hidden)]
    const __OPTIONAL: bool = false;
}

/// Collects the definitions (`$defs`) of the named types that a schema uses.
#[derive(Default)]
pub struct SchemaGen {
    defs: BTreeMap<String, Value>,
    names: HashMap<TypeId, String>,
}

/// `{"$ref": "#/$defs/<name>"}`.
fn reference(name: &str) -> Value {
    json!({"$ref": format!("#/$defs/{name}")})
}

impl SchemaGen {
    /// A generator without definitions.
    pub fn new() -> Self {
        Self::default()
    }

    /// The schema of the named type `T`: `body` makes its definition (once;
    /// recursive types work), the result is a `$ref` to it. Two different
    /// types with the same name get `Name`, `Name2`, ….
    pub fn named<T: ?Sized + 'static>(
        &mut self,
        name: &str,
        body: impl FnOnce(&mut SchemaGen) -> Value,
    ) -> Value {
        let id = TypeId::of::<T>();
        if let Some(known) = self.names.get(&id) {
            return reference(known);
        }
        let mut unique = name.to_string();
        let mut n = 2;
        while self.defs.contains_key(&unique) {
            unique = format!("{name}{n}");
            n += 1;
        }
        self.names.insert(id, unique.clone());
        self.defs.insert(unique.clone(), Value::Bool(true));
        let schema = body(self);
        self.defs.insert(unique.clone(), schema);
        reference(&unique)
    }

    /// The definitions collected so far.
    pub fn defs(&self) -> &BTreeMap<String, Value> {
        &self.defs
    }

    /// `schema` with the collected definitions in `$defs`, so that it stands alone.
    pub fn finish(self, schema: Value) -> Value {
        self.standalone(schema)
    }

    /// `schema` with the definitions it refers to (directly or through other
    /// definitions) in `$defs`, so that it stands alone.
    pub fn standalone(&self, mut schema: Value) -> Value {
        let mut needed = BTreeSet::new();
        let mut todo = Vec::new();
        collect_refs(&schema, &mut todo);
        while let Some(name) = todo.pop() {
            if let Some(def) = self.defs.get(&name) {
                if needed.insert(name) {
                    collect_refs(def, &mut todo);
                }
            }
        }
        if !needed.is_empty() {
            if let Value::Object(map) = &mut schema {
                let defs: Map<String, Value> =
                    needed.into_iter().map(|n| (n.clone(), self.defs[&n].clone())).collect();
                map.insert("$defs".into(), Value::Object(defs));
            }
        }
        schema
    }
}

/// The names of the definitions that `schema` refers to with `#/$defs/<name>`.
fn collect_refs(schema: &Value, out: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            for (k, v) in map {
                match (k.as_str(), v) {
                    ("$ref", Value::String(r)) => {
                        if let Some(name) = r.strip_prefix("#/$defs/") {
                            out.push(name.to_string());
                        }
                    }
                    _ => collect_refs(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

/// The schema of `T`, standing alone (with its `$defs`).
pub fn schema_for<T: JsonSchema + ?Sized>() -> Value {
    let mut g = SchemaGen::new();
    let schema = T::json_schema(&mut g);
    g.finish(schema)
}

/// Adds a description to a schema (nothing when it is empty).
pub fn describe(mut schema: Value, description: &str) -> Value {
    if !description.is_empty() {
        if let Value::Object(map) = &mut schema {
            map.insert("description".into(), Value::String(description.to_string()));
        }
    }
    schema
}

/// A schema that also allows `null`.
pub fn nullable(schema: Value) -> Value {
    let Value::Object(mut map) = schema else {
        return schema;
    };
    if map.is_empty() {
        return Value::Object(map); // anything, null included
    }
    let simple =
        !["enum", "const", "$ref", "oneOf", "anyOf", "allOf"].iter().any(|k| map.contains_key(*k));
    match map.get_mut("type") {
        Some(Value::String(t)) if simple => {
            let t = std::mem::take(t);
            if t != "null" {
                map.insert("type".into(), json!([t, "null"]));
            }
            Value::Object(map)
        }
        Some(Value::Array(types)) if simple => {
            if !types.iter().any(|t| t == "null") {
                types.push(json!("null"));
            }
            Value::Object(map)
        }
        _ => json!({"anyOf": [Value::Object(map), {"type": "null"}]}),
    }
}

/// One property of an object schema.
pub struct FieldDoc {
    /// The JSON name of the field.
    pub name: String,
    /// Its doc comment.
    pub description: String,
    /// False for `Option` fields and fields with a default.
    pub required: bool,
    /// Its schema (without the description).
    pub schema: Value,
}

/// A field of an object schema.
pub fn field(name: &str, description: &str, optional: bool, schema: Value) -> FieldDoc {
    FieldDoc {
        name: name.to_string(),
        description: description.to_string(),
        required: !optional,
        schema,
    }
}

/// `{"type": "object", "description", "properties", "required"}`.
pub fn object(description: &str, fields: Vec<FieldDoc>, deny_unknown_fields: bool) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for f in fields {
        if f.required {
            required.push(Value::String(f.name.clone()));
        }
        properties.insert(f.name, describe(f.schema, &f.description));
    }
    let mut schema = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        schema["required"] = Value::Array(required);
    }
    if deny_unknown_fields {
        schema["additionalProperties"] = json!(false);
    }
    describe(schema, description)
}

mod enums;
mod std_types;

pub use enums::{enum_schema, variant_newtype, variant_struct, variant_unit, EnumRepr};
pub use std_types::MapKey;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primitives_have_ranges() {
        assert_eq!(schema_for::<u16>(), json!({"type": "integer", "minimum": 0, "maximum": 65535}));
        assert_eq!(schema_for::<i8>(), json!({"type": "integer", "minimum": -128, "maximum": 127}));
        assert_eq!(
            schema_for::<Vec<String>>(),
            json!({"type": "array", "items": {"type": "string"}})
        );
        assert_eq!(schema_for::<Option<bool>>(), json!({"type": ["boolean", "null"]}));
        assert_eq!(
            schema_for::<BTreeMap<String, f64>>(),
            json!({"type": "object", "additionalProperties": {"type": "number"}})
        );
    }

    #[test]
    fn named_types_go_to_defs_once() {
        struct A;
        impl JsonSchema for A {
            fn json_schema(g: &mut SchemaGen) -> Value {
                g.named::<A>("A", |g| {
                    object(
                        "An A.",
                        vec![field("next", "The next.", true, Option::<Box<A>>::json_schema(g))],
                        false,
                    )
                })
            }
        }
        let s = schema_for::<Vec<A>>();
        assert_eq!(s["items"], json!({"$ref": "#/$defs/A"}));
        assert_eq!(
            s["$defs"]["A"]["properties"]["next"],
            json!({"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}], "description": "The next."})
        );
        assert_eq!(s["$defs"]["A"].get("required"), None);
    }

    #[test]
    fn enums_of_unit_variants_are_string_enums() {
        let s = enum_schema(
            "A color.",
            vec![
                json!({"type": "string", "const": "red"}),
                json!({"type": "string", "const": "blue"}),
            ],
        );
        assert_eq!(
            s,
            json!({"type": "string", "enum": ["red", "blue"], "description": "A color."})
        );
        let s =
            enum_schema("", vec![json!({"type": "string", "const": "red", "description": "Red."})]);
        assert_eq!(
            s,
            json!({"oneOf": [{"type": "string", "const": "red", "description": "Red."}]})
        );
    }
}
