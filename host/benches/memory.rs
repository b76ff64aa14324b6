//! Memory-return benchmark: whether the host's resident memory (Linux's
//! `VmRSS`) comes back close to its idle level once what held it is gone.
//! One server (the real binary over Streamable HTTP) serves the
//! `conformance` and `wordcount` test plugins. After a warm-up session
//! (calls, then `DELETE`) it measures the idle RSS, then:
//!
//! - listen streams: as many 2026-07-28 `subscriptions/listen` streams as
//!   the default bounds allow, the first ones with the largest URI lists
//!   they allow (1,024 URIs of 8 KiB each, until `max_watched_size` is
//!   full), the rest with none (up to `max_listen_streams`, 1,024; fewer
//!   with `--quick`); every connection is then dropped;
//! - sessions: as many sessions as `max_sessions` allows (1,000; fewer with
//!   `--quick`), each initialized and doing some work (`tools/list`, a
//!   call, a subscription, a read); half end with `DELETE`, the other half
//!   by idle expiry (`session_idle_timeout`, set to 45 s here);
//! - large calls: a burst of `word_count` calls with 8, 16 and 32 MiB of
//!   text, two at a time.
//!
//! Each phase is measured at its peak (all open), right after the server
//! says they are closed (its log line, not a sleep), and settled (once RSS
//! has stopped falling for 2 s, at most 30 s), in MiB and as a ratio to
//! idle.
//!
//! Run: `cargo bench -p mcp-wasm-host --bench memory` (`-- --quick` for a
//! short run; `--profile dev` builds faster and measures the same thing).
#![allow(clippy::unwrap_used)]

mod common;

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::{Server, Session};
use serde_json::json;

const POLICY: &str = r#"
[server]
session_idle_timeout = "45s"

[defaults]
rate_limit = 0

[plugins.wordcount]
memory = "512 MiB"
fuel = 100_000_000_000
timeout = "120s"
max_argument_size = "64 MiB"
"#;

/// What the bench waits for on the server's stderr.
const WATCH: &[&str] = &["subscriptions/listen stream", "HTTP session ended"];

/// The default bounds the listen phase fills (docs/policy.md).
const MAX_URI_SIZE: usize = 8 << 10;
const MAX_SUBSCRIPTIONS: usize = 1024;
const MAX_WATCHED_SIZE: usize = 64 << 20;
const MAX_LISTEN_STREAMS: usize = 1024;
const MAX_SESSIONS: usize = 1000;

fn mib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1 << 20)
}

/// RSS once it has stopped falling: sampled every 100 ms until it has not
/// dropped by more than 1 MiB for 2 s, at most 30 s.
fn settled(server: &Server) -> u64 {
    let started = Instant::now();
    let mut low = server.memory("VmRSS");
    let mut since = Instant::now();
    while since.elapsed() < Duration::from_secs(2) && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(100));
        let now = server.memory("VmRSS");
        if now + (1 << 20) < low {
            since = Instant::now();
        }
        low = low.min(now);
    }
    low
}

/// The last count the server logged in a watched line containing `what`
/// (`... stream closed; 3 open`, `HTTP session ended open=3`).
fn last_count(server: &Server, what: &str) -> Option<usize> {
    let lines = server.watched.lock().unwrap();
    let line = lines.iter().rev().find(|l| l.contains(what))?;
    let digits = |s: &str| -> Option<usize> {
        s.chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .ok()
    };
    if let Some(at) = line.find("open=") {
        digits(&line[at + 5..])
    } else {
        let at = line.find("; ")?;
        digits(&line[at + 2..])
    }
}

/// Waits until the last `what` line says `count` are open.
fn wait_for(server: &Server, what: &str, count: usize) {
    while last_count(server, what) != Some(count) {
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The host, port and path of an `http://` URL.
fn split(url: &str) -> (String, String) {
    let rest = url.strip_prefix("http://").unwrap();
    let slash = rest.find('/').unwrap();
    (rest[..slash].to_string(), rest[slash..].to_string())
}

/// Opens a sessionless 2026-07-28 listen stream for `uris` on its own
/// connection and waits until the server counts it open (`open` streams).
fn listen(url: &str, id: usize, uris: &[String], server: &Server, open: usize) -> TcpStream {
    let (host, path) = split(url);
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"}},
          "notifications": {"toolsListChanged": true, "resourceSubscriptions": uris}}})
    .to_string();
    let mut stream = TcpStream::connect(&host).unwrap();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .unwrap();
    stream.write_all(body.as_bytes()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_millis(20)))
        .unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while last_count(server, "stream opened") != Some(open) {
        match stream.read(&mut buf) {
            Ok(0) => panic!(
                "listen stream {id} ended: {}",
                String::from_utf8_lossy(&seen)
            ),
            Ok(n) => seen.extend_from_slice(&buf[..n]),
            Err(_) => {} // nothing to read yet
        }
        let text = String::from_utf8_lossy(&seen);
        assert!(!text.contains("\"error\""), "listen stream {id}: {text}");
    }
    stream
}

