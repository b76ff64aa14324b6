//! The keys of `#[tool(...)]`: the tool's name, title, description and
//! behaviour hints, as calls on the SDK's `ToolDef`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::meta::ParseNestedMeta;
use syn::{LitBool, LitStr};

/// What `#[tool(...)]` says about the tool.
#[derive(Default)]
pub(crate) struct Options {
    pub(crate) name: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    /// `ToolDef` builder calls (`.title("…")`, `.read_only()`, …), in order.
    pub(crate) calls: Vec<TokenStream>,
}

/// The keys, for the error that names an unknown one.
const KEYS: &str = "name = \"…\", title = \"…\", description = \"…\", read_only, idempotent, \
                    destructive, open_world, closed_world, pure";

impl Options {
    /// Parses `#[tool(...)]`'s arguments (empty for a bare `#[tool]`).
    pub(crate) fn parse(attr: TokenStream) -> syn::Result<Self> {
        let mut options = Self::default();
        let parser = syn::meta::parser(|meta| options.key(meta));
        syn::parse::Parser::parse2(parser, attr)?;
        Ok(options)
    }

    fn key(&mut self, meta: ParseNestedMeta<'_>) -> syn::Result<()> {
        let Some(key) = meta.path.get_ident().map(ToString::to_string) else {
            return Err(meta.error(format!("unknown #[tool] key; the keys are {KEYS}")));
        };
        match key.as_str() {
            "name" => self.name = Some(meta.value()?.parse()?),
            "description" => self.description = Some(meta.value()?.parse()?),
            "title" => {
                let title: LitStr = meta.value()?.parse()?;
                self.calls.push(quote!(.title(#title)));
            }
            "read_only" | "idempotent" | "closed_world" | "pure" => {
                let call = syn::Ident::new(&key, meta.path.span_of_ident());
                self.calls.push(quote!(.#call()));
            }
            "destructive" | "open_world" => {
                let value = if meta.input.peek(syn::Token![=]) {
                    meta.value()?.parse::<LitBool>()?.value
                } else {
                    true
                };
                let call = syn::Ident::new(&key, meta.path.span_of_ident());
                self.calls.push(quote!(.#call(#value)));
            }
            _ => {
                return Err(meta.error(format!("unknown #[tool] key `{key}`; the keys are {KEYS}")));
            }
        }
        Ok(())
    }
}

/// The span of a single-identifier path.
trait SpanOfIdent {
    fn span_of_ident(&self) -> proc_macro2::Span;
}

impl SpanOfIdent for syn::Path {
    fn span_of_ident(&self) -> proc_macro2::Span {
        self.get_ident()
            .map_or_else(proc_macro2::Span::call_site, syn::Ident::span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_become_tooldef_calls_in_order() {
        let options = Options::parse(quote!(
            name = "n",
            title = "T",
            read_only,
            destructive = false,
            open_world,
            pure
        ))
        .expect("parses");
        assert_eq!(options.name.expect("name").value(), "n");
        let calls: Vec<String> = options.calls.iter().map(ToString::to_string).collect();
        assert_eq!(
            calls,
            [
                ". title (\"T\")",
                ". read_only ()",
                ". destructive (false)",
                ". open_world (true)",
                ". pure ()"
            ]
        );
    }

    #[test]
    fn misuse_names_what_to_write() {
        let cases = [
            (
                quote!(readonly),
                "unknown #[tool] key `readonly`; the keys are",
            ),
            (quote!(title), "expected `=`"),
            (quote!(title = 3), "expected string literal"),
            (quote!(destructive = "yes"), "expected boolean literal"),
            (quote!(a::b), "unknown #[tool] key; the keys are"),
        ];
        for (attr, expected) in cases {
            let error = Options::parse(attr.clone()).err().map(|e| e.to_string());
            assert!(
                error.as_deref().is_some_and(|e| e.contains(expected)),
                "#[tool({attr})]: expected an error containing {expected:?}, got {error:?}"
            );
        }
    }
}
