//! Test plugin: counts its calls in a static, so a test can tell which calls
//! one instance served. On a fresh instance per call every call sees 1; with
//! `reuse_instances = N`, consecutive calls see 1, 2, … N, then 1 again on
//! the next instance. Every tool counts its call first. `tag` answers the
//! environment variable `TAG` the instance was made with, so a test can
//! tell which policy an instance was made under.

use std::sync::atomic::{AtomicU32, Ordering};

use mcp_wasm_sdk::prelude::*;

/// The calls this instance has served, this one included once counted.
static CALLS: AtomicU32 = AtomicU32::new(0);

fn count() -> u32 {
    CALLS.fetch_add(1, Ordering::Relaxed) + 1
}

/// Arguments of `burn`.
#[derive(Deserialize, JsonSchema)]
struct Burn {
    /// How many times to loop.
    iterations: u64,
}

struct Counter;

impl Plugin for Counter {
    fn router() -> Router {
        Router::new()
            .tool(
                ToolDef::new("count", "Returns how many calls this instance has served."),
                |_: NoArgs| -> ToolResult { Ok(Output::text(count().to_string())) },
            )
            .tool(
                ToolDef::new("tag", "Counts the call, then returns `$TAG` and the count."),
                |_: NoArgs| -> ToolResult {
                    let calls = count();
                    let tag = std::env::var("TAG").unwrap_or_default();
                    Ok(Output::text(format!("{tag} {calls}")))
                },
            )
            .tool(
                ToolDef::new("fail", "Counts the call, then returns a tool error."),
                |_: NoArgs| -> ToolResult {
                    Err(ToolError::failed(format!("failed on call {}", count())))
                },
            )
            .tool(
                ToolDef::new("trap", "Counts the call, then panics (a trap)."),
                |_: NoArgs| -> ToolResult {
                    let calls = count();
                    panic!("trapping on call {calls}")
                },
            )
            .tool(
                ToolDef::new(
                    "burn",
                    "Counts the call, loops `iterations` times (burning fuel), then returns the count.",
                ),
                |args: Burn| -> ToolResult {
                    let calls = count();
                    let mut sum = 0u64;
                    for i in 0..args.iterations {
                        sum = std::hint::black_box(sum.wrapping_add(i));
                    }
                    std::hint::black_box(sum);
                    Ok(Output::text(calls.to_string()))
                },
            )
    }
}

export_plugin!(Counter);
