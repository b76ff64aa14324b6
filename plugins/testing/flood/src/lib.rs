//! Test plugin: a guest that floods the host with what it may send while it
//! runs (progress reports, log messages, stdout and stderr lines) or hold
//! (WASI handles, each of which costs host memory), and a tool whose input
//! schema is slow to check (a backtracking `pattern`), to show that the host
//! bounds the memory and CPU these cost it.

use mcp_wasm_sdk::prelude::*;

/// Arguments of the flooding tools.
#[derive(Deserialize, JsonSchema)]
struct FloodArgs {
    /// How many reports, messages or lines to send.
    count: u32,
    /// How many bytes each carries (default 16).
    #[serde(default = "default_size")]
    size: u32,
}

fn default_size() -> u32 {
    16
}

/// The arguments of `slow_schema`; the input schema clients see is given
/// raw, below.
#[derive(Deserialize, JsonSchema)]
struct SlowArgs {
    words: Vec<String>,
}

/// Each word must match a pattern that backtracks exponentially on a
/// string of `a`s without the final `b`: every `a` starts an alternative
/// with a look-ahead, so fancy-regex runs the repetition on its backtracking
/// engine (patterns without look-around run in linear time).
const SLOW_SCHEMA: &str = r#"{
  "type": "object",
  "properties": {
    "words": {
      "type": "array",
      "items": {"type": "string", "pattern": "^(?:(?=a)a|(?=a)aa)+b$"}
    }
  },
  "required": ["words"]
}"#;

/// One word of `slow_output`'s result; its output schema carries the same
/// backtracking pattern as `slow_schema`'s input.
#[derive(Serialize, JsonSchema)]
struct Word {
    #[schemars(pattern(r"^(?:(?=a)a|(?=a)aa)+b$"))]
    w: String,
}

/// The result of `slow_output`.
#[derive(Serialize, JsonSchema)]
struct Words {
    words: Vec<Word>,
}

fn payload(i: u32, size: u32) -> String {
    let mut text = i.to_string();
    text.extend(std::iter::repeat_n(
        'x',
        (size as usize).saturating_sub(text.len()),
    ));
    text
}

struct Flood;

impl Plugin for Flood {
    fn router() -> Router {
        Router::new()
            .tool(
                ToolDef::new(
                    "flood_progress",
                    "Sends `count` increasing progress reports, each with a `size`-byte message, then returns \"done\".",
                ),
                |args: FloodArgs| -> ToolResult {
                    for i in 1..=args.count {
                        progress(
                            f64::from(i),
                            Some(f64::from(args.count)),
                            Some(&payload(i, args.size)),
                        );
                    }
                    Ok(Output::text("done"))
                },
            )
            .tool(
                ToolDef::new(
                    "flood_log",
                    "Sends `count` info log messages of `size` bytes, then returns \"done\".",
                ),
                |args: FloodArgs| -> ToolResult {
                    for i in 1..=args.count {
                        log::info(payload(i, args.size));
                    }
                    Ok(Output::text("done"))
                },
            )
            .tool(
                ToolDef::new(
                    "flood_stdout",
                    "Prints `count` lines of `size` bytes to stdout and to stderr, then returns \"done\".",
                ),
                |args: FloodArgs| -> ToolResult {
                    for i in 1..=args.count {
                        let line = payload(i, args.size);
                        println!("{line}");
                        eprintln!("{line}");
                    }
                    Ok(Output::text("done"))
                },
            )
            .tool(
                ToolDef::new(
                    "flood_handles",
                    "Holds `count` monotonic-clock pollables (host handles) at once, then returns how many.",
                ),
                |args: FloodArgs| -> ToolResult {
                    let held: Vec<_> = (0..args.count)
                        .map(|_| wasip2::clocks::monotonic_clock::subscribe_duration(1))
                        .collect();
                    Ok(Output::text(held.len().to_string()))
                },
            )
            .json_tool(
                ToolDef::new(
                    "slow_output",
                    "Returns `count` words of 16 `a`s as structured content whose output schema backtracks on them.",
                ),
                |args: FloodArgs| -> Result<Words, ToolError> {
                    let words = (0..args.count)
                        .map(|_| Word { w: "a".repeat(16) })
                        .collect();
                    Ok(Words { words })
                },
            )
            .tool(
                ToolDef::new(
                    "slow_schema",
                    "Returns how many words it got; its input schema backtracks on words of many `a`s.",
                )
                .raw_input_schema(SLOW_SCHEMA),
                |args: SlowArgs| -> ToolResult { Ok(Output::text(args.words.len().to_string())) },
            )
    }
}

export_plugin!(Flood);
