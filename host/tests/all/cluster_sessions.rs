//! Sessions (2025-11-25 and earlier) that replicas share through one real
//! redis-server (issue 46, item 3): three `serve --http` replicas with
//! sessions, nginx round robin in front (`common::cluster`).
//!
//! 1. A session opened on one replica is served by each of the others,
//!    and its `scope = "session"` keyvalue data follows it: the kvnotes
//!    counter goes 1, 2, 3… whichever replica answers. An unknown session
//!    id gets `404` everywhere; a `DELETE` on one replica ends the session
//!    on all (each then answers `404`, also one that held a copy).
//! 2. With OAuth, another subject's request for the session gets `404` on
//!    a replica that does not hold it, as on the one that does.
//! 3. A session's `GET` stream resumed with `Last-Event-ID` on another
//!    replica (one that never held the session) is sent the events it
//!    missed: list changes of the replica it was on, from the shared log.
//!    Every replica holding a copy of the session hears each change, but
//!    the log has it once: a stream resumed on a third replica replays
//!    each change once.
//! 4. While the store does not answer, a request in a session gets `503`
//!    naming the shared session store, and the session goes on once the
//!    store is back.
//! 5. The official Python SDK at 2025-11-25 keeps one session through
//!    nginx while its requests land on every replica
//!    (`tests/python/cluster_session_client.py`), and so does the
//!    TypeScript SDK 1.x (`tests/ts/cluster-session-client.mjs`), whose
//!    `DELETE` then ends the session on every replica.
//! 6. A session's `logging/setLevel` through one replica holds for its
//!    calls on another (the level is kept in the session's record); another
//!    session stays at `info`.

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::sync::mpsc::Receiver;

use serde_json::{Value, json};

use crate::common::DEADLINE;
use crate::common::cluster::{Cluster, Spec};
use crate::common::http::Client;
use crate::common::revision::R4;

/// kvnotes with its notes kept per session.
const SESSION_NOTES: &str =
    "[plugins.kvnotes.keyvalue]\nbuckets = [\"notes\"]\nscope = \"session\"\n";

fn cluster(policy: &str) -> Option<Cluster> {
    Cluster::start(&Spec {
        plugins: &[test_artifacts::KVNOTES],
        policy,
        args: &[],
        // A paused store is given up on within a second.
        store: ", timeout = \"1s\"",
        ..Spec::default()
    })
}

/// The MCP endpoints of the cluster's replicas.
fn urls(cluster: &Cluster) -> Vec<String> {
    cluster.replicas.iter().map(|r| r.url()).collect()
}

/// A session opened at 2025-11-25 on `url`: its id.
fn open(url: &str) -> String {
    let mut client = Client::new(url);
    let init = client.initialize(R4);
    assert_eq!(init.status, 200, "{init:#?}");
    client.session.unwrap()
}

/// A cluster of kvnotes with its notes kept per session, its replicas'
/// endpoints, and a session opened on the first; `None` when the test is
/// skipped.
fn opened() -> Option<(Cluster, Vec<String>, String)> {
    let cluster = cluster(SESSION_NOTES)?;
    let urls = urls(&cluster);
    let session = open(&urls[0]);
    Some((cluster, urls, session))
}

/// A client of `url` in `session`.
fn in_session(url: &str, session: &str) -> Client {
    Client::new(url).with_session(Some(session))
}

fn tools_list() -> Value {
    json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"})
}

#[test]
fn a_session_is_served_by_every_replica_with_its_data_and_ends_on_all() {
    let Some((cluster, urls, session)) = opened() else {
        return;
    };

    // Each note through the next replica: the counter is the session's.
    for n in 1..=6usize {
        let url = &urls[n % urls.len()];
        let mut client = in_session(url, &session);
        let added = client.call_value("add-note", json!({"text": format!("note {n}")}));
        assert_eq!(added, json!(n), "through {url}\n{}", cluster.logs());
    }
    let notes = in_session(&urls[2], &session).call_value("notes", json!({}));
    let want: Vec<String> = (1..=6).map(|n| format!("note {n}")).collect();
    assert_eq!(notes, json!(want), "{}", cluster.logs());
    for replica in &cluster.replicas[1..] {
        replica.wait_for_log("took over an HTTP session from the shared store");
    }

    // A session id no replica made is unknown to all.
    for url in &urls {
        let reply = in_session(url, "not-a-session").post(&tools_list());
        assert_eq!(reply.status, 404, "{url}: {reply:#?}");
    }

    // A DELETE on one replica ends it on every one.
    let deleted = in_session(&urls[1], &session).send("DELETE");
    assert_eq!(deleted.status, 202, "{deleted:#?}");
    for url in &urls {
        let reply = in_session(url, &session).post(&tools_list());
        assert_eq!(reply.status, 404, "{url}: {reply:#?}\n{}", cluster.logs());
    }
}

