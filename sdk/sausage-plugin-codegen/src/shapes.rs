//! Questions about one schema: what a named schema becomes, its enum
//! values, its declared Rust name, the integer type for its bounds.

use serde_json::{Map, Value};

use crate::names::{is_ident, pascal};

/// What a named schema becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A struct: an object schema with `properties`.
    Struct,
    /// An enum: strings from a fixed set, or serde's externally tagged form.
    Enum,
    /// `type Name = …;`: anything else.
    Alias,
}

/// What a named schema becomes: a struct, an enum, or an alias.
pub(crate) fn classify(schema: &Value) -> Kind {
    let Some(o) = schema.as_object() else {
        return Kind::Alias;
    };
    let ty = o.get("type");
    if o.contains_key("$ref") || o.get("nullable") == Some(&Value::Bool(true)) {
        Kind::Alias
    } else if o.contains_key("properties")
        && ty.is_none_or(|t| t == "object")
        && !["anyOf", "oneOf", "allOf", "enum", "const"]
            .iter()
            .any(|k| o.contains_key(*k))
    {
        Kind::Struct
    } else if enum_branches(schema).is_some() && !allows_null(o) {
        Kind::Enum
    } else {
        Kind::Alias
    }
}

/// True when an enum or union schema allows `null` besides its variants.
fn allows_null(o: &Map<String, Value>) -> bool {
    let null_type = match o.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "null"),
        _ => false,
    };
    let null_value = enum_values(o).iter().any(Value::is_null);
    let null_branch = ["oneOf", "anyOf"]
        .iter()
        .filter_map(|k| o.get(*k)?.as_array())
        .any(|bs| bs.iter().any(is_null_schema));
    null_type || null_value || null_branch
}

/// One variant of an enum schema.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Branch<'a> {
    /// The JSON name: the string of a unit variant, the key of a data variant.
    pub(crate) json: &'a str,
    /// Its description.
    pub(crate) doc: Option<&'a str>,
    /// The schema of a data variant's content (`{"Circle": <content>}`).
    pub(crate) content: Option<&'a Value>,
}

