//! The `#[serde(...)]` attributes that change the JSON shape of a type, read
//! so that the schema matches what serde writes. Attributes whose shape a
//! schema cannot know (`flatten`, `with`, …) are compile errors.

use syn::{Attribute, Lit, Meta, NestedMeta};

/// serde's `rename_all` rules.
#[derive(Clone, Copy)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    fn parse(s: &str) -> Option<RenameRule> {
        Some(match s {
            "lowercase" => RenameRule::Lower,
            "UPPERCASE" => RenameRule::Upper,
            "PascalCase" => RenameRule::Pascal,
            "camelCase" => RenameRule::Camel,
            "snake_case" => RenameRule::Snake,
            "SCREAMING_SNAKE_CASE" => RenameRule::ScreamingSnake,
            "kebab-case" => RenameRule::Kebab,
            "SCREAMING-KEBAB-CASE" => RenameRule::ScreamingKebab,
            _ => return None,
        })
    }

    /// Renames a variant (written in PascalCase), as serde does.
    pub fn variant(self, name: &str) -> String {
        match self {
            RenameRule::Pascal => name.to_string(),
            RenameRule::Lower => name.to_ascii_lowercase(),
            RenameRule::Upper => name.to_ascii_uppercase(),
            RenameRule::Camel => {
                let mut c = name.chars();
                c.next()
                    .map(|f| f.to_ascii_lowercase().to_string() + c.as_str())
                    .unwrap_or_default()
            }
            RenameRule::Snake => {
                let mut out = String::new();
                for (i, ch) in name.char_indices() {
                    if i > 0 && ch.is_uppercase() {
                        out.push('_');
                    }
                    out.push(ch.to_ascii_lowercase());
                }
                out
            }
            RenameRule::ScreamingSnake => RenameRule::Snake.variant(name).to_ascii_uppercase(),
            RenameRule::Kebab => RenameRule::Snake.variant(name).replace('_', "-"),
            RenameRule::ScreamingKebab => {
                RenameRule::ScreamingSnake.variant(name).replace('_', "-")
            }
        }
    }

    /// Renames a field (written in snake_case), as serde does.
    pub fn field(self, name: &str) -> String {
        match self {
            RenameRule::Lower | RenameRule::Snake => name.to_string(),
            RenameRule::Upper | RenameRule::ScreamingSnake => name.to_ascii_uppercase(),
            RenameRule::Pascal => {
                let mut out = String::new();
                let mut upper = true;
                for ch in name.chars() {
                    if ch == '_' {
                        upper = true;
                    } else if upper {
                        out.push(ch.to_ascii_uppercase());
                        upper = false;
                    } else {
                        out.push(ch);
                    }
                }
                out
            }
            RenameRule::Camel => {
                let pascal = RenameRule::Pascal.field(name);
                let mut c = pascal.chars();
                c.next()
                    .map(|f| f.to_ascii_lowercase().to_string() + c.as_str())
                    .unwrap_or_default()
            }
            RenameRule::Kebab => name.replace('_', "-"),
            RenameRule::ScreamingKebab => name.to_ascii_uppercase().replace('_', "-"),
        }
    }
}

/// What the serde attributes of a struct, enum, variant or field say.
#[derive(Default)]
pub struct SerdeAttrs {
    pub rename: Option<String>,
    pub rename_all: Option<RenameRule>,
    pub default: bool,
    pub skip: bool,
    pub tag: Option<String>,
    pub content: Option<String>,
    pub untagged: bool,
    pub transparent: bool,
    pub deny_unknown_fields: bool,
}

/// Attributes that only change Rust-side behaviour: ignored.
const HARMLESS: &[&str] = &[
    "alias",
    "bound",
    "borrow",
    "skip_serializing_if",
    "expecting",
    "variant_identifier",
    "field_identifier",
    "other",
];

/// Attributes whose JSON shape a schema cannot know.
const UNSUPPORTED: &[&str] = &[
    "flatten",
    "with",
    "serialize_with",
    "deserialize_with",
    "from",
    "try_from",
    "into",
    "remote",
    "getter",
    "crate",
];

/// Reads the `#[serde(...)]` attributes in `attrs`.
pub fn parse(attrs: &[Attribute]) -> syn::Result<SerdeAttrs> {
    let mut out = SerdeAttrs::default();
    for attr in attrs.iter().filter(|a| a.path.is_ident("serde")) {
        let Meta::List(list) = attr.parse_meta()? else {
            return Err(syn::Error::new_spanned(attr, "expected #[serde(...)]"));
        };
        for nested in list.nested {
            let NestedMeta::Meta(meta) = nested else {
                return Err(syn::Error::new_spanned(nested, "unexpected literal in #[serde(...)]"));
            };
            let name = meta.path().get_ident().map(|i| i.to_string()).unwrap_or_default();
            let string = |meta: &Meta| -> syn::Result<String> {
                match meta {
                    Meta::NameValue(nv) => match &nv.lit {
                        Lit::Str(s) => Ok(s.value()),
                        other => Err(syn::Error::new_spanned(other, "expected a string")),
                    },
                    other => Err(syn::Error::new_spanned(
                        other,
                        format!("#[schema] supports only `{name} = \"...\"` here"),
                    )),
                }
            };
            match name.as_str() {
                "rename" => out.rename = Some(string(&meta)?),
                "rename_all" => {
                    let rule = string(&meta)?;
                    out.rename_all = Some(RenameRule::parse(&rule).ok_or_else(|| {
                        syn::Error::new_spanned(&meta, format!("unknown rename_all rule {rule:?}"))
                    })?);
                }
                "tag" => out.tag = Some(string(&meta)?),
                "content" => out.content = Some(string(&meta)?),
                "default" => out.default = true,
                "skip" | "skip_serializing" | "skip_deserializing" => out.skip = true,
                "untagged" => out.untagged = true,
                "transparent" => out.transparent = true,
                "deny_unknown_fields" => out.deny_unknown_fields = true,
                n if HARMLESS.contains(&n) => {}
                n if UNSUPPORTED.contains(&n) => {
                    return Err(syn::Error::new_spanned(
                        &meta,
                        format!("#[schema] cannot describe #[serde({n})]: the JSON Schema would not match what serde writes"),
                    ))
                }
                _ => {
                    return Err(syn::Error::new_spanned(
                        &meta,
                        format!("#[schema] does not know #[serde({name})]"),
                    ))
                }
            }
        }
    }
    Ok(out)
}

/// A Rust identifier as serde names it (without `r#`).
pub fn ident_name(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_string).unwrap_or(s)
}
