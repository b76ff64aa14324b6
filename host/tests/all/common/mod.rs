//! Test harness: runs the real `mcp-wasm-host` binary and speaks
//! newline-delimited JSON-RPC to it over stdio.
#![allow(dead_code, clippy::unwrap_used)]

pub mod clients;
pub mod cluster;
pub mod http;
pub mod log;
pub mod oauth;
pub mod redis;
pub mod registry;
pub mod revision;
pub mod toolchain;
pub mod wait;
pub mod web;

pub use cluster::NGINX;
pub use toolchain::{Toolchain, skip, toolchain};
pub use wait::{DEADLINE, eventually, eventually_async};

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::thread;

use serde_json::{Value, json};

/// The lines `pipe` gives, read on a thread of their own until it closes
/// (or nobody receives them any more).
pub fn lines_of(pipe: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, lines) = channel();
    thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

/// The binary under test.
pub fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_mcp-wasm-host")
}

/// clang 19, for the C SDK and the C plugins.
pub const C: Toolchain = Toolchain {
    var: "MCP_WASM_HOST_C",
    setup: "setup-c.sh",
    on_path: Some("clang-19"),
};

/// Go (a distribution's `go` may be too old to target WASI, so `PATH` is
/// not searched).
pub const GO: Toolchain = Toolchain {
    var: "MCP_WASM_HOST_GO",
    setup: "setup-go.sh",
    on_path: None,
};

/// Node 22; its setup script also installs the Inspector and the
/// TypeScript SDK under `tests/ts/node_modules`.
pub const NODE: Toolchain = Toolchain {
    var: "MCP_WASM_HOST_NODE",
    setup: "setup-node.sh",
    on_path: None,
};

/// Headless Chromium, for the MCP Apps views.
pub const CHROMIUM: Toolchain = Toolchain {
    var: "MCP_WASM_HOST_CHROMIUM",
    setup: "setup-chromium.sh",
    on_path: None,
};

/// Debian's `docker-registry`, a real OCI registry.
pub const REGISTRY: Toolchain = Toolchain {
    var: "MCP_WASM_HOST_REGISTRY",
    setup: "setup-registry.sh",
    on_path: None,
};

/// A directory holding copies of the given plugin files.
pub fn plugin_dir(files: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in files {
        let src = Path::new(f);
        std::fs::copy(src, dir.path().join(src.file_name().unwrap())).unwrap();
    }
    dir
}

/// Set on every server (and client that starts one) the tests run: lists
/// are answered once the first load has ended (the default, stated so a
/// test does not depend on it), so a test sees every plugin it put in the
/// directory however long each compiles. The tests of answering at once
/// while plugins load (`--wait-for-load=false`) are in `loading.rs`.
pub const WAIT_FOR_LOAD: &str = "MCP_WASM_HOST_WAIT_FOR_LOAD";

/// The variable of `serve --quick-compile`. The harness sets it to `never`,
/// so the tests run on Cranelift's code, as before quick compiles, whatever
/// the size of their plugins; `quick_compile.rs` and `sandbox::winch` set it.
pub const QUICK_COMPILE: &str = "MCP_WASM_HOST_QUICK_COMPILE";

/// The arguments that make a server log one JSON object per line, for a
/// test that waits on [`log::Event`]s.
pub const JSON_LOGS: [&str; 2] = ["--log-format", "json"];

/// The arguments that make a stdio server serve its metrics (on a port the
/// kernel picks), for a test that waits on a metric's value
/// ([`Server::wait_for_sample`]); an HTTP server serves them beside `/mcp`.
pub const METRICS: [&str; 2] = ["--metrics-addr", "127.0.0.1:0"];

/// The URL that the log line in `log` starting with `prefix` names (text
/// or JSON logs alike).
pub fn logged_url(log: &str, prefix: &str) -> Option<String> {
    let at = log.find(&format!("{prefix}http://"))? + prefix.len();
    let url = log[at..]
        .split(|c: char| c.is_whitespace() || c == '"')
        .next()?;
    Some(url.to_string())
}

/// A scrape of the metrics at `url`.
pub fn scrape(url: &str) -> String {
    let (status, scrape) = http::get(url);
    assert_eq!(status, 200, "{url}: {scrape}");
    scrape
}

