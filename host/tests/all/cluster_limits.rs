//! Rate limits that hold across replicas (issue 46): three `serve --http
//! --stateless` replicas behind nginx (round robin, no affinity) count
//! `rate_limit` in one real redis-server (`common::cluster`).
//!
//! 1. Under load through nginx, the three together accept the configured
//!    rate, not three times it: the calls accepted and refused are
//!    counted (never timed).
//! 2. With Redis paused, then killed, during traffic: a tool without a
//!    rate limit is served as before; a rate-limited tool is refused (the
//!    limit fails closed) within its call's deadline, with a message that
//!    names the policy key and the store; both recover when Redis is back.
//! 3. `client_rate_limit` in stateless mode is each OAuth subject's own
//!    (real ES256 tokens from `common::oauth`), whichever replica answers.
//! 4. The official Python SDK's and TypeScript SDK's calls through the
//!    cluster meet one rate (`tests/python/replica_client.py`,
//!    `tests/ts/cluster-client.mjs`).

#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;

use serde_json::{Value, json};

use crate::common::cluster::{Cluster, Spec, post};
use crate::common::{DEADLINE, eventually};

/// How a call through the cluster ended.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ended {
    Ok,
    /// Refused by a rate limit whose key the message names.
    RateLimited(String),
    /// Refused because the limit's store failed.
    StoreFailed(String),
    Other(String),
}

fn ended(reply: &Value) -> Ended {
    let result = &reply["result"];
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    match result["isError"].as_bool() {
        Some(false) => Ended::Ok,
        Some(true) if text.contains("calls per minute") => Ended::RateLimited(text),
        Some(true) if text.contains("counts in the shared state store") => Ended::StoreFailed(text),
        _ => Ended::Other(reply.to_string()),
    }
}

/// One stateless `tools/call` of `tool` through `url`.
fn call(url: &str, tool: &str, arguments: &Value) -> Ended {
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": {"name": tool, "arguments": arguments}});
    ended(&post(url, &message))
}

const HASH_ARGS: &str = r#"{"text": "abc"}"#;
const COUNT_ARGS: &str = r#"{"text": "one two three"}"#;

