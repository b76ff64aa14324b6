//! The bounds on what clients send to the resource surfaces and keep open
//! (`[server]`'s `max_uri_size`, `max_subscriptions`, `max_listen_streams`):
//! each refusal names its key, over stdio for every request that takes a
//! URI; over HTTP, mebibyte URIs are refused at once or matched in linear
//! time while another session's `ping` is answered, and listen streams with
//! large bodies leave the body budget to the other requests.

#![allow(clippy::unwrap_used)]

use std::sync::mpsc;
use std::time::Duration;

use crate::common::{HttpServer, Server, plugin_dir, r5_meta};
use serde_json::{Value, json};

const V: &str = "2025-11-25";

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
    let started = std::time::Instant::now();
    while !settled(&s.stderr()) {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "{}",
            s.stderr()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
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
    let started = std::time::Instant::now();
    while s.stderr().matches(opened).count() < 2 {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "{}",
            s.stderr()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let listed = s.request("tools/list", json!({"_meta": r5_meta(json!({}))}));
    assert!(listed["result"]["tools"].is_array(), "{listed}");
}

/// Posts `body` to `url` and returns the JSON-RPC messages of the answer.
fn post(
    agent: &ureq::Agent,
    url: &str,
    session: Option<&str>,
    body: &[u8],
) -> (Vec<Value>, Option<String>) {
    let mut request = agent
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream");
    if let Some(session) = session {
        request = request.header("Mcp-Session-Id", session);
    }
    let mut response = request.send(body).unwrap();
    let session = response
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_string());
    let body = response.body_mut().read_to_string().unwrap_or_default();
    (crate::common::json_rpc_messages(&body), session)
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .new_agent()
}

/// A session at 2025-11-25 over HTTP, initialized; its id.
fn session(url: &str) -> String {
    let agent = agent();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": V, "capabilities": {},
                   "clientInfo": {"name": "bounds", "version": "1"}}});
    let (_, id) = post(&agent, url, None, init.to_string().as_bytes());
    let id = id.unwrap();
    let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(&agent, url, Some(&id), done.to_string().as_bytes());
    id
}

/// Two sessions each read a URI of a mebibyte while a third pings; every
/// answer comes back, and the reads get `expected` (a code and a part of
/// the message).
fn huge_reads_and_a_ping(server_section: &str, uri: &str, expected: (i64, &str)) {
    let dir = plugin_dir(&[test_artifacts::CONFORMANCE]);
    let config_dir = tempfile::tempdir().unwrap();
    let config = config_dir.path().join("mcp-wasm-host.toml");
    std::fs::write(&config, format!("[server]\n{server_section}")).unwrap();
    let server = HttpServer::start(dir.path(), &["--config", config.to_str().unwrap()]);
    let (tx, rx) = mpsc::channel();
    let mut readers = Vec::new();
    for n in 0..2 {
        let (url, tx) = (server.url.clone(), tx.clone());
        let sid = session(&url);
        let body = json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read",
                          "params": {"uri": uri}})
        .to_string();
        readers.push(std::thread::spawn(move || {
            let (messages, _) = post(&agent(), &url, Some(&sid), body.as_bytes());
            tx.send((format!("read {n}"), messages)).unwrap();
        }));
    }
    let sid = session(&server.url);
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}).to_string();
    let (messages, _) = post(&agent(), &server.url, Some(&sid), ping.as_bytes());
    tx.send(("ping".into(), messages)).unwrap();
    let mut answers = Vec::new();
    for _ in 0..3 {
        answers.push(rx.recv_timeout(Duration::from_secs(120)).unwrap());
    }
    for (what, messages) in &answers {
        let last = messages
            .last()
            .unwrap_or_else(|| panic!("{what}: no answer"));
        if what == "ping" {
            assert_eq!(last["result"], json!({}), "{last}");
        } else {
            assert_eq!(last["error"]["code"], expected.0, "{what}: {last}");
            assert!(error_message(last).contains(expected.1), "{what}: {last}");
        }
    }
    for reader in readers {
        reader.join().unwrap();
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
            use std::io::BufRead as _;
            let response = agent()
                .post(&url)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .header("MCP-Protocol-Version", "2026-07-28")
                .header("Mcp-Method", "subscriptions/listen")
                .send(body.as_bytes())
                .unwrap();
            let reader = std::io::BufReader::new(response.into_body().into_reader());
            for line in reader.lines() {
                let Ok(line) = line else { break };
                if line.contains("notifications/subscriptions/acknowledged") {
                    tx.send(n).unwrap();
                }
            }
        }));
    }
    let mut acknowledged: Vec<usize> = (0..5)
        .map(|_| rx.recv_timeout(Duration::from_secs(120)).unwrap())
        .collect();
    acknowledged.sort();
    assert_eq!(acknowledged, [0, 1, 2, 3, 4]);
    // Every stream is open, and another request is answered.
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
                          "params": {"_meta": r5_meta(json!({}))}})
    .to_string();
    let mut response = agent()
        .post(&server.url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "tools/list")
        .send(list.as_bytes())
        .unwrap();
    let text = response.body_mut().read_to_string().unwrap();
    let messages = crate::common::json_rpc_messages(&text);
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
