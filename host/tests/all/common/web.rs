//! A real web server on 127.0.0.1 for the outbound HTTP tests: pages, plain
//! text, large and never-ending answers, redirects, an echo (also under
//! `/api/`, beside an `/admin` a path prefix must keep out), and a small
//! emulation of GitHub's issues API that checks the bearer token. It records
//! every request that arrives, so a test can show what reached it and what
//! never did.
#![allow(dead_code, clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use serde_json::{Value, json};

/// The page `/page` serves: headings, a link, a list, and a script and a
/// style whose text must not reach a reader.
pub const PAGE: &str = "<!DOCTYPE html><html><head><title>Test page</title>\
<style>body { color: SECRET_STYLE_TEXT; }</style></head><body>\
<h1>Main heading</h1><p>Read the <a href=\"https://example.com/docs\">docs</a> first.</p>\
<h2>Second heading</h2><ul><li>first item</li><li>second item</li></ul>\
<script>var hidden = 'SECRET_SCRIPT_TEXT';</script>\
<p>The end of the page.</p></body></html>";

/// The text `/text` serves.
pub const TEXT: &str = "plain text from the test server\n";

/// One request as it arrived.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    /// The path exactly as the request line carried it.
    pub path: String,
    pub query: Option<String>,
    /// Header names lowercase, in arrival order.
    pub headers: Vec<(String, String)>,
}

impl Recorded {
    /// The first value of header `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// An issue of the emulated GitHub.
#[derive(Debug, Clone)]
struct Issue {
    number: u64,
    title: String,
    body: Option<String>,
    html_url: String,
}

#[derive(Debug, Default)]
struct Shared {
    /// The token `/repos/...` requires as `Authorization: Bearer TOKEN`.
    token: String,
    requests: Mutex<Vec<Recorded>>,
    issues: Mutex<Vec<Issue>>,
}

/// The server; it stops when dropped.
#[derive(Debug)]
pub struct WebServer {
    /// The port it listens on, on 127.0.0.1.
    pub port: u16,
    shared: Arc<Shared>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl WebServer {
    /// A server whose GitHub emulation accepts no token.
    pub fn start() -> WebServer {
        Self::with_token("")
    }

    /// A server whose GitHub emulation requires `Authorization: Bearer
    /// {token}`.
    pub fn with_token(token: &str) -> WebServer {
        let shared = Arc::new(Shared {
            token: token.to_string(),
            ..Shared::default()
        });
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let app = Router::new()
            .route("/page", get(|| async { html(PAGE) }))
            .route("/text", get(|| async { TEXT }))
            .route("/big", get(big))
            .route("/slow", get(slow))
            .route("/redirect", get(redirect))
            .route("/echo", any(echo))
            .route("/api", any(echo))
            .route("/api/{*rest}", any(echo))
            .route("/admin", any(|| async { "the admin page" }))
            .route(
                "/repos/{owner}/{repo}/issues",
                get(list_issues).post(create_issue),
            )
            .fallback(|| async { StatusCode::NOT_FOUND })
            .layer(middleware::from_fn_with_state(shared.clone(), record))
            .with_state(shared.clone());
        // `localhost` may resolve to ::1 first: serve the same port there
        // too when the machine has IPv6 loopback and the port is free.
        let v6 = std::net::TcpListener::bind(("::1", port)).ok();
        for listener in std::iter::once(listener).chain(v6) {
            listener.set_nonblocking(true).unwrap();
            let app = app.clone();
            runtime.spawn(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                axum::serve(listener, app).await.unwrap();
            });
        }
        WebServer {
            port,
            shared,
            runtime: Some(runtime),
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// `http://127.0.0.1:PORT{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.origin())
    }

    /// `http://localhost:PORT{path}`: the same server by a name that
    /// resolves to loopback.
    pub fn localhost_url(&self, path: &str) -> String {
        format!("http://localhost:{}{path}", self.port)
    }

    /// Every request that arrived, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// The requests that arrived for `path`.
    pub fn requests_to(&self, path: &str) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| r.path == path)
            .collect()
    }
}