/// Waits until the sample `series` of the metrics at `url` has a value
/// that `holds`; returns it.
pub fn wait_for_sample(url: &str, series: &str, holds: impl Fn(f64) -> bool) -> f64 {
    eventually(
        DEADLINE,
        || {
            format!(
                "{series} never reached the value waited for:\n{}",
                scrape(url)
            )
        },
        || http::sample(&scrape(url), series).filter(|v| holds(*v)),
    )
}

/// A running server.
pub struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
    next_id: i64,
    /// Notifications received while waiting for responses.
    pub notifications: Vec<Value>,
    /// Every raw stdout line, in order.
    pub raw: Vec<String>,
}

impl Server {
    /// Starts `mcp-wasm-host serve --plugins DIR ARGS…`.
    pub fn start(plugins: &Path, args: &[&str]) -> Server {
        Self::start_with_env(plugins, args, &[])
    }

    /// As [`Server::start`], with extra environment variables.
    pub fn start_with_env(plugins: &Path, args: &[&str], env: &[(&str, &str)]) -> Server {
        Self::start_under(&[], plugins, args, env)
    }

    /// As [`Server::start_with_env`], run by `wrapper` (a program and its
    /// arguments, which execs the server's command line after them; empty:
    /// the server itself).
    pub fn start_under(
        wrapper: &[&str],
        plugins: &Path,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Server {
        let mut command = match wrapper.split_first() {
            Some((program, rest)) => {
                let mut command = Command::new(program);
                command.args(rest).arg(binary());
                command
            }
            None => Command::new(binary()),
        };
        let mut child = command
            .env(WAIT_FOR_LOAD, "1")
            .env(QUICK_COMPILE, "never")
            .arg("serve")
            .arg("--plugins")
            .arg(plugins)
            .args(args)
            .env("RUST_LOG", "info,mcp_wasm_host_runtime=debug")
            // Keep the tests' compile cache out of the user's cache directory
            // (a test's own --cache-dir still wins).
            .env("MCP_WASM_HOST_CACHE_DIR", target_dir().join("test-cache"))
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = lines_of(child.stdout.take().unwrap());
        let stderr_pipe = child.stderr.take().unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        thread::spawn(move || {
            for line in BufReader::new(stderr_pipe).lines() {
                let Ok(line) = line else { break };
                let mut s = sink.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        Server {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
            next_id: 1,
            notifications: Vec::new(),
            raw: Vec::new(),
        }
    }

    /// Starts a server on `plugins` and completes the handshake at `version`.
    pub fn initialized(plugins: &Path, args: &[&str], version: &str) -> Server {
        let mut s = Server::start(plugins, args);
        let init = s.initialize(version);
        assert!(init.get("result").is_some(), "initialize failed: {init}");
        s
    }

    /// What the server wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Waits until the server's stderr contains `needle` (an event the test
    /// needs to have happened, such as a call having started).
    pub fn wait_for_stderr(&self, needle: &str) {
        wait_for_text(&self.stderr, needle);
    }

    /// Waits until the server's stderr contains `needle` at least `n` times
    /// (the `n`th call having started, say).
    pub fn wait_for_count(&self, needle: &str, n: usize) {
        eventually(
            DEADLINE,
            || format!("{needle:?} was not logged {n} times:\n{}", self.stderr()),
            || (self.stderr().matches(needle).count() >= n).then_some(()),
        );
    }

    /// The URL of the server's metrics, from the line that announces it;
    /// the server must have been started with [`METRICS`].
    pub fn metrics_url(&self) -> String {
        self.wait_for_stderr("metrics served at http://");
        logged_url(&self.stderr(), "metrics served at ").unwrap()
    }

    /// Waits until the metrics' sample `series` (a name with its labels,
    /// see [`http::sample`]) has a value that `holds`; returns it. The
    /// server must have been started with [`METRICS`].
    pub fn wait_for_sample(&self, series: &str, holds: impl Fn(f64) -> bool) -> f64 {
        wait_for_sample(&self.metrics_url(), series, holds)
    }

    /// The server's log events so far; the server must have been started
    /// with [`JSON_LOGS`].
    pub fn events(&self) -> Vec<log::Event> {
        log::events(&self.stderr())
    }

    /// Waits until the server has logged an event that `matches` (started
    /// with [`JSON_LOGS`]); returns it.
    pub fn wait_for_event(&self, what: &str, matches: impl Fn(&log::Event) -> bool) -> log::Event {
        log::wait_for_event(&self.stderr, what, matches)
    }

    /// Writes one raw line.
    pub fn send_line(&mut self, line: &str) {
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        self.send_raw(&bytes);
    }

    /// Writes raw bytes, which need not be text (nor end a line).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a message.
    pub fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string());
    }

    /// Closes stdin; the server should exit.
    pub fn close_stdin(&mut self) {
        self.stdin.take();
    }

    /// Waits for the server to exit and returns its status code.
    pub fn wait(&mut self) -> Option<i32> {
        self.child.wait().unwrap().code()
    }

    /// Waits for a notification with `method`, first among those the
    /// harness kept while waiting for responses; other messages are kept.
    pub fn wait_for_notification(&mut self, method: &str) -> Value {
        if let Some(i) = self
            .notifications
            .iter()
            .position(|n| n["method"] == method)
        {
            return self.notifications.remove(i);
        }
        loop {
            let msg = self.recv();
            if msg["method"] == method {
                return msg;
            }
            self.notifications.push(msg);
        }
    }

    /// The next message from stdout. Every line must be JSON.
    pub fn recv(&mut self) -> Value {
        match self.lines.recv_timeout(DEADLINE) {
            Ok(line) => {
                self.raw.push(line.clone());
                serde_json::from_str(&line).unwrap_or_else(|e| {
                    panic!(
                        "stdout carried a line that is not JSON ({e}): {line:?}\nstderr:\n{}",
                        self.stderr()
                    )
                })
            }
            Err(RecvTimeoutError::Timeout) => {
                panic!(
                    "no message from the server in {DEADLINE:?}\nstderr:\n{}",
                    self.stderr()
                )
            }
            Err(RecvTimeoutError::Disconnected) => {
                panic!("the server closed stdout\nstderr:\n{}", self.stderr())
            }
        }
    }

    /// A fresh request id.
    pub fn id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    /// Sends a request without waiting; returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.id();
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// Waits for the response to request `id`, keeping notifications, and
    /// panicking on a response to any other id.
    pub fn response(&mut self, id: i64) -> Value {
        loop {
            let msg = self.recv();
            if msg.get("id").is_some()
                && (msg.get("result").is_some() || msg.get("error").is_some())
            {
                assert_eq!(msg["id"], json!(id), "response to an unexpected id: {msg}");
                return msg;
            }
            self.notifications.push(msg);
        }
    }

    /// Waits for the response to request `id`, passing every notification
    /// before it to `seen` instead of keeping it (for floods too large to
    /// keep), and returns the response.
    pub fn stream_until_response(&mut self, id: i64, mut seen: impl FnMut(&Value)) -> Value {
        loop {
            let line = match self.lines.recv_timeout(DEADLINE) {
                Ok(line) => line,
                Err(e) => panic!("no response to {id} ({e:?})\nstderr:\n{}", self.stderr()),
            };
            let msg: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout carried a line that is not JSON ({e})"));
            if msg.get("id").is_some()
                && (msg.get("result").is_some() || msg.get("error").is_some())
            {
                assert_eq!(msg["id"], json!(id), "response to an unexpected id: {msg}");
                return msg;
            }
            seen(&msg);
        }
    }

    /// The most memory the server process has had resident so far (Linux's
    /// `VmHWM`), in bytes.
    pub fn peak_rss(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
        let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        kib * 1024
    }

    /// Sends a request and waits for its response (the whole message).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.response(id)
    }

    /// The handshake: `initialize` then `notifications/initialized`.
    pub fn initialize(&mut self, version: &str) -> Value {
        let resp = self.request(
            "initialize",
            json!({
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "harness", "version": "0"}
            }),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        resp
    }

    /// The names `tools/list` shows now (every page).
    pub fn tool_name_set(&mut self) -> std::collections::BTreeSet<String> {
        let (tools, _) = self.list_all_tools();
        tools
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    }

    /// Every tool, following `nextCursor` through all pages; also returns
    /// the page sizes.
    pub fn list_all_tools(&mut self) -> (Vec<Value>, Vec<usize>) {
        let mut tools = Vec::new();
        let mut pages = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let resp = self.request("tools/list", params);
            let result = &resp["result"];
            let page = result["tools"]
                .as_array()
                .unwrap_or_else(|| panic!("no tools in {resp}"));
            pages.push(page.len());
            tools.extend(page.iter().cloned());
            match result.get("nextCursor").and_then(Value::as_str) {
                Some(c) => cursor = Some(c.to_string()),
                None => break,
            }
            assert!(pages.len() < 1000, "pagination does not end");
        }
        (tools, pages)
    }

