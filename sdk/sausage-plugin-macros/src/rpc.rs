//! `#[rpc]`: makes an impl block an interface.
//!
//! Parse (the attribute's endpoint list, each method's signature and docs,
//! with the rules of section 13 as errors on the offending token) → a model
//! of the methods → `impl Interface` (dispatch, OpenRPC method objects, info,
//! endpoints, imports) and `impl Endpoint` for each declared endpoint type.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{FnArg, ImplItem, ImplItemMethod, ItemImpl, ReturnType, Token, Type};

use crate::docs::{crate_docs, doc_text, split_summary};

/// `control = Control` in `#[rpc(endpoints(control = Control))]`.
struct EndpointDecl {
    name: syn::Ident,
    ty: Type,
}

impl Parse for EndpointDecl {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name: syn::Ident = input.parse()?;
        input.parse::<Token![=]>()?;
        let ty: Type = input.parse()?;
        Ok(EndpointDecl { name, ty })
    }
}

/// The arguments of `#[rpc(...)]`.
#[derive(Default)]
struct RpcArgs {
    endpoints: Vec<EndpointDecl>,
}

impl Parse for RpcArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut args = RpcArgs::default();
        while !input.is_empty() {
            let key: syn::Ident = input.parse()?;
            if key != "endpoints" {
                return Err(syn::Error::new_spanned(
                    &key,
                    "#[rpc] takes only `endpoints(name = Type, ...)`",
                ));
            }
            let content;
            syn::parenthesized!(content in input);
            let decls: Punctuated<EndpointDecl, Token![,]> =
                content.parse_terminated(EndpointDecl::parse)?;
            args.endpoints.extend(decls);
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(args)
    }
}

/// The argument of a method that is not `&self`.
enum Arg {
    Ctx,
    Params(Type),
}

/// One method of the interface.
struct Method {
    ident: syn::Ident,
    is_async: bool,
    summary: String,
    description: String,
    args: Vec<Arg>,
    output: Type,
}

const RULE: &str =
    "an #[rpc] method takes `&self`, an optional `ctx: &Ctx`, and at most one params argument";

/// True for `&Ctx` (or `&path::to::Ctx`).
fn is_ctx(ty: &Type) -> bool {
    let Type::Reference(r) = ty else { return false };
    let Type::Path(p) = &*r.elem else {
        return false;
    };
    r.mutability.is_none() && p.path.segments.last().map(|s| s.ident == "Ctx").unwrap_or(false)
}

/// Reads a method; pushes an error for each broken rule.
fn method(m: &ImplItemMethod, errors: &mut Vec<syn::Error>) -> Option<Method> {
    let sig = &m.sig;
    let name = &sig.ident;
    // Broken signatures: no interface can be generated from them.
    let mut broken: Vec<syn::Error> = Vec::new();
    let mut fail = |e: syn::Error| broken.push(e);
    let doc = doc_text(&m.attrs);
    if doc.is_none() {
        errors.push(syn::Error::new_spanned(
            name,
            format!(
                "missing doc comment on method `{name}`: every #[rpc] method needs one, because other agents read it in rpc.discover (its first paragraph is the summary)"
            ),
        ));
    }
    if !sig.generics.params.is_empty() {
        fail(syn::Error::new_spanned(
            &sig.generics,
            format!("`{name}` cannot have generic parameters: {RULE}"),
        ));
    }
    let mut inputs = sig.inputs.iter();
    match inputs.next() {
        Some(FnArg::Receiver(r)) if r.reference.is_some() && r.mutability.is_none() => {}
        Some(other) => fail(syn::Error::new_spanned(
            other,
            format!("`{name}` must take `&self` first: {RULE}"),
        )),
        None => fail(syn::Error::new(
            sig.paren_token.span,
            format!("`{name}` must take `&self`: {RULE}"),
        )),
    }
    let mut args = Vec::new();
    let mut seen_ctx = false;
    let mut seen_params = false;
    for input in inputs {
        let FnArg::Typed(pt) = input else { continue };
        if is_ctx(&pt.ty) {
            if seen_ctx {
                fail(syn::Error::new_spanned(
                    pt,
                    format!("`{name}` takes `ctx: &Ctx` twice: {RULE}"),
                ));
            }
            seen_ctx = true;
            args.push(Arg::Ctx);
        } else if let Type::Reference(_) = &*pt.ty {
            fail(syn::Error::new_spanned(
                &pt.ty,
                format!(
                    "the params argument of `{name}` is taken by value, not by reference: {RULE}"
                ),
            ));
        } else if seen_params {
            fail(syn::Error::new_spanned(
                pt,
                format!(
                    "`{name}` takes more than one params argument: put the params in one #[schema] struct with named fields (its fields are the params of the method); {RULE}"
                ),
            ));
        } else {
            seen_params = true;
            args.push(Arg::Params((*pt.ty).clone()));
        }
    }
    let output = match &sig.output {
        ReturnType::Type(_, ty) => Some((**ty).clone()),
        ReturnType::Default => {
            fail(syn::Error::new_spanned(
                name,
                format!("`{name}` must return `Result<T>` (sausage_plugin::Result): a method answers with a result or an error"),
            ));
            None
        }
    };
    let ok = broken.is_empty();
    errors.extend(broken);
    let output = output?;
    let (summary, description) = split_summary(&doc.unwrap_or_default());
    ok.then_some(Method {
        ident: name.clone(),
        is_async: sig.asyncness.is_some(),
        summary,
        description,
        args,
        output,
    })
}

