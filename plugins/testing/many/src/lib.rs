//! Test plugin: 25 tools, `tool_00` to `tool_24`, for pagination.

use mcp_wasm_sdk::prelude::*;

struct Many;

impl Plugin for Many {
    fn router() -> Router {
        (0..25).fold(Router::new(), |router, i| {
            let name = format!("tool_{i:02}");
            let def = ToolDef::new(name.clone(), format!("Returns its own name, {name}."));
            router.tool(def, move |_: NoArgs| Ok(name.clone()))
        })
    }
}

export_plugin!(Many);
