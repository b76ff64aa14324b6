//! Tasks that any replica reads, updates and cancels (issue 46): three
//! `serve --http --stateless` replicas share one real redis-server
//! (`common::cluster`), with nginx round robin and no affinity in front.
//! Raw JSON-RPC at 2026-07-28 against the conformance plugin's task tools.
//!
//! 1. Tasks made and polled through nginx (so on every replica) reach
//!    their result, which every replica then reads.
//! 2. A task's open requests are answered through another replica.
//! 3. `tasks/cancel` on another replica stops the guest on the replica
//!    running it.
//! 4. The replica running a task is SIGKILLed: the others read the task
//!    `failed`, saying its replica was lost, once its lease expires.
//! 5. `max_tasks` holds across the cluster: tasks kept by two replicas
//!    fill it for the third.

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use crate::common::cluster::{Cluster, Replica, Spec};
use crate::common::http::{Client, calls_ended, sample, try_get};
use crate::common::revision::R5;
use crate::common::{DEADLINE, eventually, r5_meta, text};

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// Three replicas of the conformance plugin, every task-capable call a
/// task at once; `None` when redis-server or nginx is missing.
fn cluster() -> Option<Cluster> {
    cluster_with("task_sync_window = \"0s\"")
}

/// [`cluster`] with the `[server]` keys `server`.
fn cluster_with(server: &str) -> Option<Cluster> {
    Cluster::start(&Spec {
        plugins: &[test_artifacts::CONFORMANCE],
        server,
        policy: "[plugins.conformance.client]\nelicitation = true\n",
        ..Spec::default()
    })
}

/// One stateless request of a client that supports tasks and elicitation.
fn request(url: &str, method: &str, mut params: Value) -> Value {
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
fn start_task(url: &str, tool: &str, arguments: Value) -> String {
    let reply = request(
        url,
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
    );
    assert_eq!(reply["result"]["resultType"], "task", "{reply}");
    reply["result"]["taskId"].as_str().unwrap().to_string()
}

fn get(url: &str, id: &str) -> Value {
    request(url, "tasks/get", json!({"taskId": id}))
}

/// `tasks/get` through `url` until `done` holds for its result.
fn poll(cluster: &Cluster, url: &str, id: &str, done: impl Fn(&Value) -> bool) -> Value {
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

fn terminal(result: &Value) -> bool {
    ["completed", "failed", "cancelled"].contains(&result["status"].as_str().unwrap_or(""))
}

/// The calls of `tool` that ended with `outcome` on `replica`.
fn calls(replica: &Replica, tool: &str, outcome: &str) -> f64 {
    let url = format!("http://{}/metrics", replica.authority);
    try_get(&url)
        .ok()
        .and_then(|(_, scrape)| sample(&scrape, &calls_ended("conformance", tool, outcome)))
        .unwrap_or(0.0)
}

#[test]
fn tasks_made_and_polled_through_nginx_reach_their_result_on_every_replica() {
    let Some(cluster) = cluster() else { return };
    let url = cluster.url();
    let ids: Vec<String> = (0..6)
        .map(|_| start_task(&url, "slow_compute", json!({"seconds": 1})))
        .collect();
    for id in &ids {
        let done = poll(&cluster, &url, id, terminal);
        assert_eq!(done["status"], "completed", "{done}");
        // Every replica reads the same result, whichever one ran it.
        for replica in &cluster.replicas {
            let there = get(&replica.url(), id);
            assert_eq!(there["result"]["status"], "completed", "{there}");
            assert_eq!(
                text(&there["result"]["result"]),
                text(&done["result"]),
                "{there}"
            );
        }
    }
    // The tasks ran on more than one replica, and none is known twice.
    let ran: usize = cluster
        .replicas
        .iter()
        .filter(|r| calls(r, "slow_compute", "ok") > 0.0)
        .count();
    assert!(
        ran > 1,
        "every task ran on one replica:\n{}",
        cluster.logs()
    );
    for replica in &cluster.replicas {
        let unknown = get(&replica.url(), "no-such-task");
        assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    }
}

#[test]
fn a_task_on_one_replica_is_answered_through_another() {
    let Some(cluster) = cluster() else { return };
    let [runs, other, _] = &cluster.replicas[..] else {
        panic!("three replicas")
    };
    let id = start_task(&runs.url(), "multi_input", json!({}));
    let asking = poll(&cluster, &other.url(), &id, |r| {
        terminal(r) || r["inputRequests"].as_object().is_some_and(|m| m.len() == 2)
    });
    assert_eq!(asking["status"], "input_required", "{asking}");
    let answer = |name: &str| json!({"action": "accept", "content": {"name": name}});
    let ack = request(
        &other.url(),
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"first": answer("Ada"), "second": answer("Grace")}}),
    );
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let done = poll(&cluster, &cluster.url(), &id, terminal);
    assert_eq!(done["status"], "completed", "{done}");
    let said = text(&done["result"]);
    assert!(said.contains("Ada") && said.contains("Grace"), "{said}");
}