fn args(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

/// `calls` calls of `tool` through `url` from `workers` threads at once:
/// how many were accepted, refused by the rate limit, and anything else.
fn load(url: &str, tool: &str, calls: u64, workers: usize) -> (u64, u64, Vec<String>) {
    let next = Arc::new(AtomicU64::new(0));
    let threads: Vec<_> = (0..workers)
        .map(|_| {
            let (url, tool, next) = (url.to_string(), tool.to_string(), next.clone());
            thread::spawn(move || {
                let mut seen = Vec::new();
                while next.fetch_add(1, Ordering::SeqCst) < calls {
                    seen.push(call(&url, &tool, &args(HASH_ARGS)));
                }
                seen
            })
        })
        .collect();
    let (mut ok, mut limited, mut other) = (0, 0, Vec::new());
    for seen in threads.into_iter().flat_map(|t| t.join().unwrap()) {
        match seen {
            Ended::Ok => ok += 1,
            Ended::RateLimited(text) => {
                assert!(text.contains("(policy key `rate_limit`)"), "{text}");
                limited += 1;
            }
            e => other.push(format!("{e:?}")),
        }
    }
    (ok, limited, other)
}

/// Three stateless replicas of the fnv plugin (`hash`) under `policy`.
fn fnv_cluster(policy: &str) -> Option<Cluster> {
    Cluster::start(&Spec {
        plugins: &[test_artifacts::FNV],
        policy,
        ..Spec::default()
    })
}

/// Whether `accepted` calls are what a cluster-wide `quota` a minute
/// allows for calls that took `took`. A window is a minute from its first
/// call, on Redis's clock: calls all in one window get exactly the quota;
/// calls that spanned two get at most twice it (one window's tolerance).
fn within_a_window(accepted: u64, quota: u64, took: std::time::Duration) -> bool {
    if took < std::time::Duration::from_secs(50) {
        accepted == quota
    } else {
        (quota..=2 * quota).contains(&accepted)
    }
}

#[test]
fn a_rate_limit_holds_across_three_replicas_behind_nginx() {
    // 90 a minute for the cluster. 450 calls: 150 reach each replica, so
    // replicas counting alone would accept 270.
    const RATE: u64 = 90;
    const CALLS: u64 = 450;
    let policy = format!("[plugins.fnv]\nrate_limit = {RATE}\n");
    let Some(cluster) = fnv_cluster(&policy) else {
        return;
    };
    let started = std::time::Instant::now();
    let (ok, limited, other) = load(&cluster.url(), "hash", CALLS, 12);
    let took = started.elapsed();
    let answered = cluster.nginx.answered_by();
    eprintln!(
        "{CALLS} calls through nginx in {took:?}: {ok} accepted, {limited} refused by \
         `rate_limit = {RATE}`; calls per replica: {answered:?}"
    );
    assert!(other.is_empty(), "{other:?}\n{}", cluster.logs());
    assert_eq!(ok + limited, CALLS);
    assert_eq!(answered.len(), 3, "nginx spread the calls: {answered:?}");
    // Still less than the 270 of replicas that count alone.
    assert!(within_a_window(ok, RATE, took), "{ok}\n{}", cluster.logs());
}

/// One call of `word_count` (no limit) and one of `hash` (a limit).
fn both(url: &str) -> (Ended, Ended) {
    let counted = call(url, "word_count", &args(COUNT_ARGS));
    let hashed = call(url, "hash", &args(HASH_ARGS));
    (counted, hashed)
}

/// Three rounds of [`both`] through nginx (so each replica has each
/// tool) while the store is down: `word_count` goes on, `hash` is refused
/// naming its key, the `store` and what the text must also say.
fn refused_while_down(cluster: &Cluster, store: &str, also: Option<&str>) {
    for _ in 0..3 {
        let (counted, hashed) = both(&cluster.url());
        assert_eq!(counted, Ended::Ok, "a call with no limit goes on");
        let Ended::StoreFailed(text) = &hashed else {
            panic!("{hashed:?}\n{}", cluster.logs());
        };
        assert!(
            text.contains("(policy key `rate_limit`)")
                && text.contains(store)
                && also.is_none_or(|also| text.contains(also)),
            "{text}"
        );
    }
}

#[test]
fn with_redis_down_limited_calls_fail_closed_within_their_deadline_and_others_go_on() {
    // `hash` has a rate limit (far above this test's calls); `word_count`
    // has none and needs no store. The store waits up to a minute for an
    // answer; a call's deadline is 2 s.
    let policy = "[plugins.fnv]\nrate_limit = 100000\ntimeout = \"2s\"\n";
    let Some(mut cluster) = Cluster::start(&Spec {
        plugins: &[test_artifacts::FNV, test_artifacts::WORDCOUNT],
        server: "",
        policy,
        store: ", timeout = \"60s\"",
        ..Spec::default()
    }) else {
        return;
    };
    let url = cluster.url();
    // Each round goes to every replica (nginx's round robin).
    for _ in 0..3 {
        assert_eq!(both(&url), (Ended::Ok, Ended::Ok), "{}", cluster.logs());
    }
    let store = format!("redis store at 127.0.0.1:{}", cluster.redis.port());

    // Paused: it accepts connections and answers nothing. A limited call
    // ends at its own deadline, long before the store's minute.
    cluster.redis.signal("STOP");
    refused_while_down(
        &cluster,
        &store,
        Some("no answer within the call's timeout"),
    );
    cluster.redis.signal("CONT");
    eventually(
        DEADLINE,
        || format!("limited calls never recovered:\n{}", cluster.logs()),
        || (both(&url) == (Ended::Ok, Ended::Ok)).then_some(()),
    );

    // Killed: connections are refused, and a limited call says so.
    cluster.redis.kill();
    refused_while_down(&cluster, &store, None);
    cluster.redis.restart();
    for replica in &cluster.replicas {
        eventually(
            DEADLINE,
            || {
                format!(
                    "replica {} never recovered:\n{}",
                    replica.authority,
                    replica.stderr()
                )
            },
            || (call(&replica.url(), "hash", &args(HASH_ARGS)) == Ended::Ok).then_some(()),
        );
        // The replica logged the failure and the recovery.
        replica
            .wait_for_log("calls of tools with a rate limit are refused until the store answers");
        replica.wait_for_log("the rate limits' store answers again");
    }
}

#[test]
fn a_callers_limit_holds_across_replicas_by_its_oauth_subject_in_stateless_mode() {
    use crate::common::http::Client;
    use crate::common::oauth::{AUDIENCE, ISSUER, Jwks, SigningKey, claims};

    // 5 calls a minute for each caller. Each caller makes 15, one at a
    // time, through nginx: 5 reach each replica, so replicas counting
    // alone would accept all 15, and stateless requests counted each as
    // its own client would never refuse one.
    const PER_CALLER: u64 = 5;
    const CALLS: u64 = 15;
    let key = SigningKey::new("k1");
    let jwks = Jwks::serve(&[&key]);
    let policy = format!(
        "[server.oauth]\nissuer = \"{ISSUER}\"\naudience = \"{AUDIENCE}\"\njwks_uri = \"{}\"\n\
         algorithms = [\"ES256\"]\n\n[plugins.fnv]\nscopes = [\"hash\"]\nclient_rate_limit = {PER_CALLER}\n",
        jwks.uri()
    );
    let Some(cluster) = fnv_cluster(&policy) else {
        return;
    };
    let url = cluster.url();
    let started = std::time::Instant::now();
    let mut accepted = std::collections::BTreeMap::new();
    for round in 0..CALLS {
        for subject in ["alice", "bob"] {
            let token = key.sign(&claims(subject, "hash"));
            let message = json!({"jsonrpc": "2.0", "id": round, "method": "tools/call",
                                 "params": {"name": "hash", "arguments": args(HASH_ARGS)}});
            let reply = Client::new(&url)
                .with_token(&token)
                .post(&message)
                .message();
            match ended(&reply) {
                Ended::Ok => *accepted.entry(subject).or_insert(0u64) += 1,
                Ended::RateLimited(text) => assert!(
                    text.contains("for each client") && text.contains("`client_rate_limit`"),
                    "{text}"
                ),
                e => panic!("{e:?}\n{}", cluster.logs()),
            }
        }
    }
    let took = started.elapsed();
    eprintln!("{CALLS} calls each in {took:?}, accepted: {accepted:?}");
    for subject in ["alice", "bob"] {
        let n = accepted.get(subject).copied().unwrap_or(0);
        assert!(
            within_a_window(n, PER_CALLER, took),
            "{subject}: {n} accepted\n{}",
            cluster.logs()
        );
    }
}

/// An SDK's rate-limited calls through a cluster, each `ok` or refused
/// (`tool_error`): 30 a minute, 120 calls, 40 of them reaching each replica
/// (which, counting alone, would accept 90).
const SDK_RATE: u64 = 30;
const SDK_CALLS: u64 = 120;

/// Checks what an SDK saw: `calls` ended (at least [`SDK_CALLS`]), `ok`
/// accepted, the rest refused (`errors` by kind, a `sample` text of a
/// refusal) by the rate limit, within a window of `took`.
fn check_sdk_counts(
    (calls, ok, errors): (u64, u64, &serde_json::Map<String, Value>),
    sample: &Value,
    took: std::time::Duration,
    cluster: &Cluster,
) {
    let refused = errors
        .get("tool_error")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    assert!(calls >= SDK_CALLS, "{calls}");
    assert_eq!((errors.len(), ok + refused), (1, calls), "{errors:?}");
    let sample = sample.as_str().unwrap_or_default();
    assert!(sample.contains("(policy key `rate_limit`)"), "{sample}");
    assert!(
        within_a_window(ok, SDK_RATE, took),
        "{ok}\n{}",
        cluster.logs()
    );
}

#[test]
fn the_python_sdk_through_the_cluster_meets_one_rate_limit() {
    use crate::common::cluster::load::{Load, phase_of};

    // The Python SDK: a 2026-07-28 client per call, 4 at once.
    let policy = format!("[plugins.fnv]\nrate_limit = {SDK_RATE}\n");
    let Some(cluster) = fnv_cluster(&policy) else {
        return;
    };
    let started = std::time::Instant::now();
    let mut load = Load::start(&cluster.url(), 4, "hash", &args(HASH_ARGS), None);
    load.wait_for("start", SDK_CALLS);
    let took = started.elapsed();
    let summary = load.stop();
    let (calls, ok, errors) = phase_of(&summary, "start");
    eprintln!("the Python SDK: {calls} calls, {ok} accepted, {errors:?}, in {took:?}");
    let sample = &summary["samples"]["tool_error"];
    check_sdk_counts((calls, ok, &errors), sample, took, &cluster);
}

#[test]
fn the_typescript_sdk_through_the_cluster_meets_one_rate_limit() {
    // The TypeScript SDK: a client per call, 4 at once; each call an
    // `initialize` and a `tools/call`.
    let policy = format!("[plugins.fnv]\nrate_limit = {SDK_RATE}\n");
    let Some(cluster) = fnv_cluster(&policy) else {
        return;
    };
    let started = std::time::Instant::now();
    let calls = SDK_CALLS.to_string();
    let url = cluster.url();
    let summary = crate::common::run_node_client(
        "cluster-client.mjs",
        &[
            "--url",
            &url,
            "--tool",
            "hash",
            "--arguments",
            HASH_ARGS,
            "--calls",
            &calls,
        ]
        .map(std::ffi::OsStr::new),
    );
    let took = started.elapsed();
    eprintln!("the TypeScript SDK, in {took:?}: {summary}");
    let (calls, ok) = (summary["calls"].as_u64(), summary["ok"].as_u64());
    let errors = summary["errors"].as_object().unwrap();
    let sample = &summary["samples"]["tool_error"];
    check_sdk_counts(
        (calls.unwrap(), ok.unwrap(), errors),
        sample,
        took,
        &cluster,
    );
}
