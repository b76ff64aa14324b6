//! mcp-wasm-host: serve MCP tools from sandboxed WebAssembly components.
//!
//! The crate is split along the one direction data flows:
//!
//! - [`config`] reads the policy file and resolves each plugin's policy.
//! - [`runtime`] is the `mcp-wasm-host-runtime` crate: it loads plugin
//!   components with wasmtime, keeps one pre-instantiated copy of each, and
//!   runs every call in a fresh sandboxed instance. It speaks in its own
//!   types and knows nothing of MCP; Cargo keeps it so (it does not depend
//!   on rmcp, and this crate does not depend on wasmtime).
//! - [`mcp`] maps those types to the Model Context Protocol with `rmcp` and
//!   serves them over the transports. It knows nothing of wasmtime.
//! - [`inspect`] presents what the runtime reads from one plugin file, for
//!   the `inspect` command.
//! - [`telemetry`] holds the Prometheus metrics the runtime feeds through
//!   its observer seam, and the health endpoints.
//! - [`source`] fetches plugins named by an OCI reference or a URL
//!   (`source` in the policy file, `pull`, `push`, `sign`) and checks their
//!   digests and signatures; the runtime loads what it fetched as files.
//! - [`memory`] gives freed heap memory back to the operating system once
//!   a burst (listen streams, sessions, large bodies) is over.
//! - [`scaffold`] writes a new plugin project (`mcp-wasm-host new`) from
//!   the templates in `host/templates/`.
//!
//! The binary's command line (`src/cli/`, one module per subcommand) wires
//! these together.

pub mod config;
pub mod inspect;
pub mod mcp;
pub mod memory;
pub mod scaffold;
pub mod source;
pub mod telemetry;

#[doc(inline)]
pub use mcp_wasm_host_runtime as runtime;
