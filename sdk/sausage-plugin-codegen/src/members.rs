//! The members of generated types: the fields of a struct (from an object
//! schema's `properties`, or from a method's params) and the variants of an
//! enum.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::hint::Hint;
use crate::model::{doc_lines, push_paragraph, Field, ItemKind, Ty, Variant};
use crate::names::{pascal, value_ident, Scope};
use crate::refs::Roots;
use crate::schema::{option, Typer};
use crate::shapes::enum_branches;

impl<'a> Typer<'a> {
    /// The fields of a struct from an object schema's `properties` (sorted by name).
    pub(crate) fn struct_fields(
        &mut self,
        name: &str,
        schema: &'a Value,
        roots: &Roots<'a>,
    ) -> Result<Vec<Field>, String> {
        let props = schema["properties"]
            .as_object()
            .ok_or("\"properties\" must be an object")?;
        let required: BTreeSet<&str> = match schema.get("required") {
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
            _ => BTreeSet::new(),
        };
        let mut keys: Vec<&String> = props.keys().collect();
        keys.sort();
        let mut scope = Scope::default();
        let mut fields = Vec::new();
        for key in keys {
            let prop = &props[key];
            let mut notes = Vec::new();
            let hint = Hint::field(name, key);
            let ty = self
                .ty(prop, roots, &hint, &mut notes)
                .map_err(|e| format!("property \"{key}\" of {name}: {e}"))?;
            let ty = self.box_recursive(ty);
            let description = prop.get("description").and_then(Value::as_str);
            fields.push(self.field(
                &mut scope,
                key,
                ty,
                required.contains(key.as_str()),
                description,
                notes,
            ));
        }
        Ok(fields)
    }

    /// The variants of an enum (see [`enum_branches`]); a data variant's
    /// content is typed like a field, an inline object named `<Enum><Variant>`.
    pub(crate) fn variants(
        &mut self,
        name: &str,
        schema: &'a Value,
        roots: &Roots<'a>,
    ) -> Result<Vec<Variant>, String> {
        let branches = enum_branches(schema).unwrap_or_default();
        let mut scope = Scope::default();
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for b in branches {
            if !seen.insert(b.json) {
                continue;
            }
            let ident = scope.claim(&pascal(b.json, "V", "Empty"), "");
            let mut doc = b.doc.map(doc_lines).unwrap_or_default();
            let content = match b.content {
                None => None,
                Some(content) => {
                    let hint = Hint {
                        name: format!("{name}{ident}"),
                        what: format!("the content of `{name}::{ident}`"),
                    };
                    let mut notes = Vec::new();
                    let ty = self
                        .ty(content, roots, &hint, &mut notes)
                        .map_err(|e| format!("variant \"{}\" of {name}: {e}", b.json))?;
                    for note in notes {
                        push_paragraph(&mut doc, &note);
                    }
                    Some(self.box_recursive(ty))
                }
            };
            out.push(Variant {
                ident,
                json: b.json.to_string(),
                content,
                doc,
            });
        }
        Ok(out)
    }

    /// A struct field: the JSON name kept when it is an identifier, `Option` and
    /// `skip_serializing_if` when the field may be missing (unless its type
    /// already is an `Option`, maybe through an alias), docs and notes.
    pub(crate) fn field(
        &self,
        scope: &mut Scope,
        json: &str,
        ty: Ty,
        required: bool,
        description: Option<&str>,
        notes: Vec<String>,
    ) -> Field {
        let ident = scope.claim(&value_ident(json), "_");
        let skip_none = !required;
        let ty = if required || self.is_optional(&ty) {
            ty
        } else {
            option(ty)
        };
        let mut doc = Vec::new();
        if let Some(d) = description {
            push_paragraph(&mut doc, d);
        }
        for note in notes {
            push_paragraph(&mut doc, &note);
        }
        Field {
            ident,
            json: json.to_string(),
            ty,
            skip_none,
            doc,
        }
    }

    /// True for `Option<T>`, and for an alias of one.
    pub(crate) fn is_optional(&self, ty: &Ty) -> bool {
        match ty {
            Ty::Option(_) => true,
            Ty::Named(name) => {
                matches!(self.item_kind(name), Some(ItemKind::Alias(t)) if self.is_optional(t))
            }
            _ => false,
        }
    }
}
