//! Call-path benchmark: what one tool call costs, as ratios against a
//! baseline measured in the same run.
//!
//! - In the host: `Runtime::call` of a trivial tool (fresh store, instantiate
//!   from the `InstancePre`, call, drop) with the pooling allocator, against
//!   the same with on-demand allocation.
//! - Over stdio: a `tools/call` round trip through the real binary, against a
//!   `ping` round trip (the protocol's floor: rmcp, the line filter and the
//!   pipes, no guest).
//!
//! Run: `cargo bench -p mcp-wasm-host --bench calls` (`-- --quick` for a
//! short run). It prints p50/p90/p99 per case and the ratios.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_wasm_host::runtime::{EngineSettings, NoEvents, Runtime};

struct Stats {
    p50: Duration,
    p90: Duration,
    p99: Duration,
}

fn stats(mut samples: Vec<Duration>) -> Stats {
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    Stats {
        p50: at(0.50),
        p90: at(0.90),
        p99: at(0.99),
    }
}

fn report(name: &str, s: &Stats, baseline: Option<(&str, &Stats)>) {
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    print!(
        "{name:<44} p50 {:>9.1} µs  p90 {:>9.1} µs  p99 {:>9.1} µs",
        us(s.p50),
        us(s.p90),
        us(s.p99)
    );
    if let Some((base_name, b)) = baseline {
        print!("  = {:.2}× {base_name} (p50)", us(s.p50) / us(b.p50));
    }
    println!();
}

fn in_host(iterations: usize) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut results = Vec::new();
    for pooling in [false, true] {
        let runtime = Runtime::new(&EngineSettings {
            pooling,
            ..EngineSettings::default()
        })
        .unwrap();
        let report = rt.block_on(runtime.load_files(&[test_artifacts::PANIC.into()]));
        assert!(report.failed.is_empty(), "{:?}", report.failed);
        let samples = rt.block_on(async {
            for _ in 0..iterations / 10 {
                runtime.call("ok", None, Arc::new(NoEvents)).await.unwrap();
            }
            let mut samples = Vec::with_capacity(iterations);
            for _ in 0..iterations {
                let t = Instant::now();
                let out = runtime.call("ok", None, Arc::new(NoEvents)).await.unwrap();
                samples.push(t.elapsed());
                assert!(!out.is_error);
            }
            samples
        });
        results.push(stats(samples));
    }
    let on_demand = &results[0];
    report(
        "in host: instantiate+call, on-demand alloc",
        on_demand,
        None,
    );
    report(
        "in host: instantiate+call, pooling alloc",
        &results[1],
        Some(("on-demand", on_demand)),
    );
}

/// A client speaking JSON-RPC lines to the real binary.
struct Client {
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
    line: String,
}

impl Client {
    fn send(&mut self, message: &str) {
        self.stdin.write_all(message.as_bytes()).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    fn round_trip(&mut self, message: &str) -> Duration {
        let t = Instant::now();
        self.send(message);
        self.line.clear();
        self.stdout.read_line(&mut self.line).unwrap();
        let elapsed = t.elapsed();
        assert!(self.line.contains("\"result\""), "{}", self.line);
        elapsed
    }
}

fn over_stdio(iterations: usize) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(test_artifacts::PANIC, dir.path().join("panic.wasm")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-wasm-host"))
        .args(["serve", "--log", "warn", "--plugins"])
        .arg(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut client = Client {
        stdin: child.stdin.take().unwrap(),
        stdout: BufReader::new(child.stdout.take().unwrap()),
        line: String::new(),
    };
    client.round_trip(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#,
    );
    client.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let mut id = 0;
    let mut run = |method: &str, params: &str| {
        let mut samples = Vec::with_capacity(iterations);
        for i in 0..(iterations + iterations / 10) {
            id += 1;
            let msg =
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#);
            let d = client.round_trip(&msg);
            if i >= iterations / 10 {
                samples.push(d);
            }
        }
        stats(samples)
    };
    let ping = run("ping", "{}");
    let call = run("tools/call", r#"{"name":"ok","arguments":{}}"#);
    report("stdio: ping round trip", &ping, None);
    report(
        "stdio: tools/call round trip (trivial tool)",
        &call,
        Some(("ping", &ping)),
    );
    let _ = child.kill();
    let _ = child.wait();
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let iterations = if quick { 200 } else { 2000 };
    println!("mcp-wasm-host call benchmark ({iterations} iterations per case)");
    in_host(iterations);
    over_stdio(iterations);
}
