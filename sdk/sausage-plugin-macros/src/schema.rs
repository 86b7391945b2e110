//! `#[schema]`: serde derives plus `JsonSchema` (and `ParamsStruct` for
//! structs with named fields, so they can be the params of a method).
//!
//! Parse (the item, its serde attributes, its docs) → generate calls to the
//! runtime's schema helpers. A missing doc comment is an error that still
//! generates the impls, so that it is the only error the author sees.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Fields, FieldsNamed, Item};

use crate::docs::doc_text;
use crate::serde_attrs::{self, ident_name, RenameRule};

fn private() -> TokenStream {
    crate::private()
}

/// Expands `#[schema]` on `item`.
pub fn expand(args: TokenStream, item: Item) -> TokenStream {
    let mut errors: Vec<syn::Error> = Vec::new();
    if !args.is_empty() {
        errors.push(syn::Error::new_spanned(&args, "#[schema] takes no arguments"));
    }
    let p = private();
    let derive = quote! {
        #[derive(#p::serde::Serialize, #p::serde::Deserialize)]
        #[serde(crate = "::sausage_plugin::__private::serde")]
    };
    let (ident, generics, attrs) = match &item {
        Item::Struct(s) => (&s.ident, &s.generics, &s.attrs),
        Item::Enum(e) => (&e.ident, &e.generics, &e.attrs),
        other => {
            let e = syn::Error::new_spanned(other, "#[schema] goes on a struct or an enum")
                .to_compile_error();
            return quote! { #other #e };
        }
    };
    if !generics.params.is_empty() {
        let e = syn::Error::new_spanned(
            generics,
            "a #[schema] type cannot have generic parameters or lifetimes",
        );
        let e = e.to_compile_error();
        return quote! { #derive #item #e };
    }
    let kind = if matches!(item, Item::Struct(_)) { "struct" } else { "enum" };
    let doc = doc_text(attrs).unwrap_or_else(|| {
        errors.push(syn::Error::new_spanned(
            ident,
            format!(
                "missing doc comment on {kind} `{ident}`: every #[schema] type needs one, because other agents read it in rpc.discover (add a `///` line above it that says what it is)"
            ),
        ));
        String::new()
    });
    let generated = match &item {
        Item::Struct(s) => expand_struct(s, &doc, &mut errors),
        Item::Enum(e) => expand_enum(e, &doc, &mut errors),
        _ => unreachable!(),
    };
    let errors = errors.iter().map(syn::Error::to_compile_error);
    match generated {
        Ok(impls) => quote! {
            #derive
            #item
            const _: () = { #impls };
            #(#errors)*
        },
        Err(e) => {
            // Stub impls, so that the one error is the only one.
            let e = e.to_compile_error();
            let params = match &item {
                Item::Struct(syn::ItemStruct { fields: Fields::Named(_), .. }) => quote! {
                    impl #p::ParamsStruct for #ident {
                        const __NAME: &'static str = "";
                        const __DESCRIPTION: &'static str = "";
                        fn __fields(_: &mut #p::SchemaGen) -> #p::Vec<#p::FieldDoc> {
                            #p::Vec::new()
                        }
                    }
                },
                _ => TokenStream::new(),
            };
            quote! {
                #derive
                #item
                const _: () = {
                    impl #p::JsonSchema for #ident {
                        fn json_schema(_: &mut #p::SchemaGen) -> #p::serde_json::Value {
                            #p::serde_json::Value::Bool(true)
                        }
                    }
                    #params
                };
                #e
                #(#errors)*
            }
        }
    }
}

/// The `field(...)` calls of named fields, with their renames and docs.
fn field_docs(
    fields: &FieldsNamed,
    owner: &str,
    rename_all: Option<RenameRule>,
    all_default: bool,
    errors: &mut Vec<syn::Error>,
) -> syn::Result<Vec<TokenStream>> {
    let p = private();
    let mut out = Vec::new();
    for f in &fields.named {
        let attrs = serde_attrs::parse(&f.attrs)?;
        if attrs.skip {
            continue;
        }
        let ident = f.ident.as_ref().expect("a named field");
        let rust_name = ident_name(ident);
        let name = attrs.rename.clone().unwrap_or_else(|| {
            rename_all.map(|r| r.field(&rust_name)).unwrap_or_else(|| rust_name.clone())
        });
        let doc = doc_text(&f.attrs).unwrap_or_else(|| {
            errors.push(syn::Error::new_spanned(
                ident,
                format!(
                    "missing doc comment on field `{rust_name}` of `{owner}`: every field of a #[schema] type needs one, because other agents read it in rpc.discover"
                ),
            ));
            String::new()
        });
        let ty = &f.ty;
        let default = attrs.default || all_default;
        out.push(quote_spanned! {ty.span()=>
            #p::field(
                #name,
                #doc,
                <#ty as #p::JsonSchema>::__OPTIONAL || #default,
                <#ty as #p::JsonSchema>::json_schema(__g),
            )
        });
    }
    Ok(out)
}

