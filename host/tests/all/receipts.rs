//! Call receipts against the real binary: every `tools/call` result, the
//! host's own `isError` results included, carries in `_meta` what the call
//! consumed, the plugin's digest and the outcome, the same record as its
//! audit line; the `receipts` policy key turns it off.
#![allow(clippy::unwrap_used)]

use crate::common::http::Client;
use crate::common::revision::R4;
use crate::common::{HttpServer, Server, plugins_with_policy};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

const KEY: &str = "mcp-wasm-host/receipt";

fn sha256_of(path: &str) -> String {
    hex::encode(Sha256::digest(std::fs::read(path).unwrap()))
}

/// The receipt in a `tools/call` response, which must have one.
fn receipt(response: &Value) -> &Value {
    let receipt = &response["result"]["_meta"][KEY];
    assert!(receipt.is_object(), "no receipt in {response}");
    receipt
}

const POLICY: &str = r#"
[plugins.hostile]
timeout = "1s"
fuel = 1_000_000_000_000
[plugins.fnv]
receipts = false
"#;

/// A server with `files` (whose tool names must not collide) under
/// [`POLICY`].
fn serve(files: &[&str]) -> (Server, tempfile::TempDir) {
    let (dir, plugins, config) = plugins_with_policy(files, POLICY);
    let server = Server::initialized(&plugins, &["--config", &config], R4);
    (server, dir)
}

#[test]
fn a_successful_call_carries_what_it_consumed_and_the_plugins_digest() {
    let (mut s, _dir) = serve(&[test_artifacts::PANIC, test_artifacts::FNV]);
    let response = s.call("ok", json!({}));
    assert_eq!(response["result"]["isError"], json!(false), "{response}");
    let r = receipt(&response);
    assert_eq!(r["plugin"], "panic");
    assert_eq!(r["tool"], "ok");
    assert_eq!(r["outcome"], "ok");
    assert_eq!(r["sha256"], sha256_of(test_artifacts::PANIC));
    let fuel = r["fuelUsed"].as_u64().unwrap();
    assert!(fuel > 0, "{r}");
    assert!(r["peakMemoryBytes"].as_u64().unwrap() >= 64 * 1024, "{r}");
    assert!(r["wallTimeMs"].as_f64().unwrap() > 0.0, "{r}");
    assert_eq!(
        r.as_object().unwrap().len(),
        7,
        "nothing but the record's fields (never the arguments): {r}"
    );
    // The audit line is the same record.
    s.wait_for_stderr(&format!(
        "sha256={} tool=\"ok\" outcome=\"ok\"",
        sha256_of(test_artifacts::PANIC)
    ));
    s.wait_for_stderr(&format!("fuel_used={fuel} "));
}

#[test]
fn the_hosts_own_error_results_carry_a_receipt_with_their_outcome() {
    let (mut s, _dir) = serve(&[test_artifacts::PANIC, test_artifacts::FNV]);
    let trapped = s.call("panic", json!({"index": 7}));
    assert_eq!(trapped["result"]["isError"], json!(true), "{trapped}");
    let r = receipt(&trapped);
    assert_eq!(r["outcome"], "panic", "{r}");
    assert!(r["fuelUsed"].as_u64().unwrap() > 0, "{r}");

    // Refused before any guest code ran: no fuel burnt.
    let invalid = s.call("panic", json!({"index": "seven"}));
    let r = receipt(&invalid);
    assert_eq!(r["outcome"], "invalid_arguments", "{r}");
    assert_eq!(r["fuelUsed"], 0, "{r}");

    let (mut s, _dir) = serve(&[test_artifacts::HOSTILE]);
    let timed_out = s.call("spin", json!({}));
    assert_eq!(timed_out["result"]["isError"], json!(true), "{timed_out}");
    let r = receipt(&timed_out);
    assert_eq!(r["outcome"], "timeout", "{r}");
    assert_eq!(r["plugin"], "hostile");
    assert_eq!(r["sha256"], sha256_of(test_artifacts::HOSTILE));
    assert!(r["wallTimeMs"].as_f64().unwrap() >= 1000.0, "{r}");
}

#[test]
fn the_receipts_key_turns_them_off_for_one_plugin_or_all() {
    let (mut s, _dir) = serve(&[test_artifacts::PANIC, test_artifacts::FNV]);
    let response = s.call("hash", json!({"text": "x"}));
    assert!(response["result"].is_object(), "{response}");
    assert!(
        response["result"]["_meta"].get(KEY).is_none(),
        "receipts = false: {response}"
    );

    let (_dir, plugins, config) = plugins_with_policy(
        &[test_artifacts::PANIC, test_artifacts::FNV],
        "[defaults]\nreceipts = false\n[plugins.fnv]\nreceipts = true\n",
    );
    let mut s = Server::initialized(&plugins, &["--config", &config], R4);
    let off = s.call("ok", json!({}));
    assert!(off["result"]["_meta"].get(KEY).is_none(), "{off}");
    assert_eq!(
        receipt(&s.call("hash", json!({"text": "x"})))["plugin"],
        "fnv"
    );
}

#[test]
fn receipts_reach_http_clients_too() {
    let plugins = crate::common::plugin_dir(&[test_artifacts::PANIC]);
    let server = HttpServer::start(plugins.path(), &["--no-watch", "--stateless"]);
    let call = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "ok", "arguments": {}}
    });
    let response = Client::new(&server.url)
        .with_header("MCP-Protocol-Version", R4)
        .post(&call)
        .message();
    let r = receipt(&response);
    assert_eq!(r["outcome"], "ok");
    assert_eq!(r["sha256"], sha256_of(test_artifacts::PANIC));
    assert!(r["fuelUsed"].as_u64().unwrap() > 0, "{r}");
}

#[test]
fn the_receipt_reaches_the_python_sdk_client() {
    let plugins = crate::common::plugin_dir(&[test_artifacts::PANIC]);
    let summary = crate::common::run_python_client(
        "sdk_client.py",
        &[
            "--plugins".as_ref(),
            plugins.path().as_os_str(),
            "--call".as_ref(),
            "ok".as_ref(),
            "--expect-text".as_ref(),
            "ok".as_ref(),
        ],
    );
    let r = &summary["receipt"];
    assert_eq!(r["outcome"], "ok", "{summary}");
    assert_eq!(r["plugin"], "panic");
    assert_eq!(r["sha256"], sha256_of(test_artifacts::PANIC));
    assert!(r["fuelUsed"].as_u64().unwrap() > 0, "{summary}");
}
