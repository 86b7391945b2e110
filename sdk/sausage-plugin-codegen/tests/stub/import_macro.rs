//! A stand-in for `sausage_plugin::import!` (the proc-macro crate of the
//! scratch workspace that tests/compile.rs builds): it generates the client
//! as the real macro does, and gives every token the span of the `"name"`
//! literal.
//!
//! That span is what makes rustc's `dead_code` lint speak: tokens with
//! `Span::call_site()` (what `str::parse::<TokenStream>` gives) count as
//! coming from an external macro, and rustc stays silent about them.

use proc_macro2::{Group, Span, TokenStream, TokenTree};

#[proc_macro]
pub fn import(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let literal = TokenStream::from(input)
        .into_iter()
        .next()
        .expect("import!(\"name\")");
    let name = literal.to_string().trim_matches('"').to_string();
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    let text = std::fs::read_to_string(format!("{dir}/imports/{name}.json")).unwrap();
    let doc = serde_json::from_str(&text).unwrap();
    let source = sausage_plugin_codegen::generate_client(&name, &doc).unwrap();
    respan(source.parse().unwrap(), literal.span()).into()
}

/// `tokens` with every span (of groups too) replaced by `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|token| match token {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                TokenTree::Group(group)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}
