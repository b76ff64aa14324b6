//! Load-and-abuse benchmark: how the host holds up while plugins do their
//! worst. One server (the real binary over Streamable HTTP) runs the `flood`
//! test plugin and a well-behaved one. For the abuse phase, client sessions
//! call, over and over: `flood_progress` (50,000 progress reports of 16 KiB
//! each, read as fast as the client can), `flood_log` (the same as log
//! messages), and two sessions call `slow_schema` (arguments that take far
//! longer to check than the 2 s deadline allows). Meanwhile one session pings
//! and another calls the well-behaved tool, one request at a time.
//!
//! It reports the server's peak resident memory (Linux's `VmHWM`) and the
//! `ping` and call latencies (p50, p99, worst) during the abuse, each against
//! the baseline measured in the same run on the same server before the
//! abuse starts.
//!
//! Run: `cargo bench -p mcp-wasm-host --bench abuse` (`-- --quick` for a
//! short run).
#![allow(clippy::unwrap_used)]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use common::Session;
use serde_json::{Value, json};

const POLICY: &str = r#"
[defaults]
rate_limit = 0

[plugins.flood]
fuel = 100_000_000_000
timeout = "2s"
"#;

/// Latencies of a request repeated one at a time for `duration`.
fn latencies(url: &str, method: &str, params: &Value, duration: Duration) -> Vec<Duration> {
    let mut session = Session::open(url);
    let mut samples = Vec::new();
    let started = Instant::now();
    while started.elapsed() < duration {
        let sent = Instant::now();
        session.request(method, params.clone());
        samples.push(sent.elapsed());
    }
    samples.sort();
    samples
}

fn summary(samples: &[Duration]) -> (f64, f64, f64) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let at = |q: f64| ms(samples[((samples.len() as f64 - 1.0) * q).round() as usize]);
    (at(0.5), at(0.99), ms(*samples.last().unwrap()))
}

fn report(what: &str, base: &[Duration], abused: &[Duration]) {
    let (b50, b99, bmax) = summary(base);
    let (a50, a99, amax) = summary(abused);
    println!(
        "{what:<24} idle: p50 {b50:>7.2} ms  p99 {b99:>7.2} ms  worst {bmax:>8.2} ms   ({} samples)",
        base.len()
    );
    println!(
        "{what:<24} abuse: p50 {a50:>7.2} ms  p99 {a99:>7.2} ms  worst {amax:>8.2} ms   ({} samples)  = {:.1}× / {:.1}× / {:.1}× idle",
        abused.len(),
        a50 / b50,
        a99 / b99,
        amax / bmax
    );
}

/// Starts a session that repeats `call` until `stop`, counting the calls.
fn abuser(
    url: &str,
    call: Value,
    stop: &Arc<AtomicBool>,
    done: &Arc<AtomicU64>,
) -> std::thread::JoinHandle<()> {
    let (url, stop, done) = (url.to_string(), stop.clone(), done.clone());
    std::thread::spawn(move || {
        let mut session = Session::open(&url);
        while !stop.load(Ordering::Relaxed) {
            session.request_any("tools/call", call.clone());
            done.fetch_add(1, Ordering::Relaxed);
        }
    })
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let duration = Duration::from_secs(if quick { 5 } else { 20 });
    let dir = tempfile::tempdir().unwrap();
    let server = common::start(
        dir.path(),
        &[test_artifacts::FLOOD, test_artifacts::PANIC],
        POLICY,
        &["--stateless"],
    );
    let ok = json!({"name": "ok", "arguments": {}});
    let base_ping = latencies(&server.url, "ping", &json!({}), duration / 2);
    let base_call = latencies(&server.url, "tools/call", &ok, duration / 2);
    let idle_rss = server.memory("VmHWM");

    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let flood = |tool: &str| {
        json!({"name": tool, "arguments": {"count": 50_000, "size": 16 * 1024},
               "_meta": {"progressToken": 1, "io.modelcontextprotocol/logLevel": "debug"}})
    };
    let words: Vec<Value> = (0..2000).map(|_| json!("a".repeat(40))).collect();
    let slow = json!({"name": "slow_schema", "arguments": {"words": words}});
    let abusers = vec![
        abuser(&server.url, flood("flood_progress"), &stop, &done),
        abuser(&server.url, flood("flood_log"), &stop, &done),
        abuser(&server.url, slow.clone(), &stop, &done),
        abuser(&server.url, slow, &stop, &done),
    ];
    // Let the abuse get going before measuring.
    std::thread::sleep(Duration::from_secs(2));
    let url = server.url.clone();
    let calls = std::thread::spawn(move || latencies(&url, "tools/call", &ok, duration));
    let pings = latencies(&server.url, "ping", &json!({}), duration);
    let calls = calls.join().unwrap();
    let peak_rss = server.memory("VmHWM");
    stop.store(true, Ordering::Relaxed);
    for a in abusers {
        a.join().unwrap();
    }

    println!(
        "mcp-wasm-host under abuse ({} s; stateless HTTP; 2 flooding sessions, 2 slow-schema sessions)",
        duration.as_secs()
    );
    report("ping", &base_ping, &pings);
    report("tools/call (trivial)", &base_call, &calls);
    println!(
        "peak RSS: idle {:.0} MiB, under abuse {:.0} MiB ({:.1}× idle); abusive calls completed: {}",
        idle_rss as f64 / f64::from(1 << 20),
        peak_rss as f64 / f64::from(1 << 20),
        peak_rss as f64 / idle_rss as f64,
        done.load(Ordering::Relaxed)
    );
}
