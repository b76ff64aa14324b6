//! MCP utilities on a running call: progress notifications for a request
//! with a progress token, guest log messages at the session's logging level,
//! all before the call's response; and `notifications/cancelled` stopping a
//! call that would otherwise run for a minute.
#![allow(clippy::unwrap_used)]

use crate::common::http::{calls_ended, calls_running};
use crate::common::revision::{R4, R5};
use crate::common::{METRICS, Server, plugin_dir};
use serde_json::{Value, json};

/// Calls `log_progress` with `params`' `_meta`, and returns the call's
/// notifications (all received before its response) of `method`.
fn log_progress(s: &mut Server, meta: Option<Value>, method: &str) -> Vec<Value> {
    s.notifications.clear();
    let mut params = json!({"name": "log_progress", "arguments": {}});
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    let id = s.send_request("tools/call", params);
    let resp = s.response(id);
    assert_eq!(resp["result"]["isError"], false, "{resp}");
    s.notifications
        .iter()
        .filter(|n| n["method"] == method)
        .map(|n| n["params"].clone())
        .collect()
}

#[test]
fn progress_reaches_the_client_before_the_response_only_with_a_token() {
    let dir = plugin_dir(&[test_artifacts::ERRORS]);
    let mut s = Server::initialized(dir.path(), &[], R4);
    let progress = log_progress(
        &mut s,
        Some(json!({"progressToken": "tok-1"})),
        "notifications/progress",
    );
    assert_eq!(progress.len(), 3, "{progress:?}");
    let values: Vec<f64> = progress
        .iter()
        .map(|p| p["progress"].as_f64().unwrap())
        .collect();
    assert_eq!(values, [0.0, 50.0, 100.0]);
    for p in &progress {
        assert_eq!(p["progressToken"], "tok-1", "{p}");
        assert_eq!(p["total"], 100.0, "{p}");
    }
    assert_eq!(progress[0]["message"], "starting");
    assert_eq!(progress[1]["message"], "halfway");
    assert!(progress[2].get("message").is_none(), "{}", progress[2]);

    // A numeric token is echoed as a number.
    let progress = log_progress(
        &mut s,
        Some(json!({"progressToken": 7})),
        "notifications/progress",
    );
    assert_eq!(progress.len(), 3);
    assert!(progress.iter().all(|p| p["progressToken"] == 7));

    // Without a token, no progress.
    let progress = log_progress(&mut s, None, "notifications/progress");
    assert!(progress.is_empty(), "{progress:?}");
}

fn levels(messages: &[Value]) -> Vec<(String, String)> {
    messages
        .iter()
        .map(|m| {
            assert_eq!(m["logger"], "errors/log_progress", "{m}");
            (
                m["level"].as_str().unwrap().to_string(),
                m["data"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pairs(expected: &[&str]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|l| (l.to_string(), format!("log_progress: {l}")))
        .collect()
}

#[test]
fn guest_logs_reach_the_client_at_the_session_level() {
    let dir = plugin_dir(&[test_artifacts::ERRORS]);
    let mut s = Server::initialized(dir.path(), &[], R4);

    // Until the client sets a level: info and above.
    let messages = log_progress(&mut s, None, "notifications/message");
    assert_eq!(levels(&messages), pairs(&["info", "warning", "error"]));

    let resp = s.request("logging/setLevel", json!({"level": "debug"}));
    assert_eq!(resp["result"], json!({}), "{resp}");
    let messages = log_progress(&mut s, None, "notifications/message");
    assert_eq!(
        levels(&messages),
        pairs(&["debug", "info", "warning", "error"])
    );

    let resp = s.request("logging/setLevel", json!({"level": "error"}));
    assert_eq!(resp["result"], json!({}), "{resp}");
    let messages = log_progress(&mut s, None, "notifications/message");
    assert_eq!(levels(&messages), pairs(&["error"]));
}

#[test]
fn at_2026_07_28_each_request_opts_in_to_log_messages() {
    let dir = plugin_dir(&[test_artifacts::ERRORS]);
    // 2026-07-28 has no handshake: every request names the revision.
    let mut s = Server::start(dir.path(), &[]);
    let meta = |level: Option<&str>| {
        let mut meta = json!({
            "io.modelcontextprotocol/protocolVersion": R5,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
        });
        if let Some(level) = level {
            meta["io.modelcontextprotocol/logLevel"] = json!(level);
        }
        Some(meta)
    };
    let silent = log_progress(&mut s, meta(None), "notifications/message");
    assert_eq!(levels(&silent), pairs(&[]), "no logLevel, no log messages");
    let debug = log_progress(&mut s, meta(Some("debug")), "notifications/message");
    assert_eq!(
        levels(&debug),
        pairs(&["debug", "info", "warning", "error"])
    );
    let warning = log_progress(&mut s, meta(Some("warning")), "notifications/message");
    assert_eq!(levels(&warning), pairs(&["warning", "error"]));
}

#[test]
fn the_logging_capability_is_declared() {
    let dir = plugin_dir(&[test_artifacts::ERRORS]);
    let mut s = Server::start(dir.path(), &[]);
    let init = s.initialize(R4);
    assert!(
        init["result"]["capabilities"]["logging"].is_object(),
        "{init}"
    );
}

#[test]
fn cancelled_calls_stop_and_get_no_response() {
    let (_dir, plugins, config) = crate::common::plugins_with_policy(
        &[test_artifacts::HOSTILE],
        "[plugins.hostile]\ntimeout = \"60s\"\nfuel = 1_000_000_000_000_000\nmax_concurrent_calls = 1\n",
    );
    let mut s = Server::initialized(&plugins, &["--config", &config, METRICS[0], METRICS[1]], R4);

    for tool in ["spin", "sleep_forever"] {
        let id = s.send_request("tools/call", json!({"name": tool, "arguments": {}}));
        s.wait_for_sample(&calls_running("hostile"), |n| n == 1.0);
        s.send(&json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "test"}
        }));
        // The session goes on; the cancelled call never answers.
        let ping = s.send_request("ping", json!({}));
        let resp = s.recv();
        assert_eq!(resp["id"], ping, "{resp}");
        // It ends as cancelled, and its guest no longer runs.
        s.wait_for_sample(&calls_ended("hostile", tool, "cancelled"), |n| n == 1.0);
        s.wait_for_sample(&calls_running("hostile"), |n| n == 0.0);
        let ping = s.send_request("ping", json!({}));
        let resp = s.recv();
        assert_eq!(resp["id"], ping, "{resp}");
    }
    // The only slot is free again: a well-behaved call runs.
    let resp = s.call("ok", json!({}));
    assert!(resp.get("result").is_some(), "{resp}");
}
