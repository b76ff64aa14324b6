//! HTTP throughput benchmark: calls per second over Streamable HTTP at 1, 16
//! and 64 concurrent clients, each its own MCP session doing one request at
//! a time, against the real binary (`serve --http`). The baseline, measured
//! in the same run at the same concurrency, is `ping`: rmcp, axum, HTTP and
//! the session routing, with no guest. Both modes are measured: sessions
//! (the default) and `--stateless`. The ratio is what running the trivial
//! tool in a fresh sandboxed instance costs on top.
//!
//! Run: `cargo bench -p mcp-wasm-host --bench http` (`-- --quick` for a
//! short run). The clients run on the same machine and share its cores with
//! the server, so the figures are a floor for what a remote client sees.
#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::throughput;
use serde_json::json;

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let duration = Duration::from_secs(if quick { 1 } else { 4 });
    println!(
        "mcp-wasm-host HTTP throughput ({} s per case, one request in flight per client)",
        duration.as_secs()
    );
    let call = json!({"name": "ok", "arguments": {}});
    for (mode, extra) in [("sessions", &[][..]), ("stateless", &["--stateless"][..])] {
        let dir = tempfile::tempdir().unwrap();
        let server = common::start(
            dir.path(),
            &[test_artifacts::PANIC],
            "[defaults]\nrate_limit = 0\n",
            extra,
        );
        for clients in [1, 16, 64] {
            let ping = throughput(&server.url, clients, "ping", &json!({}), duration);
            let calls = throughput(&server.url, clients, "tools/call", &call, duration);
            println!(
                "{mode:<9} {clients:>3} clients: ping {ping:>8.0} req/s   tools/call (trivial tool) {calls:>8.0} calls/s   = {:.2}× ping",
                calls / ping
            );
        }
    }
}
