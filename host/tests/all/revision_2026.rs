//! What revision 2026-07-28 adds around the tools, over stdio with raw
//! JSON-RPC: caching hints on list results (`ttlMs` from the policy's
//! `[server] list_ttl`, `cacheScope`), the server's identity in `_meta`,
//! `subscriptions/listen` telling of tool list changes, removed methods
//! answered with "method not found", and `client.require` turning a missing
//! client capability into `-32021`.

#![allow(clippy::unwrap_used)]

use crate::common::revision::R4;
use crate::common::{Server, plugin_dir};
use serde_json::{Value, json};

fn meta(capabilities: Value) -> Value {
    crate::common::r5_meta(capabilities)
}

/// A server on a plugins directory holding `plugins`, with `policy`.
fn start(plugins: &[&str], policy: &str) -> (Server, tempfile::TempDir, tempfile::TempDir) {
    let dir = plugin_dir(plugins);
    let config_dir = tempfile::tempdir().unwrap();
    let config = config_dir.path().join("mcp-wasm-host.toml");
    std::fs::write(&config, policy).unwrap();
    let server = Server::start(dir.path(), &["--config", config.to_str().unwrap()]);
    (server, dir, config_dir)
}

#[test]
fn list_results_carry_the_policys_ttl_a_public_scope_and_the_servers_identity() {
    let (mut s, _dir, _config) = start(&[test_artifacts::ERRORS], "[server]\nlist_ttl = \"90s\"\n");
    let listed = s.request("tools/list", json!({"_meta": meta(json!({}))}));
    let result = &listed["result"];
    assert_eq!(result["ttlMs"], 90_000, "{listed}");
    assert_eq!(result["cacheScope"], "public", "{listed}");
    assert_eq!(result["resultType"], "complete", "{listed}");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "mcp-wasm-host",
        "{listed}"
    );
    for method in ["prompts/list", "resources/list", "resources/templates/list"] {
        let listed = s.request(method, json!({"_meta": meta(json!({}))}));
        assert_eq!(listed["result"]["ttlMs"], 90_000, "{method}: {listed}");
    }
    // Older revisions get no caching hints.
    let init = s.initialize(R4);
    assert!(init.get("result").is_some());
    let old = s.request("tools/list", json!({}));
    assert!(old["result"].get("ttlMs").is_none(), "{old}");
}

#[test]
fn a_typo_in_the_server_section_is_refused_at_start() {
    let dir = plugin_dir(&[test_artifacts::ERRORS]);
    let config_dir = tempfile::tempdir().unwrap();
    let config = config_dir.path().join("mcp-wasm-host.toml");
    std::fs::write(&config, "[server]\nlist_tll = \"90s\"\n").unwrap();
    let out = std::process::Command::new(crate::common::binary())
        .env(crate::common::WAIT_FOR_LOAD, "1")
        .args(["serve", "--plugins"])
        .arg(dir.path())
        .args(["--config", config.to_str().unwrap()])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("list_tll"), "{stderr}");
}

#[test]
fn a_listen_subscription_hears_when_a_plugin_adds_tools() {
    let (mut s, dir, _config) = start(&[test_artifacts::ERRORS], "");
    // The tools are loaded before the change.
    s.request("tools/list", json!({"_meta": meta(json!({}))}));
    let listen = s.send_request(
        "subscriptions/listen",
        json!({"_meta": meta(json!({})), "notifications": {"toolsListChanged": true}}),
    );
    let ack = s.recv();
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(
        ack["params"]["notifications"]["toolsListChanged"], true,
        "{ack}"
    );
    let fnv = std::path::Path::new(test_artifacts::FNV);
    std::fs::copy(fnv, dir.path().join("fnv.wasm")).unwrap();
    let changed = s.recv();
    assert_eq!(
        changed["method"], "notifications/tools/list_changed",
        "{changed}"
    );
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        json!(listen),
        "{changed}"
    );
}

#[test]
fn methods_the_revision_removed_are_not_found_whatever_their_params() {
    let (mut s, _dir, _config) = start(&[test_artifacts::ERRORS], "");
    for method in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
    ] {
        let answer = s.request(method, json!({"_meta": meta(json!({}))}));
        assert_eq!(answer["error"]["code"], -32601, "{method}: {answer}");
    }
    // The same methods at the older revisions still work.
    assert!(s.initialize(R4).get("result").is_some());
    assert!(s.request("ping", json!({})).get("result").is_some());
}

#[test]
fn a_tool_that_requires_sampling_answers_a_client_without_it_with_missing_capability() {
    let (mut s, _dir, _config) = start(
        &[test_artifacts::CONFORMANCE],
        "[plugins.conformance.client]\nsampling = true\n",
    );
    let answer = s.request(
        "tools/call",
        json!({"name": "test_missing_capability", "arguments": {}, "_meta": meta(json!({"elicitation": {}}))}),
    );
    assert_eq!(answer["error"]["code"], -32021, "{answer}");
    assert_eq!(
        answer["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}}),
        "{answer}"
    );
    // A client that declares it is asked.
    let asked = s.request(
        "tools/call",
        json!({"name": "test_missing_capability", "arguments": {}, "_meta": meta(json!({"sampling": {}}))}),
    );
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
}
