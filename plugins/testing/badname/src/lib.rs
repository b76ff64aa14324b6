//! Test plugin: its tool's name breaks the MCP name rules, so the host must
//! refuse it at load.

use mcp_wasm_sdk::prelude::*;

struct BadName;

impl Plugin for BadName {
    fn router() -> Router {
        Router::new().tool(
            ToolDef::new("has space!", "Has an invalid name."),
            |_: NoArgs| Ok("unreachable"),
        )
    }
}

export_plugin!(BadName);
