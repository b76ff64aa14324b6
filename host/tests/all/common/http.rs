//! The one HTTP client of the tests over Streamable HTTP: JSON-RPC posts
//! that keep the session the server assigns, the session's GET stream,
//! `GET` and `DELETE` of the endpoint, plain `GET`s (metrics, health,
//! metadata), and raw exchanges on a connection of the test's own (from a
//! chosen loopback address, or with the end of the body held back).
#![allow(dead_code, clippy::unwrap_used)]

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};

use serde_json::{Value, json};
use ureq::http::{Request, Response};

use super::DEADLINE;

/// One HTTP response, with its JSON-RPC messages (from a JSON body or from
/// the `data:` lines of an SSE stream).
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    /// Header names as the server sent them; [`Reply::header`] ignores case.
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub messages: Vec<Value>,
}

impl Reply {
    fn new(status: u16, headers: Vec<(String, String)>, body: String) -> Reply {
        let messages = if body.trim().is_empty() {
            Vec::new()
        } else {
            super::json_rpc_messages(&body)
        };
        Reply {
            status,
            headers,
            body,
            messages,
        }
    }

    /// The first value of header `name`, whatever its case.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The session id the server assigned, if any.
    pub fn session(&self) -> Option<&str> {
        self.header("mcp-session-id")
    }

    /// The response to request `id`.
    pub fn response(&self, id: i64) -> &Value {
        self.messages
            .iter()
            .find(|m| m["id"] == id && is_response(m))
            .unwrap_or_else(|| panic!("no response to {id} in {self:#?}"))
    }

    /// The (first) JSON-RPC response of the reply, whatever its id.
    pub fn message(&self) -> Value {
        self.messages
            .iter()
            .find(|m| is_response(m))
            .cloned()
            .unwrap_or_else(|| panic!("no JSON-RPC response in {self:#?}"))
    }
}

/// Whether `m` is a response (a result or an error), not a request or a
/// notification.
pub fn is_response(m: &Value) -> bool {
    m.get("result").is_some() || m.get("error").is_some()
}

/// An agent that returns every status as a response, with the harness's
/// deadline as its timeout.
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(DEADLINE))
        .build()
        .new_agent()
}

