//! Tasks (the `io.modelcontextprotocol/tasks` extension at 2026-07-28,
//! SEP-2663), over stdio with raw JSON-RPC against the conformance plugin's
//! task tools: a call becomes a task and its result is read through
//! `tasks/get`; `tasks/cancel` stops the guest at once; a task asks the
//! client through `tasks/get` and `tasks/update`, one answer at a time; tool
//! errors complete and protocol errors fail; clients without the extension
//! get ordinary calls, or `-32021` for a tool that runs only as a task; the
//! sync window, the store's bound and the task timeout hold; `inspect`
//! shows which tools may run as tasks.

#![allow(clippy::unwrap_used)]

use crate::common::http::calls_ended;
use crate::common::revision::R4;
use crate::common::{METRICS, Server, plugin_dir, text};
use serde_json::{Value, json};

const TASKS: &str = "io.modelcontextprotocol/tasks";

fn meta(capabilities: Value) -> Value {
    crate::common::r5_meta(capabilities)
}

/// The capabilities of a client that supports tasks and elicitation.
fn with_tasks() -> Value {
    json!({"elicitation": {}, "extensions": {TASKS: {}}})
}

/// A server on the conformance plugin with `policy` (every call that may
/// become a task does so at once unless the policy sets a window).
fn start(policy: &str) -> (Server, tempfile::TempDir, tempfile::TempDir) {
    let dir = plugin_dir(&[test_artifacts::CONFORMANCE]);
    let config_dir = tempfile::tempdir().unwrap();
    let config = config_dir.path().join("mcp-wasm-host.toml");
    let policy = if policy.contains("[server]") {
        policy.to_string()
    } else {
        format!("{policy}\n[server]\ntask_sync_window = \"0s\"\n")
    };
    let policy = format!("[plugins.conformance.client]\nelicitation = true\n{policy}");
    std::fs::write(&config, policy).unwrap();
    let config = config.to_str().unwrap();
    let server = Server::start(dir.path(), &["--config", config, METRICS[0], METRICS[1]]);
    (server, dir, config_dir)
}

fn call(s: &mut Server, tool: &str, arguments: Value, capabilities: Value) -> Value {
    s.request(
        "tools/call",
        json!({"name": tool, "arguments": arguments, "_meta": meta(capabilities)}),
    )
}

fn tasks_request(s: &mut Server, method: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = meta(with_tasks());
    s.request(method, params)
}

/// `tasks/get` until the task leaves `working` (or is terminal).
fn poll_until(s: &mut Server, task_id: &str, done: impl Fn(&Value) -> bool) -> Value {
    crate::common::eventually(
        crate::common::DEADLINE,
        || format!("task {task_id} never reached the state the test waits for"),
        || {
            let got = tasks_request(s, "tasks/get", json!({"taskId": task_id}));
            done(&got["result"]).then(|| got["result"].clone())
        },
    )
}

fn terminal(result: &Value) -> bool {
    ["completed", "failed", "cancelled"].contains(&result["status"].as_str().unwrap_or(""))
}

fn created(response: &Value) -> String {
    let result = &response["result"];
    assert_eq!(result["resultType"], "task", "{response}");
    assert_eq!(result["status"], "working", "{response}");
    assert!(result["ttlMs"].as_u64().unwrap() > 0, "{response}");
    assert!(result["pollIntervalMs"].as_u64().unwrap() > 0, "{response}");
    for absent in ["result", "error", "inputRequests", "requestState", "task"] {
        assert!(result.get(absent).is_none(), "{absent}: {response}");
    }
    result["taskId"].as_str().unwrap().to_string()
}

