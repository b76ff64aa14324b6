//! The `#[tool]` attribute and the `tool_router!`/`export_tools!` macros of
//! `mcp-wasm-sdk`. Use them through that crate (`mcp_wasm_sdk::tool`), whose
//! documentation describes them; the expansions name its items.
//!
//! Each entry point is a thin wrapper over a function of
//! `proc_macro2::TokenStream`, so the expansions and their errors are unit
//! tested here without a compiler.

mod list;
mod options;
mod tool;

use proc_macro::TokenStream;

/// Makes a function a tool: see `mcp_wasm_sdk::tool`.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(attr.into(), item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// A `Router` of `#[tool]` functions: see `mcp_wasm_sdk::tool_router`.
#[proc_macro]
pub fn tool_router(input: TokenStream) -> TokenStream {
    list::tool_router(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Exports `#[tool]` functions as the plugin: see `mcp_wasm_sdk::export_tools`.
#[proc_macro]
pub fn export_tools(input: TokenStream) -> TokenStream {
    list::export_tools(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
