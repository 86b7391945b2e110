//! JSON Schema to Rust types: the subset that Rust types produce (schemars
//! style, draft 2020-12 with draft-07 and OpenAPI spellings accepted), and
//! `serde_json::Value` with a note for the rest.
//!
//! A [`Typer`] owns the type namespace of one generated module: it names
//! each struct, enum and alias once, reuses a type when the same name comes
//! with the same schema again, and boxes recursive fields.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::hint::Hint;
use crate::model::{push_paragraph, Item, ItemKind, Ty};
use crate::names::{pascal, Scope};
use crate::refs::{percent_decode, Roots};
use crate::shapes::{
    classify, declared_name, enum_branches, enum_values, int_type, is_null_schema, rust_type_name,
    Kind,
};

/// Type names the generated code uses unqualified, so no generated type may take them.
pub(crate) const RESERVED_TYPES: &[&str] = &[
    "Box",
    "Client",
    "Deserialize",
    "EndpointClient",
    "Option",
    "Serialize",
    "String",
    "TypedCall",
    "Vec",
];

/// The type namespace of one generated module, and the items made in it.
pub(crate) struct Typer<'a> {
    /// Items in the order they were started (a slot is filled when the item is done).
    items: Vec<Option<Item>>,
    /// How many items [`Typer::take_items`] has handed out.
    taken: usize,
    /// Each named type, with the schema and kind it was made from.
    named: BTreeMap<String, (&'a Value, Kind)>,
    /// Every type name in use (named types, params structs, reserved names).
    names: Scope,
    /// The types being built, outermost first, with their kinds.
    building: Vec<(String, Kind)>,
}

