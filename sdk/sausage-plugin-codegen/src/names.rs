//! Rust names from JSON names: identifiers for fields, functions and
//! modules, type and variant names, and unique allocation within a scope.
//!
//! Only ASCII identifiers are produced, so the output never depends on the
//! Unicode tables of the compiler that runs the generator.

use std::collections::BTreeSet;

/// Keywords of every edition up to 2024 (strict and reserved): a JSON name
/// equal to one of these becomes a raw identifier (`r#type`).
const KEYWORDS: &[&str] = &[
    "Self", "abstract", "as", "async", "await", "become", "box", "break", "const", "continue",
    "crate", "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if",
    "impl", "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub",
    "ref", "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Keywords that cannot be raw identifiers: they get a trailing `_` instead.
const NOT_RAW: &[&str] = &["Self", "crate", "self", "super"];

/// True for a plain ASCII Rust identifier (keywords included, `_` alone excluded).
pub(crate) fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    s != "_" && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// True for a keyword of any edition.
pub(crate) fn is_keyword(s: &str) -> bool {
    KEYWORDS.contains(&s)
}

/// rustc's `non_snake_case` rule: no uppercase letter, no `__` inside.
pub(crate) fn is_snake_case(s: &str) -> bool {
    let inner = s.trim_matches('_');
    !inner.contains("__") && !inner.chars().any(|c| c.is_ascii_uppercase())
}

/// `text` with `r#` dropped: the name serde uses for a raw identifier.
pub(crate) fn unraw(ident: &str) -> &str {
    ident.strip_prefix("r#").unwrap_or(ident)
}

/// The identifier for a JSON field, function or module name: the name itself
/// when it is an identifier (`r#type` for a keyword, `self_` for the four that
/// cannot be raw), else a snake_case spelling (`content-type` → `content_type`,
/// `2fa` → `_2fa`).
pub(crate) fn value_ident(json: &str) -> String {
    let base = if is_ident(json) {
        json.to_string()
    } else {
        snake(json)
    };
    keyword_safe(base)
}

/// `name` as a usable identifier: raw for keywords, `_`-suffixed where raw is impossible.
fn keyword_safe(name: String) -> String {
    if NOT_RAW.contains(&name.as_str()) {
        format!("{name}_")
    } else if is_keyword(&name) {
        format!("r#{name}")
    } else {
        name
    }
}

/// A snake_case identifier from any text: ASCII letters and digits kept (an
/// uppercase letter starts a new word), everything else separates words.
pub(crate) fn snake(text: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && prev_lower && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        } else {
            if !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
            prev_lower = false;
        }
    }
    let out = out.trim_end_matches('_').to_string();
    match out.chars().next() {
        None => "value".to_string(),
        Some(c) if c.is_ascii_digit() => format!("_{out}"),
        Some(_) => out,
    }
}

/// A PascalCase name from any text: words split at anything that is not an
/// ASCII letter or digit, each word's first letter uppercased and the rest
/// kept (`AddParams` stays `AddParams`, `Wrapper_for_String` becomes
/// `WrapperForString`). `prefix` goes before a name that would start with a
/// digit; `empty` stands in for a name with no letters or digits.
pub(crate) fn pascal(text: &str, prefix: &str, empty: &str) -> String {
    let mut out = String::new();
    for word in text.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    match out.chars().next() {
        None => empty.to_string(),
        Some(c) if c.is_ascii_digit() => format!("{prefix}{out}"),
        Some(_) if out == "Self" => "SelfValue".to_string(),
        Some(_) => out,
    }
}

/// The names already taken in one namespace of one scope.
#[derive(Debug, Default)]
pub(crate) struct Scope {
    taken: BTreeSet<String>,
}

impl Scope {
    /// A scope where `reserved` are taken from the start.
    pub(crate) fn with_reserved(reserved: &[&str]) -> Scope {
        Scope {
            taken: reserved.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// True when `name` (raw prefix ignored) is taken.
    pub(crate) fn is_taken(&self, name: &str) -> bool {
        self.taken.contains(unraw(name))
    }

    /// Takes `name`, or the first free of `name{sep}2`, `name{sep}3`, …
    pub(crate) fn claim(&mut self, name: &str, sep: &str) -> String {
        let mut candidate = name.to_string();
        let mut n = 2;
        while self.is_taken(&candidate) {
            candidate = format!("{}{sep}{n}", unraw(name));
            n += 1;
        }
        self.taken.insert(unraw(&candidate).to_string());
        candidate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_stay_as_they_are_and_keywords_become_raw() {
        assert_eq!(value_ident("text"), "text");
        assert_eq!(value_ident("maxItems"), "maxItems");
        assert_eq!(value_ident("type"), "r#type");
        assert_eq!(value_ident("gen"), "r#gen");
        assert_eq!(value_ident("self"), "self_");
        assert_eq!(value_ident("Self"), "Self_");
    }

    #[test]
    fn other_names_become_snake_case() {
        assert_eq!(value_ident("content-type"), "content_type");
        assert_eq!(value_ident("Content-Type"), "content_type");
        assert_eq!(value_ident("my-plugin"), "my_plugin");
        assert_eq!(value_ident("2fa"), "_2fa");
        assert_eq!(value_ident("a b.c"), "a_b_c");
        assert_eq!(value_ident("é"), "value");
        assert_eq!(value_ident("x-type"), "x_type");
        assert_eq!(value_ident("-type-"), "r#type");
    }

    #[test]
    fn snake_case_check_matches_rustc() {
        assert!(is_snake_case("text"));
        assert!(is_snake_case("_private"));
        assert!(!is_snake_case("maxItems"));
        assert!(!is_snake_case("a__b"));
    }

    #[test]
    fn pascal_keeps_inner_capitals() {
        assert_eq!(pascal("AddParams", "T", "Type"), "AddParams");
        assert_eq!(
            pascal("Wrapper_for_String", "T", "Type"),
            "WrapperForString"
        );
        assert_eq!(pascal("get_stats", "T", "Type"), "GetStats");
        assert_eq!(pascal("text/plain", "V", "Empty"), "TextPlain");
        assert_eq!(pascal("3d", "V", "Empty"), "V3d");
        assert_eq!(pascal("", "V", "Empty"), "Empty");
        assert_eq!(pascal("self", "V", "Empty"), "SelfValue");
    }

    #[test]
    fn scope_claims_unique_names() {
        let mut s = Scope::with_reserved(&["Client"]);
        assert_eq!(s.claim("Client", ""), "Client2");
        assert_eq!(s.claim("a_b", "_"), "a_b");
        assert_eq!(s.claim("a_b", "_"), "a_b_2");
        assert_eq!(s.claim("r#type", "_"), "r#type");
        assert_eq!(s.claim("r#type", "_"), "type_2");
    }
}
