//! Test plugin: its tool's input schema is not a valid object schema, so the
//! host must refuse it at load.

use mcp_wasm_sdk::prelude::*;

struct BadSchema;

impl Plugin for BadSchema {
    fn router() -> Router {
        Router::new().tool(
            ToolDef::new("bad", "Has an invalid input schema.").raw_input_schema(r#"{"type":42}"#),
            |_: serde_json::Value| Ok("unreachable"),
        )
    }
}

export_plugin!(BadSchema);
