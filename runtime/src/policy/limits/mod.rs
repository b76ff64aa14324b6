//! The per-call resource limits and their defaults (the limits table of
//! docs/policy.md).

use std::time::Duration;

mod rate_scope;
pub use rate_scope::RateScope;

/// The largest `reuse_instances` a policy may set.
pub const MAX_REUSE_INSTANCES: u32 = 1_000_000;

/// The largest `ready_instances` a policy may set.
pub const MAX_READY_INSTANCES: u32 = 16;

/// The largest `instances` a policy may set: the core instances the engine's
/// pool lets one component create.
pub const MAX_INSTANCES: u32 = 256;

/// The largest `tables` a policy may set: the tables the engine's pool lets
/// one component define.
pub const MAX_TABLES: u32 = 256;

/// The largest `memories` a policy may set: the linear memories the engine's
/// pool lets one component define.
pub const MAX_MEMORIES: u32 = 64;

/// The largest `table_elements` a policy may set: the elements of one table
/// slot of the engine's pool. Each of the pool's tables reserves room for
/// this many elements up front (8 bytes each), so it is not raised further.
pub const MAX_TABLE_ELEMENTS: u64 = 100_000;

/// Per-call resource limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Fuel (roughly, wasm instructions) one call may burn.
    pub fuel: u64,
    /// The most linear memory one instance may have, in bytes.
    pub memory_bytes: u64,
    /// The most elements one table may have.
    pub table_elements: u64,
    /// The most core instances, tables and memories one call may create.
    pub instances: u32,
    /// See [`Limits::instances`].
    pub tables: u32,
    /// See [`Limits::instances`].
    pub memories: u32,
    /// Wall-clock time one call may take, waiting for a slot included.
    pub timeout: Duration,
    /// Wall-clock time one call may take when it runs as a task (MCP's tasks
    /// extension), waiting for a slot included; fuel and memory are the
    /// same as for any call.
    pub task_timeout: Duration,
    /// Calls of this plugin that may run at once; more wait for a slot.
    pub max_concurrent_calls: u32,
    /// The largest arguments object accepted, serialized, in bytes.
    pub max_argument_bytes: u64,
    /// The largest result accepted, in bytes of content.
    pub max_result_bytes: u64,
    /// Calls per minute per tool, all clients together; 0 turns it off.
    pub rate_limit_per_minute: u32,
    /// Calls per minute per tool for each client (an MCP session, or the
    /// one client over stdio); 0 turns it off.
    pub client_rate_limit_per_minute: u32,
    /// Write each call's arguments into the audit log line.
    pub audit_arguments: bool,
    /// Return each call's receipt (what it consumed, the plugin's digest,
    /// the outcome) with its result.
    pub receipts: bool,
    /// Lines one call may write to the server's log (its log messages, its
    /// stdout and stderr lines, its progress lines); later ones are counted
    /// and dropped.
    pub log_lines: u64,
    /// Bytes those lines may hold together.
    pub log_bytes: u64,
    /// Host-side WASI handles (streams, pollables, files, sockets) one call
    /// may hold at once; each costs host memory, which the guest's memory
    /// limit does not count.
    pub host_resources: u32,
    /// The most tools a plugin may list.
    pub max_tools: u32,
    /// The largest input or output schema a tool may declare, in bytes of
    /// its JSON text.
    pub max_schema_bytes: u64,
    /// The most bytes a plugin's whole tool list may hold: names, titles,
    /// descriptions, schemas and icons together.
    pub max_tool_list_bytes: u64,
    /// The most calls one instance serves before it is dropped; 0 or 1: a
    /// fresh instance per call (the default). Reuse lets state pass between
    /// calls: see the README's security model and docs/architecture.md.
    pub reuse_instances: u32,
    /// `reuse_instances = "session"`: an instance serves the calls of one
    /// client only (the stdio client, or one HTTP session), for as long as
    /// that client lasts; a client without a session (stateless HTTP)
    /// gets a fresh instance per call. `reuse_instances` is then
    /// [`MAX_REUSE_INSTANCES`].
    pub reuse_per_session: bool,
    /// Fresh, never-used instances made ahead of time, off the call path,
    /// for the plugin's next calls (0: each call instantiates its own).
    /// Each holds one of the engine's instance slots and its memory.
    pub ready_instances: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            fuel: 1_000_000_000,
            memory_bytes: 128 << 20,
            table_elements: MAX_TABLE_ELEMENTS,
            instances: 64,
            tables: 64,
            memories: 16,
            timeout: Duration::from_secs(10),
            task_timeout: Duration::from_secs(10 * 60),
            max_concurrent_calls: 16,
            max_argument_bytes: 1 << 20,
            max_result_bytes: 8 << 20,
            rate_limit_per_minute: 0,
            client_rate_limit_per_minute: 0,
            audit_arguments: false,
            receipts: true,
            log_lines: 1000,
            log_bytes: 1 << 20,
            host_resources: 10_000,
            // A demanding plugin lists a few hundred tools whose schemas are
            // a few KiB (300 tools with 2 KiB input and output schemas hold
            // about 1.3 MiB). Compiling a schema costs up to about 65 times
            // its JSON text in host memory (many small property schemas), so
            // the worst tool list these bounds admit costs about 130 MiB.
            max_tools: 1000,
            max_schema_bytes: 64 << 10,
            max_tool_list_bytes: 2 << 20,
            reuse_instances: 0,
            reuse_per_session: false,
            ready_instances: 0,
        }
    }
}

pub mod spec;
