//! `#[tool]` on a function: the function stays as written, and a hidden
//! companion adds it to a `Router`, with an argument struct made of its
//! parameters (their doc comments become the schema's descriptions).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, FnArg, GenericArgument, Ident, ItemFn, Pat, PathArguments, ReturnType, Type};

use crate::options::Options;

/// The companion of tool function `name`, which `tool_router!` calls.
pub(crate) fn companion(name: &Ident) -> Ident {
    format_ident!("__mcp_wasm_sdk_tool_{}", name)
}

/// Expands `#[tool(attr)] item`.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let options = Options::parse(attr)?;
    let mut function: ItemFn = syn::parse2(item)?;
    check_signature(&function)?;
    let description = match &options.description {
        Some(d) => d.value(),
        None => doc_text(&function.attrs).ok_or_else(|| {
            syn::Error::new(
                function.sig.ident.span(),
                "a #[tool] needs a description: write a `///` doc comment on the function \
                 (the model reads it) or #[tool(description = \"…\")]",
            )
        })?,
    };
    let name = options
        .name
        .as_ref()
        .map_or_else(|| function.sig.ident.to_string(), syn::LitStr::value);
    let fields = take_parameters(&mut function)?;
    let returns = Returns::of(&function.sig.output)?;

    let vis = &function.vis;
    let ident = &function.sig.ident;
    let companion = companion(ident);
    let calls = &options.calls;
    let names: Vec<&Ident> = fields.iter().map(|f| &f.name).collect();
    let (argument_type, arguments_struct) = if fields.is_empty() {
        (quote!(::mcp_wasm_sdk::NoArgs), quote!())
    } else {
        // A name no user type has (the struct is local to the companion, so
        // it would shadow one); the schema's title is the readable one.
        let struct_name = format_ident!("__McpWasmSdkArgs");
        let title = camel_case(&ident.to_string()) + "Args";
        let declared = fields.iter().map(|f| {
            let (attrs, name, ty) = (&f.attrs, &f.name, &f.ty);
            quote!(#(#attrs)* #name: #ty,)
        });
        (
            quote!(#struct_name),
            quote! {
                #[derive(::mcp_wasm_sdk::serde::Deserialize, ::mcp_wasm_sdk::schemars::JsonSchema)]
                #[serde(crate = "::mcp_wasm_sdk::serde", rename = #title)]
                #[schemars(crate = "::mcp_wasm_sdk::schemars")]
                struct #struct_name { #(#declared)* }
            },
        )
    };
    let pattern = if fields.is_empty() {
        quote!(_)
    } else {
        quote!(__mcp_wasm_sdk_args)
    };
    let call = quote!(#ident(#(__mcp_wasm_sdk_args.#names),*));
    let result = if returns.fallible {
        quote!(#call.map_err(::core::convert::Into::<::mcp_wasm_sdk::ToolError>::into))
    } else {
        quote!(::core::result::Result::<_, ::mcp_wasm_sdk::ToolError>::Ok(#call))
    };
    let method = if returns.content {
        quote_spanned!(returns.span=> tool)
    } else {
        quote_spanned!(returns.span=> json_tool)
    };
    Ok(quote! {
        #function

        #[doc(hidden)]
        #vis fn #companion(router: ::mcp_wasm_sdk::Router) -> ::mcp_wasm_sdk::Router {
            #arguments_struct
            router.#method(
                ::mcp_wasm_sdk::ToolDef::new(#name, #description) #(#calls)*,
                |#pattern: #argument_type| #result,
            )
        }
    })
}

/// Refuses what a tool function cannot be.
fn check_signature(function: &ItemFn) -> syn::Result<()> {
    let sig = &function.sig;
    let refuse = |span: Span, message: &str| Err(syn::Error::new(span, message));
    if let Some(receiver) = sig.receiver() {
        return refuse(
            receiver.span(),
            "#[tool] goes on a free function, not a method: the host runs each call in a fresh \
             instance, so there is no `self` to keep",
        );
    }
    if let Some(asyncness) = sig.asyncness {
        return refuse(
            asyncness.span(),
            "a #[tool] function is not `async`: calls run to completion, so make it a plain `fn`",
        );
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        return refuse(
            sig.generics.span(),
            "a #[tool] function has no generic parameters: its arguments' schema needs concrete types",
        );
    }
    if let Some(variadic) = &sig.variadic {
        return refuse(variadic.span(), "a #[tool] function is not variadic");
    }
    if let ReturnType::Default = sig.output {
        return refuse(
            sig.ident.span(),
            "a #[tool] function returns its result: for example `-> Result<String, ToolError>`, \
             or a struct deriving Serialize and JsonSchema for structured content",
        );
    }
    Ok(())
}

/// A parameter, as a field of the arguments struct.
struct Field {
    attrs: Vec<Attribute>,
    name: Ident,
    ty: Type,
}

/// Takes the parameters' attributes off the function (doc comments, serde and
/// schemars attributes belong to the arguments struct) and returns the fields.
fn take_parameters(function: &mut ItemFn) -> syn::Result<Vec<Field>> {
    let mut fields = Vec::new();
    for input in &mut function.sig.inputs {
        let FnArg::Typed(typed) = input else {
            continue;
        };
        let attrs = std::mem::take(&mut typed.attrs);
        for attr in &attrs {
            let path = attr.path();
            if !(path.is_ident("doc") || path.is_ident("serde") || path.is_ident("schemars")) {
                return Err(syn::Error::new(
                    attr.span(),
                    "a #[tool] parameter takes doc comments, #[serde(...)] and #[schemars(...)] \
                     only (they describe the argument)",
                ));
            }
        }
        let name = match &*typed.pat {
            Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => pat.ident.clone(),
            other => {
                return Err(syn::Error::new(
                    other.span(),
                    "a #[tool] parameter is a plain name (`text: String`): the name is the \
                     argument's name in the tool's schema",
                ));
            }
        };
        if let Type::Reference(reference) = &*typed.ty {
            return Err(syn::Error::new(
                reference.span(),
                "a #[tool] parameter is an owned value (`String`, not `&str`): it is deserialized \
                 from the call's arguments",
            ));
        }
        fields.push(Field {
            attrs,
            name,
            ty: (*typed.ty).clone(),
        });
    }
    Ok(fields)
}

/// How the function's result becomes the tool's.
struct Returns {
    /// A `Result` (or `ToolResult`): errors are the tool's errors.
    fallible: bool,
    /// Content (`Output`, `String`, `&str`) rather than structured content.
    content: bool,
    span: Span,
}

impl Returns {
    fn of(output: &ReturnType) -> syn::Result<Self> {
        let ReturnType::Type(_, ty) = output else {
            unreachable!("check_signature refuses a function without a result")
        };
        let span = ty.span();
        if last_segment(ty).is_some_and(|s| s.ident == "ToolResult") {
            return Ok(Self {
                fallible: true,
                content: true,
                span,
            });
        }
        if let Some(segment) = last_segment(ty).filter(|s| s.ident == "Result") {
            let ok = match &segment.arguments {
                PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
                    GenericArgument::Type(t) => Some(t),
                    _ => None,
                }),
                _ => None,
            };
            let Some(ok) = ok else {
                return Err(syn::Error::new(
                    span,
                    "a #[tool] function's `Result` names its value type: `Result<T, ToolError>`",
                ));
            };
            return Ok(Self {
                fallible: true,
                content: is_content(ok),
                span,
            });
        }
        Ok(Self {
            fallible: false,
            content: is_content(ty),
            span,
        })
    }
}

/// Whether a value type is content (`Output`, `String`, `&str`) rather than a
/// struct to return as structured content.
fn is_content(ty: &Type) -> bool {
    match ty {
        Type::Reference(reference) => {
            matches!(&*reference.elem, Type::Path(p) if p.path.is_ident("str"))
        }
        Type::Group(group) => is_content(&group.elem),
        Type::Paren(paren) => is_content(&paren.elem),
        _ => last_segment(ty).is_some_and(|s| s.ident == "Output" || s.ident == "String"),
    }
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(path) if path.qself.is_none() => path.path.segments.last(),
        Type::Group(group) => last_segment(&group.elem),
        _ => None,
    }
}

/// The text of `///` doc comments, as rustdoc joins them; `None` if empty.
fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .map(|line| {
            line.strip_prefix(' ')
                .unwrap_or(&line)
                .trim_end()
                .to_owned()
        })
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// `number_stats` as `NumberStats`.
fn camel_case(snake: &str) -> String {
    snake
        .trim_start_matches("r#")
        .split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|first| first.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(attr: TokenStream, item: TokenStream) -> String {
        match expand(attr, item.clone()) {
            Ok(tokens) => panic!("`{item}` expanded to `{tokens}`, expected an error"),
            Err(error) => error.to_string(),
        }
    }

    /// Every misuse is refused with a message that says what to write.
    #[test]
    fn misuse_is_refused_with_what_to_write() {
        let cases = [
            (
                quote!(),
                quote!(
                    fn f(x: u32) -> u32 {
                        x
                    }
                ),
                "needs a description: write a `///` doc comment",
            ),
            (
                quote!(),
                quote!(
                    #[doc = "  "]
                    fn f(x: u32) -> u32 {
                        x
                    }
                ),
                "needs a description",
            ),
            (
                quote!(),
                quote!(
                    #[doc = "D."]
                    fn f(&self) -> u32 {
                        1
                    }
                ),
                "free function, not a method",
            ),
            (
                quote!(),
                quote!(
                    #[doc = "D."]
                    async fn f() -> u32 {
                        1
                    }
                ),
                "is not `async`",
            ),
            (
                quote!(),
                quote!(
                    #[doc = "D."]
                    fn f<T>(x: T) -> u32 {
                        1
                    }
                ),
                "no generic parameters",
            ),
            (
                quote!(),
                quote!(
                    #[doc = "D."]
                    fn f(x: u32) -> u32
                    where
                        u32: Copy,
                    {
                        1
                    }
                ),
                "no generic parameters",
            ),
            (
                quote!(),
                quote!(
                    #[doc = "D."]
                    fn f(x: u32) {}
                ),
                "returns its result",
            ),
            (
                quote!(),
                quote!(
                    #[doc = "D."]
                    fn f((a, b): (u32, u32)) -> u32 {
                        a
                    }
                ),
                "is a plain name",
            ),
            (
                quote!(),
                quote!(
                    #[doc = "D."]
                    fn f(_: u32) -> u32 {
                        1
                    }
                ),
                "is a plain name",
            ),
            (
                quote!(),
                quote!(
                    #[doc = "D."]
                    fn f(ref x: u32) -> u32 {
                        1
                    }
                ),
                "is a plain name",
            ),
            (
                quote!(),
                quote!(
                    #[doc = "D."]
                    fn f(x: &str) -> u32 {
                        1
                    }
                ),
                "owned value (`String`, not `&str`)",
            ),
            (
                quote!(),
                quote!(
                    #[doc = "D."]
                    fn f(#[allow(unused)] x: u32) -> u32 {
                        1
                    }
                ),
                "doc comments, #[serde(...)] and #[schemars(...)] only",
            ),
            (
                quote!(),
                quote!(
                    #[doc = "D."]
                    fn f() -> Result {
                        1
                    }
                ),
                "names its value type",
            ),
            (
                quote!(readonly),
                quote!(
                    #[doc = "D."]
                    fn f() -> u32 {
                        1
                    }
                ),
                "unknown #[tool] key `readonly`",
            ),
            (
                quote!(),
                quote!(
                    struct S;
                ),
                "expected `fn`",
            ),
        ];
        for (attr, item, expected) in cases {
            let error = error_of(attr, item.clone());
            assert!(
                error.contains(expected),
                "`{item}`: expected {expected:?} in {error:?}"
            );
        }
    }

    /// The result type picks `tool` (content) or `json_tool` (structured
    /// content), and whether errors pass through or the value is wrapped.
    #[test]
    fn result_type_picks_the_router_method() {
        let cases = [
            (quote!(String), "tool", false),
            (quote!(&'static str), "tool", false),
            (quote!(mcp_wasm_sdk::Output), "tool", false),
            (quote!(ToolResult), "tool", true),
            (quote!(Result<String, ToolError>), "tool", true),
            (quote!(Result<Output, std::io::Error>), "tool", true),
            (
                quote!(std::result::Result<Stats, ToolError>),
                "json_tool",
                true,
            ),
            (quote!(Stats), "json_tool", false),
            (quote!(Vec<String>), "json_tool", false),
        ];
        for (ty, method, fallible) in cases {
            let tokens = expand(
                quote!(),
                quote!(#[doc = "D."] fn f(x: u32) -> #ty { todo!() }),
            )
            .expect("expands")
            .to_string();
            assert!(
                tokens.contains(&format!("router . {method} (")),
                "{ty}: {tokens}"
            );
            assert_eq!(tokens.contains(". map_err ("), fallible, "{ty}: {tokens}");
        }
    }

    #[test]
    fn the_function_keeps_its_body_and_loses_parameter_attributes() {
        let tokens = expand(
            quote!(name = "other", title = "T"),
            quote!(
                /// Line one.
                ///
                /// Line two.
                pub fn number_stats(
                    /// The numbers.
                    #[schemars(range(max = 3))]
                    mut numbers: Vec<f64>,
                ) -> f64 {
                    numbers.pop().unwrap_or(0.0)
                }
            ),
        )
        .expect("expands")
        .to_string();
        assert!(
            tokens.contains("pub fn number_stats (mut numbers : Vec < f64 > ,)"),
            "{tokens}"
        );
        assert!(
            tokens.contains("pub fn __mcp_wasm_sdk_tool_number_stats"),
            "{tokens}"
        );
        assert!(
            tokens.contains("ToolDef :: new (\"other\" , \"Line one.\\n\\nLine two.\")"),
            "{tokens}"
        );
        assert!(tokens.contains("rename = \"NumberStatsArgs\""), "{tokens}");
        assert!(
            tokens.contains("# [schemars (range (max = 3))] numbers : Vec < f64 >"),
            "{tokens}"
        );
    }

    #[test]
    fn camel_case_of_function_names() {
        for (snake, camel) in [
            ("stats", "Stats"),
            ("number_stats", "NumberStats"),
            ("r#type", "Type"),
            ("a__b_", "AB"),
        ] {
            assert_eq!(camel_case(snake), camel);
        }
    }
}