/// The variants of a schema that is a Rust enum in serde's default
/// (externally tagged) form: the strings of `enum`/`const`, or `oneOf`/`anyOf`
/// branches that are each a string `const` (a unit variant) or an object with
/// exactly one required property (a data variant). `null` values and branches
/// are left out. `None` for any other schema.
pub(crate) fn enum_branches(schema: &Value) -> Option<Vec<Branch<'_>>> {
    let o = schema.as_object()?;
    let mut out = Vec::new();
    if o.contains_key("enum") || o.contains_key("const") {
        let values: Vec<&Value> = match (o.get("enum"), o.get("const")) {
            (Some(Value::Array(values)), _) => values.iter().collect(),
            (_, Some(value)) => vec![value],
            _ => return None,
        };
        for v in values {
            match v {
                Value::String(s) => out.push(Branch {
                    json: s,
                    doc: None,
                    content: None,
                }),
                Value::Null => {}
                _ => return None,
            }
        }
    } else {
        let branches = o.get("oneOf").or_else(|| o.get("anyOf"))?.as_array()?;
        for b in branches {
            let doc = b.get("description").and_then(Value::as_str);
            if is_null_schema(b) {
                continue;
            } else if let Some(s) = string_const(b) {
                out.push(Branch {
                    json: s,
                    doc,
                    content: None,
                });
            } else if let Some((key, content)) = wrapped(b) {
                out.push(Branch {
                    json: key,
                    doc,
                    content: Some(content),
                });
            } else {
                return None;
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// `(key, content)` of `{"type": "object", "properties": {key: content},
/// "required": [key]}` (serde's wrapper of an externally tagged variant).
fn wrapped(schema: &Value) -> Option<(&str, &Value)> {
    let o = schema.as_object()?;
    let known = [
        "type",
        "properties",
        "required",
        "additionalProperties",
        "description",
        "title",
    ];
    if o.keys().any(|k| !known.contains(&k.as_str()))
        || o.get("type").is_some_and(|t| t != "object")
    {
        return None;
    }
    let props = o.get("properties")?.as_object()?;
    let (key, content) = props.iter().next().filter(|_| props.len() == 1)?;
    let required = o.get("required")?.as_array()?;
    (required.len() == 1 && required[0] == *key).then_some((key.as_str(), content))
}

/// The values of `enum`, or the one of `const`.
pub(crate) fn enum_values(o: &Map<String, Value>) -> Vec<Value> {
    match (o.get("enum"), o.get("const")) {
        (Some(Value::Array(values)), _) => values.clone(),
        (_, Some(value)) => vec![value.clone()],
        _ => Vec::new(),
    }
}

/// The string a schema allows when it allows exactly one (`const` or a one-value `enum`).
pub(crate) fn string_const(schema: &Value) -> Option<&str> {
    match (schema.get("const"), schema.get("enum")) {
        (Some(Value::String(s)), _) => Some(s),
        (_, Some(Value::Array(values))) if values.len() == 1 => values[0].as_str(),
        _ => None,
    }
}

/// True for `{"type": "null"}` (and `{"const": null}`, `{"enum": [null]}`).
pub(crate) fn is_null_schema(schema: &Value) -> bool {
    schema.get("type") == Some(&Value::String("null".into()))
        || schema.get("const") == Some(&Value::Null)
        || schema.get("enum") == Some(&Value::Array(vec![Value::Null]))
}

/// The name in a schema's `x-rust-type`: a Rust path (`notes::AddParams`,
/// generics dropped) or typify's `{"path": …}`; its last segment.
pub(crate) fn rust_type_name(schema: &Value) -> Option<String> {
    let path = match schema.get("x-rust-type")? {
        Value::String(path) => path.as_str(),
        Value::Object(o) => o.get("path")?.as_str()?,
        _ => return None,
    };
    Some(path_type_name(path))
}

/// The type name in a Rust path: its last segment, generics dropped
/// (`crate::model::Chosen<T>` → `Chosen`).
pub(crate) fn path_type_name(path: &str) -> String {
    let path = path.split('<').next().unwrap_or(path);
    let last = path.rsplit("::").next().unwrap_or(path);
    pascal(last, "T", "Type")
}

/// The Rust name a schema gives itself: `x-rust-type` (a path or
/// `{"path": …}`; its last segment), else a `title` that is a type name.
pub(crate) fn declared_name(schema: &Value) -> Option<String> {
    if let Some(name) = rust_type_name(schema) {
        return Some(name);
    }
    match schema.get("title") {
        Some(Value::String(t))
            if is_ident(t) && t.starts_with(|c: char| c.is_ascii_uppercase()) =>
        {
            Some(t.clone())
        }
        _ => None,
    }
}

/// The smallest Rust integer type for an integer schema's bounds
/// (`minimum`/`maximum`, `exclusiveMinimum`/`exclusiveMaximum`, and the
/// bounds that schemars' `format`s imply): `0..=65535` is `u16`, an
/// unbounded non-negative integer `u64`, anything else signed up to `i64`.
pub(crate) fn int_type(o: &Map<String, Value>) -> &'static str {
    let num = |k: &str| o.get(k).and_then(Value::as_f64);
    let mut min = num("minimum").map(f64::ceil);
    let mut max = num("maximum").map(f64::floor);
    if let Some(m) = num("exclusiveMinimum") {
        min = Some(min.map_or(m.floor() + 1.0, |x| x.max(m.floor() + 1.0)));
    }
    if let Some(m) = num("exclusiveMaximum") {
        max = Some(max.map_or(m.ceil() - 1.0, |x| x.min(m.ceil() - 1.0)));
    }
    let (fmin, fmax): (Option<f64>, Option<f64>) = match o.get("format").and_then(Value::as_str) {
        Some("uint8") => (Some(0.0), Some(255.0)),
        Some("uint16") => (Some(0.0), Some(65535.0)),
        Some("uint32") => (Some(0.0), Some(4294967295.0)),
        Some("uint64" | "uint") => (Some(0.0), None),
        Some("int8") => (Some(-128.0), Some(127.0)),
        Some("int16") => (Some(-32768.0), Some(32767.0)),
        Some("int32") => (Some(-2147483648.0), Some(2147483647.0)),
        _ => (None, None),
    };
    let min = match (min, fmin) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    let max = match (max, fmax) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    match (min, max) {
        (Some(lo), hi) if lo >= 0.0 => match hi {
            Some(hi) if hi <= 255.0 => "u8",
            Some(hi) if hi <= 65535.0 => "u16",
            Some(hi) if hi <= 4294967295.0 => "u32",
            _ => "u64",
        },
        (Some(lo), Some(hi)) if lo >= -128.0 && hi <= 127.0 => "i8",
        (Some(lo), Some(hi)) if lo >= -32768.0 && hi <= 32767.0 => "i16",
        (Some(lo), Some(hi)) if lo >= -2147483648.0 && hi <= 2147483647.0 => "i32",
        _ => "i64",
    }
}
