//! A component built for the component model's async ABI
//! (`plugins/testing/asyncwit`: `async func` exports lifted by plain
//! wit-bindgen, a plain function beside them, and a `stream` and a
//! `future` parameter) served by the real binary: its async functions are
//! tools, called on the async engine under the same fuel, deadline,
//! cancellation and memory limits as any call; the two functions JSON
//! cannot carry are left out, one warning each, and `inspect` and `check`
//! say why.
#![allow(clippy::unwrap_used)]

use crate::common::http::{calls_ended, calls_running};
use crate::common::revision::R4;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::{METRICS, Server, binary, inspect_json, plugins_with_policy};

/// The tools it serves, in export order.
const SERVED: [&str; 5] = ["add", "greet", "spin", "hog", "double"];

/// A server with the component alone under `policy` (its section is
/// `[plugins.asyncwit]`).
fn serve(policy: &str, args: &[&str]) -> (Server, tempfile::TempDir) {
    let (dir, plugins, config) = plugins_with_policy(&[test_artifacts::ASYNCWIT], policy);
    let mut all = vec!["--config", config.as_str()];
    all.extend_from_slice(args);
    let server = Server::initialized(&plugins, &all, R4);
    (server, dir)
}

#[test]
fn async_functions_are_tools_and_the_rest_is_served() {
    let (mut s, _dir) = serve("[plugins.asyncwit]\ntimeout = \"30s\"\n", &[]);
    let (tools, _) = s.list_all_tools();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), SERVED.len(), "{names:?}");
    for name in SERVED {
        assert!(names.contains(&name), "{name} is not served: {names:?}");
    }
    let add = tools.iter().find(|t| t["name"] == "add").unwrap();
    assert!(
        add["description"]
            .as_str()
            .unwrap()
            .contains("async func(a: u32, b: u32) -> u32"),
        "{add}"
    );
    assert_eq!(
        s.call_structured("add", json!({"a": 40, "b": 2})),
        json!({"result": 42})
    );
    assert_eq!(
        s.call_structured("add", json!({"a": u32::MAX, "b": 1})),
        json!({"result": 0}),
        "the guest's wrapping arithmetic, every digit back"
    );
    // A task that yields to the host before it returns its result.
    assert_eq!(
        s.call_structured("greet", json!({"name": "ü"})),
        json!({"result": "hello, ü"})
    );
    assert_eq!(
        s.call_structured("double", json!({"x": 21})),
        json!({"result": 42})
    );
    // One warning line each for the functions left out, naming why.
    let log = s.stderr();
    for (function, kind) in [("count", "a stream"), ("settle", "a future")] {
        let line =
            format!("function `{function}` is not served: it uses {kind}, which JSON cannot carry");
        assert_eq!(log.matches(&line).count(), 1, "{line}\n{log}");
    }
    assert!(
        log.contains("for the async engine (the component uses the component model's async ABI)"),
        "{log}"
    );
}

#[test]
fn an_async_call_runs_out_of_fuel_and_memory_like_any_call() {
    let (mut s, _dir) = serve(
        "[plugins.asyncwit]\nfuel = 100_000_000\ntimeout = \"60s\"\nmemory = \"32 MiB\"\n",
        &[],
    );
    for yielding in [false, true] {
        let text = s.call_err("spin", json!({"yielding": yielding}));
        assert_eq!(
            text, "plugin \"asyncwit\" ran out of fuel in tool \"spin\" (limit 100,000,000 units)",
            "yielding: {yielding}"
        );
        // The plugin serves on.
        assert_eq!(
            s.call_structured("add", json!({"a": 1, "b": 2})),
            json!({"result": 3})
        );
    }
    let text = s.call_err("hog", json!({"mib": 64}));
    assert!(
        text.starts_with("plugin \"asyncwit\" exceeded its memory limit of 32 MiB in tool \"hog\""),
        "{text}"
    );
    assert_eq!(
        s.call_structured("hog", json!({"mib": 1})),
        json!({"result": 1 << 20})
    );
}

