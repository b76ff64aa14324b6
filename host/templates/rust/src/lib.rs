//! @NAME@: an MCP tool for mcp-wasm-host, built into a WebAssembly component.

use mcp_wasm_sdk::prelude::*;

/// What `number_stats` returns: structured content, with a derived output schema.
#[derive(Serialize, JsonSchema)]
struct Stats {
    count: usize,
    mean: f64,
    min: f64,
    max: f64,
}

/// Count numbers and give their mean, minimum and maximum.
#[tool(title = "Number statistics", read_only, closed_world)]
fn number_stats(
    /// The numbers to summarize.
    numbers: Vec<f64>,
    /// Decimal places of the mean (default 2).
    #[schemars(range(max = 10))]
    digits: Option<u32>,
) -> Result<Stats, ToolError> {
    if numbers.is_empty() {
        return Err(ToolError::invalid_arguments("`numbers` is empty"));
    }
    let scale = 10f64.powi(digits.unwrap_or(2) as i32);
    let mean = numbers.iter().sum::<f64>() / numbers.len() as f64;
    Ok(Stats {
        count: numbers.len(),
        mean: (mean * scale).round() / scale,
        min: numbers.iter().copied().fold(f64::INFINITY, f64::min),
        max: numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    })
}

export_tools!(number_stats);
