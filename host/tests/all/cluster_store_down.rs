//! Redis restarted during traffic (issue 46): two `serve --http
//! --stateless` replicas behind nginx share one redis-server
//! (`common::cluster`), serving a tool that needs no store (`word_count`),
//! a rate-limited one (`hash`), a keyvalue one (kvnotes' `increment`) and
//! task tools (the conformance plugin, at 2026-07-28).
//!
//! While redis-server is paused (it answers nothing; the store's timeout
//! is a minute), then killed, calls through nginx that need no store all
//! succeed; on each replica, what needs the store fails within its call's
//! deadline with an error that names the store: the rate-limited call, the
//! keyvalue call, a task-only tool and (killed) `tasks/get`, while a call
//! that may become a task runs as an ordinary call. Once redis-server is back on the
//! same port (empty: it kept nothing), each of them works again on every
//! replica with no restart, and a task that waited for its client through
//! the outage is written again by its replica, answered through the other
//! one, and read `completed` on both.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::cluster::tasks::{get, poll, request, start_task, terminal};
use crate::common::cluster::{Cluster, Spec, post};
use crate::common::{DEADLINE, eventually, text};

/// The calls' deadline in the policy below.
const TIMEOUT: Duration = Duration::from_secs(3);

/// How long past its deadline a call may take to come back on a loaded
/// machine.
const SLACK: Duration = Duration::from_secs(5);

fn cluster() -> Option<Cluster> {
    Cluster::start(&Spec {
        replicas: 2,
        plugins: &[
            test_artifacts::FNV,
            test_artifacts::WORDCOUNT,
            test_artifacts::KVNOTES,
            test_artifacts::CONFORMANCE,
        ],
        server: "task_sync_window = \"0s\"",
        policy: "[plugins.fnv]\nrate_limit = 100000\ntimeout = \"3s\"\n\n\
                 [plugins.kvnotes]\ntimeout = \"3s\"\n\n\
                 [plugins.kvnotes.keyvalue]\nbuckets = [\"default\", \"notes\"]\n\n\
                 [plugins.conformance]\ntimeout = \"3s\"\n\n\
                 [plugins.conformance.client]\nelicitation = true\n",
        // Longer than any call's deadline: the calls' own deadlines bound
        // their waits on a store that does not answer.
        store: ", timeout = \"60s\"",
        ..Spec::default()
    })
}

/// A plain stateless `tools/call` through `url`: its result.
fn call(url: &str, tool: &str, arguments: Value) -> Value {
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": {"name": tool, "arguments": arguments}});
    post(url, &message)["result"].clone()
}

fn hash(url: &str) -> Value {
    call(url, "hash", json!({"text": "abc"}))
}

fn word_count(url: &str) -> Value {
    call(url, "word_count", json!({"text": "one two three"}))
}

fn increment(url: &str) -> Value {
    call(
        url,
        "increment",
        json!({"bucket": "default", "key": "hits", "delta": 1}),
    )
}

fn ok(result: &Value) -> bool {
    result["isError"] == json!(false) || (result.is_object() && result.get("isError").is_none())
}

/// Runs `what`, asserting it came back within the deadline; its answer.
fn in_time<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let answer = f();
    let took = started.elapsed();
    assert!(
        took < TIMEOUT + SLACK,
        "{what} took {took:?} with the store down, past its deadline"
    );
    answer
}

/// `word_count` through `url` from a thread until `stop`: how many calls
/// succeeded, and the first failure.
fn plain_traffic(url: String, stop: Arc<AtomicBool>) -> thread::JoinHandle<(u64, Option<Value>)> {
    let done = Arc::new(AtomicU64::new(0));
    thread::spawn(move || {
        while !stop.load(Ordering::SeqCst) {
            let result = word_count(&url);
            if !ok(&result) {
                return (done.load(Ordering::SeqCst), Some(result));
            }
            done.fetch_add(1, Ordering::SeqCst);
        }
        (done.load(Ordering::SeqCst), None)
    })
}