#[test]
fn another_subjects_request_for_a_shared_session_is_not_found_on_any_replica() {
    use crate::common::oauth::{AUDIENCE, ISSUER, Jwks, SigningKey, claims};

    let key = SigningKey::new("k1");
    let jwks = Jwks::serve(&[&key]);
    let policy = format!(
        "[server.oauth]\nissuer = \"{ISSUER}\"\naudience = \"{AUDIENCE}\"\njwks_uri = \"{}\"\n\
         algorithms = [\"ES256\"]\n\n[plugins.kvnotes]\nscopes = [\"notes\"]\n{SESSION_NOTES}",
        jwks.uri()
    );
    let Some(cluster) = cluster(&policy) else {
        return;
    };
    let urls = urls(&cluster);
    let alice = key.sign(&claims("alice", "notes"));
    let mallory = key.sign(&claims("mallory", "notes"));
    let mut opened = Client::new(&urls[0]).with_token(&alice);
    let init = opened.initialize(R4);
    assert_eq!(init.status, 200, "{init:#?}");
    let session = opened.session.clone().unwrap();

    // Mallory first, where the session is not held: no takeover for her.
    for url in [&urls[1], &urls[0]] {
        let reply = in_session(url, &session)
            .with_token(&mallory)
            .post(&tools_list());
        assert_eq!(reply.status, 404, "{url}: {reply:#?}");
    }
    assert!(
        !cluster.replicas[1]
            .stderr()
            .contains("took over an HTTP session"),
        "{}",
        cluster.replicas[1].stderr()
    );
    // Alice, with a new token of hers, on every replica.
    let fresh = key.sign(&claims("alice", "notes"));
    for (n, url) in urls.iter().enumerate() {
        let added = in_session(url, &session)
            .with_token(&fresh)
            .call_value("add-note", json!({"text": "mine"}));
        assert_eq!(added, json!(n + 1), "{url}\n{}", cluster.logs());
    }
    // Mallory still gets nowhere, now that every replica holds it.
    for url in &urls {
        let reply = in_session(url, &session)
            .with_token(&mallory)
            .post(&tools_list());
        assert_eq!(reply.status, 404, "{url}: {reply:#?}");
    }
}

/// The session's `GET` stream at `url`, resumed after `last` if given:
/// each event's id (if any) and message, as they come.
fn events(url: &str, session: &str, last: Option<&str>) -> Receiver<(Option<String>, Value)> {
    use std::io::BufRead as _;
    let mut request = crate::common::http::agent()
        .get(url)
        .header("Accept", "text/event-stream")
        .header("Mcp-Session-Id", session);
    if let Some(last) = last {
        request = request.header("Last-Event-ID", last);
    }
    let response = request.call().unwrap();
    assert_eq!(response.status().as_u16(), 200, "GET stream refused");
    let reader = response.into_body().into_reader();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        // An event's fields come in any order; a blank line ends it.
        let (mut id, mut data) = (None, None);
        for line in std::io::BufReader::new(reader).lines() {
            let Ok(line) = line else { break };
            if let Some(value) = line.strip_prefix("id:") {
                id = Some(value.trim().to_string());
            } else if let Some(value) = line.strip_prefix("data:") {
                data = serde_json::from_str::<Value>(value.trim()).ok();
            } else if line.is_empty() {
                let id = id.take();
                if let Some(message) = data.take()
                    && tx.send((id, message)).is_err()
                {
                    break;
                }
            }
        }
    });
    rx
}

/// The id of the next `notifications/tools/list_changed` on `stream`.
fn next_list_change(stream: &Receiver<(Option<String>, Value)>) -> String {
    next_of(stream, "notifications/tools/list_changed")
}

/// The id of the next message of `method` on `stream`.
fn next_of(stream: &Receiver<(Option<String>, Value)>, method: &str) -> String {
    loop {
        let (id, message) = stream
            .recv_timeout(DEADLINE)
            .unwrap_or_else(|_| panic!("{method} on the GET stream"));
        if message["method"] == method {
            return id.expect("an event id");
        }
    }
}