#[test]
fn an_async_call_that_never_ends_meets_its_deadline() {
    let (mut s, _dir) = serve(
        "[plugins.asyncwit]\nfuel = 1_000_000_000_000_000\ntimeout = \"1s\"\n",
        &[],
    );
    for yielding in [false, true] {
        let started = Instant::now();
        let text = s.call_err("spin", json!({"yielding": yielding}));
        assert!(
            text.contains("tool \"spin\" of plugin \"asyncwit\" timed out after 1 s"),
            "yielding: {yielding}: {text}"
        );
        assert!(started.elapsed() < Duration::from_secs(30), "{text}");
        assert_eq!(
            s.call_structured("double", json!({"x": 4})),
            json!({"result": 8})
        );
    }
}

#[test]
fn a_cancelled_async_call_stops_and_frees_its_slot() {
    let (mut s, _dir) = serve(
        "[plugins.asyncwit]\ntimeout = \"60s\"\nfuel = 1_000_000_000_000_000\nmax_concurrent_calls = 1\n",
        &METRICS,
    );
    for (n, yielding) in [false, true].into_iter().enumerate() {
        let id = s.send_request(
            "tools/call",
            json!({"name": "spin", "arguments": {"yielding": yielding}}),
        );
        s.wait_for_sample(&calls_running("asyncwit"), |running| running == 1.0);
        s.send(&json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "test"}
        }));
        let cancelled = (n + 1) as f64;
        s.wait_for_sample(&calls_ended("asyncwit", "spin", "cancelled"), |c| {
            c == cancelled
        });
        // The only slot is free again: a call runs (and is the next answer:
        // the cancelled call never answers).
        let resp = s.call("add", json!({"a": 2, "b": 2}));
        assert_eq!(
            resp["result"]["structuredContent"],
            json!({"result": 4}),
            "{resp}"
        );
    }
}

#[test]
fn inspect_and_check_say_why_the_stream_and_future_functions_are_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("asyncwit.wasm");
    std::fs::copy(test_artifacts::ASYNCWIT, &file).unwrap();
    let report = inspect_json(&file);
    let generic = &report["generic"];
    assert_eq!(
        generic["left_out"],
        json!([
            {"function": "count", "reason": "it uses a stream, which JSON cannot carry"},
            {"function": "settle", "reason": "it uses a future, which JSON cannot carry"},
        ])
    );
    let functions = generic["functions"].as_array().unwrap();
    let signature =
        |tool: &str| functions.iter().find(|f| f["tool"] == tool).unwrap()["signature"].clone();
    assert_eq!(signature("add"), "async func(a: u32, b: u32) -> u32");
    assert_eq!(signature("double"), "func(x: u32) -> u32");
    assert_eq!(functions.len(), SERVED.len());

    let out = run(&file, "check");
    assert!(out.0, "{}", out.1);
    assert!(
        out.1.contains(
            "ok   asyncwit.wasm  (5 tools, a generic component: 2 exported functions left out)"
        ),
        "{}",
        out.1
    );
    assert!(
        out.1
            .contains("function `settle` is not served: it uses a future"),
        "{}",
        out.1
    );
}

#[test]
fn a_warm_start_takes_the_async_engines_code_from_the_cache() {
    let cache = tempfile::tempdir().unwrap();
    let args = ["--cache-dir", cache.path().to_str().unwrap()];
    let start = || {
        let (mut s, dir) = serve("[plugins.asyncwit]\n", &args);
        let answer = s.call_structured("add", json!({"a": 1, "b": 1}));
        s.close_stdin();
        s.wait();
        drop(dir);
        (answer, s.stderr())
    };
    let (cold, cold_log) = start();
    let (warm, warm_log) = start();
    assert!(
        cold_log.contains("compiled for the async engine"),
        "{cold_log}"
    );
    assert!(
        warm_log.contains("loaded from cache for the async engine"),
        "{warm_log}"
    );
    assert_eq!(cold, warm);
}

/// Runs `mcp-wasm-host COMMAND FILE` under the built-in policy: whether it
/// succeeded, and its output.
fn run(file: &Path, command: &str) -> (bool, String) {
    let out = Command::new(binary())
        .env(crate::common::WAIT_FOR_LOAD, "1")
        .arg(command)
        .arg(file)
        .current_dir(file.parent().unwrap())
        .env_remove("MCP_WASM_HOST_CONFIG")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}
