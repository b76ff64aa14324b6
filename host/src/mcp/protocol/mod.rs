//! What the MCP messages mean: the rmcp server handler and the requests it
//! answers (tools, resources, prompts, completions, tasks, subscriptions),
//! a call's traffic to the client (log messages, progress, requests to the
//! client, 2026-07-28 rounds), and the mapping of the runtime's types to
//! rmcp's. Owns the protocol, not the bytes: it knows no transport, and
//! the transports take only what this module exports.
//!
//! The server's state is [`server`]; [`handler`] dispatches rmcp's
//! requests to the modules that answer them (`tool_call` for `tools/call`,
//! `resources_prompts` for what plugins serve besides tools), and those import the
//! state, never the handler or each other.

mod audience;
pub mod convert;
pub mod convert_served;
pub mod cursor;
pub mod fanout;
mod gate;
pub mod handler;
pub mod list_changed;
mod resources_prompts;
mod revision;
pub mod server;
pub mod shared_state;
pub mod subscriptions;
pub mod tasks;
pub mod to_client;
mod tool_call;

pub use fanout::message::replica_name;
pub use list_changed::PeerRegistry;
pub use server::{DEFAULT_LIST_TTL, McpServer, ServerOptions, UnknownProfile};
pub use shared_state::{Edit, SessionLink, SharedState, StateStore};
pub use to_client::rounds::{Rounds, StateKeyError};
