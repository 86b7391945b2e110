//! `$ref` resolution: JSON pointers into the enclosing schema resources
//! (their `$defs`), then into the OpenRPC document (`components`).

use serde_json::Value;

/// Where `#/…` pointers resolve: the schema resources that enclose the
/// current schema (innermost first: those with `$defs` or `definitions`),
/// then the OpenRPC document (`#/components/schemas/…`).
#[derive(Debug, Clone)]
pub(crate) struct Roots<'a> {
    doc: &'a Value,
    stack: Vec<&'a Value>,
}

impl<'a> Roots<'a> {
    /// Pointers resolve against the document only.
    pub(crate) fn new(doc: &'a Value) -> Roots<'a> {
        Roots {
            doc,
            stack: Vec::new(),
        }
    }

    /// The roots inside `schema`: it becomes the innermost root when it has definitions.
    pub(crate) fn enter(&self, schema: &'a Value) -> Roots<'a> {
        let mut next = self.clone();
        if schema.get("$defs").is_some() || schema.get("definitions").is_some() {
            next.stack.push(schema);
        }
        next
    }

    /// The schema a `$ref` points to, and the roots in force there.
    pub(crate) fn resolve(&self, reference: &str) -> Option<(&'a Value, Roots<'a>)> {
        let pointer = percent_decode(reference.strip_prefix('#')?);
        for depth in (0..self.stack.len()).rev() {
            if let Some(target) = self.stack[depth].pointer(&pointer) {
                let roots = Roots {
                    doc: self.doc,
                    stack: self.stack[..=depth].to_vec(),
                };
                return Some((target, roots));
            }
        }
        let target = self.doc.pointer(&pointer)?;
        Some((target, Roots::new(self.doc)))
    }
}

/// `%XX` escapes of a URI fragment decoded (a `$ref` is a URI reference).
pub(crate) fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
