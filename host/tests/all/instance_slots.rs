//! `--max-instances` bounds the calls that run at once across all plugins:
//! a call that finds every instance slot held by calls still running waits
//! for one, within its own timeout, instead of failing. The calls hold
//! their slots by asking the client to sample, so the test decides when
//! each ends: ordered by messages, never by time.

use crate::common::revision::R4;
use serde_json::{Value, json};

use crate::common::{Server, plugin_dir};

const POLICY: &str =
    "[plugins.asker]\ntimeout = \"60s\"\n[plugins.asker.client]\nsampling = true\n";

fn sample(s: &mut Server) -> i64 {
    s.send_request(
        "tools/call",
        json!({"name": "sample", "arguments": {"prompt": "p", "max_tokens": 1}}),
    )
}

/// The next message that is a request to the client or the response to
/// one of `calls`.
fn next(s: &mut Server) -> Value {
    loop {
        let msg = s.recv();
        if msg.get("id").is_some() {
            return msg;
        }
    }
}

fn answer(s: &mut Server, request: &Value) {
    assert_eq!(request["method"], "sampling/createMessage", "{request}");
    s.send(&json!({"jsonrpc": "2.0", "id": request["id"], "result": {
        "role": "assistant",
        "content": {"type": "text", "text": "ok"},
        "model": "test"
    }}));
}

#[test]
fn a_call_past_max_instances_waits_for_a_slot_instead_of_failing() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mcp-wasm-host.toml");
    std::fs::write(&config, POLICY).unwrap();
    let plugins = plugin_dir(&[test_artifacts::ASKER]);
    let mut s = Server::start(
        plugins.path(),
        &["--config", config.to_str().unwrap(), "--max-instances", "2"],
    );
    let id = s.send_request(
        "initialize",
        json!({
            "protocolVersion": R4,
            "capabilities": {"sampling": {}},
            "clientInfo": {"name": "instance-slots-test", "version": "0"}
        }),
    );
    assert!(s.response(id).get("result").is_some());
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    // Two calls hold both slots, each waiting for the client's answer.
    let first = sample(&mut s);
    let held_1 = next(&mut s);
    let second = sample(&mut s);
    let held_2 = next(&mut s);
    for held in [&held_1, &held_2] {
        assert_eq!(held["method"], "sampling/createMessage", "{held}");
    }
    // A third finds no slot free: it must wait, not fail.
    let third = sample(&mut s);
    answer(&mut s, &held_1);
    // The first call ends, giving its slot back; the third then runs and
    // asks the client in turn. Both arrive, in either order.
    let mut results = std::collections::HashMap::new();
    let mut third_request = None;
    while third_request.is_none() || !results.contains_key(&first) {
        let msg = next(&mut s);
        if msg.get("method").is_some() {
            third_request = Some(msg);
        } else {
            let id = msg["id"].as_i64().unwrap();
            assert!(
                id == first,
                "the call past --max-instances answered before a slot was free: {msg}"
            );
            results.insert(id, msg);
        }
    }
    answer(&mut s, &held_2);
    answer(&mut s, &third_request.unwrap());
    while results.len() < 3 {
        let msg = next(&mut s);
        assert!(msg.get("method").is_none(), "unexpected request: {msg}");
        results.insert(msg["id"].as_i64().unwrap(), msg);
    }
    for id in [first, second, third] {
        let result = &results[&id]["result"];
        assert_ne!(result["isError"], json!(true), "call {id}: {result}");
    }
}
