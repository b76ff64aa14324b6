//! Test plugin: its tool's input schema is valid but not portable, spelled
//! the way `schemars` derives `Option<String>` and `serde_json::Value`
//! fields (a `type` array, and a schema without any validation keyword),
//! which the SDK no longer emits; the MCP Inspector's `--strict` check must
//! report both (`host/tests/all/inspector_strict.rs`).

use mcp_wasm_sdk::prelude::*;

/// The input schema, given raw: the SDK leaves raw schemas as they are.
const SCHEMA: &str = r#"{
  "type": "object",
  "properties": {
    "name": {"description": "A nullable name.", "type": ["string", "null"]},
    "value": {"description": "Any value."}
  }
}"#;

struct Unportable;

impl Plugin for Unportable {
    fn router() -> Router {
        Router::new().tool(
            ToolDef::new("unportable", "Echoes its arguments.").raw_input_schema(SCHEMA),
            |args: serde_json::Value| Ok(args.to_string()),
        )
    }
}

export_plugin!(Unportable);
