//! The MCP side: maps the runtime's tools and results to the Model Context
//! Protocol with `rmcp`, and serves them. Nothing here knows wasmtime.

mod accept;
mod access;
pub mod auth;
pub mod client_requests;
pub mod convert;
pub mod cursor;
pub mod drain;
pub mod events;
pub mod handler;
pub mod http;
pub mod http_body;
pub mod jsonrpc;
pub mod notify;
pub mod oauth;
pub mod rounds;
pub mod served;
mod serving;
pub mod sessions;
pub mod stdio;
pub mod subscriptions;
pub mod task_run;
pub mod tasks;
mod unread;

pub use handler::{McpServer, ServerOptions};
pub use notify::PeerRegistry;
