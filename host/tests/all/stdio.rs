//! End-to-end tests over stdio: the real binary, real plugin components built
//! from `plugins/`, and JSON-RPC lines on its stdin and stdout.
#![allow(clippy::unwrap_used)]

use crate::common::revision::{R1, R2, R3, R4};
use crate::common::{Server, plugin_dir, text};
use serde_json::{Value, json};

#[test]
fn initialize_negotiates_and_declares_tools() {
    let dir = plugin_dir(&[test_artifacts::ERRORS]);
    for version in [R1, R2, R3, R4] {
        let mut s = Server::start(dir.path(), &[]);
        let resp = s.initialize(version);
        let result = &resp["result"];
        assert_eq!(result["protocolVersion"], version, "{resp}");
        assert_eq!(result["serverInfo"]["name"], "mcp-wasm-host");
        assert!(result["capabilities"]["tools"].is_object(), "{resp}");
        let ping = s.request("ping", json!({}));
        assert_eq!(ping["result"], json!({}), "{ping}");
    }
    // An unknown version gets the latest one the server supports.
    let mut s = Server::start(dir.path(), &[]);
    let resp = s.initialize("1999-01-01");
    let v = resp["result"]["protocolVersion"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(v.as_str() >= R4, "{resp}");
}

#[test]
fn tools_are_listed_across_pages_with_stable_cursors() {
    let dir = plugin_dir(&[
        test_artifacts::MANY,
        test_artifacts::ERRORS,
        test_artifacts::PANIC,
    ]);
    let mut s = Server::initialized(dir.path(), &["--page-size", "7"], R4);
    let (tools, pages) = s.list_all_tools();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(
        names, sorted,
        "tools must come sorted and unique across pages"
    );
    assert!(names.len() > 25, "{names:?}");
    for i in 0..25 {
        assert!(
            names.contains(&format!("tool_{i:02}").as_str()),
            "tool_{i:02} missing"
        );
    }
    assert!(pages.iter().all(|&n| n <= 7), "{pages:?}");
    assert_eq!(pages.iter().sum::<usize>(), names.len());
    assert_eq!(pages.len(), names.len().div_ceil(7));
    for t in &tools {
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        assert!(!t["description"].as_str().unwrap().is_empty(), "{t}");
    }

    // The same cursor gives the same page again.
    let first = s.request("tools/list", json!({}));
    let cursor = first["result"]["nextCursor"].as_str().unwrap().to_string();
    let a = s.request("tools/list", json!({"cursor": cursor}));
    let b = s.request("tools/list", json!({"cursor": cursor}));
    assert_eq!(a["result"], b["result"]);

    // A cursor the server did not make is invalid params.
    let bad = s.request("tools/list", json!({"cursor": "bm90LWEtY3Vyc29y"}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    let bad = s.request("tools/list", json!({"cursor": "%%%"}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
}

#[test]
fn schema_violations_follow_the_negotiated_revision() {
    let dir = plugin_dir(&[test_artifacts::PANIC]);
    // Before 2025-11-25: JSON-RPC invalid params, and no guest code runs.
    let mut s = Server::initialized(dir.path(), &[], R3);
    let resp = s.call("panic", json!({"index": "seven"}));
    assert_eq!(resp["error"]["code"], -32602, "{resp}");
    assert!(
        resp["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/index"),
        "{resp}"
    );
    let resp = s.call("panic", json!({}));
    assert_eq!(
        resp["error"]["code"], -32602,
        "missing required argument: {resp}"
    );
    // From 2025-11-25: a tool result with isError, so the model can fix it.
    let mut s = Server::initialized(dir.path(), &[], R4);
    let msg = s.call_err("panic", json!({"index": "seven"}));
    assert!(
        msg.contains("invalid arguments") && msg.contains("/index"),
        "{msg}"
    );
    assert!(
        !s.stderr().contains("panicked"),
        "the guest must not have run"
    );
}

#[test]
fn unknown_tools_are_invalid_params_in_every_revision() {
    let dir = plugin_dir(&[test_artifacts::PANIC]);
    for version in [R3, R4] {
        let mut s = Server::initialized(dir.path(), &[], version);
        let resp = s.call("no_such_tool", json!({}));
        assert_eq!(resp["error"]["code"], -32602, "{resp}");
        assert!(
            resp["error"]["message"]
                .as_str()
                .unwrap()
                .contains("no_such_tool")
        );
    }
}

#[test]
fn a_panicking_guest_is_an_error_result_and_the_server_keeps_serving() {
    let dir = plugin_dir(&[test_artifacts::PANIC]);
    let mut s = Server::initialized(dir.path(), &[], R4);
    let msg = s.call_err("panic", json!({"index": 7}));
    assert!(
        msg.starts_with("plugin \"panic\" panicked in tool \"panic\": "),
        "{msg}"
    );
    assert!(
        msg.contains("index out of bounds: the len is 3 but the index is 7"),
        "{msg}"
    );
    assert!(msg.contains("src/lib.rs:"), "the location is named: {msg}");
    // The trapped instance was thrown away: the same plugin serves again.
    assert_eq!(text(&s.call_ok("ok", json!({}))), "ok");
    let in_range = s.call_ok("panic", json!({"index": 1}));
    assert!(!text(&in_range).is_empty());
    let msg = s.call_err("panic", json!({"index": 3}));
    assert!(msg.contains("the index is 3"), "{msg}");
}

#[test]
fn guest_failures_map_to_error_results_with_plain_causes() {
    let dir = plugin_dir(&[test_artifacts::ERRORS]);
    let mut s = Server::initialized(dir.path(), &[], R4);
    let msg = s.call_err("returns_error", json!({}));
    assert_eq!(
        msg,
        "tool \"returns_error\" of plugin \"errors\" failed: the widget is broken"
    );
    let msg = s.call_err("invalid", json!({}));
    assert!(msg.contains("rejected its arguments"), "{msg}");
    let msg = s.call_err("unreachable", json!({}));
    assert!(
        msg.contains("plugin \"errors\" trapped in tool \"unreachable\"")
            && msg.contains("unreachable"),
        "{msg}"
    );
    // A result the guest itself marks as an error passes through as is.
    let resp = s.call("is_error_result", json!({}));
    assert_eq!(resp["result"]["isError"], true, "{resp}");
    // And the plugin still works afterwards.
    s.call_ok("log_progress", json!({}));
}

#[test]
fn every_content_type_reaches_the_client() {
    let dir = plugin_dir(&[test_artifacts::ERRORS]);
    let mut s = Server::initialized(dir.path(), &[], R4);
    let result = s.call_ok("all_content", json!({}));
    let blocks = result["content"].as_array().unwrap();
    let kinds: Vec<&str> = blocks.iter().map(|b| b["type"].as_str().unwrap()).collect();
    for kind in ["text", "image", "audio", "resource", "resource_link"] {
        assert!(kinds.contains(&kind), "{kind} missing from {kinds:?}");
    }
    let image = blocks.iter().find(|b| b["type"] == "image").unwrap();
    assert_eq!(image["mimeType"], "image/png");
    let png = base64_decode(image["data"].as_str().unwrap());
    assert_eq!(
        &png[..8],
        b"\x89PNG\r\n\x1a\n",
        "image data is base64 of a PNG"
    );
    let audio = blocks.iter().find(|b| b["type"] == "audio").unwrap();
    assert_eq!(audio["mimeType"], "audio/wav");
    assert_eq!(
        &base64_decode(audio["data"].as_str().unwrap())[..4],
        b"RIFF"
    );
    let resources: Vec<&Value> = blocks.iter().filter(|b| b["type"] == "resource").collect();
    assert!(
        resources.iter().any(|r| r["resource"]["text"].is_string()),
        "{resources:?}"
    );
    assert!(
        resources.iter().any(|r| r["resource"]["blob"].is_string()),
        "{resources:?}"
    );
    let link = blocks
        .iter()
        .find(|b| b["type"] == "resource_link")
        .unwrap();
    assert!(
        link["uri"].is_string() && link["name"].is_string(),
        "{link}"
    );
}

#[test]
fn structured_content_comes_with_its_output_schema() {
    let dir = plugin_dir(&[test_artifacts::ERRORS]);
    let mut s = Server::initialized(dir.path(), &[], R4);
    let (tools, _) = s.list_all_tools();
    let tool = tools.iter().find(|t| t["name"] == "structured").unwrap();
    assert_eq!(tool["outputSchema"]["type"], "object", "{tool}");
    let result = s.call_ok("structured", json!({"text": "two words"}));
    assert!(result["structuredContent"].is_object(), "{result}");
    let as_text: Value = serde_json::from_str(&text(&result)).unwrap();
    assert_eq!(
        as_text, result["structuredContent"],
        "the text block carries the same JSON"
    );
}

#[test]
fn guest_stdout_never_reaches_the_protocol_stream() {
    let dir = plugin_dir(&[test_artifacts::STDOUT]);
    let mut s = Server::initialized(dir.path(), &[], R4);
    let result = s.call_ok("chatty", json!({}));
    assert_eq!(text(&result), "done");
    // Every line the server wrote was a protocol message for this session.
    for line in &s.raw {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["jsonrpc"], "2.0", "{line}");
        assert_ne!(
            v["result"],
            json!({}),
            "the guest's fake message leaked: {line}"
        );
    }
    let ping = s.request("ping", json!({}));
    assert_eq!(ping["result"], json!({}));
    // What the guest printed went to the log on stderr instead.
    let stderr = s.stderr();
    assert!(
        stderr.contains("stream=\"stdout\"") || stderr.contains("stream=stdout"),
        "{stderr}"
    );
}

#[test]
fn a_line_that_is_not_json_gets_a_parse_error_and_the_server_goes_on() {
    let dir = plugin_dir(&[test_artifacts::PANIC]);
    let mut s = Server::initialized(dir.path(), &[], R4);
    s.send_line("this is not json {");
    let err = s.recv();
    assert_eq!(err["error"]["code"], -32700, "{err}");
    assert!(err["id"].is_null(), "{err}");
    // Valid JSON that is not a JSON-RPC message is an invalid request.
    s.send_line(r#"{"hello": "world"}"#);
    let err = s.recv();
    assert_eq!(err["error"]["code"], -32600, "{err}");
    let ping = s.request("ping", json!({}));
    assert_eq!(ping["result"], json!({}), "{ping}");
    assert_eq!(text(&s.call_ok("ok", json!({}))), "ok");
}

#[test]
fn concurrent_calls_are_all_answered() {
    let dir = plugin_dir(&[test_artifacts::MANY, test_artifacts::PANIC]);
    let mut s = Server::initialized(dir.path(), &[], R4);
    let ids: Vec<(i64, String)> = (0..20)
        .map(|i| {
            let name = format!("tool_{:02}", i % 25);
            let id = s.send_request("tools/call", json!({"name": name, "arguments": {}}));
            (id, name)
        })
        .collect();
    let panic_id = s.send_request(
        "tools/call",
        json!({"name": "panic", "arguments": {"index": 9}}),
    );
    let mut answers = std::collections::HashMap::new();
    while answers.len() < ids.len() + 1 {
        let msg = s.recv();
        if let Some(id) = msg["id"].as_i64() {
            answers.insert(id, msg);
        }
    }
    for (id, name) in ids {
        assert_eq!(text(&answers[&id]["result"]), name);
    }
    assert_eq!(answers[&panic_id]["result"]["isError"], true);
}

#[test]
fn colliding_tool_names_are_qualified_with_the_plugin_name() {
    let dir = plugin_dir(&[test_artifacts::DUPA, test_artifacts::DUPB]);
    let mut s = Server::initialized(dir.path(), &[], R4);
    let (tools, _) = s.list_all_tools();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(
        names.contains(&"dupa.echo") && names.contains(&"dupb.echo"),
        "{names:?}"
    );
    assert!(!names.contains(&"echo"), "{names:?}");
    assert_eq!(text(&s.call_ok("dupa.echo", json!({"text": "hi"}))), "a:hi");
    assert_eq!(text(&s.call_ok("dupb.echo", json!({"text": "hi"}))), "b:hi");
}

#[test]
fn invalid_plugins_are_refused_at_load_naming_the_file_and_problem() {
    let dir = plugin_dir(&[
        test_artifacts::BADSCHEMA,
        test_artifacts::BADNAME,
        test_artifacts::LISTPANIC,
        test_artifacts::PANIC,
    ]);
    // The 8-byte header alone is a valid, empty component: it exports none
    // of our interfaces, so it is read as a generic component, and it has
    // no function to serve.
    std::fs::write(dir.path().join("empty.wasm"), b"\0asm\x0d\0\x01\0").unwrap();
    std::fs::write(dir.path().join("corrupt.wasm"), b"\0asm\x0d\0\x01\0garbage").unwrap();
    std::fs::write(dir.path().join("text.wasm"), b"hello").unwrap();
    std::fs::write(dir.path().join("core.wasm"), b"\0asm\x01\0\0\0").unwrap();
    let mut s = Server::initialized(dir.path(), &[], R4);
    let (tools, _) = s.list_all_tools();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["ok", "panic"], "only the good plugin is served");
    // The skipped files are logged once the load is done; wait for each line.
    for needle in [
        "badschema.wasm: tool",
        "input schema",
        "badname.wasm: tool \"has space!\"",
        "corrupt.wasm: the component is invalid or corrupt",
        "text.wasm: not a WebAssembly file",
        "core.wasm: this is a core WebAssembly module, not a component",
        "empty.wasm: the component exports none of our interfaces and no function to serve as a tool",
        "listpanic.wasm: listing its tools failed: plugin \"listpanic\" panicked in tool \"list-tools\": ",
        "the tool table is missing",
    ] {
        s.wait_for_stderr(needle);
    }
}

#[test]
fn the_server_exits_cleanly_when_stdin_closes_before_the_handshake() {
    let dir = plugin_dir(&[test_artifacts::PANIC]);
    let mut s = Server::start(dir.path(), &[]);
    s.close_stdin();
    assert_eq!(s.wait(), Some(0), "{}", s.stderr());
}

#[test]
fn the_server_exits_when_stdin_closes() {
    let dir = plugin_dir(&[test_artifacts::PANIC]);
    let mut s = Server::initialized(dir.path(), &[], R4);
    s.close_stdin();
    assert_eq!(s.wait(), Some(0), "{}", s.stderr());
}

fn base64_decode(s: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(s).unwrap()
}
