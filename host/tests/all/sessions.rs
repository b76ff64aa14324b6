//! The bounds on HTTP sessions (`[server]`'s `max_sessions`,
//! `max_sessions_per_address` and `session_idle_timeout`), against the real
//! binary. Clients connect from several loopback addresses (127.0.0.1,
//! 127.0.0.2, …) so that the per-address and the server-wide bounds can be
//! told apart; the per-subject bound is tested with OAuth tokens in
//! `oauth.rs`.
#![allow(clippy::unwrap_used)]

use crate::common::HttpServer;
use crate::common::http::{Reply, exchange_from, initialize_request, sample};
use crate::common::revision::R4;
use serde_json::{Value, json};

/// Sends one HTTP/1.1 request to `server` from the loopback address
/// `source`, on its own connection, and reads the whole answer.
fn exchange(
    server: &HttpServer,
    source: &str,
    method: &str,
    session: Option<&str>,
    body: Option<&Value>,
) -> Reply {
    exchange_from(server.authority(), source, method, session, body)
}

/// `initialize` from `source`: the answer.
fn initialize(server: &HttpServer, source: &str, id: i64) -> Reply {
    exchange(
        server,
        source,
        "POST",
        None,
        Some(&initialize_request(id, R4)),
    )
}

/// The session gauge of the server's metrics.
const SESSIONS: &str = "mcp_wasm_host_http_sessions";

/// The open sessions, as the server's metrics count them.
fn open_sessions(server: &HttpServer) -> u64 {
    let scrape = server.scrape();
    sample(&scrape, SESSIONS).unwrap_or_else(|| panic!("no session gauge in {scrape}")) as u64
}

fn start(server_keys: &str) -> (tempfile::TempDir, HttpServer) {
    let policy = format!("[server]\n{server_keys}\n");
    let (dir, plugins, config) =
        crate::common::plugins_with_policy(&[test_artifacts::ENCODING], &policy);
    let server = HttpServer::start(&plugins, &["--no-watch", "--config", &config]);
    (dir, server)
}

