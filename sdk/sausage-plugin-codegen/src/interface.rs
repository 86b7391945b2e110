//! One interface (the main one, or an endpoint's) from its OpenRPC method
//! objects: a call function per method, with its params struct and the types
//! that its params and result need.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::hint::Hint;
use crate::model::{push_paragraph, Function, Item, ItemKind, Ty};
use crate::names::{pascal, value_ident, Scope};
use crate::refs::Roots;
use crate::schema::Typer;
use crate::shapes::{declared_name, path_type_name, rust_type_name};

/// A method's call function and the type items that came with it (in the
/// order they should be printed: its params struct first).
#[derive(Debug)]
pub(crate) struct Entry {
    /// The call function.
    pub(crate) function: Function,
    /// The types this method introduced.
    pub(crate) items: Vec<Item>,
}

/// Builds one interface.
///
/// `wire_prefix` is `Some("notes")` for the main interface (calls go to
/// `notes.<method>` through the core) and `None` for an endpoint (calls go to
/// `<method>` on the connection). `reserved_fns` are function names the module
/// already uses.
pub(crate) fn build_interface<'a>(
    doc: &'a Value,
    methods: &'a Value,
    wire_prefix: Option<&str>,
    reserved_fns: &[&str],
    typer: &mut Typer<'a>,
) -> Result<Vec<Entry>, String> {
    let methods = methods.as_array().ok_or("\"methods\" must be an array")?;
    let mut fns = Scope::with_reserved(reserved_fns);
    let mut seen = BTreeSet::new();
    let mut entries = Vec::new();
    for (i, method) in methods.iter().enumerate() {
        let method = deref(doc, method).map_err(|e| format!("methods[{i}]: {e}"))?;
        let name = method
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("methods[{i}] has no \"name\""))?;
        if !seen.insert(name) {
            return Err(format!("method \"{name}\" is described twice"));
        }
        let function = build_method(doc, method, name, wire_prefix, &mut fns, typer)
            .map_err(|e| format!("method \"{name}\": {e}"))?;
        entries.push(Entry {
            function,
            items: typer.take_items(),
        });
    }
    Ok(entries)
}

fn build_method<'a>(
    doc: &'a Value,
    method: &'a Value,
    name: &str,
    wire_prefix: Option<&str>,
    fns: &mut Scope,
    typer: &mut Typer<'a>,
) -> Result<Function, String> {
    if method.get("paramStructure").and_then(Value::as_str) == Some("by-position") {
        return Err(
            "params \"by-position\" are not supported: Sausage sends params by name".to_string(),
        );
    }
    let ident = fns.claim(&value_ident(name), "_");
    let params = build_params(doc, method, name, typer)?;

    let mut notes = Vec::new();
    let result = match method.get("result") {
        None => {
            notes.push("Untyped: the method describes no result.".to_string());
            Ty::Value
        }
        Some(result) => {
            let result = deref(doc, result).map_err(|e| format!("result: {e}"))?;
            let schema = result.get("schema").unwrap_or(&Value::Bool(true));
            let hint = Hint::result(name);
            typer
                .ty(schema, &Roots::new(doc), &hint, &mut notes)
                .map_err(|e| format!("result: {e}"))?
        }
    };

    let summary = method.get("summary").and_then(Value::as_str);
    let description = method.get("description").and_then(Value::as_str);
    let mut fn_doc = Vec::new();
    match (summary, description) {
        (Some(s), Some(d)) if d.trim_start().starts_with(s.trim()) => {
            push_paragraph(&mut fn_doc, d)
        }
        (s, d) => {
            push_paragraph(&mut fn_doc, s.unwrap_or(""));
            push_paragraph(&mut fn_doc, d.unwrap_or(""));
        }
    }
    for note in notes {
        push_paragraph(&mut fn_doc, &note);
    }
    Ok(Function {
        ident,
        wire: match wire_prefix {
            Some(prefix) => format!("{prefix}.{name}"),
            None => name.to_string(),
        },
        doc: fn_doc,
        params,
        result,
        deprecated: method.get("deprecated") == Some(&Value::Bool(true)),
    })
}

