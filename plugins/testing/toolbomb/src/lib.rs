//! Test plugin: a tool list as large as its environment asks, for the host's
//! tool-list bounds (`max_tools`, `max_schema_size`, `max_tool_list_size`)
//! and for loading that stays off the host's async workers. The policy's
//! `env = {...}` sets:
//!
//! - `TOOLBOMB_TOOLS`: how many tools to list (default 3), `tool_0`,
//!   `tool_1`, …; each returns its own name.
//! - `TOOLBOMB_SCHEMA_BYTES`: the length of `tool_0`'s input schema (a valid
//!   object schema, about this long).
//! - `TOOLBOMB_SCHEMA_EVERY`: if set, every tool's input schema has that
//!   length, not only `tool_0`'s.
//! - `TOOLBOMB_SCHEMA_SHAPE`: `description` (the default: one long
//!   `description`, cheap to compile) or `properties` (as many small
//!   property schemas as fit, the costly shape to compile).
//! - `TOOLBOMB_DESCRIPTION_BYTES`: the length of every tool's description.

use mcp_wasm_sdk::prelude::*;

/// The smallest input schema: any object.
const SMALL_SCHEMA: &str = r#"{"type":"object"}"#;

/// The environment variable `name` as a number, if it is set and is one.
fn setting(name: &str) -> Option<usize> {
    std::env::var(name).ok()?.parse().ok()
}

/// A valid object schema of exactly `bytes` bytes (or the smallest one, if
/// `bytes` is less), padded with one long description.
fn described_schema(bytes: usize) -> String {
    let frame = r#"{"type":"object","description":""}"#;
    format!(
        r#"{{"type":"object","description":"{}"}}"#,
        "d".repeat(bytes.saturating_sub(frame.len()))
    )
}

/// A valid object schema of about `bytes` bytes (at most that, or the
/// smallest one) made of as many small property schemas as fit.
fn properties_schema(bytes: usize) -> String {
    let mut schema = String::from(r#"{"type":"object","properties":{"#);
    let close = "}}";
    for i in 0.. {
        let property = format!(
            r#"{}"p{i}":{{"type":"string","minLength":1}}"#,
            if i == 0 { "" } else { "," }
        );
        if schema.len() + property.len() + close.len() > bytes {
            break;
        }
        schema.push_str(&property);
    }
    schema.push_str(close);
    schema
}

struct ToolBomb;

impl Plugin for ToolBomb {
    fn router() -> Router {
        let tools = setting("TOOLBOMB_TOOLS").unwrap_or(3);
        let shape = std::env::var("TOOLBOMB_SCHEMA_SHAPE").unwrap_or_default();
        let big_schema = setting("TOOLBOMB_SCHEMA_BYTES").map(|n| match shape.as_str() {
            "properties" => properties_schema(n),
            _ => described_schema(n),
        });
        let every = std::env::var_os("TOOLBOMB_SCHEMA_EVERY").is_some();
        let description = setting("TOOLBOMB_DESCRIPTION_BYTES")
            .map_or_else(|| "Returns its own name.".to_string(), |n| "d".repeat(n));
        (0..tools).fold(Router::new(), |router, i| {
            let name = format!("tool_{i}");
            let schema = match &big_schema {
                Some(big) if i == 0 || every => big.clone(),
                _ => SMALL_SCHEMA.to_string(),
            };
            let def = ToolDef::new(name.clone(), description.clone()).raw_input_schema(schema);
            router.tool(def, move |_: serde_json::Value| Ok(name.clone()))
        })
    }
}

export_plugin!(ToolBomb);
