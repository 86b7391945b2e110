//! What the generator makes before it prints: Rust types, type items
//! (structs, enums, aliases) and call functions.

/// A Rust type as it appears in a field, an alias or a return type.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ty {
    /// `()`: the schema `{"type": "null"}`.
    Unit,
    /// `bool`.
    Bool,
    /// An integer type: `u8` … `u64`, `i8` … `i64`.
    Int(&'static str),
    /// `f64`.
    F64,
    /// `String`.
    String,
    /// `serde_json::Value`: any JSON.
    Value,
    /// A type item of the same module.
    Named(String),
    /// `Vec<T>`.
    Vec(Box<Ty>),
    /// `std::collections::BTreeMap<String, T>`.
    Map(Box<Ty>),
    /// `Option<T>`.
    Option(Box<Ty>),
    /// `Box<T>`: breaks a recursive type.
    Boxed(Box<Ty>),
    /// `(A, B, …)`: a JSON array of fixed length.
    Tuple(Vec<Ty>),
}

impl Ty {
    /// The type as Rust source.
    pub(crate) fn render(&self) -> String {
        match self {
            Ty::Unit => "()".to_string(),
            Ty::Bool => "bool".to_string(),
            Ty::Int(name) => name.to_string(),
            Ty::F64 => "f64".to_string(),
            Ty::String => "String".to_string(),
            Ty::Value => "serde_json::Value".to_string(),
            Ty::Named(name) => name.clone(),
            Ty::Vec(t) => format!("Vec<{}>", t.render()),
            Ty::Map(t) => format!("std::collections::BTreeMap<String, {}>", t.render()),
            Ty::Option(t) => format!("Option<{}>", t.render()),
            Ty::Boxed(t) => format!("Box<{}>", t.render()),
            Ty::Tuple(ts) if ts.len() == 1 => format!("({},)", ts[0].render()),
            Ty::Tuple(ts) => {
                format!(
                    "({})",
                    ts.iter().map(Ty::render).collect::<Vec<_>>().join(", ")
                )
            }
        }
    }

    /// True when the rendered type mentions `serde_json`.
    pub(crate) fn uses_value(&self) -> bool {
        match self {
            Ty::Value => true,
            Ty::Vec(t) | Ty::Map(t) | Ty::Option(t) | Ty::Boxed(t) => t.uses_value(),
            Ty::Tuple(ts) => ts.iter().any(Ty::uses_value),
            _ => false,
        }
    }

    /// True for `Option<T>`.
    pub(crate) fn is_option(&self) -> bool {
        matches!(self, Ty::Option(_))
    }
}

/// A named type of the generated module.
#[derive(Debug, Clone)]
pub(crate) struct Item {
    /// The Rust name.
    pub(crate) name: String,
    /// The doc comment, one entry per line.
    pub(crate) doc: Vec<String>,
    /// What it is.
    pub(crate) kind: ItemKind,
}

/// The three kinds of type items.
#[derive(Debug, Clone)]
pub(crate) enum ItemKind {
    /// A struct with named fields (a JSON object).
    Struct(Vec<Field>),
    /// An enum in serde's default form: unit variants are JSON strings, data
    /// variants `{"Variant": content}`.
    Enum(Vec<Variant>),
    /// `type Name = T;` (a named schema that is neither of the above).
    Alias(Ty),
}

/// A field of a struct.
#[derive(Debug, Clone)]
pub(crate) struct Field {
    /// The Rust identifier (maybe raw: `r#type`).
    pub(crate) ident: String,
    /// The JSON name.
    pub(crate) json: String,
    /// The field's type (an `Option` when the JSON field may be missing).
    pub(crate) ty: Ty,
    /// True when the JSON field may be missing: `None` is then not sent.
    pub(crate) skip_none: bool,
    /// The doc comment, one entry per line.
    pub(crate) doc: Vec<String>,
}

/// A variant of a string enum.
#[derive(Debug, Clone)]
pub(crate) struct Variant {
    /// The Rust name.
    pub(crate) ident: String,
    /// The JSON string of a unit variant, or the key of a data variant.
    pub(crate) json: String,
    /// The type of a data variant's content (`Circle(ShapeCircle)`), `None` for a unit variant.
    pub(crate) content: Option<Ty>,
    /// The doc comment, one entry per line.
    pub(crate) doc: Vec<String>,
}

/// A function that starts a call.
#[derive(Debug, Clone)]
pub(crate) struct Function {
    /// The Rust identifier.
    pub(crate) ident: String,
    /// The method name on the wire: `notes.add`, or `stats` on an endpoint.
    pub(crate) wire: String,
    /// The doc comment, one entry per line.
    pub(crate) doc: Vec<String>,
    /// The params struct, `None` for a method without params (it sends `{}`).
    pub(crate) params: Option<String>,
    /// The result type.
    pub(crate) result: Ty,
    /// True when the method is deprecated.
    pub(crate) deprecated: bool,
}

/// Splits a text into doc comment lines: `\r` dropped, trailing spaces and
/// blank lines at both ends trimmed, other control characters removed.
pub(crate) fn doc_lines(text: &str) -> Vec<String> {
    let clean: String = text
        .chars()
        .filter(|&c| c == '\n' || c == '\t' || !c.is_control())
        .collect();
    let mut lines: Vec<String> = clean
        .split('\n')
        .map(|l| l.trim_end().to_string())
        .collect();
    while lines.first().is_some_and(|l| l.is_empty()) {
        lines.remove(0);
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// Appends a paragraph to doc lines, with a blank line between paragraphs.
pub(crate) fn push_paragraph(doc: &mut Vec<String>, text: &str) {
    let lines = doc_lines(text);
    if lines.is_empty() {
        return;
    }
    if !doc.is_empty() {
        doc.push(String::new());
    }
    doc.extend(lines);
}
