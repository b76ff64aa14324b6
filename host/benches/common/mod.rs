//! What the benchmarks share: a server serving over Streamable HTTP and
//! client sessions driving it ([`Session`], [`throughput`], [`load`]); a
//! client over stdio ([`stdio`]); many distinct plugin files and the
//! startup they cost ([`startup`]); and the tests' redis-server and nginx,
//! with the CPU their processes use ([`cluster`]).
#![allow(dead_code, clippy::unwrap_used)]

pub mod cluster;
pub mod startup;
pub mod stdio;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The variable that names another `mcp-wasm-host` binary to measure than
/// the one this benchmark was built with.
pub const HOST_BIN_VAR: &str = "MCP_WASM_HOST_BIN";

/// The `mcp-wasm-host` binary the benchmark runs: `$MCP_WASM_HOST_BIN` if
/// set, else the one built with the benchmark. Several worktrees sharing one
/// target directory overwrite its `release/mcp-wasm-host`; a copy named by
/// the variable stays what was built.
pub fn host_binary() -> std::path::PathBuf {
    std::env::var_os(HOST_BIN_VAR)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_mcp-wasm-host").into())
}

/// A server under test and its URL.
pub struct Server {
    child: Child,
    /// The MCP endpoint.
    pub url: String,
    /// The lines of its stderr that contain one of the texts it was started
    /// to watch for (see [`spawn_watching`]).
    pub watched: Arc<Mutex<Vec<String>>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// A figure from `/proc/PID/status`, such as `VmHWM` (peak resident
    /// memory) or `VmRSS`, in bytes.
    pub fn memory(&self, field: &str) -> u64 {
        process_memory(self.pid(), field)
    }
}

/// A figure from `/proc/PID/status` of process `pid`, such as `VmHWM` (peak
/// resident memory) or `VmRSS`, in bytes.
pub fn process_memory(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with(field) && l[field.len()..].starts_with(':'))
        .unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

/// Starts `serve --http 127.0.0.1:0` on copies of `plugins` under `policy`
/// (the text of a policy file), with `extra` arguments, and waits until it
/// listens.
pub fn start(dir: &Path, plugins: &[&str], policy: &str, extra: &[&str]) -> Server {
    start_watching(dir, plugins, policy, extra, &[])
}

/// [`start`], keeping the stderr lines that contain one of `watch` in
/// [`Server::watched`].
pub fn start_watching(
    dir: &Path,
    plugins: &[&str],
    policy: &str,
    extra: &[&str],
    watch: &'static [&'static str],
) -> Server {
    let config = dir.join("bench.toml");
    std::fs::write(&config, policy).unwrap();
    let plugin_dir = dir.join("plugins");
    std::fs::create_dir_all(&plugin_dir).unwrap();
    for plugin in plugins {
        let path = Path::new(plugin);
        std::fs::copy(path, plugin_dir.join(path.file_name().unwrap())).unwrap();
    }
    let mut command = Command::new(host_binary());
    command
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
        .arg(&plugin_dir)
        .args(extra);
    spawn_watching(command, watch)
}

/// Spawns `command`, a server that logs `listening on URL` on stderr, and
/// waits until it listens.
pub fn spawn_listening(command: Command) -> Server {
    spawn_watching(command, &[])
}

/// [`spawn_listening`], keeping the stderr lines that contain one of `watch`
/// in [`Server::watched`].
pub fn spawn_watching(mut command: Command, watch: &'static [&'static str]) -> Server {
    let mut child = command
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
    let watched = Arc::new(Mutex::new(Vec::new()));
    let keep = watched.clone();
    std::thread::spawn(move || {
        let mut sink = String::new();
        while stderr.read_line(&mut sink).map(|n| n > 0).unwrap_or(false) {
            if watch.iter().any(|w| sink.contains(w)) {
                keep.lock().unwrap().push(sink.trim_end().to_string());
            }
            sink.clear();
        }
    });
    Server {
        child,
        url,
        watched,
    }
}

/// One client: an MCP session over its own keep-alive connection.
pub struct Session {
    agent: ureq::Agent,
    url: String,
    id: Option<String>,
    next: i64,
}

