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

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use common::Session;
use serde_json::{Value, json};

/// Calls per second with `clients` sessions each repeating `method` for
/// `duration`, after a warm-up.
fn throughput(url: &str, clients: usize, method: &str, params: &Value, duration: Duration) -> f64 {
    let stop = Arc::new(AtomicBool::new(false));
    let counting = Arc::new(AtomicBool::new(false));
    let ready = Arc::new(Barrier::new(clients + 1));
    let workers: Vec<_> = (0..clients)
        .map(|_| {
            let (url, method, params) = (url.to_string(), method.to_string(), params.clone());
            let (stop, counting, ready) = (stop.clone(), counting.clone(), ready.clone());
            std::thread::spawn(move || {
                let mut session = Session::open(&url);
                ready.wait();
                let mut done = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    session.request(&method, params.clone());
                    if counting.load(Ordering::Relaxed) {
                        done += 1;
                    }
                }
                done
            })
        })
        .collect();
    ready.wait();
    std::thread::sleep(duration / 4); // warm-up
    counting.store(true, Ordering::Relaxed);
    let started = Instant::now();
    std::thread::sleep(duration);
    let elapsed = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    let total: u64 = workers.into_iter().map(|w| w.join().unwrap()).sum();
    total as f64 / elapsed.as_secs_f64()
}

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
