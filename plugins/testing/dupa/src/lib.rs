//! Test plugin: exports `echo`, as `dupb` does, for the host's name
//! collision rule.

use mcp_wasm_sdk::prelude::*;

/// Arguments of `echo`.
#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to echo.
    text: String,
}

struct Dup;

impl Plugin for Dup {
    fn router() -> Router {
        Router::new().tool(
            ToolDef::new("echo", "Returns `text` prefixed with \"a:\".").read_only(),
            |args: EchoArgs| Ok(format!("a:{}", args.text)),
        )
    }
}

export_plugin!(Dup);
