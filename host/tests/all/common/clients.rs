//! What the official MCP SDK clients (Python, TypeScript 1.x and v2) must
//! report from every run against the real binary, checked once for
//! `revisions.rs`, `ts_sdk.rs` and `ts_sdk_v2.rs`: the plugins those tests
//! serve, the checks of each run's summary, and how the TypeScript client
//! scripts in `tests/ts/` are started.

use std::ffi::OsStr;
use std::path::Path;

use serde_json::{Value, json};

/// Every revision the server speaks, oldest first, as its `server/discover`
/// lists them.
pub use super::revision::ALL as REVISIONS;
use super::revision::R4;
/// The revision without the `initialize` handshake, negotiated with
/// `server/discover` instead.
pub use super::revision::R5 as MODERN;

/// The `errors` plugin's 7 tools and the `many` plugin's 25, in pages of 10:
/// what every client test serves.
pub const PAGE_SIZE: &str = "10";
pub const TOOLS: u64 = 32;
pub const EXPECTED: Expected = Expected {
    pages: &[10, 10, 10, 2],
    tools: TOOLS,
};

/// A plugins directory with the `errors` and `many` plugins.
pub fn plugins() -> tempfile::TempDir {
    super::plugin_dir(&[test_artifacts::ERRORS, test_artifacts::MANY])
}

/// The tools a run should have listed: how many, and the size of each page.
pub struct Expected<'a> {
    pub pages: &'a [u64],
    pub tools: u64,
}

/// The runs a client's summary lists under `list`, after checking that
/// their names (each run's `name`) are `expected`, in that order.
pub fn runs<'a>(summary: &'a Value, list: &str, name: &str, expected: &[&str]) -> &'a [Value] {
    let runs = summary[list].as_array().unwrap();
    let seen: Vec<&str> = runs.iter().map(|r| r[name].as_str().unwrap()).collect();
    assert_eq!(seen, expected, "{summary}");
    runs
}

/// Checks what one run at `revision` reports of its tool calls: the
/// server's name and version, every page of tools, the `structured` tool's
/// structured content, arguments that break the input schema (a tool result
/// with `isError` from 2025-11-25 on, SEP-1303; JSON-RPC error -32602
/// before) and an unknown tool (-32602). `ctx` is said with any failure.
pub fn check_tool_calls(r: &Value, revision: &str, expected: &Expected, ctx: &str) {
    assert_eq!(
        r["server"],
        json!(format!("mcp-wasm-host {}", env!("CARGO_PKG_VERSION"))),
        "{ctx}"
    );

    assert_eq!(r["page_sizes"], json!(expected.pages), "{ctx}");
    assert_eq!(r["tools"], json!(expected.tools), "{ctx}");
    assert_eq!(
        r["structured_content"],
        json!({"text": "a b", "bytes": 3, "words": ["a", "b"]}),
        "{ctx}"
    );

    let invalid = &r["invalid_arguments"];
    if revision >= R4 {
        assert_eq!(invalid["kind"], "is_error_result", "{ctx}");
        let text = invalid["text"].as_str().unwrap();
        assert!(text.contains("/text"), "the error names the field: {ctx}");
    } else {
        assert_eq!(invalid["kind"], "jsonrpc_error", "{ctx}");
        assert_eq!(invalid["code"], -32602, "{ctx}");
        let message = invalid["message"].as_str().unwrap();
        assert!(
            message.contains("/text"),
            "the error names the field: {ctx}"
        );
    }
    assert_eq!(r["unknown_tool"]["kind"], "jsonrpc_error", "{ctx}");
    assert_eq!(r["unknown_tool"]["code"], -32602, "{ctx}");
}

/// Checks that a run's `log_progress` call got every log message it asked
/// for (debug and up), in order.
pub fn check_logs(r: &Value, ctx: &str) {
    let levels: Vec<&str> = r["logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["level"].as_str().unwrap())
        .collect();
    assert_eq!(levels, ["debug", "info", "warning", "error"], "{ctx}");
}

/// Checks a TypeScript client run's progress: the server sent progress 0,
/// 50, 100 of 100 before the result. The SDK (1.x and v2 alike) hands
/// `onprogress` only those that did not arrive in the same read as the
/// result (typescript-sdk issue #2580), so it sees a prefix of them, which
/// the client checks.
pub fn check_ts_progress(r: &Value, ctx: &str) {
    assert_eq!(
        r["wire_progress"],
        json!(["0/100", "50/100", "100/100"]),
        "{ctx}"
    );
    assert!(r["onprogress"].as_array().unwrap().len() <= 3, "{ctx}");
}

/// Runs the TypeScript client `script` against a stdio server it starts on
/// `plugins` with pages of `page_size`, expecting `tools` tools; returns its
/// summary.
pub fn ts_client_over_stdio(script: &str, plugins: &Path, page_size: &str, tools: u64) -> Value {
    let cache = super::target_dir().join("test-cache");
    let server: [&OsStr; 9] = [
        "--stdio".as_ref(),
        super::binary().as_ref(),
        "serve".as_ref(),
        "--plugins".as_ref(),
        plugins.as_os_str(),
        "--page-size".as_ref(),
        page_size.as_ref(),
        "--cache-dir".as_ref(),
        cache.as_os_str(),
    ];
    ts_client(script, page_size, tools, &server)
}

/// Runs the TypeScript client `script` against the Streamable HTTP server at
/// `url`, with pages of `page_size` and `tools` tools expected; returns its
/// summary.
pub fn ts_client_over_http(script: &str, url: &str, page_size: &str, tools: u64) -> Value {
    ts_client(script, page_size, tools, &["--url".as_ref(), url.as_ref()])
}

/// Runs the TypeScript client `script` with the expectations and the
/// server's arguments (`--stdio ...` or `--url URL`), in that order.
fn ts_client(script: &str, page_size: &str, tools: u64, server: &[&OsStr]) -> Value {
    let tools = tools.to_string();
    let mut args: Vec<&OsStr> = vec![
        "--page-size".as_ref(),
        page_size.as_ref(),
        "--expect-tools".as_ref(),
        tools.as_ref(),
    ];
    args.extend_from_slice(server);
    super::run_node_client(script, &args)
}
