//! Printing: type items and call functions as rustfmt would lay them out
//! (four-space indents, one blank line between items, lines under 100
//! columns where the generator controls them).

use crate::literal::string_literal;
use crate::model::{Field, Function, Item, ItemKind, Ty, Variant};
use crate::names::{is_snake_case, unraw};

/// The serde attribute that every generated type carries: the generated code
/// reaches serde through the runtime crate, never as a dependency of its own.
const SERDE_CRATE: &str = "#[serde(crate = \"::sausage_plugin::__private::serde\")]";

/// Columns rustfmt fills before it breaks a line.
const MAX_WIDTH: usize = 100;

/// Rust source being written, line by line.
#[derive(Debug, Default)]
pub(crate) struct Out {
    text: String,
}

impl Out {
    /// One line at `indent` levels (four spaces each); an empty line stays empty.
    pub(crate) fn line(&mut self, indent: usize, text: &str) {
        if !text.is_empty() {
            self.text.push_str(&"    ".repeat(indent));
            self.text.push_str(text);
        }
        self.text.push('\n');
    }

    /// A doc comment (`///`), one line per entry.
    pub(crate) fn doc(&mut self, indent: usize, lines: &[String]) {
        for l in lines {
            if l.is_empty() {
                self.line(indent, "///");
            } else {
                self.line(indent, &format!("/// {l}"));
            }
        }
    }

    /// The source written so far.
    pub(crate) fn finish(self) -> String {
        self.text
    }
}

/// Writes a type item.
pub(crate) fn item(out: &mut Out, indent: usize, item: &Item) {
    out.doc(indent, &item.doc);
    match &item.kind {
        ItemKind::Struct(fields) => {
            let default = if fields.iter().all(|f| f.ty.is_option()) {
                "Default, "
            } else {
                ""
            };
            out.line(
                indent,
                &format!("#[derive(Debug, Clone, PartialEq, {default}Serialize, Deserialize)]"),
            );
            out.line(indent, SERDE_CRATE);
            // rustc checks field names at the struct: the allow cannot sit on the field.
            if fields.iter().any(|f| !is_snake_case(unraw(&f.ident))) {
                out.line(indent, "#[allow(non_snake_case)]");
            }
            if fields.is_empty() {
                out.line(indent, &format!("pub(crate) struct {} {{}}", item.name));
                return;
            }
            out.line(indent, &format!("pub(crate) struct {} {{", item.name));
            for f in fields {
                field(out, indent + 1, f);
            }
            out.line(indent, "}");
        }
        ItemKind::Enum(variants) => {
            if variants.iter().any(|v| v.content.is_some()) {
                out.line(
                    indent,
                    "#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]",
                );
            } else {
                out.line(
                    indent,
                    "#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]",
                );
            }
            out.line(indent, SERDE_CRATE);
            out.line(indent, &format!("pub(crate) enum {} {{", item.name));
            for v in variants {
                variant(out, indent + 1, v);
            }
            out.line(indent, "}");
        }
        ItemKind::Alias(ty) => {
            out.line(
                indent,
                &format!("pub(crate) type {} = {};", item.name, ty.render()),
            );
        }
    }
}

fn field(out: &mut Out, indent: usize, f: &Field) {
    out.doc(indent, &f.doc);
    let mut serde = Vec::new();
    if unraw(&f.ident) != f.json {
        serde.push(format!("rename = {}", string_literal(&f.json)));
    }
    if f.skip_none && !f.ty.is_option() {
        // serde sees no `Option` through an alias: a missing field needs `default`.
        serde.push("default".to_string());
    }
    if f.skip_none {
        serde.push("skip_serializing_if = \"Option::is_none\"".to_string());
    }
    if !serde.is_empty() {
        out.line(indent, &format!("#[serde({})]", serde.join(", ")));
    }
    out.line(
        indent,
        &format!("pub(crate) {}: {},", f.ident, f.ty.render()),
    );
}

fn variant(out: &mut Out, indent: usize, v: &Variant) {
    out.doc(indent, &v.doc);
    if v.ident != v.json {
        out.line(
            indent,
            &format!("#[serde(rename = {})]", string_literal(&v.json)),
        );
    }
    match &v.content {
        Some(ty) => out.line(indent, &format!("{}({}),", v.ident, ty.render())),
        None => out.line(indent, &format!("{},", v.ident)),
    }
}

