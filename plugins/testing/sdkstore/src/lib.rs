//! Test plugin: a counter and a notes tool written with the Rust SDK's store
//! API (`mcp_wasm_sdk::store`) over wasi:keyvalue, as the guide's
//! "Remembering things" shows them. `host/tests/all/keyvalue_sdk.rs` calls
//! them through the real binary.

use mcp_wasm_sdk::prelude::*;
use mcp_wasm_sdk::store::Bucket;

/// Count the calls of this tool, across calls and restarts.
#[tool]
fn count() -> Result<String, ToolError> {
    let calls = Bucket::open("default")?.increment("calls", 1)?;
    Ok(format!("called {calls} times"))
}

/// Add a note.
#[tool]
fn add_note(
    /// The note.
    text: String,
) -> Result<String, ToolError> {
    Bucket::open("notes")?.update("all", |old| {
        let mut notes = old.unwrap_or_default().to_vec();
        notes.extend_from_slice(format!("{text}\n").as_bytes());
        notes
    })?;
    Ok("noted".into())
}

/// The notes, one a line, oldest first.
#[tool(read_only)]
fn notes() -> Result<String, ToolError> {
    Ok(Bucket::open("notes")?
        .get_string("all")?
        .unwrap_or_default())
}

/// Set `key` of the bucket "notes" to `value`; every key of the bucket
/// then, one a line.
#[tool]
fn put(
    /// The key.
    key: String,
    /// The value.
    value: String,
) -> Result<String, ToolError> {
    let notes = Bucket::open("notes")?;
    notes.set(&key, value)?;
    let keys: Vec<String> = notes.keys().collect::<Result<_, _>>()?;
    Ok(keys.join("\n"))
}

export_tools!(count, add_note, notes, put);