#[test]
fn tasks_cancel_on_another_replica_stops_the_guest_where_it_runs() {
    let Some(cluster) = cluster() else { return };
    let [runs, cancels, reads] = &cluster.replicas[..] else {
        panic!("three replicas")
    };
    let id = start_task(&runs.url(), "slow_compute", json!({"seconds": 600}));
    let working = get(&reads.url(), &id);
    assert_eq!(working["result"]["status"], "working", "{working}");
    let ack = request(&cancels.url(), "tasks/cancel", json!({"taskId": id}));
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    // The guest is stopped on the replica running it, long before its 600
    // seconds.
    eventually(
        DEADLINE,
        || format!("the guest was never stopped:\n{}", cluster.logs()),
        || (calls(runs, "slow_compute", "cancelled") == 1.0).then_some(()),
    );
    for replica in &cluster.replicas {
        let got = get(&replica.url(), &id);
        assert_eq!(got["result"]["status"], "cancelled", "{got}");
    }
    let again = request(&reads.url(), "tasks/cancel", json!({"taskId": id}));
    assert_eq!(
        again["result"],
        json!({"resultType": "complete"}),
        "{again}"
    );
    let unknown = request(&cancels.url(), "tasks/cancel", json!({"taskId": "nope"}));
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
}

#[test]
fn a_task_whose_replica_is_killed_reads_failed_on_the_others() {
    let Some(mut cluster) = cluster() else { return };
    let id = start_task(
        &cluster.replicas[0].url(),
        "slow_compute",
        json!({"seconds": 600}),
    );
    let other = cluster.replicas[1].url();
    let working = get(&other, &id);
    assert_eq!(working["result"]["status"], "working", "{working}");
    cluster.replicas[0].signal("KILL");
    cluster.replicas[0].wait();
    let lost = poll(&cluster, &other, &id, terminal);
    assert_eq!(lost["status"], "failed", "{lost}");
    let message = lost["statusMessage"].as_str().unwrap_or_default();
    assert!(
        message.contains("replica running this task was lost"),
        "{lost}"
    );
    let error = lost["error"]["message"].as_str().unwrap_or_default();
    assert!(error.contains("was lost"), "{lost}");
    // The third replica reads the same.
    let got = get(&cluster.replicas[2].url(), &id);
    assert_eq!(got["result"]["status"], "failed", "{got}");
    assert_eq!(
        got["result"]["statusMessage"], lost["statusMessage"],
        "{got}"
    );
}

#[test]
fn max_tasks_holds_across_the_replicas() {
    let Some(cluster) = cluster_with("task_sync_window = \"0s\"\nmax_tasks = 2") else {
        return;
    };
    let [a, b, c] = &cluster.replicas[..] else {
        panic!("three replicas")
    };
    let ids = [
        start_task(&a.url(), "slow_compute", json!({"seconds": 600})),
        start_task(&b.url(), "slow_compute", json!({"seconds": 600})),
    ];
    // The third replica keeps no task itself, and still finds the store
    // full: an optional task runs as an ordinary call ...
    let plain = request(
        &c.url(),
        "tools/call",
        json!({"name": "slow_compute", "arguments": {"seconds": 0}}),
    );
    assert_eq!(plain["result"]["resultType"], "complete", "{plain}");
    // ... and a task-only tool is refused with the key to raise.
    let refused = request(
        &c.url(),
        "tools/call",
        json!({"name": "failing_job", "arguments": {}}),
    );
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert!(text(&refused["result"]).contains("max_tasks"), "{refused}");
    for id in ids {
        request(&c.url(), "tasks/cancel", json!({"taskId": id}));
    }
}
