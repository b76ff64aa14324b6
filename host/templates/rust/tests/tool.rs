//! Builds the component, serves it with `mcp-wasm-host` and calls its tool
//! the way an MCP client does: JSON-RPC messages, one per line, on the
//! server's stdin and stdout.
//!
//! The host is `$MCP_WASM_HOST_BIN`, else `mcp-wasm-host` on PATH.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::OnceLock;

use serde_json::{Value, json};

/// Builds the component (`cargo build --release --target wasm32-wasip2`)
/// once, and returns a directory holding it alone (the target directory may
/// be shared with other projects).
fn plugins() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let out = Command::new(env!("CARGO"))
            .args(["build", "--release", "--target", "wasm32-wasip2"])
            .arg("--message-format=json-render-diagnostics")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stderr(Stdio::inherit())
            .output()
            .expect("cannot run cargo");
        assert!(out.status.success(), "cargo build failed");
        let component = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|m| {
                m["reason"] == "compiler-artifact" && m["target"]["kind"] == json!(["cdylib"])
            })
            .flat_map(|m| m["filenames"].as_array().cloned().unwrap_or_default())
            .filter_map(|f| f.as_str().map(PathBuf::from))
            .find(|f| f.extension().is_some_and(|e| e == "wasm"))
            .expect("cargo built no .wasm file");
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(env!("CARGO_PKG_NAME"));
        if dir.exists() {
            std::fs::remove_dir_all(&dir).unwrap();
        }
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(&component, dir.join(component.file_name().unwrap())).unwrap();
        dir
    })
}

/// `mcp-wasm-host serve` on the built component, initialized.
struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Server {
    fn start() -> Server {
        let host = std::env::var_os("MCP_WASM_HOST_BIN").unwrap_or("mcp-wasm-host".into());
        let mut child = Command::new(&host)
            .args(["serve", "--no-watch", "--log", "warn", "--plugins"])
            .arg(plugins())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot run {host:?} ({e}): put mcp-wasm-host on PATH or set MCP_WASM_HOST_BIN"
                )
            });
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut server = Server {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        let client = json!({"name": "@NAME@-test", "version": "0.1.0"});
        let init = server.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": client}),
        );
        assert!(init.get("result").is_some(), "initialize failed: {init}");
        server.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and returns its response, skipping notifications.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert_ne!(
                self.stdout.read_line(&mut line).unwrap(),
                0,
                "the server exited"
            );
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return message;
            }
        }
    }

    fn call(&mut self, arguments: Value) -> Value {
        self.request(
            "tools/call",
            json!({"name": "number_stats", "arguments": arguments}),
        )
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether a response is an error: a JSON-RPC error or a tool result with `isError`.
fn is_error(response: &Value) -> bool {
    response.get("error").is_some() || response["result"]["isError"] == true
}

#[test]
fn the_host_lists_number_stats_with_its_input_schema() {
    let tools = Server::start().request("tools/list", json!({}));
    let tool = tools["result"]["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == "number_stats"))
        .unwrap_or_else(|| panic!("number_stats is not listed: {tools}"))
        .clone();
    assert_eq!(
        tool["inputSchema"]["required"],
        json!(["numbers"]),
        "{tool}"
    );
}

#[test]
fn number_stats_counts_and_averages_numbers() {
    let response = Server::start().call(json!({"numbers": [1, 2, 2]}));
    let stats = &response["result"]["structuredContent"];
    assert!(!is_error(&response), "{response}");
    assert_eq!(stats["count"], 3, "{response}");
    assert_eq!(stats["mean"].as_f64(), Some(1.67), "{response}");
    assert_eq!(stats["min"].as_f64(), Some(1.0), "{response}");
    assert_eq!(stats["max"].as_f64(), Some(2.0), "{response}");
}

#[test]
fn number_stats_refuses_an_empty_list() {
    let response = Server::start().call(json!({"numbers": []}));
    assert!(is_error(&response), "{response}");
}

#[test]
fn the_host_refuses_arguments_that_do_not_fit_the_schema() {
    let response = Server::start().call(json!({"numbers": "one, two"}));
    assert!(is_error(&response), "{response}");
}