/// The headers of a ureq response, as pairs.
fn headers_of(response: &Response<ureq::Body>) -> Vec<(String, String)> {
    response
        .headers()
        .iter()
        .map(|(k, v)| {
            (
                k.to_string(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect()
}

/// The whole body of a response, however large.
fn body_of(response: &mut Response<ureq::Body>) -> String {
    response
        .body_mut()
        .with_config()
        .limit(u64::MAX)
        .read_to_string()
        .unwrap_or_default()
}

/// `GET url`: its status and body.
pub fn get(url: &str) -> (u16, String) {
    try_get(url).unwrap()
}

/// `GET url`: its status and body, or why no answer came (nothing listens,
/// say).
pub fn try_get(url: &str) -> Result<(u16, String), ureq::Error> {
    let mut response = agent().get(url).call()?;
    Ok((response.status().as_u16(), body_of(&mut response)))
}

/// A JSON-RPC client of one MCP endpoint, keeping the session id the server
/// assigns and sending its own headers with every request.
pub struct Client {
    agent: ureq::Agent,
    pub url: String,
    /// The session (`Mcp-Session-Id`) the requests name; set from the
    /// server's answers, or by a test that borrows another's.
    pub session: Option<String>,
    headers: Vec<(String, String)>,
    next_id: i64,
}

impl Client {
    pub fn new(url: &str) -> Client {
        Client {
            agent: agent(),
            url: url.to_string(),
            session: None,
            headers: Vec::new(),
            next_id: 1,
        }
    }

    /// Sends `name: value` with every request.
    pub fn with_header(mut self, name: &str, value: &str) -> Client {
        self.add_header(name, value);
        self
    }

    /// Sends `name: value` with every request from now on.
    pub fn add_header(&mut self, name: &str, value: &str) {
        self.headers.push((name.into(), value.into()));
    }

    /// Sends `Authorization: Bearer TOKEN` with every request.
    pub fn with_token(self, token: &str) -> Client {
        self.with_header("Authorization", &format!("Bearer {token}"))
    }

    /// Names `session` in every request.
    pub fn with_session(mut self, session: Option<&str>) -> Client {
        self.session = session.map(str::to_string);
        self
    }

    /// Posts one JSON-RPC message.
    pub fn post(&mut self, message: &Value) -> Reply {
        self.post_bytes(message.to_string().as_bytes())
    }

    /// Posts `body` as it is (it need not be JSON).
    pub fn post_bytes(&mut self, body: &[u8]) -> Reply {
        let mut response = self.send_post(body).unwrap();
        let body = body_of(&mut response);
        self.keep_session(&response, body)
    }

    /// Posts one JSON-RPC message; an error if no whole answer came (the
    /// connection failed or closed before the body's end).
    pub fn try_post(&mut self, message: &Value) -> Result<Reply, ureq::Error> {
        let mut response = self.send_post(message.to_string().as_bytes())?;
        let body = response
            .body_mut()
            .with_config()
            .limit(u64::MAX)
            .read_to_string()?;
        Ok(self.keep_session(&response, body))
    }

    /// Sends a POST of `body` with the client's headers and session.
    fn send_post(&self, body: &[u8]) -> Result<Response<ureq::Body>, ureq::Error> {
        let mut request = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream");
        if let Some(session) = &self.session {
            request = request.header("Mcp-Session-Id", session);
        }
        for (k, v) in &self.headers {
            request = request.header(k, v);
        }
        request.send(body)
    }

    /// The reply of `response` with its `body`, keeping the session id it
    /// assigns.
    fn keep_session(&mut self, response: &Response<ureq::Body>, body: String) -> Reply {
        let reply = Reply::new(response.status().as_u16(), headers_of(response), body);
        if let Some(id) = reply.session() {
            self.session = Some(id.to_string());
        }
        reply
    }

    /// Posts `body` whose answer is an event stream that stays open (a
    /// 2026-07-28 `subscriptions/listen`); returns its JSON-RPC messages as
    /// they arrive, until the stream ends.
    pub fn post_stream(&self, body: &[u8]) -> std::sync::mpsc::Receiver<Value> {
        let response = self.send_post(body).unwrap();
        sse_messages(response.into_body().into_reader())
    }

    /// A `GET` (the session's event stream) or `DELETE` of the endpoint;
    /// the body is read only when the answer is not an open event stream.
    pub fn send(&self, verb: &str) -> Reply {
        let mut request = Request::builder()
            .method(verb)
            .uri(&self.url)
            .header("Accept", "text/event-stream");
        if let Some(session) = &self.session {
            request = request.header("Mcp-Session-Id", session);
        }
        for (k, v) in &self.headers {
            request = request.header(k, v);
        }
        let mut response = self.agent.run(request.body(()).unwrap()).unwrap();
        let headers = headers_of(&response);
        let stream = response
            .headers()
            .get("content-type")
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
        let body = if stream {
            String::new()
        } else {
            body_of(&mut response)
        };
        Reply::new(response.status().as_u16(), headers, body)
    }

    /// Opens the session's standalone SSE stream (GET), where the server
    /// sends messages not tied to one request, such as log notifications;
    /// returns its JSON-RPC messages as they arrive.
    pub fn listen(&self) -> std::sync::mpsc::Receiver<Value> {
        let mut request = self
            .agent
            .get(&self.url)
            .header("Accept", "text/event-stream");
        if let Some(session) = &self.session {
            request = request.header("Mcp-Session-Id", session);
        }
        for (k, v) in &self.headers {
            request = request.header(k, v);
        }
        let response = request.call().unwrap();
        assert_eq!(response.status().as_u16(), 200, "GET stream refused");
        sse_messages(response.into_body().into_reader())
    }

    /// The handshake at `version` (`initialize`, id 1, then
    /// `notifications/initialized` if it succeeded); the `initialize`
    /// reply.
    pub fn initialize(&mut self, version: &str) -> Reply {
        let reply = self.post(&initialize_request(1, version));
        if reply.status == 200 {
            let ack = self.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
            assert_eq!(ack.status, 202, "{ack:#?}");
        }
        reply
    }

    /// A request with the next id; its JSON-RPC response, after asserting
    /// HTTP 200.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let reply = self.post(&json!({
            "jsonrpc": "2.0", "id": id, "method": method, "params": params
        }));
        assert_eq!(reply.status, 200, "{method}: {reply:#?}");
        reply.response(id).clone()
    }

    /// `tools/call` of `name` with the next id, which must succeed; the
    /// `result` of its structured content (what a generic component's
    /// function returned).
    pub fn call_value(&mut self, name: &str, arguments: Value) -> Value {
        let params = json!({"name": name, "arguments": arguments});
        let response = self.request("tools/call", params.clone());
        let result = &response["result"];
        assert_ne!(result["isError"], json!(true), "{params}: {response}");
        result["structuredContent"]["result"].clone()
    }

    /// `tools/call` of `name` with id `id`; the response message, after
    /// asserting HTTP 200.
    pub fn call(&mut self, id: i64, name: &str, arguments: Value) -> Value {
        self.call_with(id, json!({"name": name, "arguments": arguments}))
    }

    /// `tools/call` with these params and id `id`; the response message.
    pub fn call_with(&mut self, id: i64, params: Value) -> Value {
        let reply = self.post(&json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params
        }));
        assert_eq!(reply.status, 200, "{reply:#?}");
        reply.response(id).clone()
    }
}

