//! Test plugin: tools with icons (WIT 0.2.0), every field of an icon set on
//! one of them, and one tool without icons.

use mcp_wasm_sdk::prelude::*;

struct Icons;

/// A one-pixel PNG, as a `data:` URI.
const DOT: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

impl Plugin for Icons {
    fn router() -> Router {
        Router::new()
            .tool(
                ToolDef::new("iconic", "Has two icons.")
                    .icon(
                        Icon::new("https://example.com/iconic-dark.png")
                            .mime_type("image/png")
                            .sizes(["48x48", "96x96"])
                            .theme(IconTheme::Dark),
                    )
                    .icon(Icon::new(DOT)),
                |_: NoArgs| Ok("iconic"),
            )
            .tool(ToolDef::new("plain", "Has no icon."), |_: NoArgs| {
                Ok("plain")
            })
    }
}

export_plugin!(Icons);
