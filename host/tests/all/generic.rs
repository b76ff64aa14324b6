//! A component that knows nothing of this project (`plugins/testing/plainwit`:
//! plain WIT, plain wit-bindgen, no SDK) served by the real binary as a
//! generic component: every exported function a tool, its schemas derived
//! from its WIT types, its descriptions from its WIT docs, a `result`'s
//! `err` an error result. Called by the official Python SDK client and by
//! the raw JSON-RPC client; `inspect` and `check` show it as generic.
#![allow(clippy::unwrap_used)]

use crate::common::revision::R4;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::common::{Server, binary, inspect_json, plugin_dir, workspace_root};

/// The component as wit-bindgen built it.
fn built() -> PathBuf {
    PathBuf::from(test_artifacts::PLAINWIT)
}

/// Appends a top-level `package-docs` custom section to `bytes` holding the
/// docs of the WIT package in `wit_dir`, as `wit-docs-inject` does.
fn with_docs(bytes: &[u8], wit_dir: &Path) -> Vec<u8> {
    let mut resolve = wit_parser::Resolve::default();
    let (package, _) = resolve.push_dir(wit_dir).unwrap();
    let data = wit_parser::PackageMetadata::extract(&resolve, package)
        .encode()
        .unwrap();
    with_section(bytes, "package-docs", &data)
}

/// `bytes` with a top-level custom section `name` of contents `data` added.
fn with_section(bytes: &[u8], name: &str, data: &[u8]) -> Vec<u8> {
    let leb = |out: &mut Vec<u8>, mut n: usize| loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            break;
        }
        out.push(byte | 0x80);
    };
    let mut payload = Vec::new();
    leb(&mut payload, name.len());
    payload.extend_from_slice(name.as_bytes());
    payload.extend_from_slice(data);
    let mut out = bytes.to_vec();
    out.push(0);
    leb(&mut out, payload.len());
    out.extend_from_slice(&payload);
    out
}

/// `mcp-wasm-host COMMAND... FILE` (`inspect`, `check`) under the built-in
/// policy, in the file's directory: whether it succeeded, and what it
/// printed.
fn run(file: &Path, command: &[&str]) -> (bool, String) {
    let out = Command::new(binary())
        .env(crate::common::WAIT_FOR_LOAD, "1")
        .args(command)
        .arg(file)
        .current_dir(file.parent().unwrap())
        .env_remove("MCP_WASM_HOST_CONFIG")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.success(), text)
}

/// A plugins directory holding the component, with its docs injected when
/// `docs`.
fn plugins(docs: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(built()).unwrap();
    let bytes = if docs {
        with_docs(
            &bytes,
            &workspace_root().join("plugins/testing/plainwit/wit"),
        )
    } else {
        bytes
    };
    std::fs::write(dir.path().join("plainwit.wasm"), bytes).unwrap();
    dir
}

const TOOLS: [&str; 13] = [
    "add",
    "divide",
    "sum-bytes",
    "echo-u64",
    "swap",
    "nothing",
    "crash",
    "hash",
    "status",
    "area",
    "midpoint",
    "parse",
    "describe",
];

