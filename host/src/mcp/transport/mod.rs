//! The transports: bytes in, JSON-RPC messages to rmcp, and back. Owns
//! stdio and Streamable HTTP, the one check every incoming message gets
//! ([`jsonrpc`]), the HTTP body budget, accepting and draining connections,
//! and who owns each HTTP session; it serves a
//! [`McpServer`](crate::mcp::protocol::McpServer) (the one name it takes
//! from the protocol room) and knows nothing of what the messages mean.

mod accept;
pub mod drain;
pub mod http;
pub mod http_body;
pub mod http_sessions;
pub mod jsonrpc;
pub mod stdio;
mod unread;
