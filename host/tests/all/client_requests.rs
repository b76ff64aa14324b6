//! Requests from a plugin to the MCP client, end to end over stdio: the
//! server sends `sampling/createMessage` and `elicitation/create` on stdout
//! while a `tools/call` runs, the test answers them on stdin like a client,
//! and the tool's result shows what the plugin received. Also: a client
//! without the capability, a plugin without the policy grant, a client that
//! answers with an error, a call cancelled or timed out while it waits, and
//! plugins built against WIT 0.1.0 and 0.1.1.

#![allow(clippy::unwrap_used)]

use crate::common::revision::R4;
use crate::common::{Server, plugin_dir, text};
use serde_json::{Value, json};

/// Capabilities of a client that can sample and elicit.
fn capable() -> Value {
    json!({"sampling": {}, "elicitation": {}})
}

struct Setup {
    _dir: tempfile::TempDir,
    plugins: tempfile::TempDir,
    config: std::path::PathBuf,
}

/// The asker plugin, with a policy file holding `policy`.
fn setup(policy: &str) -> Setup {
    setup_with(&[test_artifacts::ASKER], policy)
}

/// The plugin files `plugins`, with a policy file holding `policy`.
fn setup_with(plugins: &[&str], policy: &str) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mcp-wasm-host.toml");
    std::fs::write(&config, policy).unwrap();
    Setup {
        _dir: dir,
        plugins: plugin_dir(plugins),
        config,
    }
}

const GRANTED: &str = "[plugins.asker.client]\nsampling = true\nelicitation = true\n";

/// Starts a server and makes the handshake with `capabilities`.
fn start(setup: &Setup, capabilities: Value) -> Server {
    let mut s = Server::start(
        setup.plugins.path(),
        &["--config", setup.config.to_str().unwrap()],
    );
    let id = s.send_request(
        "initialize",
        json!({
            "protocolVersion": R4,
            "capabilities": capabilities,
            "clientInfo": {"name": "client-requests-test", "version": "0"}
        }),
    );
    let init = s.response(id);
    assert!(init.get("result").is_some(), "initialize failed: {init}");
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    s
}

/// Waits for the server's next request to the client (skipping
/// notifications) and returns it.
fn next_request(s: &mut Server) -> Value {
    loop {
        let msg = s.recv();
        if msg.get("method").is_some() && msg.get("id").is_some() {
            return msg;
        }
        assert!(
            msg.get("result").is_none() && msg.get("error").is_none(),
            "a response came before the server's request to the client: {msg}"
        );
    }
}

/// Waits for the response to `id`, failing on any request to the client.
fn response(s: &mut Server, id: i64) -> Value {
    loop {
        let msg = s.recv();
        if msg.get("method").is_some() && msg.get("id").is_some() {
            panic!("unexpected request to the client: {msg}");
        }
        if msg["id"] == json!(id) {
            return msg;
        }
    }
}

fn call(s: &mut Server, tool: &str, arguments: Value) -> i64 {
    s.send_request("tools/call", json!({"name": tool, "arguments": arguments}))
}

/// Calls `sample` for one token of a one-word prompt.
fn call_sample(s: &mut Server) -> i64 {
    call(s, "sample", json!({"prompt": "p", "max_tokens": 1}))
}

/// Calls `elicit` with `message` and the first of [`schemas`].
fn call_elicit(s: &mut Server, message: &str) -> i64 {
    call(
        s,
        "elicit",
        json!({"message": message, "schema": schemas()[0]}),
    )
}

/// Starts a server for a client that can sample and elicit, calls `sample`
/// and waits for the server's request to the client; returns the server,
/// the call's id and that request.
fn sample_waiting(setup: &Setup) -> (Server, i64, Value) {
    let mut s = start(setup, capable());
    let id = call_sample(&mut s);
    let request = next_request(&mut s);
    (s, id, request)
}

fn answer(s: &mut Server, request: &Value, result: Value) {
    s.send(&json!({"jsonrpc": "2.0", "id": request["id"], "result": result}));
}

fn structured(resp: &Value) -> Value {
    let result = &resp["result"];
    assert_ne!(result["isError"], json!(true), "the call failed: {resp}");
    result["structuredContent"].clone()
}

fn error_text(resp: &Value) -> String {
    let result = &resp["result"];
    assert_eq!(
        result["isError"],
        json!(true),
        "the call should fail: {resp}"
    );
    text(result)
}

