//! @NAME@: an MCP tool for mcp-wasm-host, built into a WebAssembly component.

use mcp_wasm_sdk::prelude::*;

/// Arguments of `number_stats`; the `///` lines become the schema's descriptions.
#[derive(Deserialize, JsonSchema)]
struct StatsArgs {
    /// The numbers to summarize.
    numbers: Vec<f64>,
    /// Decimal places of the mean (default 2).
    #[schemars(range(max = 10))]
    digits: Option<u32>,
}

/// What `number_stats` returns: structured content, with a derived output schema.
#[derive(Serialize, JsonSchema)]
struct Stats {
    count: usize,
    mean: f64,
    min: f64,
    max: f64,
}

struct Tools;

impl Plugin for Tools {
    fn router() -> Router {
        Router::new().json_tool(
            ToolDef::new(
                "number_stats",
                "Count numbers and give their mean, minimum and maximum.",
            )
            .title("Number statistics")
            .read_only()
            .closed_world(),
            |args: StatsArgs| -> Result<Stats, ToolError> {
                let n = &args.numbers;
                if n.is_empty() {
                    return Err(ToolError::invalid_arguments("`numbers` is empty"));
                }
                let scale = 10f64.powi(args.digits.unwrap_or(2) as i32);
                let mean = n.iter().sum::<f64>() / n.len() as f64;
                Ok(Stats {
                    count: n.len(),
                    mean: (mean * scale).round() / scale,
                    min: n.iter().copied().fold(f64::INFINITY, f64::min),
                    max: n.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                })
            },
        )
    }
}

mcp_wasm_sdk::export_plugin!(Tools);
