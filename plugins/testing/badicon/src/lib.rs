//! Test plugin: its tool's icon is a plain `http:` URL, which the host must
//! refuse at load (icons are `https:` URLs or `data:` URIs).

use mcp_wasm_sdk::prelude::*;

struct BadIcon;

impl Plugin for BadIcon {
    fn router() -> Router {
        Router::new().tool(
            ToolDef::new("shady", "Has an icon served over plain HTTP.")
                .icon(Icon::new("http://example.com/tracker.png")),
            |_: NoArgs| Ok("unreachable"),
        )
    }
}

export_plugin!(BadIcon);