#[test]
fn a_get_stream_resumes_on_another_replica_with_the_events_it_missed() {
    let Some((cluster, urls, session)) = opened() else {
        return;
    };
    let dir = cluster.replicas[0].plugins_dir();

    // Replica 0's tools change twice: its session hears both on its GET
    // stream. The client then goes away having read only the first (a
    // stream dropped before the second change would race the server's
    // noticing that it closed: rmcp keeps sending to it until then).
    let stream = events(&urls[0], &session, None);
    std::fs::copy(test_artifacts::FNV, dir.join("fnv.wasm")).unwrap();
    let heard = next_list_change(&stream);
    assert!(!heard.starts_with("l."), "a shared log's id: {heard}");
    std::fs::copy(test_artifacts::PANIC, dir.join("panic.wasm")).unwrap();
    let missed = next_list_change(&stream);
    assert_ne!(missed, heard);
    drop(stream);

    // Resumed after the first on replica 1, which never held the session
    // (nor saw these changes): the second comes from the shared log.
    let moved = events(&urls[1], &session, Some(&heard));
    assert_eq!(next_list_change(&moved), missed, "{}", cluster.logs());
    cluster.replicas[1].wait_for_log("took over an HTTP session from the shared store");
    // Another session's stream cannot be read with its event id.
    let other = open(&urls[1]);
    let foreign = events(&urls[1], &other, Some(&heard));
    let refused = foreign.recv_timeout(DEADLINE);
    assert!(
        matches!(
            refused,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected)
        ),
        "a foreign Last-Event-ID gets an empty stream: {refused:?}"
    );
}

#[test]
fn a_change_every_replica_hears_is_replayed_once() {
    let Some((cluster, urls, session)) = opened() else {
        return;
    };
    // Every replica holds a copy of the session.
    for url in &urls[1..] {
        assert_eq!(in_session(url, &session).post(&tools_list()).status, 200);
    }
    // Sessions that show when replicas 1 and 2 have told their sessions.
    let watchers: Vec<_> = urls[1..]
        .iter()
        .map(|url| events(url, &open(url), None))
        .collect();
    let stream = events(&urls[1], &session, None);
    cluster.install_everywhere(Path::new(test_artifacts::FNV), "fnv.wasm", "fnv", 1);
    // fnv adds tools, resources and prompts: three list changes, in that
    // order.
    let heard = next_of(&stream, "notifications/prompts/list_changed");
    for watcher in &watchers {
        next_list_change(watcher);
    }
    drop(stream);

    // Changed again while the client is away; every copy hears it.
    for watcher in &watchers {
        let _ = watcher.try_iter().count();
    }
    cluster.install_everywhere(Path::new(test_artifacts::PANIC), "panic.wasm", "panic", 1);
    for watcher in &watchers {
        next_list_change(watcher);
    }
    // Resumed on replica 2, then a last change (a plugin with tools and
    // resources): before its resource list change, the stream has the
    // change it missed once, and the last one's tool list change.
    let resumed = events(&urls[2], &session, Some(&heard));
    for replica in &cluster.replicas {
        replica.install(Path::new(test_artifacts::CONFORMANCE), "conformance.wasm");
    }
    let mut read = Vec::new();
    loop {
        let (id, message) = resumed
            .recv_timeout(DEADLINE)
            .unwrap_or_else(|_| panic!("no resources/list_changed: {read:#?}"));
        let method = message["method"].as_str().unwrap_or_default().to_string();
        read.push((method.clone(), id));
        if method == "notifications/resources/list_changed" {
            break;
        }
    }
    let tool_changes = read
        .iter()
        .filter(|(m, _)| m == "notifications/tools/list_changed")
        .count();
    assert_eq!(
        tool_changes,
        2,
        "after {heard}: {read:#?}\n{}",
        cluster.logs()
    );
}

/// The levels of the `notifications/message` that `stream` carries until
/// one at `error` (`log_progress` logs debug, info, warning and error).
fn levels_until_error(stream: &Receiver<Value>) -> Vec<String> {
    let mut levels: Vec<String> = Vec::new();
    while levels.last().is_none_or(|l| l != "error") {
        let message = stream
            .recv_timeout(DEADLINE)
            .expect("the error-level message arrives");
        if message["method"] == "notifications/message" {
            levels.push(message["params"]["level"].as_str().unwrap().into());
        }
    }
    levels
}