impl Session {
    /// Opens a session: `initialize`, then `notifications/initialized`.
    pub fn open(url: &str) -> Session {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(600)))
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

    /// A client at 2026-07-28, where every request stands alone: no
    /// `initialize`, and each request names its revision, method and
    /// target in headers and the client's capabilities in its `_meta`
    /// ([`Session::request_r5`]).
    pub fn stateless(url: &str) -> Session {
        Session {
            agent: ureq::Agent::config_builder()
                .timeout_global(Some(Duration::from_secs(600)))
                .build()
                .new_agent(),
            url: url.into(),
            id: None,
            next: 0,
        }
    }

    /// Posts one message and reads the whole response body.
    pub fn post(&mut self, body: &Value) -> String {
        self.post_with(body, &[])
    }

    /// [`Session::post`] with more `headers`.
    pub fn post_with(&mut self, body: &Value, headers: &[(&str, &str)]) -> String {
        let mut request = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        if let Some(id) = &self.id {
            request = request.header("Mcp-Session-Id", id);
        }
        let mut response = request.send(body.to_string()).unwrap();
        if let Some(id) = response.headers().get("mcp-session-id") {
            self.id = Some(id.to_str().unwrap().to_string());
        }
        response
            .body_mut()
            .with_config()
            .limit(u64::MAX)
            .read_to_string()
            .unwrap()
    }

    /// Ends the session with `DELETE`.
    pub fn delete(self) {
        let mut request = self.agent.delete(&self.url);
        if let Some(id) = &self.id {
            request = request.header("Mcp-Session-Id", id);
        }
        request.call().unwrap();
    }

    /// Sends a request and returns the response body; a JSON-RPC error or
    /// an `isError` result panics.
    pub fn request(&mut self, method: &str, params: Value) -> String {
        let body = self.request_any(method, params);
        assert!(
            body.contains("\"result\"") && !body.contains("\"isError\":true"),
            "{method} failed: {}",
            &body[..body.len().min(2000)]
        );
        body
    }

    /// Sends a request and returns the response body, whatever it says.
    pub fn request_any(&mut self, method: &str, params: Value) -> String {
        self.next += 1;
        self.post(&json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params}))
    }

    /// Sends a 2026-07-28 request of a client whose capabilities are
    /// `capabilities` and returns its response message; a JSON-RPC error
    /// panics.
    pub fn request_r5(&mut self, method: &str, mut params: Value, capabilities: Value) -> Value {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": R5,
            "io.modelcontextprotocol/clientCapabilities": capabilities,
            "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"}
        });
        let name = params["name"]
            .as_str()
            .or(params["taskId"].as_str())
            .map(str::to_string);
        let mut headers = vec![("MCP-Protocol-Version", R5), ("Mcp-Method", method)];
        if let Some(name) = &name {
            headers.push(("Mcp-Name", name));
        }
        self.next += 1;
        let body = json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params});
        let reply = message_of(&self.post_with(&body, &headers));
        assert!(reply.get("result").is_some(), "{method} failed: {reply}");
        reply
    }
}

/// The revision whose requests stand alone.
pub const R5: &str = "2026-07-28";

/// The JSON-RPC response in a response body: the body itself, or the last
/// `data:` line of an event stream that carries a result or an error.
pub fn message_of(body: &str) -> Value {
    if let Ok(message) = serde_json::from_str::<Value>(body) {
        return message;
    }
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .rfind(|m| m.get("result").is_some() || m.get("error").is_some())
        .unwrap_or_else(|| panic!("no response in {body:?}"))
}

/// Calls per second with `clients` sessions each repeating `method` for
/// `duration`, one request in flight per session, after a warm-up of a
/// quarter of `duration`. A failed request panics.
pub fn throughput(
    url: &str,
    clients: usize,
    method: &str,
    params: &Value,
    duration: Duration,
) -> f64 {
    load(
        clients,
        duration,
        || Session::open(url),
        |session| {
            session.request(method, params.clone());
        },
        &Vec::new,
    )
    .rate
}

/// What [`load`] measured.
pub struct Measured {
    /// Operations per second.
    pub rate: f64,
    /// The median and the 99th percentile of one operation's time.
    pub p50: Duration,
    pub p99: Duration,
    /// What each of `sample`'s counters grew by during the counted time,
    /// per second of it (for CPU seconds: the cores used).
    pub used: Vec<f64>,
}

/// `clients` workers, each with its own client from `open`, repeat `op`
/// for `duration` after a warm-up of a quarter of it, one operation in
/// flight per worker. Counts the operations that end in the counted time
/// and times each; `sample` (counters such as CPU seconds) is read at the
/// start and the end of it. A failed operation panics.
pub fn load<C>(
    clients: usize,
    duration: Duration,
    open: impl Fn() -> C + Sync,
    op: impl Fn(&mut C) + Sync,
    sample: &(dyn Fn() -> Vec<f64> + Sync),
) -> Measured {
    let stop = AtomicBool::new(false);
    let counting = AtomicBool::new(false);
    let ready = Barrier::new(clients + 1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..clients)
            .map(|_| {
                scope.spawn(|| {
                    let mut client = open();
                    ready.wait();
                    let mut times = Vec::new();
                    while !stop.load(Ordering::Relaxed) {
                        let started = Instant::now();
                        op(&mut client);
                        if counting.load(Ordering::Relaxed) {
                            times.push(started.elapsed());
                        }
                    }
                    times
                })
            })
            .collect();
        ready.wait();
        std::thread::sleep(duration / 4); // warm-up
        let before = sample();
        counting.store(true, Ordering::Relaxed);
        let started = Instant::now();
        std::thread::sleep(duration);
        counting.store(false, Ordering::Relaxed);
        let elapsed = started.elapsed().as_secs_f64();
        let after = sample();
        stop.store(true, Ordering::Relaxed);
        let mut times: Vec<Duration> = workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect();
        assert!(!times.is_empty(), "no operation ended in {duration:?}");
        times.sort();
        let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
        Measured {
            rate: times.len() as f64 / elapsed,
            p50: at(0.50),
            p99: at(0.99),
            used: after
                .iter()
                .zip(&before)
                .map(|(a, b)| (a - b) / elapsed)
                .collect(),
        }
    })
}
