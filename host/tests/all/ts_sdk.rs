//! The official MCP TypeScript SDK client (`@modelcontextprotocol/sdk` 1.x
//! from npm: `Client`, `StdioClientTransport`,
//! `StreamableHTTPClientTransport`) against the real binary, over stdio and
//! over Streamable HTTP (`tests/ts/client.mjs`): first as shipped (it
//! proposes its newest revision, 2025-11-25), then at each older handshake
//! revision it accepts; at each it lists every page of tools, calls a tool,
//! checks how arguments that break the input schema and an unknown tool are
//! reported, and receives progress. The SDK 1.x speaks no 2026-07-28, so that
//! revision is covered by the Python SDK (`revisions.rs`) and the SDK's v2
//! client (`ts_sdk_v2.rs`). Over HTTP with a bearer token, the SDK gets
//! through with it and is refused without.
//!
//! The SDK is installed in `tests/ts/node_modules` by `scripts/setup-node.sh`
//! (`scripts/test.sh` runs it); the tests fail, not skip, without it.
#![allow(clippy::unwrap_used)]

use crate::common::revision::{R1, R2, R3, R4};
use std::ffi::OsStr;

use crate::common::clients::{self, EXPECTED, PAGE_SIZE, TOOLS, plugins};
use serde_json::{Value, json};

/// What the client checks: the SDK's own choice, then each handshake
/// revision forced (see `tests/ts/client.mjs`).
const RUNS: [&str; 5] = ["sdk", R1, R2, R3, R4];

/// Checks one transport's summary. `logs_before_response`: as in
/// `revisions.rs`, only stdio promises a call's log messages arrive before
/// its result.
fn check(summary: &Value, http: bool, logs_before_response: bool) {
    let runs = clients::runs(summary, "revisions", "revision", &RUNS);
    let sdk_latest = summary["sdk_latest_protocol_version"].as_str().unwrap();

    for r in runs {
        let run = r["revision"].as_str().unwrap();
        let ctx = format!("{run} over {}: {r}", summary["transport"]);
        // Unforced, the SDK proposes its newest revision and the server,
        // which speaks it, agrees.
        let want = if run == "sdk" { sdk_latest } else { run };
        assert_eq!(r["proposed"], want, "{ctx}");
        assert_eq!(r["negotiated"], want, "{ctx}");
        if http {
            assert_eq!(r["http_protocol_version_header"], want, "{ctx}");
        }
        clients::check_tool_calls(r, want, &EXPECTED, &ctx);
        clients::check_ts_progress(r, &ctx);
        if logs_before_response {
            clients::check_logs(r, &ctx);
        }
    }
}

#[test]
fn typescript_sdk_speaks_each_revision_it_knows_over_stdio() {
    let dir = plugins();
    let summary = clients::ts_client_over_stdio("client.mjs", dir.path(), PAGE_SIZE, TOOLS);
    assert_eq!(summary["transport"], "stdio", "{summary}");
    check(&summary, false, true);
}

/// One server; every revision is a session of its own on it.
#[test]
fn typescript_sdk_speaks_each_revision_it_knows_over_http() {
    let dir = plugins();
    let server = crate::common::HttpServer::start(dir.path(), &["--page-size", PAGE_SIZE]);
    let summary = clients::ts_client_over_http("client.mjs", &server.url, PAGE_SIZE, TOOLS);
    assert_eq!(summary["transport"], "http", "{summary}");
    check(&summary, true, false);
    assert!(
        !server.stderr().contains("UNEXPECTED STDOUT"),
        "the HTTP server wrote to stdout:\n{}",
        server.stderr()
    );
}

/// With `--auth-token-env`, the SDK's HTTP transport gets through with
/// `Authorization: Bearer <token>` and is refused with a wrong token or none.
#[test]
fn typescript_sdk_over_http_needs_the_bearer_token() {
    let dir = plugins();
    let token = "ts-sdk-test-token-0123456789abcdef";
    let server = crate::common::HttpServer::start_with_env(
        dir.path(),
        &[
            "--page-size",
            PAGE_SIZE,
            "--auth-token-env",
            "MCP_TEST_TOKEN",
        ],
        &[("MCP_TEST_TOKEN", token)],
    );
    fn args<'a>(url: &'a str, header: Option<&'a str>) -> Vec<&'a OsStr> {
        let mut args = vec!["--revision", "sdk", "--url", url];
        if let Some(h) = header {
            args.extend(["--header", h]);
        }
        args.into_iter().map(OsStr::new).collect()
    }

    let good = format!("Authorization: Bearer {token}");
    let summary = crate::common::run_node_client("client.mjs", &args(&server.url, Some(&good)));
    assert_eq!(summary["revisions"][0]["tools"], json!(TOOLS), "{summary}");

    for header in [Some("Authorization: Bearer not-the-token-0123456789"), None] {
        let stderr =
            crate::common::run_node_client_failing("client.mjs", &args(&server.url, header));
        assert!(
            stderr.contains("Unauthorized"),
            "with {header:?} the server should refuse the client with 401:\n{stderr}"
        );
        assert!(
            !stderr.contains(token),
            "the token leaked into the output:\n{stderr}"
        );
    }
}
