//! Imports: `import!("name")` turns `imports/<name>.json` into a typed
//! client (through the client generator), and `#[rpc]` lists every file in
//! `imports/` as `x-sausage-imports` of the plugin's `rpc.discover`.
//!
//! Both read files of the package at compile time; the generated code
//! includes them with `include_bytes!`, so that cargo rebuilds the plugin
//! when they change.

use proc_macro2::TokenStream;
use quote::quote;
use serde_json::{json, Map, Value};

/// The package folder of the crate being compiled.
fn manifest_dir() -> Result<String, String> {
    std::env::var("CARGO_MANIFEST_DIR")
        .map_err(|_| "CARGO_MANIFEST_DIR is not set: build with cargo".to_string())
}

/// Reads and parses `imports/<name>.json`.
fn read_import(dir: &str, name: &str) -> Result<(String, Value), String> {
    let path = format!("{dir}/imports/{name}.json");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!("cannot read imports/{name}.json ({e}): copy /proc/core/plugins/{name}/discover.json there")
    })?;
    let doc = serde_json::from_str(&text)
        .map_err(|e| format!("imports/{name}.json is not valid JSON: {e}"))?;
    Ok((path, doc))
}

/// The part of a provider's description that a consumer uses (an
/// `ImportDescription` of `rpc/openrpc.ts`): its `methods`, its `endpoints`
/// (from `x-sausage-endpoints`) and its `components`, as the file has them;
/// the same entry as the generated module's `__IMPORTS`.
fn imported_interface(doc: &Value) -> Value {
    let mut out = Map::new();
    out.insert("methods".into(), doc.get("methods").cloned().unwrap_or_else(|| json!([])));
    if let Some(Value::Object(endpoints)) = doc.get("x-sausage-endpoints") {
        if !endpoints.is_empty() {
            out.insert("endpoints".into(), Value::Object(endpoints.clone()));
        }
    }
    if let Some(components @ Value::Object(_)) = doc.get("components") {
        out.insert("components".into(), components.clone());
    }
    Value::Object(out)
}

/// The body of `__imports()`: `x-sausage-imports` from `imports/*.json`.
pub fn imports_tokens() -> TokenStream {
    let p = crate::private();
    let Ok(dir) = manifest_dir() else {
        return quote! { #p::serde_json::Value::Object(::core::default::Default::default()) };
    };
    let mut names: Vec<String> = std::fs::read_dir(format!("{dir}/imports"))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().to_str()?.strip_suffix(".json").map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut imports = Map::new();
    let mut paths = Vec::new();
    for name in names {
        match read_import(&dir, &name) {
            Ok((path, doc)) => {
                imports.insert(name, imported_interface(&doc));
                paths.push(path);
            }
            Err(e) => return quote! { ::core::compile_error!(#e) },
        }
    }
    let text = Value::Object(imports).to_string();
    quote! {
        #(const _: &[u8] = ::core::include_bytes!(#paths);)*
        #p::serde_json::from_str(#text).expect("x-sausage-imports is valid JSON")
    }
}

/// Expands `import!("name")`.
pub fn expand(input: TokenStream) -> TokenStream {
    let lit: syn::LitStr = match syn::parse2(input) {
        Ok(l) => l,
        Err(e) => {
            return syn::Error::new(e.span(), "expected import!(\"<plugin name>\")")
                .to_compile_error()
        }
    };
    let name = lit.value();
    let fail = |msg: String| syn::Error::new_spanned(&lit, msg).to_compile_error();
    let dir = match manifest_dir() {
        Ok(d) => d,
        Err(e) => return fail(e),
    };
    let (path, doc) = match read_import(&dir, &name) {
        Ok(found) => found,
        Err(e) => return fail(e),
    };
    match generate(&name, &doc, &path) {
        Ok(tokens) => respan(tokens, lit.span()),
        Err(e) => fail(e),
    }
}

/// Gives every generated token the span of the `"name"` literal. Tokens
/// parsed from a string carry the macro's call-site span, which rustc treats
/// as code from an external macro and exempts from `dead_code`: with the
/// literal's span, an unused import is a warning on the `import!` line, as
/// section 13.4 wants.
fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    use proc_macro2::{Group, TokenTree};
    tokens
        .into_iter()
        .map(|mut tt| {
            if let TokenTree::Group(g) = &tt {
                let mut inner = Group::new(g.delimiter(), respan(g.stream(), span));
                inner.set_span(span);
                tt = TokenTree::Group(inner);
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}

fn generate(name: &str, doc: &Value, path: &str) -> Result<TokenStream, String> {
    let source = sausage_plugin_codegen::generate_client(name, doc).map_err(|e| {
        format!("cannot generate the client of {name} from imports/{name}.json: {e}")
    })?;
    let tokens: TokenStream = source
        .parse()
        .map_err(|e| format!("the generated client of {name} does not parse: {e}"))?;
    Ok(quote! {
        const _: &[u8] = ::core::include_bytes!(#path);
        #tokens
    })
}