/// An `initialize` request with id `id` at `version`.
pub fn initialize_request(id: i64, version: &str) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "mcp-wasm-host-tests", "version": "0"}
        }
    })
}

/// The JSON-RPC messages of an SSE stream, sent on as they arrive (the
/// channel ends with the stream).
pub fn sse_messages(
    reader: impl std::io::Read + Send + 'static,
) -> std::sync::mpsc::Receiver<Value> {
    use std::io::BufRead as _;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(reader).lines() {
            let Ok(line) = line else { break };
            let Some(data) = line.strip_prefix("data:").map(str::trim) else {
                continue;
            };
            if data.is_empty() {
                continue;
            }
            if tx.send(serde_json::from_str(data).unwrap()).is_err() {
                break;
            }
        }
    });
    rx
}

/// The bytes of an HTTP/1.1 request for `/mcp` at `authority`, with
/// `Connection: close` and the session and body given.
fn raw_request(authority: &str, method: &str, session: Option<&str>, body: &[u8]) -> Vec<u8> {
    let mut head = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {authority}\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\n"
    );
    if let Some(session) = session {
        head.push_str(&format!("Mcp-Session-Id: {session}\r\n"));
    }
    head.push_str(&format!(
        "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    ));
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// Sends one HTTP/1.1 request for `/mcp` to `authority` from the loopback
/// address `source`, on its own connection, and reads the whole answer.
pub fn exchange_from(
    authority: &str,
    source: &str,
    method: &str,
    session: Option<&str>,
    body: Option<&Value>,
) -> Reply {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let target: SocketAddr = authority.parse().unwrap();
    let body = body.map(Value::to_string).unwrap_or_default();
    let request = raw_request(authority, method, session, body.as_bytes());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let source: SocketAddr = format!("{source}:0").parse().unwrap();
    let raw = runtime.block_on(async move {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(source).unwrap();
        let mut stream = socket.connect(target).await.unwrap();
        stream.write_all(&request).await.unwrap();
        let mut raw = Vec::new();
        tokio::time::timeout(DEADLINE, stream.read_to_end(&mut raw))
            .await
            .expect("the server answers and closes the connection")
            .unwrap();
        raw
    });
    parse_raw(&raw)
}

/// A POST on a connection of its own whose last bytes are held back until
/// [`HeldPost::finish`]: the server has the request and most of its body,
/// and cannot answer it before the rest arrives.
pub struct HeldPost {
    stream: TcpStream,
    rest: Vec<u8>,
}

impl HeldPost {
    /// Sends all of the POST of `body` to `authority` (in `session`) but
    /// its last `held` bytes.
    pub fn start(authority: &str, session: Option<&str>, body: &[u8], held: usize) -> HeldPost {
        let request = raw_request(authority, "POST", session, body);
        let (sent, rest) = request.split_at(request.len() - held);
        let mut stream = TcpStream::connect(authority).unwrap();
        stream.write_all(sent).unwrap();
        stream.flush().unwrap();
        HeldPost {
            stream,
            rest: rest.to_vec(),
        }
    }

    /// Sends the bytes held back and reads the whole answer.
    pub fn finish(mut self) -> Reply {
        self.stream.write_all(&self.rest).unwrap();
        self.stream.set_read_timeout(Some(DEADLINE)).unwrap();
        let mut raw = Vec::new();
        self.stream
            .read_to_end(&mut raw)
            .expect("the server answers and closes the connection");
        parse_raw(&raw)
    }
}

/// An HTTP/1.1 answer read whole from its connection.
fn parse_raw(raw: &[u8]) -> Reply {
    let raw = String::from_utf8_lossy(raw).to_string();
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
    Reply::new(status, headers, body)
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

/// The value of the sample `series` (a metric name with its labels, as the
/// scrape writes them: `mcp_wasm_host_http_sessions` or
/// `mcp_wasm_host_calls_running{plugin="p"}`) in a Prometheus scrape;
/// `None` if the scrape has no such sample.
pub fn sample(scrape: &str, series: &str) -> Option<f64> {
    scrape.lines().find_map(|l| {
        l.strip_prefix(series)?
            .strip_prefix(' ')?
            .trim()
            .parse()
            .ok()
    })
}

/// The series of the calls of `plugin` running now.
pub fn calls_running(plugin: &str) -> String {
    format!("mcp_wasm_host_calls_running{{plugin=\"{plugin}\"}}")
}

/// The series of the calls of `plugin`'s `tool` that ended with `outcome`.
pub fn calls_ended(plugin: &str, tool: &str, outcome: &str) -> String {
    format!(
        "mcp_wasm_host_calls_total{{plugin=\"{plugin}\",tool=\"{tool}\",outcome=\"{outcome}\"}}"
    )
}
