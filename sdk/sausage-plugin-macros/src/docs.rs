//! Doc comments: the text of `///` and `/** */` (`#[doc = "..."]`), the
//! summary / description split of method docs, and the crate's own docs.

use syn::{Attribute, Lit, Meta};

/// The doc comment of an item, or `None` when it has none (or only blank lines).
pub fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let mut lines: Vec<String> = Vec::new();
    for attr in attrs.iter().filter(|a| a.path.is_ident("doc")) {
        if let Ok(Meta::NameValue(nv)) = attr.parse_meta() {
            if let Lit::Str(s) = nv.lit {
                for line in s.value().split('\n') {
                    lines.push(line.strip_prefix(' ').unwrap_or(line).trim_end().to_string());
                }
            }
        }
    }
    let text = lines.join("\n");
    let text = text.trim_matches('\n').to_string();
    (!text.trim().is_empty()).then_some(unindent(&text))
}

/// Removes the indentation that all non-blank lines share (as `/** */` blocks have).
fn unindent(text: &str) -> String {
    let indent = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    text.lines()
        .map(|l| if l.len() >= indent { &l[indent..] } else { l.trim_start() })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Splits a method's doc into its summary (the first paragraph, on one
/// line) and its description (the rest, as written).
pub fn split_summary(doc: &str) -> (String, String) {
    let lines: Vec<&str> = doc.lines().collect();
    let end = lines.iter().position(|l| l.trim().is_empty()).unwrap_or(lines.len());
    let summary = lines[..end].iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
    let description = lines[end..].join("\n").trim_matches('\n').to_string();
    (summary, description)
}

/// The crate's doc comment (`//!` at the top of `src/main.rs`, else
/// `src/lib.rs`), read from the package folder; empty when there is none.
pub fn crate_docs() -> String {
    let Ok(dir) = std::env::var("CARGO_MANIFEST_DIR") else {
        return String::new();
    };
    for file in ["src/main.rs", "src/lib.rs"] {
        let Ok(text) = std::fs::read_to_string(format!("{dir}/{file}")) else {
            continue;
        };
        return match syn::parse_file(&text) {
            Ok(parsed) => doc_text(&parsed.attrs).unwrap_or_default(),
            Err(_) => String::new(),
        };
    }
    String::new()
}