    /// Calls a tool and returns the whole response message.
    pub fn call(&mut self, name: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
    }

    /// Calls a tool that must succeed and returns its result.
    pub fn call_ok(&mut self, name: &str, arguments: Value) -> Value {
        let resp = self.call(name, arguments.clone());
        let result = resp
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("{name}({arguments}) failed: {resp}"));
        assert_ne!(
            result["isError"],
            json!(true),
            "{name}({arguments}) returned an error: {result}"
        );
        result
    }

    /// Calls a tool that must succeed with structured content and returns
    /// it, checking that the same JSON travels as the text block.
    pub fn call_structured(&mut self, name: &str, arguments: Value) -> Value {
        let result = self.call_ok(name, arguments);
        let structured = result["structuredContent"].clone();
        let as_text: Value = serde_json::from_str(&text(&result))
            .unwrap_or_else(|e| panic!("{name}: the text block is not JSON ({e}): {result}"));
        assert_eq!(as_text, structured, "the same JSON travels as text");
        structured
    }

    /// Calls a tool that must come back with `isError: true`; returns the
    /// text of its first block.
    pub fn call_err(&mut self, name: &str, arguments: Value) -> String {
        let resp = self.call(name, arguments.clone());
        let result = resp.get("result").unwrap_or_else(|| {
            panic!("{name}({arguments}): expected an isError result, got {resp}")
        });
        assert_eq!(
            result["isError"],
            json!(true),
            "{name}({arguments}) should fail: {result}"
        );
        text(result)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The concatenated text blocks of a tool result.
pub fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// The project venv's python, where the official Python SDK client runs:
/// `MCP_WASM_HOST_PYTHON`, else `<root>/.venv/bin/python`
/// (`scripts/setup-python.sh` creates it; `scripts/test.sh` runs that).
pub fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("MCP_WASM_HOST_PYTHON") {
        return PathBuf::from(p);
    }
    let venv = workspace_root().join(".venv/bin/python");
    assert!(
        venv.exists(),
        "the Python SDK client needs the project venv: run scripts/setup-python.sh (scripts/test.sh does), or set MCP_WASM_HOST_PYTHON"
    );
    venv
}

