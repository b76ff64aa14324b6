//! Host-side bindings generated from the WIT contract in `wit/`, and the
//! version of that contract.

/// The version of the WIT package `mcp-wasm-host:plugin` this host speaks.
pub const WIT_VERSION: &str = "0.1.2";

wasmtime::component::bindgen!({
    path: "../wit",
    world: "plugin",
    // A request to the client may end the call (see `ClientRequestError::Deferred`).
    imports: { "mcp-wasm-host:plugin/client": async | trappable, default: async },
    exports: { default: async },
});

pub use self::mcp_wasm_host::plugin::types;
