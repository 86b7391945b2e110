//! Enums: the schema of each variant as serde writes it (externally,
//! internally or adjacently tagged, or untagged), and of the whole enum.

use serde_json::{json, Value};

use super::{describe, field, object, FieldDoc};

/// The schema of an enum from the schemas of its variants: unit variants
/// only (`{"const": ...}` without descriptions) become `{"type": "string",
/// "enum": [...]}`; anything else is `oneOf`.
pub fn enum_schema(description: &str, variants: Vec<Value>) -> Value {
    let plain_strings: Option<Vec<Value>> = variants
        .iter()
        .map(|v| {
            let map = v.as_object()?;
            let c = map.get("const").filter(|c| c.is_string())?;
            (map.len() == 2 && map.get("type") == Some(&json!("string"))).then(|| c.clone())
        })
        .collect();
    let schema = match plain_strings {
        Some(names) if !names.is_empty() => json!({"type": "string", "enum": names}),
        _ => json!({"oneOf": variants}),
    };
    describe(schema, description)
}

/// How serde writes an enum (its `tag`, `content` and `untagged` attributes).
pub enum EnumRepr {
    /// The default: `"Unit"`, `{"Variant": ...}`.
    External,
    /// `#[serde(tag = "t")]`: `{"t": "Variant", ...fields}`.
    Internal(&'static str),
    /// `#[serde(tag = "t", content = "c")]`: `{"t": "Variant", "c": ...}`.
    Adjacent(&'static str, &'static str),
    /// `#[serde(untagged)]`: the variant's content alone.
    Untagged,
}

fn tag_object(tag: &str, name: &str) -> Value {
    json!({"type": "object", "properties": {tag: {"type": "string", "const": name}}, "required": [tag]})
}

fn wrapped(name: &str, content: Value) -> Value {
    json!({"type": "object", "properties": {name: content}, "required": [name], "additionalProperties": false})
}

/// The schema of a unit variant.
pub fn variant_unit(repr: &EnumRepr, name: &str, description: &str) -> Value {
    let schema = match repr {
        EnumRepr::External => json!({"type": "string", "const": name}),
        EnumRepr::Internal(tag) | EnumRepr::Adjacent(tag, _) => tag_object(tag, name),
        EnumRepr::Untagged => json!({"type": "null"}),
    };
    describe(schema, description)
}

/// The schema of a newtype variant (`Variant(T)`) with `content` the schema of `T`.
pub fn variant_newtype(repr: &EnumRepr, name: &str, description: &str, content: Value) -> Value {
    let schema = match repr {
        EnumRepr::External => wrapped(name, content),
        EnumRepr::Internal(tag) => json!({"allOf": [tag_object(tag, name), content]}),
        EnumRepr::Adjacent(tag, c) => json!({
            "type": "object",
            "properties": {*tag: {"type": "string", "const": name}, *c: content},
            "required": [tag, c],
        }),
        EnumRepr::Untagged => content,
    };
    describe(schema, description)
}

/// The schema of a struct variant (`Variant { fields }`).
pub fn variant_struct(
    repr: &EnumRepr,
    name: &str,
    description: &str,
    fields: Vec<FieldDoc>,
    deny_unknown_fields: bool,
) -> Value {
    let schema = match repr {
        EnumRepr::Internal(tag) => {
            let mut all = vec![field(tag, "", false, json!({"type": "string", "const": name}))];
            all.extend(fields);
            object("", all, deny_unknown_fields)
        }
        other => variant_newtype(other, name, "", object("", fields, deny_unknown_fields)),
    };
    describe(schema, description)
}
