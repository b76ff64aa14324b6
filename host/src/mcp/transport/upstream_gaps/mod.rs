//! What the transports do in place of their dependencies, kept together so
//! that each part can go when its upstream changes: rmcp's reading of
//! incoming messages ([`jsonrpc`]), rmcp's stdio transport ([`stdio`]), and
//! hyper-util's graceful shutdown of connections not yet read ([`unread`]).
//! Checked against rmcp 3.11.0 and hyper-util 0.1.21 (`Cargo.lock`); when
//! either moves, read each part's entry below against the new release, and
//! drop what it now does itself (the tests named there say whether the
//! behaviour still holds).
//!
//! - [`jsonrpc`]: the one check every incoming message gets, stdio line or
//!   HTTP body. rmcp reads a request for a known method whose `params` do
//!   not fit as its custom request and answers `-32601 Method not found`
//!   (the client cannot tell a typo in `params` from a method the server
//!   lacks), drops optional `params` that do not fit (a `tools/list` cursor
//!   that is not a string serves the first page), and answers JSON of the
//!   wrong shape with `-32600` and `"id": null` even when the id could be
//!   read. No upstream issue asks for the first two (searched
//!   modelcontextprotocol/rust-sdk, November 2026); the last is part of
//!   modelcontextprotocol/rust-sdk#825 (open). It can go when rmcp answers
//!   each of these with the codes and ids `jsonrpc/tests.rs` expects; its
//!   limits ([`jsonrpc::MAX_MESSAGE_BYTES`]) would then move to the
//!   transports.
//! - [`stdio`]: the whole stdio transport, in place of
//!   `rmcp::transport::stdio()`. rmcp's reader bounds a line (16 MiB since
//!   modelcontextprotocol/rust-sdk#1030) but drops a longer one, and
//!   ignores text that is not JSON (modelcontextprotocol/rust-sdk#938, a
//!   deliberate choice against error storms), both without an answer, so a
//!   client whose request was dropped waits for ever; rmcp's handshake ends
//!   the session on a notification or response that comes before
//!   `initialize` (`ServerInitializeError::ExpectedInitializeRequest`;
//!   modelcontextprotocol/rust-sdk#788 dropped the like rule that followed
//!   `initialize`, none asks for this one); and rmcp spawns a task for
//!   every request it reads,
//!   with no bound on how many wait (no upstream issue). It can go when
//!   rmcp's stdio transport takes a message check, answers what it drops,
//!   and bounds the requests in flight; `serve` and `StdioError` would stay
//!   as the public face, on rmcp's transport.
//! - [`unread`]: axum serves each connection with hyper-util's `auto`
//!   builder, whose graceful shutdown cancels a connection still reading
//!   the bytes that tell HTTP/1 from HTTP/2, dropping a request that is
//!   already in the kernel's buffer. The cancel is hyper-util's fix for a
//!   hang in that state (hyperium/hyper#3576); hyperium/hyper#3808 (open)
//!   would give an idle HTTP/1 connection a first-byte grace, but not to
//!   hyper-util's version read. It can go when a graceful shutdown there
//!   waits for a connection's first bytes (the tests of `unread.rs` and of
//!   `accept.rs`, which serve through axum, say whether it does).
//!
//! The HTTP transport's own answers where rmcp's Streamable HTTP service
//! falls short live with the body budget they share a middleware with
//! ([`http_body`](super::http_body)): a JSON-RPC error instead of `415`
//! and plain text, `409` for a request id already in flight, the in-flight
//! bound, and `404` for a `DELETE` of an unknown session.

pub mod jsonrpc;
pub mod stdio;
pub(super) mod unread;
