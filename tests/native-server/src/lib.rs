//! The native baseline of the side-by-side benchmark (`host/benches/native.rs`):
//! a plain rmcp server with the `hash` tool (FNV-1a 64 of a text) compiled
//! in, the same tool `plugins/testing/fnv` serves from a sandbox. It speaks
//! stdio, or Streamable HTTP with `--http ADDR` (sessions, or none with
//! `--stateless`), and then prints `listening on URL` on stderr, as
//! `mcp-wasm-host` does.
//!
//! It is what an rmcp server written by hand looks like, with nothing to
//! make it slower or faster than one: rmcp's own stdio transport and
//! Streamable HTTP service on axum. Its one addition is `TCP_NODELAY`, which
//! the host sets too: without it Nagle's algorithm stalls small responses
//! by about 40 ms, and the comparison would measure that.

pub mod serve;
pub mod server;
pub mod tool;

pub use serve::{Options, ServeError, run};
pub use server::NativeServer;
pub use tool::fnv1a64;
