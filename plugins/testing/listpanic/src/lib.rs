//! Test plugin: listing its tools panics, so the host must skip it at load
//! with a clear reason and keep serving the other plugins.

use mcp_wasm_sdk::prelude::*;

struct ListPanic;

impl Plugin for ListPanic {
    fn router() -> Router {
        let broken: Option<Router> = std::hint::black_box(None);
        broken.expect("the tool table is missing")
    }
}

export_plugin!(ListPanic);