/// On each replica, with the store down, what needs it fails within the
/// call's deadline naming the `store`: a rate-limited call, a keyvalue
/// call, a task-only tool and (when `task` is given: a `tasks/*` request
/// has no call deadline, only the store's timeout) `tasks/get`; a call
/// that may become a task goes on as an ordinary call.
fn needs_store_fails_in_time(cluster: &Cluster, store: &str, task: Option<&str>) {
    for replica in &cluster.replicas {
        let at = replica.url();
        let logs = || replica.stderr();
        let limited = in_time("a rate-limited call", || hash(&at));
        assert!(
            !ok(&limited) && text(&limited).contains(store),
            "{limited}\n{}",
            logs()
        );
        let kv = in_time("a keyvalue call", || increment(&at));
        assert!(!ok(&kv) && text(&kv).contains(store), "{kv}\n{}", logs());
        let only_a_task = in_time("a task-only tool", || {
            request(
                &at,
                "tools/call",
                json!({"name": "failing_job", "arguments": {}}),
            )
        });
        let refused = &only_a_task["result"];
        assert!(
            refused["isError"] == json!(true) && text(refused).contains(store),
            "{only_a_task}\n{}",
            logs()
        );
        if let Some(task) = task {
            let read = in_time("tasks/get", || get(&at, task));
            assert_eq!(read["error"]["code"], -32603, "{read}");
            let message = read["error"]["message"].as_str().unwrap_or_default();
            assert!(message.contains(store), "{read}");
        }
        // A call that may become a task goes on as an ordinary call.
        let plain = in_time("a call that may become a task", || {
            request(
                &at,
                "tools/call",
                json!({"name": "slow_compute", "arguments": {"seconds": 0}}),
            )
        });
        assert_eq!(
            plain["result"]["resultType"],
            "complete",
            "{plain}\n{}",
            logs()
        );
    }
}

#[test]
fn with_redis_restarted_during_traffic_what_needs_the_store_fails_clearly_and_recovers() {
    let Some(mut cluster) = cluster() else { return };
    let url = cluster.url();
    let (runs, other) = (cluster.replicas[0].url(), cluster.replicas[1].url());
    for replica in &cluster.replicas {
        let at = replica.url();
        assert!(ok(&hash(&at)), "{}", cluster.logs());
        assert!(ok(&increment(&at)), "{}", cluster.logs());
    }
    // A task that waits for its client's answers, through the outage.
    let waiting = start_task(&runs, "multi_input", json!({}));
    let asking = poll(&cluster, &other, &waiting, |r| {
        terminal(r) || r["inputRequests"].as_object().is_some_and(|m| m.len() == 2)
    });
    assert_eq!(asking["status"], "input_required", "{asking}");

    let stop = Arc::new(AtomicBool::new(false));
    let traffic = plain_traffic(url.clone(), stop.clone());
    let store = format!("redis store at 127.0.0.1:{}", cluster.redis.port());
    // Paused: it accepts connections and answers nothing, for longer than
    // any call's deadline (the store's timeout is a minute).
    cluster.redis.signal("STOP");
    needs_store_fails_in_time(&cluster, &store, None);
    cluster.redis.signal("CONT");
    for replica in &cluster.replicas {
        let at = replica.url();
        replica.eventually("recovered from the pause", || {
            (ok(&hash(&at)) && ok(&increment(&at))).then_some(())
        });
    }
    // Killed: connections are refused; then restarted on the same port.
    cluster.redis.kill();
    needs_store_fails_in_time(&cluster, &store, Some(&waiting));
    cluster.redis.restart();
    for replica in &cluster.replicas {
        let at = replica.url();
        replica.eventually("recovered", || {
            (ok(&hash(&at)) && ok(&increment(&at))).then_some(())
        });
        let id = start_task(&at, "slow_compute", json!({"seconds": 1}));
        let done = poll(&cluster, &at, &id, terminal);
        assert_eq!(done["status"], "completed", "{done}");
    }
    stop.store(true, Ordering::SeqCst);
    let (served, failed) = traffic.join().unwrap();
    assert_eq!(
        failed,
        None,
        "a call that needs no store failed:\n{}",
        cluster.logs()
    );
    assert!(served > 0);

    // The task that waited through the outage: its replica writes its
    // record again; answered through the other replica (again, if the
    // answers came before that replica listened again), it completes.
    let answer = |name: &str| json!({"action": "accept", "content": {"name": name}});
    let done = eventually(
        DEADLINE,
        || format!("the task never completed:\n{}", cluster.logs()),
        || {
            request(
                &other,
                "tasks/update",
                json!({"taskId": waiting, "inputResponses": {"first": answer("Ada"), "second": answer("Grace")}}),
            );
            let got = get(&other, &waiting);
            terminal(&got["result"]).then(|| got["result"].clone())
        },
    );
    assert_eq!(done["status"], "completed", "{done}\n{}", cluster.logs());
    let on_runs = get(&runs, &waiting);
    assert_eq!(on_runs["result"]["status"], "completed", "{on_runs}");
}
