//! The bounds on what clients send to the resource surfaces and keep open
//! (`[server]`'s `max_uri_size`, `max_subscriptions`, `max_listen_streams`):
//! each refusal names its key, over stdio for every request that takes a
//! URI; over HTTP, mebibyte URIs are refused at once or matched in linear
//! time while another session's `ping` is answered, and listen streams with
//! large bodies leave the body budget to the other requests.

#![allow(clippy::unwrap_used)]

use std::sync::mpsc;

use crate::common::http::{Client, HeldPost};
use crate::common::revision::{R4 as V, R5};
use crate::common::{DEADLINE, HttpServer, Server, eventually, plugin_dir, r5_meta};
use serde_json::{Value, json};

fn error_message(response: &Value) -> String {
    response["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("expected an error: {response}"))
        .to_string()
}

/// A server over stdio with the conformance plugin and `[server]` settings.
fn start(server_section: &str) -> (Server, tempfile::TempDir, tempfile::TempDir) {
    let dir = plugin_dir(&[test_artifacts::CONFORMANCE]);
    let config_dir = tempfile::tempdir().unwrap();
    let config = config_dir.path().join("mcp-wasm-host.toml");
    std::fs::write(&config, format!("[server]\n{server_section}")).unwrap();
    let server = Server::start(dir.path(), &["--config", config.to_str().unwrap()]);
    (server, dir, config_dir)
}

/// A URI of exactly `len` bytes that the conformance plugin's template
/// `test://template/{id}/data` matches.
fn uri_of(len: usize) -> String {
    let frame = "test://template//data".len();
    format!("test://template/{}/data", "7".repeat(len - frame))
}

#[test]
fn every_request_that_names_a_uri_refuses_one_over_max_uri_size() {
    let (mut s, _dir, _config) = start("max_uri_size = \"1 KiB\"\n");
    s.initialize(V);
    type Params = fn(&str) -> Value;
    let surfaces: [(&str, Params); 3] = [
        ("resources/read", |u| json!({"uri": u})),
        ("resources/subscribe", |u| json!({"uri": u})),
        ("completion/complete", |u| {
            json!({"ref": {"type": "ref/resource", "uri": u},
                   "argument": {"name": "id", "value": ""}})
        }),
    ];
    for (method, params) in surfaces {
        for len in [64, 1024, 1025, 64 << 10, 1 << 20] {
            let uri = uri_of(len);
            let response = s.request(method, params(&uri));
            let refused = response["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("`[server] max_uri_size`"));
            assert_eq!(refused, len > 1024, "{method} of {len} bytes: {response}");
            if refused {
                assert_eq!(response["error"]["code"], -32602, "{response}");
                assert!(
                    error_message(&response)
                        .starts_with(&format!("the URI is {len} bytes, over the limit of 1 KiB")),
                    "{response}"
                );
            }
        }
    }
    // A read within the bound reaches the plugin.
    let read = s.request("resources/read", json!({"uri": uri_of(1024)}));
    assert!(read["result"]["contents"][0]["text"].is_string(), "{read}");
}

#[test]
fn a_session_watches_at_most_max_subscriptions_uris() {
    let (mut s, _dir, _config) = start("max_subscriptions = 3\n");
    s.initialize(V);
    for i in 0..3 {
        let ok = s.request("resources/subscribe", json!({"uri": format!("test://{i}")}));
        assert_eq!(ok["result"], json!({}), "{ok}");
    }
    // The same URI again is no new subscription.
    let again = s.request("resources/subscribe", json!({"uri": "test://0"}));
    assert_eq!(again["result"], json!({}), "{again}");
    let refused = s.request("resources/subscribe", json!({"uri": "test://3"}));
    assert!(
        error_message(&refused).contains("`[server] max_subscriptions`"),
        "{refused}"
    );
    s.request("resources/unsubscribe", json!({"uri": "test://1"}));
    let ok = s.request("resources/subscribe", json!({"uri": "test://3"}));
    assert_eq!(ok["result"], json!({}), "{ok}");
}

/// Opens a listen stream for `uris` and waits for its acknowledgment; its
/// id. rmcp acknowledges before the server sees the stream, so a refused
/// stream ends with its error right after.
fn listen(s: &mut Server, uris: &[String]) -> i64 {
    let id = s.send_request(
        "subscriptions/listen",
        json!({"_meta": r5_meta(json!({})),
               "notifications": {"toolsListChanged": true, "resourceSubscriptions": uris}}),
    );
    loop {
        let message = s.recv();
        if message["method"] == "notifications/subscriptions/acknowledged"
            && message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == id
        {
            return id;
        }
        s.notifications.push(message);
    }
}

#[test]
fn a_listen_stream_is_refused_over_its_bounds_naming_the_key() {
    let (mut s, _dir, _config) =
        start("max_uri_size = \"1 KiB\"\nmax_subscriptions = 3\nmax_listen_streams = 2\n");
    let uris = |n: usize, len: usize| -> Vec<String> {
        (0..n)
            .map(|i| format!("{}{i:04}", uri_of(len - 4)))
            .collect()
    };
    for (n, len, key) in [
        (4, 64, "`[server] max_subscriptions`"),
        (1025, 64, "`[server] max_subscriptions`"),
        (1, 1025, "`[server] max_uri_size`"),
        (3, 1 << 20, "`[server] max_uri_size`"),
    ] {
        let id = listen(&mut s, &uris(n, len));
        let refused = s.response(id);
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
        assert!(
            error_message(&refused).contains(key),
            "{n}×{len}: {refused}"
        );
    }
    // A refused stream may be counted open for a moment after its refusal
    // is answered: wait until every stream opened so far has closed.
    let settled = |stderr: &str| {
        stderr
            .matches("a subscriptions/listen stream opened")
            .count()
            == stderr
                .matches("a subscriptions/listen stream closed")
                .count()
    };
    eventually(
        DEADLINE,
        || s.stderr(),
        || settled(&s.stderr()).then_some(()),
    );
    // Within the bounds: two streams stay open, a third is refused.
    let first = listen(&mut s, &uris(3, 1024));
    listen(&mut s, &uris(1, 64));
    let third = listen(&mut s, &[]);
    let refused = s.response(third);
    assert!(
        error_message(&refused).contains("`[server] max_listen_streams`"),
        "{refused}"
    );
    // One closes: a new one is accepted (it gets no error: the next
    // response is the one to a later request).
    s.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": first}}),
    );
    s.wait_for_stderr("a subscriptions/listen stream closed; 1 open");
    listen(&mut s, &uris(3, 1024));
    let opened = "a subscriptions/listen stream opened; 2 open";
    s.wait_for_count(opened, 2);
    let listed = s.request("tools/list", json!({"_meta": r5_meta(json!({}))}));
    assert!(listed["result"]["tools"].is_array(), "{listed}");
}

/// A session at 2025-11-25 over HTTP, initialized; its id.
fn session(url: &str) -> String {
    let mut client = Client::new(url);
    let init = client.initialize(V);
    assert_eq!(init.status, 200, "{init:#?}");
    client.session.unwrap()
}

/// Two sessions each send a read of `uri` (a mebibyte) all but its last
/// byte; while both reads are in flight, a third session's `ping` is
/// answered (the reads cannot be answered before their last byte comes,
/// which is sent only after the pong); then the reads get `expected` (a
/// code and a part of the message). A server that answered nothing else
/// while mebibyte requests were in flight would never answer the ping, and
/// the test fails at the harness's deadline.
fn huge_reads_and_a_ping(server_section: &str, uri: &str, expected: (i64, &str)) {
    let dir = plugin_dir(&[test_artifacts::CONFORMANCE]);
    let config_dir = tempfile::tempdir().unwrap();
    let config = config_dir.path().join("mcp-wasm-host.toml");
    std::fs::write(&config, format!("[server]\n{server_section}")).unwrap();
    let server = HttpServer::start(dir.path(), &["--config", config.to_str().unwrap()]);
    let read = json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read",
                      "params": {"uri": uri}})
    .to_string();
    let [first, second, third] = [(); 3].map(|()| session(&server.url));
    let reads: Vec<HeldPost> = [first, second]
        .iter()
        .map(|sid| HeldPost::start(server.authority(), Some(sid), read.as_bytes(), 1))
        .collect();
    let mut pinger = Client::new(&server.url).with_session(Some(&third));
    let pong = pinger.post(&json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}));
    assert_eq!(pong.response(3)["result"], json!({}), "{pong:#?}");
    for (n, read) in reads.into_iter().enumerate() {
        let reply = read.finish();
        let last = reply
            .messages
            .last()
            .unwrap_or_else(|| panic!("read {n}: no answer: {reply:#?}"));
        assert_eq!(last["error"]["code"], expected.0, "read {n}: {last}");
        assert!(error_message(last).contains(expected.1), "read {n}: {last}");
    }
}

