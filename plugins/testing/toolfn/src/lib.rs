//! Tools written as functions with `#[tool]` and exported with
//! `export_tools!`: `host/tests/all/light_forms.rs` lists and calls them
//! through the real host, beside the same tools in Go and C.

use mcp_wasm_sdk::prelude::*;

/// What `number_stats` returns.
#[derive(Serialize, JsonSchema)]
struct Stats {
    /// How many numbers.
    count: usize,
    /// Their mean, rounded.
    mean: f64,
}

/// Count numbers and give their mean.
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
    })
}

/// Say hello to someone.
#[tool(name = "greet")]
fn hello(
    /// Whom to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

export_tools!(number_stats, hello);
