//! The official MCP SDK clients — Python (`mcp` 2.x, `tests/python/
//! served_client.py`) and TypeScript (`@modelcontextprotocol/sdk` 1.x,
//! `tests/ts/served-client.mjs`) — list, read, get and complete what the
//! `conformance` test plugin serves besides tools, over stdio and over
//! Streamable HTTP, against the real binary.
//!
//! The clients come from the project's venv and `tests/ts/node_modules`
//! (`scripts/test.sh` installs both); the tests fail, not skip, without them.
#![allow(clippy::unwrap_used)]

use std::ffi::OsStr;

use serde_json::{Value, json};

/// What both clients must have seen, whatever the transport.
fn check(summary: &Value, transport: &str) {
    assert_eq!(summary["transport"], transport, "{summary}");
    assert_eq!(summary["resources"], 3, "{summary}");
    assert_eq!(summary["templates"], 1, "{summary}");
    assert_eq!(summary["prompts"], 5, "{summary}");
    // Up to 2025-11-25 an unknown URI is -32002 (SEP-2164 makes it -32602
    // at 2026-07-28); a missing argument is -32602.
    assert_eq!(summary["unknown_uri_error"], -32002, "{summary}");
    assert_eq!(summary["missing_argument_error"], -32602, "{summary}");
    assert_eq!(
        summary["completion"],
        json!(["test", "testValue1"]),
        "{summary}"
    );
}

#[test]
fn python_sdk_lists_reads_gets_and_completes_over_stdio_and_http() {
    let dir = crate::common::plugin_dir(&[test_artifacts::CONFORMANCE]);
    let plugins = dir.path().as_os_str();
    let stdio =
        crate::common::run_python_client("served_client.py", &["--plugins".as_ref(), plugins]);
    check(&stdio, "stdio");
    let server = crate::common::HttpServer::start(dir.path(), &[]);
    let http = crate::common::run_python_client(
        "served_client.py",
        &["--url".as_ref(), OsStr::new(&server.url)],
    );
    check(&http, "http");
}

#[test]
fn typescript_sdk_lists_reads_gets_and_completes_over_stdio_and_http() {
    let dir = crate::common::plugin_dir(&[test_artifacts::CONFORMANCE]);
    let stdio = crate::common::run_node_client(
        "served-client.mjs",
        &[
            OsStr::new("--stdio"),
            OsStr::new(crate::common::binary()),
            OsStr::new("serve"),
            OsStr::new("--plugins"),
            dir.path().as_os_str(),
        ],
    );
    check(&stdio, "stdio");
    let server = crate::common::HttpServer::start(dir.path(), &[]);
    let http = crate::common::run_node_client(
        "served-client.mjs",
        &[OsStr::new("--url"), OsStr::new(&server.url)],
    );
    check(&http, "http");
}
