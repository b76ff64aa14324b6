//! The Redis store (`[server] store = { redis = URL }`) against a real
//! redis-server started by the test: two servers on one Redis share their
//! data, a Redis that is down or paused ends a call within its deadline as
//! `isError` naming the store while a tool using no store still answers,
//! and the server recovers when Redis comes back. Over TLS (`rediss://`),
//! with a private CA and a client certificate, and refused without them.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{GRANTED, KVNOTES, python_counts_and_takes_notes, serve, until_it_succeeds, value};
use crate::common::redis::Redis;
use crate::common::{Server, plugins_with_policy};

/// The calls' deadline in the policies below (`plugins.kvnotes.timeout`).
const TIMEOUT: Duration = Duration::from_secs(4);

/// How long past its deadline a call may take to come back on a loaded
/// machine.
const SLACK: Duration = Duration::from_secs(5);

/// The policy of a server whose store is `redis` (with `more` keys of
/// `[server] store`, such as `, timeout = "1s"`), granting kvnotes its
/// buckets, with calls ending after [`TIMEOUT`].
fn policy(redis: &Redis, more: &str) -> String {
    format!(
        "[server]\nstore = {{ redis = \"{}\"{more} }}\n\n[plugins.kvnotes]\ntimeout = \"{}s\"\n\n{GRANTED}",
        redis.url(),
        TIMEOUT.as_secs()
    )
}

#[test]
fn two_servers_on_one_redis_see_each_others_counter_and_notes() {
    let Some(redis) = Redis::start() else { return };
    let policy = policy(&redis, "");
    let (mut first, _a) = serve(&[KVNOTES], &policy);
    let (mut second, _b) = serve(&[KVNOTES], &policy);
    let hit = hit();
    assert_eq!(value(&mut first, "increment", hit.clone()), json!(1));
    assert_eq!(value(&mut second, "increment", hit.clone()), json!(2));
    assert_eq!(value(&mut first, "increment", hit), json!(3));
    value(&mut second, "add-note", json!({"text": "from the second"}));
    assert_eq!(
        value(&mut first, "notes", json!({})),
        json!(["from the second"])
    );
    second.call_ok(
        "put",
        json!({"bucket": "default", "key": "k", "value": "v"}),
    );
    assert_eq!(
        value(&mut first, "get", json!({"bucket": "default", "key": "k"})),
        json!("v")
    );
}

/// The arguments of `increment` that add one to the counter "hits".
fn hit() -> Value {
    json!({"bucket": "default", "key": "hits", "delta": 1})
}

/// A stdio server on `redis` (`more`: see [`policy`]) whose counter
/// "hits" was incremented once.
fn counting_on(redis: &Redis, more: &str) -> (Server, tempfile::TempDir) {
    let (mut server, dir) = serve(&[KVNOTES], &policy(redis, more));
    assert_eq!(value(&mut server, "increment", hit()), json!(1));
    (server, dir)
}

/// A call of `increment` while Redis is down or paused: it comes back as
/// `isError` naming the store, within the call's deadline.
fn assert_fails_in_time(server: &mut Server, how: &str) {
    let started = Instant::now();
    let error = server.call_err("increment", hit());
    assert_in_time_naming_the_store(started.elapsed(), &error, how);
}

/// Asserts that a call that failed with `error` while Redis was `how` took
/// no longer than its deadline allows, and that `error` names the store.
fn assert_in_time_naming_the_store(took: Duration, error: &str, how: &str) {
    assert!(
        took < TIMEOUT + SLACK,
        "with Redis {how}, the call took {took:?}, past its deadline of {TIMEOUT:?}: {error}"
    );
    assert!(
        error.to_lowercase().contains("redis"),
        "with Redis {how}, the error names the store: {error}"
    );
}

#[test]
fn a_redis_that_was_killed_fails_calls_in_time_and_the_server_recovers_when_it_returns() {
    let Some(mut redis) = Redis::start() else {
        return;
    };
    let (mut server, _dir) = counting_on(&redis, "");
    redis.kill();
    assert_fails_in_time(&mut server, "killed");
    assert_eq!(value(&mut server, "ping", json!({})), json!("pong"));
    redis.restart();
    // The restarted Redis kept nothing (no persistence): the count starts over.
    assert_eq!(until_it_succeeds(&mut server, "increment", hit()), json!(1));
}