/// What one `initialize` of the table must get.
enum Expect {
    /// A session.
    Opened,
    /// This status and the key in the JSON-RPC error.
    Refused(u16, &'static str),
}

#[test]
fn each_session_bound_refuses_with_its_key_and_a_closed_session_frees_its_slot() {
    let (_dir, server) = start("max_sessions = 3\nmax_sessions_per_address = 2");
    let mut held: Vec<(&str, String)> = Vec::new();
    let per_address = Expect::Refused(429, "server.max_sessions_per_address");
    let full = || Expect::Refused(503, "server.max_sessions");
    // (from, what it gets); `None` closes the first session held instead
    // (its `Expect` is not read).
    let steps: Vec<(Option<&str>, Expect)> = vec![
        (Some("127.0.0.1"), Expect::Opened),
        (Some("127.0.0.1"), Expect::Opened),
        (Some("127.0.0.1"), per_address),
        (Some("127.0.0.2"), Expect::Opened),
        (Some("127.0.0.3"), full()),
        (Some("127.0.0.2"), full()),
        // A closed session frees its server-wide slot and its address's.
        (None, Expect::Opened),
        (Some("127.0.0.3"), Expect::Opened),
        (Some("127.0.0.1"), full()),
        (None, Expect::Opened),
        (None, Expect::Opened),
        (Some("127.0.0.1"), Expect::Opened),
        (Some("127.0.0.1"), Expect::Opened),
        (Some("127.0.0.2"), full()),
        (None, Expect::Opened),
        (
            Some("127.0.0.1"),
            Expect::Refused(429, "server.max_sessions_per_address"),
        ),
        (Some("127.0.0.2"), Expect::Opened),
    ];
    for (step, (from, expect)) in steps.into_iter().enumerate() {
        let Some(from) = from else {
            let (source, session) = held.remove(0);
            let closed = exchange(&server, source, "DELETE", Some(&session), None);
            assert_eq!(closed.status, 202, "step {step}: {closed:#?}");
            continue;
        };
        let id = 100 + step as i64;
        let reply = initialize(&server, from, id);
        match expect {
            Expect::Opened => {
                assert_eq!(reply.status, 200, "step {step}: {reply:#?}");
                let session = reply.header("mcp-session-id").unwrap().to_string();
                held.push((from, session));
            }
            Expect::Refused(status, key) => {
                assert_eq!(reply.status, status, "step {step}: {reply:#?}");
                assert!(reply.header("mcp-session-id").is_none());
                let retry: u64 = reply.header("retry-after").unwrap().parse().unwrap();
                assert_eq!(retry, 300, "the idle timeout, in seconds");
                let message = reply.message();
                assert_eq!(message["id"], id, "{message}");
                let error = &message["error"];
                assert_eq!(error["code"], -32000, "{message}");
                assert_eq!(error["data"]["policy_key"], key, "{message}");
                assert!(
                    error["message"]
                        .as_str()
                        .unwrap()
                        .contains(&format!("`{key}`")),
                    "{message}"
                );
            }
        }
        assert_eq!(open_sessions(&server), held.len() as u64, "step {step}");
    }
    // The sessions held work; a request that opens no session is not
    // refused for the bound (rmcp asks for a session id instead).
    for (source, session) in &held {
        let ping = json!({"jsonrpc": "2.0", "id": 7, "method": "ping"});
        let reply = exchange(&server, source, "POST", Some(session), Some(&ping));
        assert_eq!(reply.status, 200, "{reply:#?}");
    }
    let ping = json!({"jsonrpc": "2.0", "id": 8, "method": "ping"});
    let reply = exchange(&server, "127.0.0.1", "POST", None, Some(&ping));
    assert!(![429, 503].contains(&reply.status), "{reply:#?}");
    let log = server.stderr();
    assert!(
        log.contains("refused a new session") && log.contains("server.max_sessions_per_address"),
        "{log}"
    );
    // Every session closed: none left.
    for (source, session) in held.drain(..) {
        let closed = exchange(&server, source, "DELETE", Some(&session), None);
        assert_eq!(closed.status, 202, "{closed:#?}");
        let again = exchange(&server, source, "DELETE", Some(&session), None);
        assert_eq!(again.status, 404, "{again:#?}");
    }
    assert_eq!(open_sessions(&server), 0);
}

#[test]
fn an_idle_session_expires_and_frees_its_slot() {
    let (_dir, server) = start("max_sessions = 1\nsession_idle_timeout = \"1s\"");
    let opened = initialize(&server, "127.0.0.1", 1);
    assert_eq!(opened.status, 200, "{opened:#?}");
    let session = opened.header("mcp-session-id").unwrap().to_string();
    // The server ends the session once it has been idle for a second: wait
    // for its gauge to show it, not for the time to pass.
    server.wait_for_sample(SESSIONS, |open| open == 0.0);
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    for (method, body) in [("POST", Some(&list)), ("GET", None), ("DELETE", None)] {
        let gone = exchange(&server, "127.0.0.1", method, Some(&session), body);
        assert_eq!(gone.status, 404, "{method}: {gone:#?}");
        let message: Value = serde_json::from_str(&gone.body).unwrap();
        assert_eq!(message["error"]["code"], -32001, "{message}");
        let id = if method == "POST" {
            json!(2)
        } else {
            Value::Null
        };
        assert_eq!(message["id"], id, "{message}");
    }
    // Its slot is free again.
    let again = initialize(&server, "127.0.0.1", 3);
    assert_eq!(again.status, 200, "{again:#?}");
}

/// An HTTP session's id works as a credential (without OAuth, whoever has
/// it speaks in the session): no log line names it, whatever `RUST_LOG`
/// asks for, through a session's whole life (opened, a call, its `GET`
/// stream, closed). rmcp would put it in a span around every line logged
/// during a call and in a field of its own lines.
#[test]
fn no_log_line_names_a_sessions_id_at_any_level() {
    for level in [
        "info",
        "debug",
        "debug,rmcp=trace,mcp_wasm_host=trace,hyper=trace",
    ] {
        let (dir, plugins, config) =
            crate::common::plugins_with_policy(&[test_artifacts::ENCODING], "");
        let server = HttpServer::start_with_env(
            &plugins,
            &["--no-watch", "--config", &config],
            &[("RUST_LOG", level)],
        );
        let mut client = crate::common::http::Client::new(&server.url);
        let reply = client.initialize(R4);
        assert_eq!(reply.status, 200, "{reply:#?}");
        let session = reply.session().expect("a session id").to_string();
        client.session = Some(session.clone());
        client.call_value("hash", json!({"text": "abc"}));
        let _events = client.listen();
        let closed = client.send("DELETE");
        assert!((200..300).contains(&closed.status), "{closed:?}");
        server.wait_for_stderr("HTTP session ended");
        let logs = server.stderr();
        assert!(
            logs.contains("audit: call"),
            "the call was not logged at {level}:\n{logs}"
        );
        assert!(
            !logs.contains(&session),
            "RUST_LOG={level}: a log line names the session's id {session}:\n{logs}"
        );
        drop(dir);
    }
}