#[test]
fn sampling_round_trips_through_the_client() {
    let setup = setup(GRANTED);
    let mut s = start(&setup, capable());
    let id = call(
        &mut s,
        "sample",
        json!({"prompt": "What is 2+2?", "max_tokens": 100, "system_prompt": "Be brief.",
               "model_hint": "claude", "with_image": true}),
    );
    let request = next_request(&mut s);
    assert_eq!(request["method"], "sampling/createMessage", "{request}");
    let params = &request["params"];
    assert_eq!(params["maxTokens"], 100);
    assert_eq!(params["systemPrompt"], "Be brief.");
    assert_eq!(
        params["modelPreferences"]["hints"],
        json!([{"name": "claude"}])
    );
    assert_eq!(
        params["messages"],
        json!([{"role": "user", "content": [
            {"type": "text", "text": "What is 2+2?"},
            {"type": "image", "data": "AQID", "mimeType": "image/png"}
        ]}])
    );
    answer(
        &mut s,
        &request,
        json!({"role": "assistant", "content": {"type": "text", "text": "Four."},
               "model": "test-model-7", "stopReason": "endTurn"}),
    );
    let got = structured(&response(&mut s, id));
    assert_eq!(
        got,
        json!({"text": "Four.", "images": [], "model": "test-model-7",
               "stopReason": "endTurn", "role": "Assistant"})
    );
    s.wait_for_stderr("asking the client");

    // One text block goes out as a single content object (every revision
    // accepts it), and image answers reach the guest as bytes.
    let id = call(&mut s, "sample", json!({"prompt": "Draw", "max_tokens": 5}));
    let request = next_request(&mut s);
    assert_eq!(
        request["params"]["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Draw"}}])
    );
    answer(
        &mut s,
        &request,
        json!({"role": "assistant", "content": {"type": "image", "data": "BAUG", "mimeType": "image/gif"},
               "model": "m"}),
    );
    let got = structured(&response(&mut s, id));
    assert_eq!(
        got["images"],
        json!([{"bytes": [4, 5, 6], "mimeType": "image/gif"}])
    );
    assert_eq!(got["stopReason"], Value::Null);
}

/// The conformance suite's elicitation schemas (SEP-1034 defaults, SEP-1330
/// enums) and one with a keyword rmcp's schema type does not model.
fn schemas() -> Vec<Value> {
    vec![
        json!({"type": "object", "properties": {"response": {"type": "string", "description": "User's response"}},
               "required": ["response"]}),
        json!({"type": "object", "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "description": "Verification status", "default": true}
        }, "required": []}),
        json!({"type": "object", "properties": {
            "untitledSingle": {"type": "string", "description": "Select one option", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "description": "Select one option with titles", "oneOf": [
                {"const": "value1", "title": "First Option"}, {"const": "value2", "title": "Second Option"}]},
            "legacyEnum": {"type": "string", "description": "Select one option (legacy)", "enum": ["opt1", "opt2"],
                           "enumNames": ["Option One", "Option Two"]},
            "untitledMulti": {"type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3,
                              "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "description": "Select multiple options with titles", "minItems": 1, "maxItems": 3,
                            "items": {"anyOf": [{"const": "value1", "title": "First Choice"}, {"const": "value2", "title": "Second Choice"}]}}
        }, "required": []}),
        json!({"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}}}),
    ]
}

#[test]
fn elicitation_sends_the_schema_unchanged_and_returns_the_answer() {
    let setup = setup(GRANTED);
    let mut s = start(&setup, capable());
    for (i, schema) in schemas().into_iter().enumerate() {
        let id = call(
            &mut s,
            "elicit",
            json!({"message": format!("question {i}"), "schema": schema}),
        );
        let request = next_request(&mut s);
        assert_eq!(request["method"], "elicitation/create", "{request}");
        assert_eq!(request["params"]["message"], format!("question {i}"));
        assert_eq!(request["params"]["requestedSchema"], schema, "schema {i}");
        let content = json!({"answer": i, "name": "Ada"});
        answer(
            &mut s,
            &request,
            json!({"action": "accept", "content": content}),
        );
        let got = structured(&response(&mut s, id));
        assert_eq!(got, json!({"action": "accept", "content": content}));
    }
    for action in ["decline", "cancel"] {
        let id = call_elicit(&mut s, "m");
        let request = next_request(&mut s);
        answer(&mut s, &request, json!({"action": action}));
        let got = structured(&response(&mut s, id));
        assert_eq!(got, json!({"action": action, "content": null}));
    }
}

#[test]
fn a_client_without_the_capability_is_not_asked() {
    let setup = setup(GRANTED);
    // Elicitation in URL mode only, and no sampling.
    let mut s = start(&setup, json!({"elicitation": {"url": {}}}));
    let id = call_sample(&mut s);
    let e = error_text(&response(&mut s, id));
    assert!(
        e.contains("unsupported: the client did not declare the sampling capability"),
        "{e}"
    );
    let id = call_elicit(&mut s, "m");
    let e = error_text(&response(&mut s, id));
    assert!(
        e.contains("unsupported:") && e.contains("URL mode only"),
        "{e}"
    );

    let mut s = start(&setup, json!({}));
    let id = call_elicit(&mut s, "m");
    let e = error_text(&response(&mut s, id));
    assert!(
        e.contains("unsupported: the client did not declare the elicitation capability"),
        "{e}"
    );
}

#[test]
fn a_plugin_without_the_grant_is_denied_with_the_key_to_set() {
    let setup = setup("[plugins.asker.client]\nsampling = true\n");
    let mut s = start(&setup, capable());
    let id = call_elicit(&mut s, "m");
    let e = error_text(&response(&mut s, id));
    assert!(
        e.contains("denied: plugin \"asker\" may not ask the client for elicitation")
            && e.contains("`elicitation = true` in `[plugins.asker.client]`")
            && e.contains("mcp-wasm-host.toml"),
        "{e}"
    );
    s.wait_for_stderr("denied a request to the client");

    let setup = self::setup("");
    let mut s = start(&setup, capable());
    let id = call_sample(&mut s);
    let e = error_text(&response(&mut s, id));
    assert!(
        e.contains("denied:") && e.contains("`sampling = true` in `[plugins.asker.client]`"),
        "{e}"
    );
}

#[test]
fn a_client_error_reaches_the_plugin() {
    let setup = setup(GRANTED);
    let (mut s, id, request) = sample_waiting(&setup);
    s.send(&json!({"jsonrpc": "2.0", "id": request["id"],
                   "error": {"code": -1, "message": "User rejected sampling request"}}));
    let e = error_text(&response(&mut s, id));
    assert!(
        e.contains("rejected: the client answered with error -1: User rejected sampling request"),
        "{e}"
    );
}

#[test]
fn cancelling_a_call_that_waits_for_the_client_cancels_its_request() {
    let setup = setup(GRANTED);
    let (mut s, id, request) = sample_waiting(&setup);
    s.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": id, "reason": "user pressed stop"}}),
    );
    // The server cancels its own request to the client ...
    let cancelled = loop {
        let msg = s.recv();
        assert!(
            msg["id"] != json!(id),
            "a cancelled call got a response: {msg}"
        );
        if msg["method"] == "notifications/cancelled" {
            break msg;
        }
    };
    assert_eq!(cancelled["params"]["requestId"], request["id"]);
    s.wait_for_stderr("outcome=\"cancelled\"");
    // ... a late answer is ignored, and the server goes on serving.
    answer(
        &mut s,
        &request,
        json!({"role": "assistant", "content": {"type": "text", "text": "late"}, "model": "m"}),
    );
    let id = call_elicit(&mut s, "again");
    let request = next_request(&mut s);
    answer(&mut s, &request, json!({"action": "decline"}));
    assert_eq!(structured(&response(&mut s, id))["action"], "decline");
}