#[test]
fn a_call_becomes_a_task_whose_progress_and_result_tasks_get_reads() {
    let (mut s, _dir, _config) = start("");
    let response = call(
        &mut s,
        "slow_compute",
        json!({"seconds": 2, "label": "x"}),
        with_tasks(),
    );
    let id = created(&response);
    assert_eq!(
        response["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mcp-wasm-host"
    );
    // Durable at once: tasks/get knows the task as soon as it is announced.
    let first = tasks_request(&mut s, "tasks/get", json!({"taskId": id}));
    assert_eq!(first["result"]["taskId"], id.as_str(), "{first}");
    assert_eq!(first["result"]["resultType"], "complete", "{first}");
    // The guest's progress is the task's status message while it works.
    let working = poll_until(&mut s, &id, |r| {
        terminal(r)
            || r["statusMessage"]
                .as_str()
                .is_some_and(|m| m.contains("computing"))
    });
    assert_eq!(working["status"], "working", "{working}");
    let done = poll_until(&mut s, &id, terminal);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(text(&done["result"]), "computed x in 2 s", "{done}");
    // The result carries its receipt, like any call's.
    assert_eq!(
        done["result"]["_meta"]["mcp-wasm-host/receipt"]["tool"], "slow_compute",
        "{done}"
    );
    assert!(
        done["result"]["_meta"]
            .get("io.modelcontextprotocol/related-task")
            .is_none()
    );
}

#[test]
fn tasks_cancel_stops_the_guest_at_once_and_is_idempotent() {
    let (mut s, _dir, _config) = start("");
    let id = created(&call(
        &mut s,
        "slow_compute",
        json!({"seconds": 600}),
        with_tasks(),
    ));
    s.wait_for_stderr("the call goes on as a task");
    let ack = tasks_request(&mut s, "tasks/cancel", json!({"taskId": id}));
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    // The guest is stopped: its call ends as cancelled, long before its
    // 600 seconds.
    s.wait_for_sample(
        &calls_ended("conformance", "slow_compute", "cancelled"),
        |n| n == 1.0,
    );
    let got = tasks_request(&mut s, "tasks/get", json!({"taskId": id}));
    assert_eq!(got["result"]["status"], "cancelled", "{got}");
    let again = tasks_request(&mut s, "tasks/cancel", json!({"taskId": id}));
    assert_eq!(
        again["result"],
        json!({"resultType": "complete"}),
        "{again}"
    );
    for method in ["tasks/get", "tasks/cancel"] {
        let unknown = tasks_request(&mut s, method, json!({"taskId": "no-such-task"}));
        assert_eq!(unknown["error"]["code"], -32602, "{method}: {unknown}");
    }
}

#[test]
fn a_task_asks_the_client_through_tasks_get_and_is_answered_one_key_at_a_time() {
    let (mut s, _dir, _config) = start("");
    let id = created(&call(&mut s, "multi_input", json!({}), with_tasks()));
    let asking = poll_until(&mut s, &id, |r| {
        terminal(r) || r["inputRequests"].as_object().is_some_and(|m| m.len() == 2)
    });
    assert_eq!(asking["status"], "input_required", "{asking}");
    assert_eq!(
        asking["inputRequests"]["first"]["method"], "elicitation/create",
        "{asking}"
    );
    let answer = |name: &str| json!({"action": "accept", "content": {"name": name}});
    let ack = tasks_request(
        &mut s,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"first": answer("Ada"), "unasked": {}}}),
    );
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let half = tasks_request(&mut s, "tasks/get", json!({"taskId": id}));
    assert_eq!(half["result"]["status"], "input_required", "{half}");
    let open: Vec<&String> = half["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(open, ["second"], "{half}");
    tasks_request(
        &mut s,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"second": answer("Grace")}}),
    );
    let done = poll_until(&mut s, &id, terminal);
    assert_eq!(done["status"], "completed", "{done}");
    let said = text(&done["result"]);
    assert!(said.contains("Ada") && said.contains("Grace"), "{said}");
}

#[test]
fn tool_errors_complete_with_is_error_and_protocol_errors_fail() {
    let (mut s, _dir, _config) = start("");
    let id = created(&call(&mut s, "failing_job", json!({}), with_tasks()));
    let done = poll_until(&mut s, &id, terminal);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["isError"], true, "{done}");
    // protocol_error_job needs roots, which this client did not declare:
    // the call's answer would be error -32021, so the task fails with it.
    let id = created(&call(&mut s, "protocol_error_job", json!({}), with_tasks()));
    let done = poll_until(&mut s, &id, terminal);
    assert_eq!(done["status"], "failed", "{done}");
    assert_eq!(done["error"]["code"], -32021, "{done}");
    assert!(done.get("result").is_none(), "{done}");
}

