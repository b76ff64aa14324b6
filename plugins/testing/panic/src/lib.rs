//! Test plugin: a tool that panics (index out of bounds) and one that works.

use mcp_wasm_sdk::prelude::*;

/// Arguments of `panic`.
#[derive(Deserialize, JsonSchema)]
struct PanicArgs {
    /// The index to read from a 3-element list; 3 or more panics.
    index: u32,
}

struct Panic;

impl Plugin for Panic {
    fn router() -> Router {
        Router::new()
            .tool(
                ToolDef::new("panic", "Reads element `index` of a 3-element list."),
                |args: PanicArgs| -> ToolResult {
                    let items: Vec<u32> = (1..=3).map(|i| i * 10).collect();
                    Ok(Output::text(items[args.index as usize].to_string()))
                },
            )
            .tool(ToolDef::new("ok", "Returns \"ok\"."), |_: NoArgs| Ok("ok"))
    }
}

export_plugin!(Panic);