#[test]
fn the_call_timeout_covers_the_wait_for_the_client() {
    let setup = setup(&format!("[plugins.asker]\ntimeout = \"1s\"\n{GRANTED}"));
    let (mut s, id, request) = sample_waiting(&setup);
    // Never answered: the deadline stops the guest blocked in the host call.
    let resp = loop {
        let msg = s.recv();
        if msg["id"] == json!(id) {
            break msg;
        }
        if msg["method"] == "notifications/cancelled" {
            assert_eq!(msg["params"]["requestId"], request["id"]);
        }
    };
    let e = error_text(&resp);
    assert!(e.contains("timed out after 1 s"), "{e}");
}

#[test]
fn a_plugin_built_against_wit_0_1_0_still_loads_and_runs() {
    let plugins = plugin_dir(&[test_artifacts::LEGACY]);
    let mut s = Server::initialized(plugins.path(), &[], R4);
    let (tools, _) = s.list_all_tools();
    assert_eq!(tools.len(), 1, "{tools:?}");
    assert_eq!(tools[0]["name"], "legacy_echo");
    let result = s.call_ok("legacy_echo", json!({"text": "old but gold"}));
    assert_eq!(text(&result), "legacy: old but gold");
    s.wait_for_stderr("legacy plugin called");
}

#[test]
fn a_plugin_built_against_wit_0_1_1_still_samples_and_elicits() {
    let setup = setup_with(
        &[test_artifacts::LEGACY011, test_artifacts::LEGACY],
        "[plugins.legacy011.client]\nsampling = true\nelicitation = true\n",
    );
    let mut s = start(&setup, capable());
    let (tools, _) = s.list_all_tools();
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(names, ["legacy_ask", "legacy_echo"]);
    assert!(tools.iter().all(|t| t.get("icons").is_none()), "{tools:?}");

    let id = call(&mut s, "legacy_ask", json!({}));
    let request = next_request(&mut s);
    assert_eq!(request["method"], "sampling/createMessage", "{request}");
    answer(
        &mut s,
        &request,
        json!({"role": "assistant", "content": {"type": "text", "text": "Teal."}, "model": "m-1"}),
    );
    let request = next_request(&mut s);
    assert_eq!(request["method"], "elicitation/create", "{request}");
    assert_eq!(request["params"]["message"], "Your name?");
    answer(
        &mut s,
        &request,
        json!({"action": "accept", "content": {"name": "Ada"}}),
    );
    let resp = response(&mut s, id);
    assert_eq!(
        text(&resp["result"]),
        r#"model m-1 said Teal.; user did accept with {"name":"Ada"}"#,
        "{resp}"
    );
    s.wait_for_stderr("legacy 0.1.1 plugin called");
    // The 0.1.0 plugin next to it works as before.
    let result = s.call_ok("legacy_echo", json!({"text": "still here"}));
    assert_eq!(text(&result), "legacy: still here");
}
