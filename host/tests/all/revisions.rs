//! The official MCP Python SDK client (`mcp` from PyPI) against the real
//! binary at every protocol revision, over stdio and over Streamable HTTP
//! (`tests/python/revisions_client.py`): for each revision it forces that
//! revision, lists every page of tools, calls a tool, checks how arguments
//! that break the input schema and an unknown tool are reported, and
//! receives progress; then the SDK's high-level `Client` in its default
//! `mode="auto"` shows which revision it ends on.
//!
//! The client runs in the project's venv, which `scripts/setup-python.sh`
//! creates (`scripts/test.sh` runs it first and exports
//! `MCP_WASM_HOST_PYTHON`).
#![allow(clippy::unwrap_used)]

use crate::common::clients::{self, EXPECTED, MODERN, PAGE_SIZE, REVISIONS, TOOLS, plugins};
use serde_json::{Value, json};

/// Checks one transport's summary: every revision negotiated as forced, and
/// each one's answers as the specification of that revision says.
/// `logs_before_response`: whether the call's log messages must all have
/// reached the client by the time its result did (stdio keeps one ordered
/// stream; over HTTP they travel apart from the response, see below).
fn check_revisions(summary: &Value, logs_before_response: bool) {
    let revisions = clients::runs(summary, "revisions", "revision", &REVISIONS);

    for r in revisions {
        let rev = r["revision"].as_str().unwrap();
        let ctx = format!("at {rev} over {}: {r}", summary["transport"]);
        assert_eq!(r["negotiated"], json!(rev), "{ctx}");
        if rev == MODERN {
            // `server/discover` lists what the server speaks: all five.
            assert_eq!(r["supported_versions"], json!(REVISIONS), "{ctx}");
        } else {
            // The server's own `initialize` answer.
            assert_eq!(r["protocol_version"], json!(rev), "{ctx}");
        }
        clients::check_tool_calls(r, rev, &EXPECTED, &ctx);

        assert_eq!(
            r["progress"],
            json!([
                {"progress": 0.0, "total": 100.0, "message": "starting"},
                {"progress": 50.0, "total": 100.0, "message": "halfway"},
                {"progress": 100.0, "total": 100.0, "message": null},
            ]),
            "{ctx}"
        );

        // Before 2026-07-28 the client asked for `debug` with
        // `logging/setLevel`, so it gets every message of the call. (At
        // 2026-07-28 it opts in per request with `_meta` logLevel `debug`;
        // the server does not honour that opt-in yet, so that revision's
        // logs are reported in the summary, not asserted.)
        if logs_before_response && rev != MODERN {
            clients::check_logs(r, &ctx);
        }
    }
}

/// `Client(mode="auto")` probes `server/discover` at 2026-07-28 first; the
/// server answers it, so the client adopts 2026-07-28, sends no
/// `initialize`, and stamps that revision on every later request.
fn check_auto(summary: &Value) {
    let auto = &summary["auto"];
    assert_eq!(auto["negotiated"], MODERN, "{auto}");
    let exchanges = auto["exchanges"].as_array().unwrap();
    let first = &exchanges[0];
    assert_eq!(first["method"], "server/discover", "{auto}");
    assert_eq!(first["meta_version"], MODERN, "{auto}");
    assert_eq!(first["answer"], "result", "{auto}");
    assert_eq!(first["supported_versions"], json!(REVISIONS), "{auto}");
    for e in &exchanges[1..] {
        assert_ne!(
            e["method"], "initialize",
            "no handshake after discover: {auto}"
        );
        if e.get("method").is_some() {
            assert_eq!(e["meta_version"], MODERN, "{auto}");
            assert_eq!(e["answer"], "result", "{auto}");
        }
    }
    assert!(
        exchanges.iter().any(|e| e["method"] == "tools/call"),
        "{auto}"
    );
}

#[test]
fn python_sdk_speaks_every_revision_over_stdio() {
    let dir = plugins();
    let cache = format!(
        "--server-arg=--cache-dir={}",
        crate::common::target_dir().join("test-cache").display()
    );
    let summary = crate::common::run_python_client(
        "revisions_client.py",
        &[
            "--plugins".as_ref(),
            dir.path().as_os_str(),
            "--page-size".as_ref(),
            PAGE_SIZE.as_ref(),
            "--expect-tools".as_ref(),
            TOOLS.to_string().as_ref(),
            cache.as_ref(),
            "--auto".as_ref(),
        ],
    );
    assert_eq!(summary["transport"], "stdio", "{summary}");
    check_revisions(&summary, true);
    check_auto(&summary);
}

/// One server; every revision is a session of its own on it, negotiated
/// independently of the others.
#[test]
fn python_sdk_speaks_every_revision_over_http() {
    let dir = plugins();
    let server = crate::common::HttpServer::start(dir.path(), &["--page-size", PAGE_SIZE]);
    let summary = crate::common::run_python_client(
        "revisions_client.py",
        &[
            "--url".as_ref(),
            server.url.as_ref(),
            "--page-size".as_ref(),
            PAGE_SIZE.as_ref(),
            "--expect-tools".as_ref(),
            TOOLS.to_string().as_ref(),
            "--auto".as_ref(),
        ],
    );
    assert_eq!(summary["transport"], "http", "{summary}");
    // Over HTTP, rmcp 3.9 sends a call's progress on the request's own
    // stream but its log messages on the session's standalone GET stream,
    // so they may reach the client after the result: not asserted here.
    check_revisions(&summary, false);
    check_auto(&summary);
    assert!(
        !server.stderr().contains("UNEXPECTED STDOUT"),
        "the HTTP server wrote to stdout:\n{}",
        server.stderr()
    );
}
