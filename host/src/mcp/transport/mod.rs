//! The transports: bytes in, JSON-RPC messages to rmcp, and back. Owns
//! stdio and Streamable HTTP, the HTTP body budget, accepting and draining
//! connections, and who owns each HTTP session; it serves a
//! [`McpServer`](crate::mcp::protocol::McpServer) (the one name it takes
//! from the protocol room) and knows nothing of what the messages mean.
//!
//! What it does in place of rmcp and hyper-util is in [`upstream_gaps`],
//! each part with the upstream issue or the reason it exists: the one
//! check every incoming message gets (`jsonrpc`), the stdio transport
//! ([`stdio`], named here as the public face of the transports), and the
//! wait for accepted connections that a graceful stop would drop unread.

mod accept;
pub mod drain;
pub mod http;
pub mod http_body;
pub mod http_sessions;
mod profile_paths;
pub mod upstream_gaps;

pub use upstream_gaps::stdio;
