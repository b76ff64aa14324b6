//! Raw JSON-RPC at 2026-07-28 for the cluster's task tests: stateless
//! requests of a client that declares the tasks extension and elicitation,
//! a task started, read and polled until a state.
#![allow(dead_code, clippy::unwrap_used)]

use serde_json::{Value, json};

use super::Cluster;
use crate::common::http::Client;
use crate::common::revision::R5;
use crate::common::{DEADLINE, eventually, r5_meta};

pub const TASKS: &str = "io.modelcontextprotocol/tasks";

/// One stateless request of a client that supports tasks and elicitation.
pub fn request(url: &str, method: &str, mut params: Value) -> Value {
    params["_meta"] = r5_meta(json!({"elicitation": {}, "extensions": {TASKS: {}}}));
    let mut client = Client::new(url)
        .with_header("MCP-Protocol-Version", R5)
        .with_header("Mcp-Method", method);
    if let Some(name) = params["name"].as_str().or(params["taskId"].as_str()) {
        client.add_header("Mcp-Name", name);
    }
    client
        .post(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .message()
}

/// Calls `tool` as a task through `url`; the task's id.
pub fn start_task(url: &str, tool: &str, arguments: Value) -> String {
    let reply = request(
        url,
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
    );
    assert_eq!(reply["result"]["resultType"], "task", "{reply}");
    reply["result"]["taskId"].as_str().unwrap().to_string()
}

/// `tasks/get` of `id` through `url`.
pub fn get(url: &str, id: &str) -> Value {
    request(url, "tasks/get", json!({"taskId": id}))
}

/// `tasks/get` through `url` until `done` holds for its result.
pub fn poll(cluster: &Cluster, url: &str, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    eventually(
        DEADLINE,
        || {
            format!(
                "task {id} never reached the state the test waits for:\n{}",
                cluster.logs()
            )
        },
        || {
            let got = get(url, id);
            done(&got["result"]).then(|| got["result"].clone())
        },
    )
}

/// Whether a task's state is terminal.
pub fn terminal(result: &Value) -> bool {
    ["completed", "failed", "cancelled"].contains(&result["status"].as_str().unwrap_or(""))
}