/// Expands `#[rpc(...)]` on `item`.
pub fn expand(args: TokenStream, item: ItemImpl) -> TokenStream {
    let p = crate::private();
    let args: RpcArgs = match syn::parse2(args) {
        Ok(a) => a,
        Err(e) => {
            let e = e.to_compile_error();
            return quote! { #item #e };
        }
    };
    let mut errors = Vec::new();
    if !item.generics.params.is_empty() {
        errors.push(syn::Error::new_spanned(
            &item.generics,
            "an #[rpc] impl cannot have generic parameters",
        ));
    }
    if let Some((_, path, _)) = &item.trait_ {
        errors.push(syn::Error::new_spanned(
            path,
            "#[rpc] goes on an inherent impl (`impl Type { ... }`), not on a trait impl",
        ));
    }
    let mut methods = Vec::new();
    let mut broken = !errors.is_empty();
    for it in &item.items {
        if let ImplItem::Method(m) = it {
            match method(m, &mut errors) {
                Some(m) => methods.push(m),
                None => broken = true,
            }
        }
    }
    let self_ty = &item.self_ty;
    let errors: Vec<TokenStream> = errors.iter().map(syn::Error::to_compile_error).collect();
    let info = info();
    if broken {
        // A stub, so that `run(T)` adds no error of its own.
        return quote! {
            #item
            impl #p::Interface for #self_ty {
                fn __dispatch<'__a>(&'__a self, _: &'__a ::sausage_plugin::Ctx, _: &str, _: #p::serde_json::Value)
                    -> #p::Option<#p::LocalBoxFuture<'__a, ::sausage_plugin::Result<#p::serde_json::Value>>> {
                    #p::None
                }
                fn __methods() -> #p::Vec<#p::serde_json::Value> { #p::Vec::new() }
                fn __info() -> #p::Info { #info }
            }
            #(#errors)*
        };
    }

    let arms = methods.iter().map(|m| dispatch_arm(m));
    let docs = methods.iter().map(|m| method_doc(m));
    let endpoint_names = args.endpoints.iter().map(|e| e.name.to_string());
    let endpoint_types: Vec<&Type> = args.endpoints.iter().map(|e| &e.ty).collect();
    let endpoint_methods = endpoint_types.iter().map(|ty| {
        quote_spanned! {ty.span()=> <#ty as #p::Interface>::__methods() }
    });
    let endpoint_impls = args.endpoints.iter().map(|e| {
        let (ty, name) = (&e.ty, e.name.to_string());
        quote_spanned! {ty.span()=>
            impl #p::Endpoint for #ty {
                const NAME: &'static str = #name;
            }
        }
    });
    let imports = crate::imports::imports_tokens();
    quote! {
        #item
        impl #p::Interface for #self_ty {
            fn __dispatch<'__a>(
                &'__a self,
                __ctx: &'__a ::sausage_plugin::Ctx,
                __method: &str,
                __params: #p::serde_json::Value,
            ) -> #p::Option<#p::LocalBoxFuture<'__a, ::sausage_plugin::Result<#p::serde_json::Value>>> {
                let _ = (&__ctx, &__params);
                match __method {
                    #(#arms)*
                    _ => #p::None,
                }
            }
            fn __methods() -> #p::Vec<#p::serde_json::Value> {
                #p::Vec::from([#(#docs),*])
            }
            fn __endpoints() -> #p::Vec<(&'static str, #p::Vec<#p::serde_json::Value>)> {
                #p::Vec::from([#((#endpoint_names, #endpoint_methods)),*])
            }
            fn __info() -> #p::Info {
                #info
            }
            fn __imports() -> #p::serde_json::Value {
                #imports
            }
        }
        #(#endpoint_impls)*
        #(#errors)*
    }
}

/// `Info { title, version, description }` of the plugin crate.
fn info() -> TokenStream {
    let p = crate::private();
    let docs = crate_docs();
    let description = if docs.is_empty() {
        quote! { ::core::env!("CARGO_PKG_DESCRIPTION") }
    } else {
        quote! { #docs }
    };
    quote! {
        #p::Info {
            title: ::core::env!("CARGO_PKG_NAME"),
            version: ::core::env!("CARGO_PKG_VERSION"),
            description: #description,
        }
    }
}

fn dispatch_arm(m: &Method) -> TokenStream {
    let p = crate::private();
    let ident = &m.ident;
    let name = crate::serde_attrs::ident_name(ident);
    let mut parse = TokenStream::new();
    let call_args = m.args.iter().map(|a| match a {
        Arg::Ctx => quote! { __ctx },
        Arg::Params(_) => quote! { __p },
    });
    for a in &m.args {
        if let Arg::Params(ty) = a {
            parse = quote_spanned! {ty.span()=>
                let __p: #ty = #p::parse_params(#name, __params)?;
            };
        }
    }
    let call = quote! { Self::#ident(self, #(#call_args),*) };
    let call = if m.is_async {
        quote! { #call.await }
    } else {
        call
    };
    quote! {
        #name => #p::Some(#p::Box::pin(async move {
            #parse
            #p::into_result(#call)
        })),
    }
}

fn method_doc(m: &Method) -> TokenStream {
    let p = crate::private();
    let name = crate::serde_attrs::ident_name(&m.ident);
    let (summary, description) = (&m.summary, &m.description);
    let params = m
        .args
        .iter()
        .find_map(|a| match a {
            Arg::Params(ty) => Some(quote_spanned! {ty.span()=> #p::params_of::<#ty>() }),
            Arg::Ctx => None,
        })
        .unwrap_or_else(|| quote! { #p::no_params() });
    let out = &m.output;
    let result = quote_spanned! {out.span()=>
        #p::result_of::<<#out as #p::MethodOutput>::Ok>()
    };
    quote! { #p::method_doc(#name, #summary, #description, #params, #result) }
}