/// Runs one of the Python SDK client scripts in `tests/python/` against the
/// binary under test (`--server` is added) and returns the JSON summary it
/// prints, failing the test with its output if it fails.
pub fn run_python_client(script: &str, args: &[&std::ffi::OsStr]) -> Value {
    let out = Command::new(python())
        .env(WAIT_FOR_LOAD, "1")
        .arg(workspace_root().join("tests/python").join(script))
        .args(["--server", binary()])
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the Python SDK client {script} failed:\n{stdout}\n{stderr}"
    );
    serde_json::from_str(stdout.trim()).unwrap()
}

/// The target directory cargo built the binary under test in (`target/`,
/// or wherever `CARGO_TARGET_DIR` put it): where tests keep what they build
/// and cache.
pub fn target_dir() -> PathBuf {
    Path::new(binary())
        .ancestors()
        .nth(2)
        .expect("the binary is TARGET_DIR/PROFILE/mcp-wasm-host")
        .to_path_buf()
}

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Waits until the captured output `text` contains `needle`.
fn wait_for_text(text: &Mutex<String>, needle: &str) {
    eventually(
        DEADLINE,
        || format!("stderr never showed {needle:?}:\n{}", text.lock().unwrap()),
        || text.lock().unwrap().contains(needle).then_some(()),
    );
}

/// A temporary directory with `plugins/` holding copies of `files` and the
/// policy file `mcp-wasm-host.toml` holding `policy`; returns the directory
/// (kept alive by the caller), the plugins directory and the `--config`
/// argument.
pub fn plugins_with_policy(files: &[&str], policy: &str) -> (tempfile::TempDir, PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let plugins = dir.path().join("plugins");
    std::fs::create_dir(&plugins).unwrap();
    for f in files {
        let src = Path::new(f);
        std::fs::copy(src, plugins.join(src.file_name().unwrap())).unwrap();
    }
    let config = dir.path().join("mcp-wasm-host.toml");
    std::fs::write(&config, policy).unwrap();
    let config = config.to_str().unwrap().to_string();
    (dir, plugins, config)
}

