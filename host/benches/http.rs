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

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A server under test and its URL.
struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(dir: &std::path::Path, extra: &[&str]) -> Server {
    let config = dir.join("bench.toml");
    std::fs::write(&config, "[defaults]\nrate_limit = 0\n").unwrap();
    let plugins = dir.join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    std::fs::copy(test_artifacts::PANIC, plugins.join("panic.wasm")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-wasm-host"))
        .args([
            "serve",
            "--log",
            "info",
            "--no-watch",
            "--http",
            "127.0.0.1:0",
        ])
        .arg("--config")
        .arg(&config)
        .arg("--plugins")
        .arg(&plugins)
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    let url = loop {
        line.clear();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "server exited");
        if let Some(at) = line.find("listening on ") {
            break line[at + 13..]
                .split_whitespace()
                .next()
                .unwrap()
                .to_string();
        }
    };
    // Keep draining stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || {
        let mut sink = String::new();
        while stderr.read_line(&mut sink).map(|n| n > 0).unwrap_or(false) {
            sink.clear();
        }
    });
    Server { child, url }
}

/// One client: an MCP session over its own keep-alive connection.
struct Session {
    agent: ureq::Agent,
    url: String,
    id: Option<String>,
    next: i64,
}

impl Session {
    fn open(url: &str) -> Session {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .new_agent();
        let mut s = Session {
            agent,
            url: url.into(),
            id: None,
            next: 0,
        };
        s.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "bench", "version": "0"}}),
        );
        s.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    fn post(&mut self, body: &Value) -> String {
        let mut request = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream");
        if let Some(id) = &self.id {
            request = request.header("Mcp-Session-Id", id);
        }
        let mut response = request.send(body.to_string()).unwrap();
        if let Some(id) = response.headers().get("mcp-session-id") {
            self.id = Some(id.to_str().unwrap().to_string());
        }
        response.body_mut().read_to_string().unwrap()
    }

    fn request(&mut self, method: &str, params: Value) {
        self.next += 1;
        let body = self
            .post(&json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params}));
        assert!(
            body.contains("\"result\"") && !body.contains("\"isError\":true"),
            "{method} failed: {body}"
        );
    }
}

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
        let server = start(dir.path(), extra);
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