/// The params struct of a method, `None` when it has no params. Its name is
/// the one `x-sausage-params` gives (its `x-rust-type`, `name`, `$ref` or
/// `title`), else `<Method>Params`; its fields are the `params` content
/// descriptors, in their order.
fn build_params<'a>(
    doc: &'a Value,
    method: &'a Value,
    name: &str,
    typer: &mut Typer<'a>,
) -> Result<Option<String>, String> {
    let list = match method.get("params") {
        None => return Ok(None),
        Some(Value::Array(list)) if list.is_empty() => return Ok(None),
        Some(Value::Array(list)) => list,
        Some(_) => return Err("\"params\" must be an array".to_string()),
    };
    let mut roots = Roots::new(doc);
    let mut base = None;
    let mut struct_doc = Vec::new();
    if let Some(declared) = method.get("x-sausage-params") {
        let (schema, ref_name) = match declared.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let (target, _) = roots
                    .resolve(r)
                    .ok_or_else(|| format!("x-sausage-params: $ref \"{r}\" does not resolve"))?;
                (target, r.rsplit('/').next().map(|n| pascal(n, "T", "Type")))
            }
            None => (declared, None),
        };
        roots = roots.enter(schema);
        let given = schema.get("name").and_then(Value::as_str);
        base = rust_type_name(schema)
            .or_else(|| given.map(path_type_name))
            .or(ref_name)
            .or_else(|| declared_name(schema));
        if let Some(d) = declared
            .get("description")
            .or_else(|| schema.get("description"))
        {
            push_paragraph(&mut struct_doc, d.as_str().unwrap_or(""));
        }
    }
    let struct_name =
        typer.claim_name(&base.unwrap_or_else(|| format!("{}Params", pascal(name, "T", "Method"))));
    if struct_doc.is_empty() {
        struct_doc.push(format!("The params of `{name}`."));
    }
    let slot = typer.start_item();
    let mut scope = Scope::default();
    let mut fields = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, param) in list.iter().enumerate() {
        let param = deref(doc, param).map_err(|e| format!("params[{i}]: {e}"))?;
        let json = param
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("params[{i}] has no \"name\""))?;
        if !seen.insert(json) {
            return Err(format!("param \"{json}\" is described twice"));
        }
        let schema = param.get("schema").unwrap_or(&Value::Bool(true));
        let hint = Hint::field(&struct_name, json);
        let mut notes = Vec::new();
        let ty = typer
            .ty(schema, &roots, &hint, &mut notes)
            .map_err(|e| format!("param \"{json}\": {e}"))?;
        let required = param.get("required") == Some(&Value::Bool(true));
        let description = param
            .get("description")
            .or_else(|| param.get("summary"))
            .and_then(Value::as_str);
        let mut f = typer.field(&mut scope, json, ty, required, description, notes);
        if param.get("deprecated") == Some(&Value::Bool(true)) {
            push_paragraph(&mut f.doc, "Deprecated.");
        }
        fields.push(f);
    }
    typer.finish_item(
        slot,
        Item {
            name: struct_name.clone(),
            doc: struct_doc,
            kind: ItemKind::Struct(fields),
        },
    );
    Ok(Some(struct_name))
}

/// A method object or content descriptor, or what its `$ref` points to in the document.
fn deref<'a>(doc: &'a Value, value: &'a Value) -> Result<&'a Value, String> {
    let mut value = value;
    for _ in 0..8 {
        match value.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                value = r
                    .strip_prefix('#')
                    .and_then(|p| doc.pointer(p))
                    .ok_or_else(|| format!("$ref \"{r}\" does not resolve"))?;
            }
            None if value.is_object() => return Ok(value),
            None => return Err(format!("expected an object, not {value}")),
        }
    }
    Err("$ref chain too long".to_string())
}