fn expand_struct(
    s: &syn::ItemStruct,
    doc: &str,
    errors: &mut Vec<syn::Error>,
) -> syn::Result<TokenStream> {
    let p = private();
    let ident = &s.ident;
    let name = ident.to_string();
    let attrs = serde_attrs::parse(&s.attrs)?;
    let body;
    let mut params_impl = TokenStream::new();
    match &s.fields {
        Fields::Named(named) => {
            let fields = field_docs(named, &name, attrs.rename_all, attrs.default, errors)?;
            if attrs.transparent {
                let field = named
                    .named
                    .iter()
                    .find(|f| !serde_attrs::parse(&f.attrs).map(|a| a.skip).unwrap_or(false));
                let ty = &field.expect("serde checks that a transparent struct has a field").ty;
                body = quote! { #p::describe(<#ty as #p::JsonSchema>::json_schema(__g), #doc) };
            } else {
                let deny = attrs.deny_unknown_fields;
                body = quote! {
                    #p::object(#doc, <Self as #p::ParamsStruct>::__fields(__g), #deny)
                };
                params_impl = quote! {
                    impl #p::ParamsStruct for #ident {
                        const __NAME: &'static str = #name;
                        const __DESCRIPTION: &'static str = #doc;
                        fn __fields(__g: &mut #p::SchemaGen) -> #p::Vec<#p::FieldDoc> {
                            #p::Vec::from([#(#fields),*])
                        }
                    }
                };
            }
        }
        Fields::Unnamed(unnamed) if unnamed.unnamed.len() == 1 => {
            let ty = &unnamed.unnamed[0].ty;
            body = quote! { #p::describe(<#ty as #p::JsonSchema>::json_schema(__g), #doc) };
        }
        Fields::Unnamed(unnamed) => return Err(syn::Error::new_spanned(
            unnamed,
            "#[schema] cannot describe a tuple struct with more than one field: use named fields",
        )),
        Fields::Unit => {
            body = quote! { #p::describe(<() as #p::JsonSchema>::json_schema(__g), #doc) };
        }
    }
    Ok(quote! {
        impl #p::JsonSchema for #ident {
            fn json_schema(__g: &mut #p::SchemaGen) -> #p::serde_json::Value {
                __g.named::<Self>(#name, |__g| #body)
            }
        }
        #params_impl
    })
}

fn expand_enum(
    e: &syn::ItemEnum,
    doc: &str,
    errors: &mut Vec<syn::Error>,
) -> syn::Result<TokenStream> {
    let p = private();
    let ident = &e.ident;
    let name = ident.to_string();
    let attrs = serde_attrs::parse(&e.attrs)?;
    let repr = match (&attrs.tag, &attrs.content, attrs.untagged) {
        (_, _, true) => quote! { #p::EnumRepr::Untagged },
        (Some(tag), Some(content), false) => quote! { #p::EnumRepr::Adjacent(#tag, #content) },
        (Some(tag), None, false) => quote! { #p::EnumRepr::Internal(#tag) },
        (None, Some(_), false) => {
            return Err(syn::Error::new_spanned(ident, "#[serde(content)] needs #[serde(tag)] too"))
        }
        (None, None, false) => quote! { #p::EnumRepr::External },
    };
    let mut variants = Vec::new();
    for v in &e.variants {
        let vattrs = serde_attrs::parse(&v.attrs)?;
        if vattrs.skip {
            continue;
        }
        let rust_name = ident_name(&v.ident);
        let vname = vattrs.rename.clone().unwrap_or_else(|| {
            attrs.rename_all.map(|r| r.variant(&rust_name)).unwrap_or_else(|| rust_name.clone())
        });
        let vdoc = doc_text(&v.attrs).unwrap_or_default();
        variants.push(match &v.fields {
            Fields::Unit => quote! { #p::variant_unit(&__repr, #vname, #vdoc) },
            Fields::Unnamed(u) if u.unnamed.len() == 1 => {
                let ty = &u.unnamed[0].ty;
                quote_spanned! {ty.span()=>
                    #p::variant_newtype(&__repr, #vname, #vdoc, <#ty as #p::JsonSchema>::json_schema(__g))
                }
            }
            Fields::Unnamed(u) => {
                return Err(syn::Error::new_spanned(
                    u,
                    "#[schema] cannot describe a tuple variant with more than one field: use a struct variant",
                ))
            }
            Fields::Named(named) => {
                let owner = format!("{name}::{rust_name}");
                let fields = field_docs(named, &owner, vattrs.rename_all, vattrs.default, errors)?;
                let deny = attrs.deny_unknown_fields;
                quote! {
                    #p::variant_struct(&__repr, #vname, #vdoc, #p::Vec::from([#(#fields),*]), #deny)
                }
            }
        });
    }
    Ok(quote! {
        impl #p::JsonSchema for #ident {
            fn json_schema(__g: &mut #p::SchemaGen) -> #p::serde_json::Value {
                __g.named::<Self>(#name, |__g| {
                    let __repr = #repr;
                    #p::enum_schema(#doc, #p::Vec::from([#(#variants),*]))
                })
            }
        }
    })
}
