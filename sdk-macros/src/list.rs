//! `tool_router![a, b]` and `export_tools!(a, b)`: the `#[tool]` functions,
//! named by path, as a `Router` and as the component's exported plugin.

use proc_macro2::TokenStream;
use quote::quote;
use syn::punctuated::Punctuated;
use syn::{Path, Token};

use crate::tool::companion;

/// Expands `tool_router![paths]`: a `Router` with each tool, in order.
pub(crate) fn tool_router(input: TokenStream) -> syn::Result<TokenStream> {
    let paths = parse_paths(input)?;
    let companions = paths.iter().map(|path| {
        let mut path = path.clone();
        if let Some(last) = path.segments.last_mut() {
            last.ident = companion(&last.ident);
        }
        path
    });
    Ok(quote! {{
        let router = ::mcp_wasm_sdk::Router::new();
        #(let router = #companions(router);)*
        router
    }})
}

/// Expands `export_tools!(paths)`: a plugin whose router is `tool_router![paths]`,
/// exported with `export_plugin!`.
pub(crate) fn export_tools(input: TokenStream) -> syn::Result<TokenStream> {
    let router = tool_router(input)?;
    Ok(quote! {
        const _: () = {
            struct __McpWasmSdkTools;

            impl ::mcp_wasm_sdk::Plugin for __McpWasmSdkTools {
                fn router() -> ::mcp_wasm_sdk::Router #router
            }

            ::mcp_wasm_sdk::export_plugin!(__McpWasmSdkTools);
        };
    })
}

fn parse_paths(input: TokenStream) -> syn::Result<Punctuated<Path, Token![,]>> {
    let span = proc_macro2::Span::call_site();
    let paths = syn::parse::Parser::parse2(Punctuated::<Path, Token![,]>::parse_terminated, input)
        .map_err(|e| {
            syn::Error::new(
                e.span(),
                format!("expected the names of #[tool] functions, separated by commas: {e}"),
            )
        })?;
    if paths.is_empty() {
        return Err(syn::Error::new(
            span,
            "name the #[tool] functions to export, e.g. `export_tools!(reverse, stats)`",
        ));
    }
    Ok(paths)
}