impl<'a> Typer<'a> {
    /// An empty namespace where only [`RESERVED_TYPES`] are taken.
    pub(crate) fn new() -> Typer<'a> {
        Typer {
            items: Vec::new(),
            taken: 0,
            named: BTreeMap::new(),
            names: Scope::with_reserved(RESERVED_TYPES),
            building: Vec::new(),
        }
    }

    /// The items finished since the last call, in the order they were started.
    pub(crate) fn take_items(&mut self) -> Vec<Item> {
        let items: Vec<Item> = self.items[self.taken..].iter().flatten().cloned().collect();
        self.taken = self.items.len();
        items
    }

    /// The kind of the finished item `name`, if there is one.
    pub(crate) fn item_kind(&self, name: &str) -> Option<&ItemKind> {
        self.items
            .iter()
            .flatten()
            .find(|i| i.name == name)
            .map(|i| &i.kind)
    }

    /// Claims a type name for an item that is not made from a schema (a params struct).
    pub(crate) fn claim_name(&mut self, base: &str) -> String {
        self.names.claim(base, "")
    }

    /// Starts an item made elsewhere (a params struct): it goes before the
    /// items started while it is being made. Returns its slot.
    pub(crate) fn start_item(&mut self) -> usize {
        self.items.push(None);
        self.items.len() - 1
    }

    /// Finishes the item started in `slot`.
    pub(crate) fn finish_item(&mut self, slot: usize, item: Item) {
        self.items[slot] = Some(item);
    }

    /// The Rust type of `schema`. An object or enum without a name of its own
    /// is named `hint`; what cannot be typed becomes `serde_json::Value` and a
    /// sentence in `notes`. Fails only on a `$ref` that does not resolve or a
    /// malformed schema.
    pub(crate) fn ty(
        &mut self,
        schema: &'a Value,
        roots: &Roots<'a>,
        hint: &Hint,
        notes: &mut Vec<String>,
    ) -> Result<Ty, String> {
        let o = match schema {
            Value::Bool(true) => return Ok(Ty::Value),
            Value::Bool(false) => {
                notes.push("Untyped: the schema allows no value at all.".to_string());
                return Ok(Ty::Value);
            }
            Value::Object(o) => o,
            _ => {
                return Err(format!(
                    "a schema must be an object or a boolean, not {schema}"
                ))
            }
        };
        let roots = roots.enter(schema);
        let ty = self.ty_object(schema, o, &roots, hint, notes)?;
        Ok(if o.get("nullable") == Some(&Value::Bool(true)) {
            option(ty)
        } else {
            ty
        })
    }

    fn ty_object(
        &mut self,
        schema: &'a Value,
        o: &'a Map<String, Value>,
        roots: &Roots<'a>,
        hint: &Hint,
        notes: &mut Vec<String>,
    ) -> Result<Ty, String> {
        if let Some(reference) = o.get("$ref") {
            let reference = reference.as_str().ok_or("\"$ref\" must be a string")?;
            return self.ty_ref(reference, roots, notes);
        }
        if let Some(all) = o.get("allOf") {
            let all = all.as_array().ok_or("\"allOf\" must be an array")?;
            if all.len() == 1 && !o.contains_key("type") && !o.contains_key("properties") {
                return self.ty(&all[0], roots, hint, notes);
            }
            notes.push("Untyped: `allOf` of several schemas is not generated.".to_string());
            return Ok(Ty::Value);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = o.get(key) {
                let branches = branches
                    .as_array()
                    .ok_or(format!("\"{key}\" must be an array"))?;
                return self.ty_union(schema, key, branches, roots, hint, notes);
            }
        }
        if o.contains_key("enum") || o.contains_key("const") {
            let values = enum_values(o);
            let nullable = values.iter().any(|v| v.is_null());
            if values.iter().any(|v| !v.is_null() && !v.is_string()) {
                notes.push("Untyped: an enum of values that are not all strings.".to_string());
                return Ok(Ty::Value);
            }
            if values.iter().all(|v| v.is_null()) {
                return Ok(Ty::Unit);
            }
            let ty = self.named_here(schema, roots, hint, Kind::Enum, notes)?;
            return Ok(if nullable { option(ty) } else { ty });
        }
        let types: Vec<&str> = match o.get("type") {
            None => Vec::new(),
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            Some(other) => {
                return Err(format!(
                    "\"type\" must be a string or an array, not {other}"
                ))
            }
        };
        let nullable = types.contains(&"null");
        let concrete: Vec<&str> = types.iter().copied().filter(|t| *t != "null").collect();
        // The one type the value has: given, or implied by the keywords.
        let name = match concrete.as_slice() {
            [] if nullable => return Ok(Ty::Unit),
            [] if o.contains_key("properties") || o.contains_key("additionalProperties") => {
                "object"
            }
            [] if o.contains_key("items") || o.contains_key("prefixItems") => "array",
            [] => return Ok(Ty::Value),
            [one] => *one,
            several => {
                notes.push(format!(
                    "Untyped: the value can be any of {}.",
                    several.join(", ")
                ));
                return Ok(if nullable {
                    option(Ty::Value)
                } else {
                    Ty::Value
                });
            }
        };
        let ty = match name {
            "string" => Ty::String,
            "boolean" => Ty::Bool,
            "number" => Ty::F64,
            "integer" => Ty::Int(int_type(o)),
            "object" if o.contains_key("properties") => {
                self.named_here(schema, roots, hint, Kind::Struct, notes)?
            }
            "object" => match o.get("additionalProperties") {
                Some(values @ Value::Object(_)) => {
                    Ty::Map(Box::new(self.ty(values, roots, &hint.value(), notes)?))
                }
                _ => Ty::Map(Box::new(Ty::Value)),
            },
            "array" => self.ty_array(o, roots, hint, notes)?,
            other => {
                notes.push(format!(
                    "Untyped: the schema has the unknown type \"{other}\"."
                ));
                Ty::Value
            }
        };
        Ok(if nullable { option(ty) } else { ty })
    }

    /// The named type a `$ref` leads to, named as its target names itself or
    /// after the reference's last segment.
    fn ty_ref(
        &mut self,
        reference: &str,
        roots: &Roots<'a>,
        notes: &mut Vec<String>,
    ) -> Result<Ty, String> {
        let (target, at) = roots
            .resolve(reference)
            .ok_or_else(|| format!("$ref \"{reference}\" does not resolve"))?;
        let last = reference.rsplit('/').next().unwrap_or(reference);
        let last = percent_decode(last).replace("~1", "/").replace("~0", "~");
        let base = rust_type_name(target).unwrap_or_else(|| pascal(&last, "T", "Type"));
        self.named(
            &base,
            None,
            target,
            &at.enter(target),
            classify(target),
            notes,
        )
    }

    fn ty_array(
        &mut self,
        o: &'a Map<String, Value>,
        roots: &Roots<'a>,
        hint: &Hint,
        notes: &mut Vec<String>,
    ) -> Result<Ty, String> {
        let tuple = match (o.get("prefixItems"), o.get("items")) {
            (Some(Value::Array(prefix)), None | Some(Value::Bool(false))) => Some(prefix),
            (None, Some(Value::Array(items))) => Some(items),
            (Some(_), _) => {
                notes.push("Untyped: an array with `prefixItems` and more items.".to_string());
                return Ok(Ty::Vec(Box::new(Ty::Value)));
            }
            _ => None,
        };
        if let Some(items) = tuple {
            let mut tys = Vec::new();
            for (i, item) in items.iter().enumerate() {
                tys.push(self.ty(item, roots, &hint.element(i + 1), notes)?);
            }
            return Ok(if tys.is_empty() {
                Ty::Vec(Box::new(Ty::Value))
            } else {
                Ty::Tuple(tys)
            });
        }
        Ok(match o.get("items") {
            Some(items) => Ty::Vec(Box::new(self.ty(items, roots, &hint.item(), notes)?)),
            None => Ty::Vec(Box::new(Ty::Value)),
        })
    }

    fn ty_union(
        &mut self,
        schema: &'a Value,
        key: &str,
        branches: &'a [Value],
        roots: &Roots<'a>,
        hint: &Hint,
        notes: &mut Vec<String>,
    ) -> Result<Ty, String> {
        let rest: Vec<&'a Value> = branches.iter().filter(|b| !is_null_schema(b)).collect();
        let nullable = rest.len() < branches.len();
        let is_enum = enum_branches(schema).is_some();
        let ty = if rest.is_empty() {
            return Ok(Ty::Unit);
        } else if rest.len() == 1 && (nullable || !is_enum) {
            self.ty(rest[0], roots, hint, notes)?
        } else if is_enum {
            self.named_here(schema, roots, hint, Kind::Enum, notes)?
        } else {
            notes.push(format!(
                "Untyped: `{key}` of several schemas is not generated."
            ));
            Ty::Value
        };
        Ok(if nullable { option(ty) } else { ty })
    }

    /// The struct or enum of an inline schema: named as the schema names
    /// itself, else after `hint`, whose phrase documents it when the schema
    /// has no description.
    fn named_here(
        &mut self,
        schema: &'a Value,
        roots: &Roots<'a>,
        hint: &Hint,
        kind: Kind,
        notes: &mut Vec<String>,
    ) -> Result<Ty, String> {
        let (base, doc) = match declared_name(schema) {
            Some(name) => (name, None),
            None => (hint.name.clone(), Some(hint.doc())),
        };
        self.named(&base, doc.as_deref(), schema, roots, kind, notes)
    }

    /// The named type `base` (or `base2`, … when the name is taken by another
    /// schema) made from `schema` as `kind`.
    fn named(
        &mut self,
        base: &str,
        fallback_doc: Option<&str>,
        schema: &'a Value,
        roots: &Roots<'a>,
        kind: Kind,
        notes: &mut Vec<String>,
    ) -> Result<Ty, String> {
        let mut n = 1;
        let name = loop {
            let candidate = if n == 1 {
                base.to_string()
            } else {
                format!("{base}{n}")
            };
            match self.named.get(&candidate) {
                Some((s, k)) if *s == schema && *k == kind => {
                    // An alias that reaches itself through aliases only would be
                    // infinite; through a struct or enum, that one boxes it.
                    let at = self.building.iter().position(|(b, _)| *b == candidate);
                    if let Some(at) = at.filter(|_| kind == Kind::Alias) {
                        if self.building[at + 1..]
                            .iter()
                            .all(|(_, k)| *k == Kind::Alias)
                        {
                            notes.push(format!("Untyped: `{candidate}` refers to itself."));
                            return Ok(Ty::Value);
                        }
                    }
                    return Ok(Ty::Named(candidate));
                }
                None if !self.names.is_taken(&candidate) => break self.names.claim(&candidate, ""),
                _ => n += 1,
            }
        };
        self.named.insert(name.clone(), (schema, kind));
        self.building.push((name.clone(), kind));
        let slot = self.items.len();
        self.items.push(None);
        let mut doc = Vec::new();
        match schema.get("description").and_then(Value::as_str) {
            Some(d) => push_paragraph(&mut doc, d),
            None => push_paragraph(&mut doc, fallback_doc.unwrap_or("")),
        }
        let made = match kind {
            Kind::Struct => self
                .struct_fields(&name, schema, roots)
                .map(ItemKind::Struct),
            Kind::Enum => self.variants(&name, schema, roots).map(ItemKind::Enum),
            Kind::Alias => {
                let mut alias_notes = Vec::new();
                let inner = Hint {
                    name: format!("{name}Inner"),
                    what: format!("the value of `{name}`"),
                };
                let ty = self.ty(schema, roots, &inner, &mut alias_notes);
                for note in alias_notes {
                    push_paragraph(&mut doc, &note);
                }
                ty.map(|t| ItemKind::Alias(self.box_recursive(t)))
            }
        };
        self.building.pop();
        self.items[slot] = Some(Item {
            name: name.clone(),
            doc,
            kind: made?,
        });
        Ok(Ty::Named(name))
    }

    /// `ty` with a `Box` around each type under construction that it holds
    /// by value (not through a `Vec` or a map), so that no type contains itself.
    pub(crate) fn box_recursive(&self, ty: Ty) -> Ty {
        match ty {
            Ty::Named(n) if self.building.iter().any(|(b, _)| *b == n) => {
                Ty::Boxed(Box::new(Ty::Named(n)))
            }
            Ty::Option(t) => Ty::Option(Box::new(self.box_recursive(*t))),
            Ty::Tuple(ts) => Ty::Tuple(ts.into_iter().map(|t| self.box_recursive(t)).collect()),
            other => other,
        }
    }
}

/// `Option<ty>`, unless `ty` already is an `Option`.
pub(crate) fn option(ty: Ty) -> Ty {
    if ty.is_option() {
        ty
    } else {
        Ty::Option(Box::new(ty))
    }
}