/// Writes a call function: a free function of the module (`receiver` false),
/// or a method of an endpoint's `Client` (`receiver` true).
pub(crate) fn function(out: &mut Out, indent: usize, f: &Function, receiver: bool) {
    out.doc(indent, &f.doc);
    if f.deprecated {
        out.line(indent, "#[deprecated]");
    }
    if !is_snake_case(unraw(&f.ident)) {
        out.line(indent, "#[allow(non_snake_case)]");
    }
    let mut args = Vec::new();
    if receiver {
        args.push("&self".to_string());
    }
    if let Some(p) = &f.params {
        args.push(format!("params: {p}"));
    }
    let ret = format!("TypedCall<{}>", f.result.render());
    let head = format!("pub(crate) fn {}({}) -> {ret} {{", f.ident, args.join(", "));
    if indent * 4 + head.len() <= MAX_WIDTH {
        out.line(indent, &head);
    } else {
        out.line(indent, &format!("pub(crate) fn {}(", f.ident));
        for a in &args {
            out.line(indent + 1, &format!("{a},"));
        }
        out.line(indent, &format!(") -> {ret} {{"));
    }
    let params = if f.params.is_some() {
        "&params"
    } else {
        "&serde_json::Map::new()"
    };
    let call = if receiver {
        "self.inner.call_typed"
    } else {
        "call_typed"
    };
    out.line(
        indent + 1,
        &format!("{call}({}, {params})", string_literal(&f.wire)),
    );
    out.line(indent, "}");
}

/// The names a module imports from `::sausage_plugin::__private`.
#[derive(Debug, Default)]
pub(crate) struct Uses {
    /// `serde::{Deserialize, Serialize}`: the module has structs or enums.
    pub(crate) serde: bool,
    /// `call_typed`: the module has free call functions.
    pub(crate) call_typed: bool,
    /// `serde_json`: a type is `serde_json::Value`, or a method sends `{}`.
    pub(crate) serde_json: bool,
    /// `EndpointClient`: the module is an endpoint's.
    pub(crate) endpoint_client: bool,
    /// `TypedCall`: the module has call functions.
    pub(crate) typed_call: bool,
}

impl Uses {
    /// Notes what `items` need.
    pub(crate) fn items(&mut self, items: &[Item]) {
        for i in items {
            match &i.kind {
                ItemKind::Struct(fields) => {
                    self.serde = true;
                    self.serde_json |= fields.iter().any(|f| f.ty.uses_value());
                }
                ItemKind::Enum(variants) => {
                    self.serde = true;
                    self.serde_json |= variants
                        .iter()
                        .any(|v| v.content.as_ref().is_some_and(Ty::uses_value));
                }
                ItemKind::Alias(ty) => self.serde_json |= ty.uses_value(),
            }
        }
    }

    /// Notes what a call function needs.
    pub(crate) fn function(&mut self, f: &Function, receiver: bool) {
        self.typed_call = true;
        self.call_typed |= !receiver;
        self.serde_json |= f.params.is_none() || f.result.uses_value();
    }

    /// Writes the `use` lines (nothing when nothing is used).
    pub(crate) fn write(&self, out: &mut Out, indent: usize) {
        if self.serde {
            out.line(
                indent,
                "use ::sausage_plugin::__private::serde::{Deserialize, Serialize};",
            );
        }
        let names: Vec<&str> = [
            (self.call_typed, "call_typed"),
            (self.serde_json, "serde_json"),
            (self.endpoint_client, "EndpointClient"),
            (self.typed_call, "TypedCall"),
        ]
        .into_iter()
        .filter_map(|(used, name)| used.then_some(name))
        .collect();
        match names.as_slice() {
            [] => {}
            [one] => out.line(indent, &format!("use ::sausage_plugin::__private::{one};")),
            many => out.line(
                indent,
                &format!("use ::sausage_plugin::__private::{{{}}};", many.join(", ")),
            ),
        }
    }

    /// True when [`Uses::write`] writes anything.
    pub(crate) fn any(&self) -> bool {
        self.serde || self.call_typed || self.serde_json || self.endpoint_client || self.typed_call
    }
}