#[test]
fn the_python_sdk_client_calls_a_plain_wit_component() {
    let dir = plugins(true);
    let calls = json!([
        {"name": "add", "arguments": {"a": 40, "b": 2}, "expect": "42"},
        {"name": "divide", "arguments": {"a": 7, "b": 2}, "expect": "3"},
        {"name": "divide", "arguments": {"a": 7, "b": 0}, "expect": "cannot divide 7 by zero", "is_error": true},
        {"name": "sum-bytes", "arguments": {"data": [1, 2, 255]}, "expect": "258"},
        {"name": "echo-u64", "arguments": {"n": 18446744073709551615u64}, "expect": "18446744073709551615"},
        {"name": "swap", "arguments": {"pair": ["x", -5]}, "expect": "[-5,\"x\"]"},
        {"name": "area", "arguments": {"s": {"rect": [2.0, 3.5]}}, "expect": "7"},
        {"name": "area", "arguments": {"s": "dot"}, "expect": "0"},
        {"name": "midpoint", "arguments": {"a": {"x": 0, "y": 0}, "b": {"x": 2, "y": 4}}, "expect": "\"y\":2"},
        {"name": "parse", "arguments": {"text": "1.5,2"}, "expect": "1.5"},
        {"name": "parse", "arguments": {"text": "nope"}, "expect": "expected `x,y`", "is_error": true},
        {"name": "describe", "arguments": {"name": "cat", "tags": ["a", "b"], "style": ["italic", "bold"], "unit": "feet"},
         "expect": "cat [a, b] (bold+italic) in feet"},
        {"name": "first-char", "arguments": {"s": "日本"}, "expect": "日"},
        {"name": "nothing", "arguments": {}},
        {"name": "hash", "arguments": {"text": "a"}, "expect": "af63dc4c8601ec8c"},
        {"name": "crash", "arguments": {}, "expect": "crash was called", "is_error": true},
    ]);
    let file = dir.path().join("calls.json");
    std::fs::write(&file, calls.to_string()).unwrap();
    let mut expected: Vec<&str> = TOOLS.to_vec();
    expected.push("first-char");
    let summary = crate::common::run_python_client(
        "sdk_client.py",
        &[
            "--plugins".as_ref(),
            dir.path().as_os_str(),
            "--expect-tools".as_ref(),
            expected.join(",").as_ref(),
            "--call-all-file".as_ref(),
            file.as_os_str(),
        ],
    );
    assert_eq!(summary["tools"], json!(expected.len()), "{summary}");
}

#[test]
fn values_schemas_and_errors_travel_as_natural_json() {
    let dir = plugins(true);
    let mut server = Server::initialized(dir.path(), &[], R4);
    let (tools, _) = server.list_all_tools();
    let tool = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("no tool {name}: {tools:?}"))
            .clone()
    };
    // Descriptions and parameter descriptions from the WIT docs.
    let area = tool("area");
    assert!(
        area["description"]
            .as_str()
            .unwrap()
            .starts_with("The area of a shape.")
    );
    assert_eq!(
        area["inputSchema"]["properties"]["s"]["description"],
        "the shape to measure"
    );
    // Exact integer bounds, a flags array, an enum, an optional parameter.
    assert_eq!(
        tool("echo-u64")["inputSchema"]["properties"]["n"],
        json!({"type": "integer", "minimum": 0, "maximum": 18446744073709551615u64})
    );
    let describe = tool("describe")["inputSchema"].clone();
    assert_eq!(
        describe["required"],
        json!(["name", "tags", "style", "unit"])
    );
    assert_eq!(
        describe["properties"]["style"],
        json!({"type": "array", "items": {"type": "string", "enum": ["bold", "italic", "underline"]}, "uniqueItems": true})
    );
    assert_eq!(
        describe["properties"]["unit"],
        json!({"type": "string", "enum": ["metres", "feet"]})
    );
    // A record comes back as it is; anything else in `result`.
    assert_eq!(
        server.call_structured(
            "midpoint",
            json!({"a": {"x": 1, "y": 1}, "b": {"x": 2, "y": 3}})
        ),
        json!({"x": 1.5, "y": 2.0})
    );
    assert_eq!(
        server.call_structured("swap", json!({"pair": ["é", 127]})),
        json!({"result": [127, "é"]})
    );
    assert_eq!(
        server.call_structured("first-char", json!({"s": ""})),
        json!({"result": null})
    );
    assert_eq!(
        server.call_structured("add", json!({"a": i64::MIN, "b": -1})),
        json!({"result": i64::MAX}),
        "s64 arithmetic wraps in the guest, and every digit travels"
    );
    // The `err` of a result: isError, the value as text and structured.
    let resp = server.call("parse", json!({"text": "3;4"}));
    let result = &resp["result"];
    assert_eq!(result["isError"], json!(true), "{resp}");
    assert_eq!(
        result["structuredContent"],
        json!({"error": {"position": 3, "message": "expected `x,y`"}})
    );
    // Arguments outside the schema never reach the guest.
    let resp = server.call("sum-bytes", json!({"data": [256]}));
    assert!(resp.to_string().contains("256"), "{resp}");
    assert!(
        resp.get("error").is_some() || resp["result"]["isError"] == json!(true),
        "{resp}"
    );
    // A panic is an error result; the server keeps serving.
    let text = server.call_err("crash", json!({}));
    assert!(text.contains("crash was called"), "{text}");
    assert_eq!(
        server.call_structured("divide", json!({"a": 9, "b": 3})),
        json!({"result": 3})
    );
}

