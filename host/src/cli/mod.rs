//! Commands of the `mcp-wasm-host` binary that do not serve: today `new`.

pub mod new;