#[test]
fn a_logging_level_set_through_one_replica_holds_on_another() {
    let Some(cluster) = Cluster::with_sessions(2, &[test_artifacts::ERRORS]) else {
        return;
    };
    let urls = urls(&cluster);
    let (chatty, quiet) = (open(&urls[0]), open(&urls[0]));
    let set = in_session(&urls[0], &chatty).request("logging/setLevel", json!({"level": "debug"}));
    assert_eq!(set["result"], json!({}), "{set}");
    // Each session's calls on the other replica, which never held them:
    // a call's log messages travel on the session's GET stream there.
    let logged = |session: &str| {
        let mut client = in_session(&urls[1], session);
        let stream = client.listen();
        let reply = client.call(3, "log_progress", json!({}));
        assert_eq!(crate::common::text(&reply["result"]), "logged", "{reply}");
        levels_until_error(&stream)
    };
    assert_eq!(
        logged(&chatty),
        ["debug", "info", "warning", "error"],
        "{}",
        cluster.logs()
    );
    assert_eq!(
        logged(&quiet),
        ["info", "warning", "error"],
        "the other session stays at info"
    );
}

#[test]
fn a_store_that_does_not_answer_gives_503_naming_it_and_the_session_goes_on_after() {
    let Some((cluster, urls, session)) = opened() else {
        return;
    };
    let added = in_session(&urls[0], &session).call_value("add-note", json!({"text": "a"}));
    assert_eq!(added, json!(1));

    cluster.redis.signal("STOP");
    // Where the session is held, and where it is not.
    for url in &urls[..2] {
        let reply = in_session(url, &session).post(&tools_list());
        assert_eq!(reply.status, 503, "{url}: {reply:#?}");
        assert!(
            reply.body.contains("shared session store") && reply.body.contains("retry"),
            "{}",
            reply.body
        );
    }
    cluster.redis.signal("CONT");
    let added = in_session(&urls[1], &session).call_value("add-note", json!({"text": "b"}));
    assert_eq!(added, json!(2), "{}", cluster.logs());
}

/// Runs the SDK session client `script` with `run` (the Python or the
/// Node runner of `common`) through nginx, with six notes, then checks its
/// summary ([`check_session_summary`]); the cluster and the summary, or
/// `None` when the test is skipped.
fn sdk_session(
    run: fn(&str, &[&std::ffi::OsStr]) -> Value,
    script: &str,
) -> Option<(Cluster, Value)> {
    let cluster = cluster(SESSION_NOTES)?;
    let url = cluster.url();
    let args = ["--url", &url, "--notes", "6"];
    let args: Vec<&std::ffi::OsStr> = args.iter().map(AsRef::as_ref).collect();
    let summary = run(script, &args);
    check_session_summary(&cluster, &summary);
    Some((cluster, summary))
}

/// Checks an SDK session client's summary: one session at 2025-11-25 whose
/// notes counted 1 to 6 while its requests landed on every replica, two of
/// which at least took it over.
fn check_session_summary(cluster: &Cluster, summary: &Value) {
    let want: Vec<String> = (1..=6).map(|n| format!("note {n}")).collect();
    assert_eq!(summary["protocol_version"], R4, "{summary}");
    assert_eq!(
        summary["counts"],
        json!([1, 2, 3, 4, 5, 6]),
        "{summary}\n{}",
        cluster.logs()
    );
    assert_eq!(summary["notes"], json!(want), "{summary}");
    // The client's requests landed on every replica, in one session.
    let answered = cluster.nginx.answered_by();
    assert_eq!(answered.len(), cluster.replicas.len(), "{answered:?}");
    // (Each replica's log is read by a thread: wait for the lines.)
    crate::common::eventually(
        DEADLINE,
        || {
            format!(
                "fewer than two replicas took the session over: {answered:?}\n{}",
                cluster.logs()
            )
        },
        || {
            let took_over = cluster
                .replicas
                .iter()
                .filter(|r| r.stderr().contains("took over an HTTP session"))
                .count();
            (took_over >= 2).then_some(())
        },
    );
}

#[test]
fn the_python_sdk_keeps_its_session_across_replicas() {
    sdk_session(
        crate::common::run_python_client,
        "cluster_session_client.py",
    );
}

#[test]
fn the_typescript_sdk_keeps_its_session_across_replicas() {
    let Some((cluster, summary)) =
        sdk_session(crate::common::run_node_client, "cluster-session-client.mjs")
    else {
        return;
    };
    // The SDK's DELETE, through nginx, ended it on every replica.
    let session = summary["session"].as_str().unwrap();
    for url in urls(&cluster) {
        let reply = in_session(&url, session).post(&tools_list());
        assert_eq!(reply.status, 404, "{url}: {reply:#?}\n{}", cluster.logs());
    }
}
