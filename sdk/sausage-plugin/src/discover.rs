//! The `rpc.discover` document (section 10.1): OpenRPC 1.2.6, generated from
//! the code and its doc comments.
//!
//! Each method object has `name`, `summary` (the first paragraph of its doc
//! comment), `description` (the rest, when there is a rest),
//! `paramStructure: "by-name"`, `params` (one content descriptor per field
//! of the params struct: `name`, `description`, `required`, `schema`) and
//! `result` (`name`, `schema`). Schemas stand alone: each carries the
//! `$defs` it refers to, named after the Rust types. A method with a params
//! struct also has `x-sausage-params: {name, description}`: the Rust name
//! and doc comment of that struct, for generated clients.
//!
//! The document has two extension fields: `x-sausage-endpoints` (interface
//! name → `{methods}`) and `x-sausage-imports` (provider → the part of its
//! interface that this plugin uses, from `imports/<provider>.json`).

use serde_json::{json, Map, Value};

use crate::interface::{Interface, ParamsStruct};
use crate::schema::{JsonSchema, SchemaGen};

/// The params of a method, as OpenRPC content descriptors.
pub struct ParamsDoc {
    params: Vec<Value>,
    /// `x-sausage-params`.
    params_struct: Option<Value>,
}

/// A method without params.
pub fn no_params() -> ParamsDoc {
    ParamsDoc { params: Vec::new(), params_struct: None }
}

/// The params of a method that takes `P`: one per field of `P`.
pub fn params_of<P: ParamsStruct>() -> ParamsDoc {
    let mut g = SchemaGen::new();
    let fields = P::__fields(&mut g);
    let params = fields
        .into_iter()
        .map(|f| {
            let mut p =
                json!({"name": f.name, "required": f.required, "schema": g.standalone(f.schema)});
            if !f.description.is_empty() {
                p["description"] = json!(f.description);
            }
            p
        })
        .collect();
    ParamsDoc {
        params,
        params_struct: Some(json!({"name": P::__NAME, "description": P::__DESCRIPTION})),
    }
}

/// The result content descriptor of a method that returns `T`. Its name is
/// the snake_case name of a named type (`Added` → `added`), else `result`.
pub fn result_of<T: JsonSchema + ?Sized>() -> Value {
    let mut g = SchemaGen::new();
    let schema = T::json_schema(&mut g);
    let name = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .map(snake_case)
        .unwrap_or_else(|| "result".to_string());
    json!({"name": name, "schema": g.standalone(schema)})
}

fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// One OpenRPC method object.
pub fn method_doc(
    name: &str,
    summary: &str,
    description: &str,
    params: ParamsDoc,
    result: Value,
) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), json!(name));
    if !summary.is_empty() {
        m.insert("summary".into(), json!(summary));
    }
    if !description.is_empty() {
        m.insert("description".into(), json!(description));
    }
    m.insert("paramStructure".into(), json!("by-name"));
    m.insert("params".into(), Value::Array(params.params));
    m.insert("result".into(), result);
    if let Some(s) = params.params_struct {
        m.insert("x-sausage-params".into(), s);
    }
    Value::Object(m)
}

/// The whole `rpc.discover` document of interface `T`.
pub fn document<T: Interface>() -> Value {
    let info = T::__info();
    let mut info_obj = json!({"title": info.title, "version": info.version});
    if !info.description.is_empty() {
        info_obj["description"] = json!(info.description);
    }
    let endpoints: Map<String, Value> = T::__endpoints()
        .into_iter()
        .map(|(name, methods)| (name.to_string(), json!({"methods": methods})))
        .collect();
    json!({
        "openrpc": "1.2.6",
        "info": info_obj,
        "methods": T::__methods(),
        "x-sausage-endpoints": endpoints,
        "x-sausage-imports": T::__imports(),
    })
}
