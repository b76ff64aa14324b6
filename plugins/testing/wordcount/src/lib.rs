//! Benchmark plugin: `word_count`, the tool every language's probe under
//! `host/benches/guests/` implements the same way, so the `languages`
//! benchmark compares languages and not tools. This one is the Rust floor.

use mcp_wasm_sdk::prelude::*;

/// Arguments of `word_count`.
#[derive(Deserialize, JsonSchema)]
struct Args {
    /// The text to measure.
    text: String,
}

/// The counts of a text.
#[derive(Serialize, JsonSchema)]
struct Counts {
    /// Runs of non-whitespace characters.
    words: usize,
    /// Lines; a final line break does not start a new line.
    lines: usize,
    /// Unicode code points.
    chars: usize,
}

/// The text on which `word_count` logs it first (every probe does the
/// same): `host/benches/languages.rs` holds calls alive on that log line.
const HOLD: &str = "hold: log this line";

struct WordCount;

impl Plugin for WordCount {
    fn router() -> Router {
        Router::new().json_tool(
            ToolDef::new(
                "word_count",
                "Counts the words, lines and characters of a text.",
            ),
            |Args { text }: Args| -> Result<Counts, ToolError> {
                // The benchmark's memory measure holds calls here (its log
                // callback waits until 16 instances are alive).
                if text == HOLD {
                    log::info(HOLD);
                }
                Ok(Counts {
                    words: text.split_whitespace().count(),
                    lines: text.lines().count(),
                    chars: text.chars().count(),
                })
            },
        )
    }
}

export_plugin!(WordCount);
