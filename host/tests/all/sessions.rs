//! The bounds on HTTP sessions (`[server]`'s `max_sessions`,
//! `max_sessions_per_address` and `session_idle_timeout`), against the real
//! binary. Clients connect from several loopback addresses (127.0.0.1,
//! 127.0.0.2, …) so that the per-address and the server-wide bounds can be
//! told apart; the per-subject bound is tested with OAuth tokens in
//! `oauth.rs`.
#![allow(clippy::unwrap_used)]

use std::net::SocketAddr;

use crate::common::HttpServer;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// One raw HTTP exchange's answer.
#[derive(Debug)]
struct Raw {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Raw {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC message of the body (JSON or SSE).
    fn message(&self) -> Value {
        crate::common::json_rpc_messages(&self.body)
            .into_iter()
            .find(|m| m.get("result").is_some() || m.get("error").is_some())
            .unwrap_or_else(|| panic!("no JSON-RPC response in {self:#?}"))
    }
}

/// Decodes a chunked HTTP/1.1 body.
fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    out
}

/// Sends one HTTP/1.1 request to `server` from the loopback address
/// `source`, on its own connection, and reads the whole answer.
fn exchange(
    server: &HttpServer,
    source: &str,
    method: &str,
    session: Option<&str>,
    body: Option<&Value>,
) -> Raw {
    let authority = server.authority().to_string();
    let target: SocketAddr = authority.parse().unwrap();
    let mut request = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {authority}\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\n"
    );
    if let Some(session) = session {
        request.push_str(&format!("Mcp-Session-Id: {session}\r\n"));
    }
    let body = body.map(Value::to_string).unwrap_or_default();
    request.push_str(&format!(
        "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    ));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let source: SocketAddr = format!("{source}:0").parse().unwrap();
    let raw = runtime.block_on(async move {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(source).unwrap();
        let mut stream = socket.connect(target).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        tokio::time::timeout(
            std::time::Duration::from_secs(60),
            stream.read_to_end(&mut raw),
        )
        .await
        .expect("the server answers and closes the connection")
        .unwrap();
        raw
    });
    let raw = String::from_utf8_lossy(&raw).to_string();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {raw:?}"));
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_string()
    };
    Raw {
        status,
        headers,
        body,
    }
}

fn initialize_request(id: i64) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "sessions-test", "version": "1"}
        }
    })
}

/// `initialize` from `source`: the answer.
fn initialize(server: &HttpServer, source: &str, id: i64) -> Raw {
    exchange(server, source, "POST", None, Some(&initialize_request(id)))
}

/// The open sessions, as the server's metrics count them.
fn open_sessions(server: &HttpServer) -> u64 {
    let url = server.url.replace("/mcp", "/metrics");
    let mut response = ureq::get(&url).call().unwrap();
    let scrape = response.body_mut().read_to_string().unwrap();
    scrape
        .lines()
        .find_map(|l| l.strip_prefix("mcp_wasm_host_http_sessions "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no session gauge in {scrape}"))
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
    // for it to say so, not for the time to pass.
    server.wait_for_stderr("HTTP session ended");
    assert_eq!(open_sessions(&server), 0);
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