/// Runs the plugin build script `scripts/SCRIPT OUT_DIR` with `env` added
/// to its environment and asserts that it succeeds.
pub fn run_build_script(script: &str, out: &Path, env: &[(&str, &std::ffi::OsStr)]) {
    run_build_script_for(script, out, &[], env);
}

/// [`run_build_script`] for the plugins `names` only (`scripts/SCRIPT
/// OUT_DIR NAME...`; every plugin when empty).
pub fn run_build_script_for(
    script: &str,
    out: &Path,
    names: &[&str],
    env: &[(&str, &std::ffi::OsStr)],
) {
    let mut command = Command::new(workspace_root().join("scripts").join(script));
    command.arg(out).args(names);
    for (name, value) in env {
        command.env(name, value);
    }
    let run = command.output().unwrap();
    assert!(
        run.status.success(),
        "scripts/{script} failed:\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

/// A server (at revision [`revision::R4`]) with `component` alone in its plugins
/// directory, under `policy`; the directory lives as long as the server.
pub fn serve_alone(component: &Path, policy: &str) -> (Server, tempfile::TempDir) {
    let (dir, plugins, config) = plugins_with_policy(&[component.to_str().unwrap()], policy);
    let server = Server::initialized(&plugins, &["--config", &config], revision::R4);
    (server, dir)
}

/// `mcp-wasm-host inspect --json COMPONENT` under the built-in policy: the
/// report, after asserting that the plugin loads.
pub fn inspect_json(component: &Path) -> Value {
    let out = Command::new(binary())
        .env(WAIT_FOR_LOAD, "1")
        .arg("inspect")
        .arg("--json")
        .arg(component)
        .current_dir(component.parent().unwrap())
        .env_remove("MCP_WASM_HOST_CONFIG")
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "inspect {} failed:\n{}",
        component.display(),
        String::from_utf8_lossy(&out.stdout)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The JSON-RPC messages of an HTTP response body: a JSON body, or the
/// `data:` lines of an SSE stream.
pub fn json_rpc_messages(body: &str) -> Vec<Value> {
    if body.trim_start().starts_with('{') {
        return vec![serde_json::from_str(body).unwrap()];
    }
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}

/// A server running `serve --http 127.0.0.1:0` (HTTP instead of stdio): the
/// kernel picks the port, and the server's `listening on URL` log line tells
/// it. The process is killed when this is dropped.
pub struct HttpServer {
    child: Child,
    stderr: Arc<Mutex<String>>,
    /// The MCP endpoint, e.g. `http://127.0.0.1:41234/mcp`.
    pub url: String,
}

impl HttpServer {
    /// Starts `mcp-wasm-host serve --plugins DIR --http 127.0.0.1:0 ARGS…`
    /// and waits until it listens.
    pub fn start(plugins: &Path, args: &[&str]) -> HttpServer {
        Self::start_with_env(plugins, args, &[])
    }

    /// As [`HttpServer::start`], with extra environment variables.
    pub fn start_with_env(plugins: &Path, args: &[&str], env: &[(&str, &str)]) -> HttpServer {
        let mut command = Command::new(binary());
        command.env(WAIT_FOR_LOAD, "1");
        command
            .arg("serve")
            .arg("--plugins")
            .arg(plugins)
            .args(["--http", "127.0.0.1:0"])
            .args(args)
            .env("RUST_LOG", "info,mcp_wasm_host_runtime=debug")
            .env("MCP_WASM_HOST_CACHE_DIR", target_dir().join("test-cache"))
            .env(QUICK_COMPILE, "never")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            command.env(k, v);
        }
        let mut child = command.spawn().unwrap();
        let stderr_pipe = child.stderr.take().unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        let (tx, url_rx) = channel();
        thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(stderr_pipe).lines() {
                let Ok(line) = line else { break };
                if let Some(url) = logged_url(&line, "listening on ")
                    && let Some(tx) = tx.take()
                {
                    let _ = tx.send(url);
                }
                let mut s = sink.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        // Nothing but protocol messages may go to stdout, and in HTTP mode
        // there are none: keep what arrives for `stdout_is_empty`.
        let stdout = child.stdout.take().unwrap();
        let stdout_sink = stderr.clone();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                stdout_sink
                    .lock()
                    .unwrap()
                    .push_str(&format!("UNEXPECTED STDOUT: {line}\n"));
            }
        });
        let url = match url_rx.recv_timeout(DEADLINE) {
            Ok(url) => url,
            Err(_) => {
                let _ = child.kill();
                panic!(
                    "the server never said where it listens:\n{}",
                    stderr.lock().unwrap()
                );
            }
        };
        HttpServer { child, stderr, url }
    }

    /// What the server wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Waits until the server's stderr contains `needle`.
    pub fn wait_for_stderr(&self, needle: &str) {
        wait_for_text(&self.stderr, needle);
    }

    /// The server's metrics now (a Prometheus scrape of `/metrics`).
    pub fn scrape(&self) -> String {
        let (status, scrape) = http::get(&self.url.replace("/mcp", "/metrics"));
        assert_eq!(status, 200, "{scrape}");
        scrape
    }

    /// Waits until the metrics' sample `series` (a name with its labels,
    /// see [`http::sample`]) has a value that `holds`; returns it.
    pub fn wait_for_sample(&self, series: &str, holds: impl Fn(f64) -> bool) -> f64 {
        eventually(
            DEADLINE,
            || {
                format!(
                    "{series} never reached the value waited for:\n{}",
                    self.scrape()
                )
            },
            || http::sample(&self.scrape(), series).filter(|v| holds(*v)),
        )
    }

    /// The server's process id (to send it a signal).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the server to exit; its status.
    pub fn wait(&mut self) -> std::process::ExitStatus {
        self.child.wait().unwrap()
    }

    /// The `host:port` the server listens on.
    pub fn authority(&self) -> &str {
        self.url
            .trim_start_matches("http://")
            .split('/')
            .next()
            .unwrap()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The Node binary the TypeScript SDK client runs on: `MCP_WASM_HOST_NODE`,
/// else `node` from PATH (Node 20 or newer).
pub fn node() -> PathBuf {
    std::env::var_os("MCP_WASM_HOST_NODE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("node"))
}

/// Runs a client script in `tests/ts/` (plain ESM on the official MCP
/// TypeScript SDK) with `node` and returns the JSON summary it prints,
/// failing the test with its output if it fails. The SDK must be installed:
/// `scripts/setup-node.sh` does it (`scripts/test.sh` runs that); without it
/// the test fails saying so, it is never skipped.
pub fn run_node_client(script: &str, args: &[&std::ffi::OsStr]) -> Value {
    let (status, stdout, stderr) = node_client(script, args);
    assert!(
        status.success(),
        "the TypeScript SDK client {script} failed:\n{stdout}\n{stderr}"
    );
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("{script} printed no JSON summary ({e}):\n{stdout}\n{stderr}"))
}

/// Runs a client script in `tests/ts/` as [`run_node_client`] does, but
/// expects it to fail (exit status 1, a failed check or a refused
/// connection); returns what it wrote to stderr.
pub fn run_node_client_failing(script: &str, args: &[&std::ffi::OsStr]) -> String {
    let (status, stdout, stderr) = node_client(script, args);
    assert_eq!(
        status.code(),
        Some(1),
        "the TypeScript SDK client {script} should have failed a check:\n{stdout}\n{stderr}"
    );
    stderr
}

/// Runs a client script in `tests/ts/` with `node` to its end, after
/// checking the SDK is installed; returns its exit status, stdout and
/// stderr.
fn node_client(
    script: &str,
    args: &[&std::ffi::OsStr],
) -> (std::process::ExitStatus, String, String) {
    let dir = workspace_root().join("tests/ts");
    assert!(
        dir.join("node_modules/@modelcontextprotocol/sdk/package.json")
            .is_file(),
        "the TypeScript SDK client needs its packages in tests/ts/node_modules: run scripts/setup-node.sh (scripts/test.sh does)"
    );
    let out = Command::new(node())
        .env(WAIT_FOR_LOAD, "1")
        .arg(dir.join(script))
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {} ({e}): install Node 20 or newer, or set MCP_WASM_HOST_NODE",
                node().display()
            )
        });
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status, stdout, stderr)
}

/// `_meta` of a 2026-07-28 request (no handshake at that revision) from a
/// client with `capabilities`.
pub fn r5_meta(capabilities: Value) -> Value {
    serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": revision::R5,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "mcp-wasm-host-tests", "version": "0"}
    })
}