impl Drop for WebServer {
    fn drop(&mut self) {
        // Connections held open by `/slow` must not keep the test waiting.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

async fn record(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    let recorded = Recorded {
        method: request.method().to_string(),
        path: request.uri().path().to_string(),
        query: request.uri().query().map(str::to_string),
        headers: request
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
    };
    shared.requests.lock().unwrap().push(recorded);
    next.run(request).await
}

/// The value of `name` in a query string (not percent-decoded: the tests
/// pass plain values).
fn query_param<'a>(request: &'a Request, name: &str) -> Option<&'a str> {
    request
        .uri()
        .query()?
        .split('&')
        .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
}

fn html(body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
}

/// `/big?bytes=N`: N bytes of `x`.
async fn big(request: Request) -> Response {
    let n: usize = query_param(&request, "bytes")
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    ([(header::CONTENT_TYPE, "text/plain")], vec![b'x'; n]).into_response()
}

/// `/slow`: never answers; the future is dropped when the client hangs up.
async fn slow() -> Response {
    std::future::pending::<()>().await;
    StatusCode::NO_CONTENT.into_response()
}

/// `/redirect?to=URL`: 302 to URL (everything after `to=`, taken as is).
async fn redirect(request: Request) -> Response {
    let to = request
        .uri()
        .query()
        .and_then(|q| q.strip_prefix("to="))
        .unwrap_or("/text")
        .to_string();
    (StatusCode::FOUND, [(header::LOCATION, to)]).into_response()
}

/// `/echo`: any method; JSON of the method, path, query, headers and body
/// length.
async fn echo(request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = to_bytes(body, usize::MAX).await.unwrap_or_default();
    let headers: BTreeMap<String, String> = parts
        .headers
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_string(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    json_response(
        StatusCode::OK,
        &json!({
            "method": parts.method.as_str(),
            "path": parts.uri.path(),
            "query": parts.uri.query(),
            "headers": headers,
            "body_length": body.len(),
        }),
    )
}

fn json_response(status: StatusCode, value: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
        value.to_string(),
    )
        .into_response()
}

/// GitHub's answer to a missing or wrong token, or `None` if the request
/// carries the server's token.
fn unauthorized(shared: &Shared, headers: &HeaderMap) -> Option<Response> {
    let expected = format!("Bearer {}", shared.token);
    let message = match headers.get(header::AUTHORIZATION) {
        Some(v) if !shared.token.is_empty() && v.as_bytes() == expected.as_bytes() => return None,
        Some(_) => "Bad credentials",
        None => "Requires authentication",
    };
    Some(json_response(
        StatusCode::UNAUTHORIZED,
        &json!({"message": message, "documentation_url": "https://docs.github.com/rest", "status": "401"}),
    ))
}

fn issue_json(issue: &Issue) -> Value {
    json!({
        "number": issue.number,
        "title": issue.title,
        "body": issue.body,
        "state": "open",
        "html_url": issue.html_url,
    })
}

async fn list_issues(
    State(shared): State<Arc<Shared>>,
    Path((_owner, _repo)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    if let Some(denied) = unauthorized(&shared, &headers) {
        return denied;
    }
    let issues = shared.issues.lock().unwrap();
    let list: Vec<Value> = issues.iter().rev().map(issue_json).collect();
    json_response(StatusCode::OK, &Value::Array(list))
}

async fn create_issue(
    State(shared): State<Arc<Shared>>,
    Path((owner, repo)): Path<(String, String)>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    if let Some(denied) = unauthorized(&shared, &headers) {
        return denied;
    }
    let bytes = to_bytes(body, 1 << 20).await.unwrap_or_default();
    let payload: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let Some(title) = payload["title"].as_str() else {
        return json_response(
            StatusCode::UNPROCESSABLE_ENTITY,
            &json!({"message": "Validation Failed", "status": "422"}),
        );
    };
    let mut issues = shared.issues.lock().unwrap();
    let number = issues.len() as u64 + 1;
    let issue = Issue {
        number,
        title: title.to_string(),
        body: payload["body"].as_str().map(str::to_string),
        html_url: format!("https://github.com/{owner}/{repo}/issues/{number}"),
    };
    let answer = issue_json(&issue);
    issues.push(issue);
    json_response(StatusCode::CREATED, &answer)
}