/// One session doing some work: a list, a call, a subscription, a read.
fn busy_session(url: &str, n: usize) -> Session {
    let mut s = Session::open(url);
    s.request("tools/list", json!({}));
    s.request(
        "tools/call",
        json!({"name": "word_count", "arguments": {"text": format!("session {n} says hello")}}),
    );
    s.request(
        "resources/subscribe",
        json!({"uri": format!("test://template/{n}/data")}),
    );
    s.request("resources/read", json!({"uri": "test://static-text"}));
    s
}

struct Row {
    what: String,
    rss: u64,
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let dir = tempfile::tempdir().unwrap();
    let server = common::start_watching(
        dir.path(),
        &[test_artifacts::CONFORMANCE, test_artifacts::WORDCOUNT],
        POLICY,
        &[],
        WATCH,
    );
    let url = server.url.clone();
    let mut rows: Vec<Row> = Vec::new();
    let mut row = |what: &str, rss: u64| {
        println!("{what:<44} {:>8.1} MiB", mib(rss));
        rows.push(Row {
            what: what.to_string(),
            rss,
        });
    };

    // Warm-up: one session does each kind of work once, then ends.
    busy_session(&url, 0).delete();
    wait_for(&server, "HTTP session ended", 0);
    let idle = settled(&server);
    row("idle (after a warm-up session)", idle);

    // (a) Listen streams.
    let uri = |stream: usize, i: usize| {
        let frame = format!("test://template//data{stream:04}{i:04}");
        format!(
            "test://template/{}/data{stream:04}{i:04}",
            "7".repeat(MAX_URI_SIZE - frame.len())
        )
    };
    let per_stream = MAX_SUBSCRIPTIONS * (MAX_URI_SIZE + 64);
    let full = MAX_WATCHED_SIZE / per_stream;
    let streams_total = if quick { 128 } else { MAX_LISTEN_STREAMS };
    let mut streams = Vec::new();
    for n in 0..streams_total {
        let uris: Vec<String> = if n < full {
            (0..MAX_SUBSCRIPTIONS).map(|i| uri(n, i)).collect()
        } else {
            Vec::new()
        };
        streams.push(listen(&url, n + 1, &uris, &server, n + 1));
    }
    row(
        &format!("{streams_total} listen streams open ({full} full)"),
        server.memory("VmRSS"),
    );
    drop(streams);
    wait_for(&server, "stream closed", 0);
    row("listen streams closed", server.memory("VmRSS"));
    row("listen streams closed, settled", settled(&server));

    // (b) Sessions.
    let sessions_total = if quick { 200 } else { MAX_SESSIONS };
    let threads = 8;
    let workers: Vec<_> = (0..threads)
        .map(|t| {
            let url = url.clone();
            std::thread::spawn(move || {
                (t..sessions_total)
                    .step_by(threads)
                    .map(|n| busy_session(&url, n))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut sessions: Vec<Session> = workers
        .into_iter()
        .flat_map(|w| w.join().unwrap())
        .collect();
    row(
        &format!("{sessions_total} sessions open"),
        server.memory("VmRSS"),
    );
    let expiring = sessions.split_off(sessions_total / 2);
    for s in sessions {
        s.delete();
    }
    wait_for(&server, "HTTP session ended", expiring.len());
    row("half DELETEd", server.memory("VmRSS"));
    row("half DELETEd, settled", settled(&server));
    wait_for(&server, "HTTP session ended", 0);
    row("the other half expired (idle)", server.memory("VmRSS"));
    row("the other half expired, settled", settled(&server));
    drop(expiring);

    // (c) Large tool-call bodies.
    let sizes: &[usize] = if quick {
        &[8, 16, 32]
    } else {
        &[8, 16, 32, 8, 16, 32]
    };
    let mut peak = 0;
    for pair in sizes.chunks(2) {
        let calls: Vec<_> = pair
            .iter()
            .map(|&size| {
                let url = url.clone();
                std::thread::spawn(move || {
                    let mut s = Session::open(&url);
                    let text = "word ".repeat((size << 20) / 5);
                    s.request(
                        "tools/call",
                        json!({"name": "word_count", "arguments": {"text": text}}),
                    );
                    s.delete();
                })
            })
            .collect();
        for c in calls {
            c.join().unwrap();
        }
        peak = peak.max(server.memory("VmRSS"));
    }
    wait_for(&server, "HTTP session ended", 0);
    row(
        &format!("after {} calls of 8-32 MiB (peak seen)", sizes.len()),
        peak,
    );
    row("after the large calls", server.memory("VmRSS"));
    row("after the large calls, settled", settled(&server));

    println!();
    println!("as ratios to idle ({:.1} MiB VmRSS):", mib(idle));
    for Row { what, rss } in &rows {
        println!("{what:<44} {:>6.2}×", *rss as f64 / idle as f64);
    }
    println!("peak RSS (VmHWM): {:.1} MiB", mib(server.memory("VmHWM")));
}