#[test]
fn without_docs_a_description_names_the_function_and_its_signature() {
    let dir = plugins(false);
    described_by_signature(dir.path());
}

/// A server of the plugins in `dir`, after checking that it describes
/// `area` by its WIT function and signature (as it does without docs).
fn described_by_signature(dir: &Path) -> Server {
    let mut server = Server::initialized(dir, &[], R4);
    let (tools, _) = server.list_all_tools();
    let area = tools.iter().find(|t| t["name"] == "area").unwrap();
    assert_eq!(
        area["description"],
        "The WIT function `demo:plain/shapes@0.1.0#area`: `func(s: shape) -> f64`."
    );
    server
}

#[test]
fn inspect_and_check_show_a_generic_component() {
    let dir = plugins(true);
    let file = dir.path().join("plainwit.wasm");
    let report = inspect_json(&file);
    let generic = &report["generic"];
    let functions = generic["functions"].as_array().unwrap();
    let parse = functions.iter().find(|f| f["tool"] == "parse").unwrap();
    assert_eq!(parse["function"], "demo:plain/shapes@0.1.0#parse");
    assert_eq!(
        parse["signature"],
        "func(text: string) -> result<point, parse-error>"
    );
    assert_eq!(generic["left_out"], json!([]));
    assert_eq!(report["world"], Value::Null);
    let tools = report["tools"].as_array().unwrap();
    assert_eq!(tools.len(), TOOLS.len() + 1);

    let (_, text) = run(&file, &["inspect"]);
    assert!(text.contains("served as a generic component"), "{text}");
    assert!(
        text.contains("demo:plain/text@0.1.0#first-char: func(s: string) -> option<char>"),
        "{text}"
    );

    let (ok, text) = run(&file, &["check"]);
    assert!(ok, "{text}");
    assert!(
        text.contains(
            "ok   plainwit.wasm  (14 tools, a generic component: 0 exported functions left out)"
        ),
        "{text}"
    );
}

#[test]
fn a_generic_component_and_a_plugin_serve_side_by_side() {
    let dir = plugin_dir(&[built().to_str().unwrap(), test_artifacts::WORDCOUNT]);
    let mut server = Server::initialized(dir.path(), &[], R4);
    let (tools, _) = server.list_all_tools();
    assert!(tools.iter().any(|t| t["name"] == "add"), "{tools:?}");
    assert!(tools.len() > TOOLS.len() + 1, "{tools:?}");
    assert_eq!(
        server.call_structured("add", json!({"a": 1, "b": 2})),
        json!({"result": 3})
    );
}

#[test]
fn a_warm_start_describes_a_generic_component_from_its_docs_as_a_cold_one() {
    // A warm start takes a plugin's code from the cache without reading
    // the file, but for a generic component, whose descriptions come from
    // the doc comments in its bytes.
    let dir = plugins(true);
    let cache = tempfile::tempdir().unwrap();
    let args = [
        "--cache-dir",
        cache.path().to_str().unwrap(),
        "--wait-for-load=true",
    ];
    let start = || {
        let mut server = Server::initialized(dir.path(), &args, R4);
        let (tools, _) = server.list_all_tools();
        server.close_stdin();
        server.wait();
        (tools, server.stderr())
    };
    let (cold, cold_log) = start();
    let (warm, warm_log) = start();
    assert!(!cold_log.contains("loaded from cache"), "{cold_log}");
    assert!(warm_log.contains("loaded from cache"), "{warm_log}");
    let area = cold.iter().find(|t| t["name"] == "area").unwrap();
    assert!(
        area["description"]
            .as_str()
            .unwrap()
            .starts_with("The area of a shape.")
    );
    assert_eq!(cold, warm);
}

