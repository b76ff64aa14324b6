//! The embedding example, run as a user runs it: its binary serves a
//! directory of real components over stdio, and this test speaks MCP to it
//! line by line: the sandboxed tools are listed beside the server's own, a
//! call answers as the guest computed, and a guest that panics comes back
//! as an `isError` result while the server goes on serving.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl Client {
    fn start(dir: &std::path::Path) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_embed-example"))
            .arg(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Client {
            child,
            stdin,
            stdout,
            next: 1,
        }
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and reads lines until its response.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "the server closed stdout"
            );
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let response = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        response["result"].clone()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[test]
fn an_rmcp_server_serves_sandboxed_tools_beside_its_own() {
    let dir = tempfile::tempdir().unwrap();
    for (name, path) in [
        ("fnv", test_artifacts::FNV),
        ("panic", test_artifacts::PANIC),
    ] {
        std::fs::copy(path, dir.path().join(format!("{name}.wasm"))).unwrap();
    }
    let mut client = Client::start(dir.path());
    let init = client.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "embed-test", "version": "0"}}),
    );
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );
    client.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    let list = client.request("tools/list", json!({}));
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for name in ["plugins", "hash", "panic", "ok"] {
        assert!(names.contains(&name), "{name} is not in {names:?}");
    }
    // Every tool's input schema is an object schema, as clients require
    // (the official Python SDK refuses a listing without `type`).
    for tool in list["result"]["tools"].as_array().unwrap() {
        assert_eq!(tool["inputSchema"]["type"], json!("object"), "{tool}");
    }
    let hash = &list["result"]["tools"][names.iter().position(|n| *n == "hash").unwrap()];
    assert_eq!(hash["inputSchema"]["required"], json!(["text"]), "{hash}");

    assert_eq!(text(&client.call("plugins", json!({}))), "fnv panic");
    // The published FNV-1a 64 test vector for "a", computed by the guest.
    let hashed = client.call("hash", json!({"text": "a"}));
    assert_eq!(text(&hashed), "af63dc4c8601ec8c", "{hashed}");
    assert_eq!(hashed["isError"], json!(false));

    // Index 3 of a 3-element list: the guest panics, the call is an error
    // result, and the next call is served.
    let panicked = client.call("panic", json!({"index": 3}));
    assert_eq!(panicked["isError"], json!(true), "{panicked}");
    assert!(text(&panicked).contains("panic"), "{panicked}");
    let bad = client.call("hash", json!({"text": 1}));
    assert_eq!(bad["isError"], json!(true), "{bad}");
    assert!(text(&bad).contains("invalid arguments"), "{bad}");
    assert_eq!(text(&client.call("ok", json!({}))), "ok");

    let unknown = client.request("tools/call", json!({"name": "nope", "arguments": {}}));
    assert_eq!(unknown["error"]["code"], json!(-32602), "{unknown}");
}
