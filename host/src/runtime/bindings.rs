//! Host-side bindings generated from the WIT contract in `wit/`.

wasmtime::component::bindgen!({
    path: "../wit",
    world: "plugin",
    imports: { default: async },
    exports: { default: async },
});

pub use self::mcp_wasm_host::plugin::types;
