//! The MCP side: maps the runtime's tools and results to the Model Context
//! Protocol with `rmcp`, and serves them. Nothing here knows wasmtime.
//!
//! Three rooms, by what each owns:
//! - [`transport`]: bytes and connections (stdio, Streamable HTTP, the
//!   JSON-RPC message check, body budgets, accept, drain, HTTP sessions).
//!   It serves a [`protocol::McpServer`], named through the `protocol`
//!   room's own exports, and never reaches into the room's files.
//! - [`protocol`]: what the messages mean (the rmcp handler, tools,
//!   resources, prompts, rounds, tasks, a call's traffic to the client and
//!   the mapping of the runtime's types). It knows no transport.
//! - [`oauth`]: who may use the HTTP transport (a fixed bearer token or an
//!   OAuth 2.1 issuer's JWT). It knows neither transport nor protocol.
//!
//! `host/tests/all/layering.rs` checks that these rooms and their files
//! import each other without a cycle, and that `transport` names nothing of
//! `protocol` but its exports.

pub mod oauth;
pub mod protocol;
pub mod transport;

pub use protocol::{McpServer, PeerRegistry, ServerOptions};
