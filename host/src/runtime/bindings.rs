//! Host-side bindings generated from the WIT contract in `wit/`, and the
//! version of that contract.

/// The version of the WIT package `mcp-wasm-host:plugin` this host speaks.
pub const WIT_VERSION: &str = "0.1.1";

wasmtime::component::bindgen!({
    path: "../wit",
    world: "plugin",
    imports: { default: async },
    exports: { default: async },
});

pub use self::mcp_wasm_host::plugin::types;