#[test]
fn a_package_docs_section_over_1_mib_is_ignored_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(built()).unwrap();
    // Version byte 1 and JSON padded past 1 MiB: readable but for its size.
    let mut data = vec![1u8];
    data.extend_from_slice(br#"{"docs": ""#);
    data.resize((1 << 20) + 1 - 2, b' ');
    data.extend_from_slice(br#""}"#);
    assert_eq!(data.len(), (1 << 20) + 1);
    let bytes = with_section(&bytes, "package-docs", &data);
    std::fs::write(dir.path().join("plainwit.wasm"), bytes).unwrap();
    let server = described_by_signature(dir.path());
    server.wait_for_stderr(
        "its package-docs section cannot be read (it is 1048577 bytes, over the 1048576 bytes (1 MiB)",
    );
}

/// A plugin (it exports our world, with no tools: it does not load) that also
/// exports the plain function `extra` and the interface `sums`.
fn plugin_with_plain_functions() -> Vec<u8> {
    let plugin_wit = std::fs::read_to_string(workspace_root().join("wit/plugin.wit")).unwrap();
    let version = plugin_wit
        .lines()
        .find_map(|l| l.strip_prefix("package mcp-wasm-host:plugin@"))
        .unwrap()
        .trim_end_matches(';')
        .to_string();
    let wit = format!(
        "{plugin_wit}\nworld with-extra {{ include plugin; export extra: func(n: u32) -> u32; \
         export sums: interface {{ total: func(a: u32, b: u32) -> u32; }} }}\n"
    );
    let tools = format!("mcp-wasm-host:plugin/tools@{version}");
    let core = format!(
        r#"(module (memory (export "memory") 1)
           (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32) unreachable)
           (func (export "{tools}#list-tools") (result i32) i32.const 8)
           (func (export "{tools}#call-tool") (param i32 i32 i32 i32) (result i32) unreachable)
           (func (export "sums#total") (param i32 i32) (result i32) unreachable)
           (func (export "extra") (param i32) (result i32) local.get 0))"#
    );
    test_artifacts::component_of_wit(&wit, "with-extra", &core)
}

#[test]
fn a_plugin_s_plain_functions_are_left_out_with_a_word() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("extra.wasm");
    std::fs::write(&file, plugin_with_plain_functions()).unwrap();
    let reason = "the component exports the plugin world, whose tools are what it serves";

    // It lists no tools, so it does not load; what it leaves out is said
    // all the same, at load and by inspect.
    let (loads, report) = run(&file, &["inspect", "--json"]);
    assert!(!loads, "{report}");
    let report: Value = serde_json::from_str(&report).unwrap();
    assert!(
        report["errors"][0]
            .as_str()
            .unwrap()
            .contains("exports no tools"),
        "{report}"
    );
    let left_out = report["left_out"].as_array().unwrap();
    let mut functions: Vec<&str> = left_out
        .iter()
        .map(|l| l["function"].as_str().unwrap())
        .collect();
    functions.sort_unstable();
    assert_eq!(functions, ["extra", "sums#total"], "{report}");
    assert!(
        left_out
            .iter()
            .all(|l| l["reason"].as_str().unwrap().starts_with(reason)),
        "{report}"
    );
    assert_eq!(report["generic"], Value::Null);

    let (_, text) = run(&file, &["inspect"]);
    assert!(text.contains("left out"), "{text}");
    assert!(text.contains(&format!("extra: {reason}")), "{text}");

    let server = Server::start(dir.path(), &[]);
    server.wait_for_stderr(&format!("function `extra` is not served: {reason}"));
    server.wait_for_stderr("function `sums#total` is not served");
}