#[test]
fn mebibyte_uris_over_http_are_refused_by_the_bound_while_a_ping_is_answered() {
    let uri = format!("test://template/{}/data", "/".repeat(1 << 20));
    huge_reads_and_a_ping("", &uri, (-32602, "`[server] max_uri_size`"));
}

#[test]
fn mebibyte_uris_within_a_raised_bound_are_matched_in_linear_time() {
    // Long runs of the separator a one-segment variable cannot hold: the
    // backtracking matcher took minutes for two of these.
    let uri = format!("test://template/{}/data", "/".repeat(1 << 20));
    huge_reads_and_a_ping(
        "max_uri_size = \"2 MiB\"\n",
        &uri,
        (-32002, "no resource has the URI"),
    );
}

#[test]
fn listen_streams_with_large_bodies_leave_the_body_budget_to_other_requests() {
    let dir = plugin_dir(&[test_artifacts::ERRORS]);
    let server = HttpServer::start(dir.path(), &["--no-watch"]);
    // Five bodies of 60 MiB each, more than the 256 MiB all bodies held at
    // once may take: spaces between the members, so each is a small listen.
    let listen = json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
        "params": {"_meta": r5_meta(json!({})), "notifications": {"toolsListChanged": true}}})
    .to_string();
    let padded = std::sync::Arc::new(format!(
        "{}{}{}",
        &listen[..1],
        " ".repeat(60 << 20),
        &listen[1..]
    ));
    let (tx, rx) = mpsc::channel();
    let mut streams = Vec::new();
    for n in 0..5 {
        let (url, tx, body) = (server.url.clone(), tx.clone(), padded.clone());
        streams.push(std::thread::spawn(move || {
            let stream = Client::new(&url)
                .with_header("MCP-Protocol-Version", R5)
                .with_header("Mcp-Method", "subscriptions/listen")
                .post_stream(body.as_bytes());
            for message in stream {
                if message["method"] == "notifications/subscriptions/acknowledged" {
                    tx.send(n).unwrap();
                }
            }
        }));
    }
    let mut acknowledged: Vec<usize> = (0..5).map(|_| rx.recv_timeout(DEADLINE).unwrap()).collect();
    acknowledged.sort();
    assert_eq!(acknowledged, [0, 1, 2, 3, 4]);
    // Every stream is open, and another request is answered.
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
                          "params": {"_meta": r5_meta(json!({}))}})
    .to_string();
    let messages = Client::new(&server.url)
        .with_header("MCP-Protocol-Version", R5)
        .with_header("Mcp-Method", "tools/list")
        .post_bytes(list.as_bytes())
        .messages;
    assert!(
        messages.last().unwrap()["result"]["tools"].is_array(),
        "{messages:?}"
    );
    assert!(streams.iter().all(|s| !s.is_finished()));
    drop(server);
    for stream in streams {
        stream.join().unwrap();
    }
}
