//! The official MCP TypeScript SDK v2 client (`@modelcontextprotocol/client`
//! 2.x from npm) against the real binary, over stdio and over Streamable
//! HTTP (`tests/ts/client-v2.mjs`). Unlike the SDK 1.x (`ts_sdk.rs`), it
//! speaks 2026-07-28: it negotiates it with `server/discover` (in its `auto`
//! mode and pinned), then stamps the revision on every request's `_meta`.
//! Every run is chosen with the SDK's own options: `auto`, the pinned
//! 2026-07-28, the SDK's default (`initialize` proposing 2025-11-25) and each
//! older handshake revision alone in `supportedProtocolVersions`. At each it
//! lists every page of tools, calls a tool, checks how arguments that break
//! the input schema and an unknown tool are reported, asks for log messages
//! (per request at 2026-07-28) and receives progress.
//!
//! The SDK is installed in `tests/ts/node_modules` by `scripts/setup-node.sh`
//! (`scripts/test.sh` runs it); the tests fail, not skip, without it.
#![allow(clippy::unwrap_used)]

use crate::common::clients::{self, EXPECTED, MODERN, PAGE_SIZE, REVISIONS, TOOLS, plugins};
use crate::common::revision::{R1, R2, R3, R4};
use serde_json::{Value, json};

/// The client's runs, in order (see `tests/ts/client-v2.mjs`).
const RUNS: [&str; 7] = ["auto", MODERN, "sdk", R1, R2, R3, R4];

/// The v2 client package sits next to the 1.x SDK that `run_node_client`
/// looks for; say so plainly when only the older one is installed.
fn assert_installed() {
    let package = crate::common::workspace_root()
        .join("tests/ts/node_modules/@modelcontextprotocol/client/package.json");
    assert!(
        package.is_file(),
        "the TypeScript SDK v2 client needs @modelcontextprotocol/client in tests/ts/node_modules: run scripts/setup-node.sh (scripts/test.sh does)"
    );
}

/// Checks one transport's summary. `http`: the transport is Streamable HTTP
/// (where the SDK probes on the connection itself and sends
/// MCP-Protocol-Version); only stdio promises a call's log messages arrive
/// before its result (as in `revisions.rs`).
fn check(summary: &Value, http: bool) {
    assert_eq!(
        summary["transport"],
        if http { "http" } else { "stdio" },
        "{summary}"
    );
    let runs = clients::runs(summary, "runs", "run", &RUNS);
    let sdk_latest = summary["sdk_latest_protocol_version"].as_str().unwrap();

    for r in runs {
        let run = r["run"].as_str().unwrap();
        let ctx = format!("{run} over {}: {r}", summary["transport"]);
        let want = match run {
            "auto" | MODERN => MODERN,
            "sdk" => sdk_latest,
            dated => dated,
        };
        assert_eq!(r["negotiated"], want, "{ctx}");
        // What the server itself answered on this connection.
        let answer = &r["server_answer"];
        assert_eq!(answer["answered"], want, "{ctx}");
        let methods: Vec<&str> = r["methods_sent"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        if want == MODERN {
            assert_eq!(answer["supported_versions"], json!(REVISIONS), "{ctx}");
            // Over HTTP the SDK probes on the connection (then the client
            // asks once more); over stdio it probes on a throwaway sibling
            // process, so only the client's own question is on this one.
            assert_eq!(
                answer["discovers_on_connection"],
                if http { 2 } else { 1 },
                "{ctx}"
            );
            assert!(!methods.contains(&"initialize"), "{ctx}");
            assert!(!methods.contains(&"logging/setLevel"), "{ctx}");
            assert_eq!(r["request_meta_versions"], json!([MODERN]), "{ctx}");
            // The revision has no logging/setLevel; the SDK refuses it.
            assert_eq!(
                r["set_level_refused"], "METHOD_NOT_SUPPORTED_BY_PROTOCOL_VERSION",
                "{ctx}"
            );
            // A 2026-07-28 list result says how long it may be cached; the
            // SDK's schema requires it.
            assert!(r["tools_list_ttl_ms"].is_u64(), "{ctx}");
        } else {
            assert_eq!(answer["proposed"], want, "{ctx}");
            assert_eq!(methods[0], "initialize", "{ctx}");
            assert!(!methods.contains(&"server/discover"), "{ctx}");
            assert_eq!(r["request_meta_versions"], json!([null]), "{ctx}");
        }
        if http {
            assert_eq!(r["http_protocol_version_headers"], json!([want]), "{ctx}");
        }
        clients::check_tool_calls(r, want, &EXPECTED, &ctx);
        clients::check_ts_progress(r, &ctx);

        // Asked for debug (a session level before 2026-07-28, the request's
        // `_meta` at it), the call gets every message, before its result
        // over stdio.
        if !http {
            clients::check_logs(r, &ctx);
        }
    }
}

#[test]
fn typescript_sdk_v2_speaks_2026_07_28_and_older_revisions_over_stdio() {
    assert_installed();
    let dir = plugins();
    let summary = clients::ts_client_over_stdio("client-v2.mjs", dir.path(), PAGE_SIZE, TOOLS);
    check(&summary, false);
}

/// One server; every run is a connection of its own on it.
#[test]
fn typescript_sdk_v2_speaks_2026_07_28_and_older_revisions_over_http() {
    assert_installed();
    let dir = plugins();
    let server = crate::common::HttpServer::start(dir.path(), &["--page-size", PAGE_SIZE]);
    let summary = clients::ts_client_over_http("client-v2.mjs", &server.url, PAGE_SIZE, TOOLS);
    check(&summary, true);
    assert!(
        !server.stderr().contains("UNEXPECTED STDOUT"),
        "the HTTP server wrote to stdout:\n{}",
        server.stderr()
    );
}
