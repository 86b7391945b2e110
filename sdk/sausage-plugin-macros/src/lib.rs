//! The macros of `sausage-plugin`: `#[rpc]`, `#[schema]`,
//! `#[sausage_plugin::test]` and `import!`. Use them through
//! `sausage-plugin`, which re-exports them; the code they generate calls
//! only `::sausage_plugin::__private`.
//!
//! Each macro is split into parsing (with the rules of the protocol as
//! compile errors that point at the offending token) and generation.

use proc_macro::TokenStream;
use quote::quote;

mod docs;
mod imports;
mod rpc;
mod schema;
mod serde_attrs;
mod test_attr;

/// `::sausage_plugin::__private`, the only path generated code uses.
pub(crate) fn private() -> proc_macro2::TokenStream {
    quote! { ::sausage_plugin::__private }
}

/// Makes an impl block an interface. See `sausage_plugin::rpc`.
#[proc_macro_attribute]
pub fn rpc(args: TokenStream, item: TokenStream) -> TokenStream {
    match syn::parse::<syn::ItemImpl>(item.clone()) {
        Ok(imp) => rpc::expand(args.into(), imp).into(),
        Err(_) => {
            let item = proc_macro2::TokenStream::from(item);
            let e = syn::Error::new_spanned(
                &item,
                "#[rpc] goes on an impl block: `#[rpc] impl MyPlugin { ... }`",
            )
            .to_compile_error();
            quote! { #item #e }.into()
        }
    }
}

/// Serde derives and a JSON Schema for a struct or an enum. See `sausage_plugin::schema`.
#[proc_macro_attribute]
pub fn schema(args: TokenStream, item: TokenStream) -> TokenStream {
    match syn::parse::<syn::Item>(item) {
        Ok(item) => schema::expand(args.into(), item).into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// An async test on the SDK's executor. See `sausage_plugin::test`.
#[proc_macro_attribute]
pub fn test(args: TokenStream, item: TokenStream) -> TokenStream {
    match syn::parse::<syn::ItemFn>(item) {
        Ok(f) => test_attr::expand(args.into(), f).into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// A typed client of another plugin from `imports/<name>.json`. See `sausage_plugin::import`.
#[proc_macro]
pub fn import(input: TokenStream) -> TokenStream {
    imports::expand(input.into()).into()
}
