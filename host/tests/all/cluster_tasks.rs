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
//! 6. The replica running a task is SIGTERMed: a task that ends within
//!    `--shutdown-timeout` (answered through another replica while it
//!    drains) reads `completed`; one that does not reads `failed`, saying
//!    the replica shut down, as soon as the replica has exited.
//! 7. Real clients make tasks and poll them through nginx until they end,
//!    at 2026-07-28: the official Python SDK, through its extension seam
//!    (`tests/python/cluster_task_client.py`), and the TypeScript SDK v2,
//!    through its raw transport, since its client refuses a `task` result
//!    (`tests/ts/cluster-task-client.mjs`).

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use crate::common::cluster::tasks::{get, poll, request, start_task, terminal};
use crate::common::cluster::{Cluster, Replica, Spec};
use crate::common::http::{calls_ended, sample, try_get};
use crate::common::revision::R5;
use crate::common::{DEADLINE, eventually, text};

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

/// Two replicas of [`cluster`] that drain for `seconds` on SIGTERM.
fn cluster_draining_for(seconds: &str) -> Option<Cluster> {
    Cluster::start(&Spec {
        replicas: 2,
        plugins: &[test_artifacts::CONFORMANCE],
        server: "task_sync_window = \"0s\"",
        policy: "[plugins.conformance.client]\nelicitation = true\n",
        args: &["--stateless", "--shutdown-timeout", seconds],
        ..Spec::default()
    })
}

/// SIGTERMs `replica` and waits until it drains (its log says so).
fn stop(replica: &Replica) {
    replica.signal("TERM");
    eventually(
        DEADLINE,
        || format!("the replica never began to drain:\n{}", replica.stderr()),
        || replica.stderr().contains("shutting down").then_some(()),
    );
}

/// Waits for the SIGTERMed first replica to exit 0, then reads the task
/// `id` at once on the second, asserting its `status`: its end was
/// recorded before the replica exited. Its `tasks/get` result.
fn read_once_exited(cluster: &mut Cluster, id: &str, status: &str) -> Value {
    assert_eq!(cluster.replicas[0].wait(), Some(0), "{}", cluster.logs());
    let got = get(&cluster.replicas[1].url(), id);
    assert_eq!(got["result"]["status"], status, "{got}\n{}", cluster.logs());
    got["result"].clone()
}

/// The calls of `tool` that ended with `outcome` on `replica`.
fn calls(replica: &Replica, tool: &str, outcome: &str) -> f64 {
    let url = format!("http://{}/metrics", replica.authority);
    try_get(&url)
        .ok()
        .and_then(|(_, scrape)| sample(&scrape, &calls_ended("conformance", tool, outcome)))
        .unwrap_or(0.0)
}

/// Asserts that `slow_compute` ran on more than one replica.
fn ran_on_several(cluster: &Cluster) {
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
}

/// How many tasks each SDK client makes at once.
const SDK_TASKS: usize = 6;

/// Checks an SDK client's summary of [`SDK_TASKS`] tasks made and polled
/// through nginx: each reached its own result, its polls read `working`
/// until `completed` (some read it running), every replica answered, and
/// the tasks ran on more than one.
fn check_sdk_tasks(cluster: &Cluster, summary: &Value) {
    let ctx = format!("{summary}\n{}", cluster.logs());
    assert_eq!(summary["protocol_version"], R5, "{ctx}");
    let want: Vec<Value> = (1..=SDK_TASKS)
        .map(|k| json!({"label": format!("t{k}"), "text": format!("computed t{k} in 2 s")}))
        .collect();
    assert_eq!(summary["tasks"], json!(want), "{ctx}");
    let statuses = summary["statuses"].as_array().unwrap();
    assert_eq!(statuses.len(), SDK_TASKS, "{ctx}");
    for polls in statuses {
        let polls = polls.as_array().unwrap();
        let (last, before) = polls.split_last().unwrap();
        assert!(*last == "completed", "{ctx}");
        assert!(before.iter().all(|s| *s == "working"), "{ctx}");
    }
    let working = statuses
        .iter()
        .flat_map(|p| p.as_array().unwrap())
        .filter(|s| *s == "working")
        .count();
    assert!(working > 0, "no poll read a task running: {ctx}");
    let answered = cluster.nginx.answered_by();
    assert_eq!(answered.len(), cluster.replicas.len(), "{answered:?}");
    ran_on_several(cluster);
}

/// Runs the SDK client `script` with `run` (the Python or the Node
/// runner of `common`) against a cluster, then checks its summary
/// ([`check_sdk_tasks`]).
fn sdk_tasks(run: fn(&str, &[&std::ffi::OsStr]) -> Value, script: &str) {
    let Some(cluster) = cluster() else { return };
    let (url, tasks) = (cluster.url(), SDK_TASKS.to_string());
    let args = ["--url", &url, "--tasks", &tasks, "--seconds", "2"];
    let args: Vec<&std::ffi::OsStr> = args.iter().map(AsRef::as_ref).collect();
    check_sdk_tasks(&cluster, &run(script, &args));
}

#[test]
fn the_python_sdk_polls_its_tasks_through_nginx_until_they_end() {
    sdk_tasks(crate::common::run_python_client, "cluster_task_client.py");
}

#[test]
fn the_typescript_sdk_polls_its_tasks_through_nginx_until_they_end() {
    sdk_tasks(crate::common::run_node_client, "cluster-task-client.mjs");
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
    ran_on_several(&cluster);
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

#[test]
fn a_sigtermed_replica_finishes_a_task_that_ends_within_its_shutdown_timeout() {
    let Some(mut cluster) = cluster_draining_for("600") else {
        return;
    };
    let (runs, other) = (cluster.replicas[0].url(), cluster.replicas[1].url());
    // The task waits for the client's answers: it ends when the test says.
    let id = start_task(&runs, "multi_input", json!({}));
    let asking = poll(&cluster, &other, &id, |r| {
        terminal(r) || r["inputRequests"].as_object().is_some_and(|m| m.len() == 2)
    });
    assert_eq!(asking["status"], "input_required", "{asking}");
    stop(&cluster.replicas[0]);
    // Answered through the other replica while the first one drains.
    let answer = |name: &str| json!({"action": "accept", "content": {"name": name}});
    let ack = request(
        &other,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"first": answer("Ada"), "second": answer("Grace")}}),
    );
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let done = read_once_exited(&mut cluster, &id, "completed");
    let said = text(&done["result"]);
    assert!(said.contains("Ada") && said.contains("Grace"), "{said}");
    cluster.replicas[0].wait_for_log("every task running here ended");
}

#[test]
fn a_sigtermed_replica_fails_a_task_still_running_at_its_shutdown_timeout() {
    let Some(mut cluster) = cluster_draining_for("1") else {
        return;
    };
    let (runs, other) = (cluster.replicas[0].url(), cluster.replicas[1].url());
    let id = start_task(&runs, "slow_compute", json!({"seconds": 600}));
    let working = get(&other, &id);
    assert_eq!(working["result"]["status"], "working", "{working}");
    stop(&cluster.replicas[0]);
    // `failed` at once, saying why, not `working` until a lease expires.
    let failed = read_once_exited(&mut cluster, &id, "failed");
    let message = failed["statusMessage"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("the replica running this task shut down"),
        "{failed}"
    );
    let error = failed["error"]["message"].as_str().unwrap_or_default();
    assert!(error.contains("--shutdown-timeout"), "{failed}");
}
