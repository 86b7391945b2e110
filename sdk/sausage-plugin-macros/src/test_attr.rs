//! `#[sausage_plugin::test]`: an async test, run on the SDK's executor.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemFn;

/// Expands `#[sausage_plugin::test]` on `f`.
pub fn expand(args: TokenStream, f: ItemFn) -> TokenStream {
    if !args.is_empty() {
        return syn::Error::new_spanned(args, "#[sausage_plugin::test] takes no arguments")
            .to_compile_error();
    }
    if f.sig.asyncness.is_none() {
        let e = syn::Error::new_spanned(
            &f.sig.fn_token,
            "#[sausage_plugin::test] goes on an `async fn`; use #[test] for a plain fn",
        )
        .to_compile_error();
        return quote! { #f #e };
    }
    if !f.sig.inputs.is_empty() {
        return syn::Error::new_spanned(&f.sig.inputs, "a test takes no arguments")
            .to_compile_error();
    }
    let p = crate::private();
    let attrs = &f.attrs;
    let vis = &f.vis;
    let ident = &f.sig.ident;
    let output = &f.sig.output;
    let body = &f.block;
    quote! {
        #[::core::prelude::v1::test]
        #(#attrs)*
        #vis fn #ident() #output {
            #p::run_test(async move #body)
        }
    }
}