#[test]
fn clients_without_the_extension_get_ordinary_calls_or_a_clear_refusal() {
    let (mut s, _dir, _config) = start("");
    // At 2026-07-28 without the extension: an ordinary call ...
    let plain = call(&mut s, "slow_compute", json!({"seconds": 0}), json!({}));
    assert_eq!(plain["result"]["resultType"], "complete", "{plain}");
    assert_eq!(text(&plain["result"]), "computed  in 0 s", "{plain}");
    // ... or -32021 naming the extension for a tool that runs only as a task,
    let refused = call(&mut s, "failing_job", json!({}), json!({}));
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert!(
        refused["error"]["data"]["requiredCapabilities"]["extensions"]
            .get(TASKS)
            .is_some(),
        "{refused}"
    );
    // ... and no tasks/* methods.
    let get = s.request(
        "tasks/get",
        json!({"taskId": "x", "_meta": meta(json!({}))}),
    );
    assert_eq!(get["error"]["code"], -32021, "{get}");
    // The removed v1 methods are unknown.
    for method in ["tasks/result", "tasks/list"] {
        let gone = tasks_request(&mut s, method, json!({"taskId": "x"}));
        assert_eq!(gone["error"]["code"], -32601, "{method}: {gone}");
    }
    // Before 2026-07-28 there are no tasks: the same tools as ordinary calls,
    // or an error result that says why.
    let (mut s, _dir, _config) = start("");
    let init = s.initialize(R4);
    assert!(init.get("result").is_some(), "{init}");
    let old = s.call("slow_compute", json!({"seconds": 0}));
    assert_eq!(old["result"]["isError"], false, "{old}");
    let refused = s.call("failing_job", json!({}));
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert!(
        text(&refused["result"]).contains("runs only as a task"),
        "{refused}"
    );
}

#[test]
fn a_call_that_ends_within_the_sync_window_answers_directly() {
    let (mut s, _dir, _config) = start("[server]\ntask_sync_window = \"1h\"\n");
    let direct = call(&mut s, "slow_compute", json!({"seconds": 0}), with_tasks());
    assert_eq!(direct["result"]["resultType"], "complete", "{direct}");
    assert!(direct["result"].get("taskId").is_none(), "{direct}");
    // A guest that asks the client within the window asks in rounds.
    let asked = call(&mut s, "test_tool_with_task", json!({}), with_tasks());
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    assert!(asked["result"].get("taskId").is_none(), "{asked}");
}

#[test]
fn the_store_bound_turns_tasks_into_ordinary_calls_or_refuses() {
    let (mut s, _dir, _config) = start("[server]\ntask_sync_window = \"0s\"\nmax_tasks = 1\n");
    let id = created(&call(
        &mut s,
        "slow_compute",
        json!({"seconds": 600}),
        with_tasks(),
    ));
    // The store is full: an optional task runs as an ordinary call ...
    let plain = call(&mut s, "slow_compute", json!({"seconds": 0}), with_tasks());
    assert_eq!(plain["result"]["resultType"], "complete", "{plain}");
    // ... and a task-only tool is refused with the key to raise.
    let refused = call(&mut s, "failing_job", json!({}), with_tasks());
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert!(text(&refused["result"]).contains("max_tasks"), "{refused}");
    tasks_request(&mut s, "tasks/cancel", json!({"taskId": id}));
}

#[test]
fn a_task_runs_within_the_plugins_task_timeout() {
    let (mut s, _dir, _config) = start("[plugins.conformance]\ntask_timeout = \"1s\"\n");
    let id = created(&call(
        &mut s,
        "slow_compute",
        json!({"seconds": 600}),
        with_tasks(),
    ));
    let done = poll_until(&mut s, &id, terminal);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["isError"], true, "{done}");
    assert!(
        text(&done["result"]).contains("timed out after 1 s"),
        "{done}"
    );
}

#[test]
fn a_typo_among_the_task_keys_is_refused_at_start() {
    let dir = plugin_dir(&[test_artifacts::CONFORMANCE]);
    let config_dir = tempfile::tempdir().unwrap();
    for (policy, key) in [
        ("[server]\ntask_sync_windw = \"1s\"\n", "task_sync_windw"),
        ("[server]\nmax_tasks = 0\n", "max_tasks"),
        (
            "[plugins.conformance]\ntask_timeout = \"0s\"\n",
            "task_timeout",
        ),
    ] {
        let config = config_dir.path().join("mcp-wasm-host.toml");
        std::fs::write(&config, policy).unwrap();
        let out = std::process::Command::new(crate::common::binary())
            .env(crate::common::WAIT_FOR_LOAD, "1")
            .args(["serve", "--plugins"])
            .arg(dir.path())
            .args(["--config", config.to_str().unwrap()])
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{policy}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(key), "{policy}: {stderr}");
    }
}

#[test]
fn inspect_shows_which_tools_may_run_as_tasks() {
    let report = crate::common::inspect_json(std::path::Path::new(test_artifacts::CONFORMANCE));
    let support = &report["task_support"];
    assert_eq!(support["slow_compute"], "optional", "{support}");
    assert_eq!(support["failing_job"], "required", "{support}");
    assert!(support.get("greet").is_none(), "{support}");
    let out = std::process::Command::new(crate::common::binary())
        .env(crate::common::WAIT_FOR_LOAD, "1")
        .args(["inspect", test_artifacts::CONFORMANCE])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with("task support") && l.ends_with("required")),
        "{text}"
    );
}