#[test]
fn a_paused_redis_ends_calls_in_time_naming_the_store_while_a_tool_using_no_store_answers() {
    // (more keys of `[server] store`, the case)
    let table = [
        (
            ", timeout = \"1s\"",
            "the store's timeout (1 s) is shorter than the call's deadline (4 s)",
        ),
        (
            "",
            "the call's deadline (4 s) comes before the store's default timeout (5 s)",
        ),
    ];
    for (more, case) in table {
        let Some(redis) = Redis::start() else { return };
        let (mut server, _dir) = counting_on(&redis, more);
        redis.signal("STOP");
        paused_calls_end_in_time(&mut server, case);
        redis.signal("CONT");
        // The count went on from where it was (a timed-out increment may
        // have landed once Redis resumed).
        let after = until_it_succeeds(&mut server, "increment", hit());
        assert!(
            (2..=4).contains(&after.as_i64().unwrap()),
            "{case}: {after}"
        );
    }
}

/// With Redis paused: a call waiting on the store does not hold up a call
/// that uses none (the ping's answer comes first), and each call of
/// `increment` ends within its deadline naming the store.
fn paused_calls_end_in_time(server: &mut Server, case: &str) {
    let started = Instant::now();
    let stuck = server.send_request(
        "tools/call",
        json!({"name": "increment", "arguments": hit()}),
    );
    let ping = server.send_request("tools/call", json!({"name": "ping", "arguments": {}}));
    let mut order = Vec::new();
    let mut stuck_result = Value::Null;
    while order.len() < 2 {
        let message = server.recv();
        match message["id"].as_i64() {
            Some(id) if id == ping => {
                assert_eq!(
                    message["result"]["structuredContent"]["result"],
                    json!("pong")
                );
                order.push("ping");
            }
            Some(id) if id == stuck => {
                stuck_result = message["result"].clone();
                order.push("increment");
            }
            _ => server.notifications.push(message),
        }
    }
    let took = started.elapsed();
    assert_eq!(
        order,
        ["ping", "increment"],
        "{case}: the ping was not held up"
    );
    assert_eq!(
        stuck_result["isError"],
        json!(true),
        "{case}: {stuck_result}"
    );
    let how = format!("paused ({case})");
    assert_in_time_naming_the_store(took, &crate::common::text(&stuck_result), &how);
    assert_fails_in_time(server, &how);
}

#[test]
fn the_python_sdk_client_counts_and_takes_notes_over_redis() {
    let Some(redis) = Redis::start() else { return };
    let (dir, plugins, config) = plugins_with_policy(&[KVNOTES], &policy(&redis, ""));
    python_counts_and_takes_notes(&plugins, &config, &dir.path().join("state"));
}

/// The `[server] store` keys (after the URL) that trust the TLS server's
/// private CA and, with `client`, show it the client certificate it asks
/// for.
fn tls_keys(redis: &Redis, client: bool) -> String {
    use crate::common::redis::{CA_FILE, CLIENT_CERT_FILE, CLIENT_KEY_FILE};
    let path = |file: &str| redis.dir().join(file).display().to_string();
    let mut keys = format!(", ca_file = '{}'", path(CA_FILE));
    if client {
        keys += &format!(
            ", client_cert_file = '{}', client_key_file = '{}'",
            path(CLIENT_CERT_FILE),
            path(CLIENT_KEY_FILE)
        );
    }
    keys
}

#[test]
fn over_tls_with_a_private_ca_and_a_client_certificate_two_servers_share_a_counter() {
    let Some(redis) = Redis::start_tls() else {
        return;
    };
    let policy = policy(&redis, &tls_keys(&redis, true));
    assert!(policy.contains("rediss://"), "{policy}");
    let (mut first, _a) = serve(&[KVNOTES], &policy);
    let (mut second, _b) = serve(&[KVNOTES], &policy);
    assert_eq!(value(&mut first, "increment", hit()), json!(1));
    assert_eq!(value(&mut second, "increment", hit()), json!(2));
    value(&mut second, "add-note", json!({"text": "over TLS"}));
    assert_eq!(value(&mut first, "notes", json!({})), json!(["over TLS"]));
}

#[test]
fn over_tls_a_server_not_trusted_or_refusing_the_client_fails_calls_in_time_naming_the_store() {
    let Some(redis) = Redis::start_tls() else {
        return;
    };
    // (more keys of `[server] store`, the case)
    let table = [
        (
            String::new(),
            "untrusted: the webpki roots do not hold its CA",
        ),
        (
            tls_keys(&redis, false),
            "refusing: it asks for a client certificate",
        ),
    ];
    for (more, case) in table {
        let (mut server, _dir) = serve(&[KVNOTES], &policy(&redis, &more));
        assert_fails_in_time(&mut server, case);
        assert_eq!(
            value(&mut server, "ping", json!({})),
            json!("pong"),
            "{case}"
        );
    }
}
