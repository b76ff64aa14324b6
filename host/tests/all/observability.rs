//! Metrics, health checks, the graceful shutdown and traces against the
//! real binary: the exact counters after known calls of known outcomes, the
//! metrics listener of a stdio server, a SIGTERM while a call runs (not
//! ready, no new connections, the call still answered, exit 0), and the
//! spans an OTLP collector on 127.0.0.1 receives for calls that name their
//! trace in `_meta` or in the `traceparent` header.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpListener;
use std::sync::mpsc;

use crate::common::http::{Client, get};
use crate::common::revision::R4;
use crate::common::{DEADLINE, HttpServer, Server, eventually};
use serde_json::{Value, json};

/// The sample lines of a scrape (no comments), for exact matching.
fn samples(text: &str) -> Vec<&str> {
    text.lines().filter(|l| !l.starts_with('#')).collect()
}

fn assert_sample(scrape: &str, line: &str) {
    assert!(
        samples(scrape).contains(&line),
        "{line:?} is not in the scrape:\n{scrape}"
    );
}

/// GETs `url` until it answers `status`; the body.
fn wait_for_status(url: &str, status: u16) -> String {
    eventually(
        DEADLINE,
        || format!("{url} never answered {status}"),
        || {
            let (got, body) = get(url);
            (got == status).then_some(body)
        },
    )
}

#[test]
fn metrics_count_every_call_by_plugin_tool_and_outcome() {
    let (_dir, plugins, config) = crate::common::plugins_with_policy(
        &[test_artifacts::ERRORS],
        "[plugins.errors]\nrate_limit = 3\n",
    );
    let server = HttpServer::start(&plugins, &["--no-watch", "--config", &config]);
    let base = server.url.trim_end_matches("/mcp").to_string();
    let mut client = Client::new(&server.url);
    assert_eq!(client.initialize(R4).status, 200);

    let mut id = 1;
    let mut call = |name: &str, arguments: Value| {
        id += 1;
        client.call(id, name, arguments)
    };
    for _ in 0..3 {
        let ok = call("structured", json!({"text": "a b"}));
        assert_eq!(ok["result"]["isError"], false, "{ok}");
    }
    let limited = call("structured", json!({"text": "a b"}));
    assert!(
        crate::common::text(&limited["result"]).contains("`rate_limit`"),
        "{limited}"
    );
    for _ in 0..2 {
        let marked = call("is_error_result", json!({}));
        assert_eq!(marked["result"]["isError"], true, "{marked}");
    }
    let trapped = call("unreachable", json!({}));
    assert_eq!(trapped["result"]["isError"], true, "{trapped}");
    let unknown = call("no_such_tool_from_a_client", json!({}));
    assert!(unknown.get("error").is_some(), "{unknown}");

    let (status, scrape) = get(&format!("{base}/metrics"));
    assert_eq!(status, 200);
    let p = "mcp_wasm_host_";
    for line in [
        format!("{p}calls_total{{plugin=\"errors\",tool=\"structured\",outcome=\"ok\"}} 3"),
        format!(
            "{p}calls_total{{plugin=\"errors\",tool=\"structured\",outcome=\"rate_limited\"}} 1"
        ),
        format!(
            "{p}calls_total{{plugin=\"errors\",tool=\"is_error_result\",outcome=\"tool_error\"}} 2"
        ),
        format!("{p}calls_total{{plugin=\"errors\",tool=\"unreachable\",outcome=\"trap\"}} 1"),
        format!(
            "{p}limit_hits_total{{plugin=\"errors\",tool=\"structured\",limit=\"rate_limit\"}} 1"
        ),
        format!("{p}unknown_tool_calls_total 1"),
        // Every call is timed; fuel and memory count the calls whose guest
        // ran (not the refused one).
        format!("{p}call_duration_seconds_count{{plugin=\"errors\",tool=\"structured\"}} 4"),
        format!("{p}call_fuel_count{{plugin=\"errors\",tool=\"structured\"}} 3"),
        format!("{p}call_peak_memory_bytes_count{{plugin=\"errors\",tool=\"unreachable\"}} 1"),
        format!("{p}calls_running{{plugin=\"errors\"}} 0"),
        format!("{p}calls_waiting{{plugin=\"errors\"}} 0"),
        format!("{p}plugins_loaded 1"),
        format!("{p}plugin_load_failures_total 0"),
        format!("{p}http_sessions 1"),
    ] {
        assert_sample(&scrape, &line);
    }
    assert!(
        !scrape.contains("no_such_tool_from_a_client"),
        "a client's tool name made a series:\n{scrape}"
    );
    assert!(
        scrape.ends_with("# EOF\n"),
        "not OpenMetrics text:\n{scrape}"
    );

    // Health next to /mcp, without the bearer token.
    assert_eq!(get(&format!("{base}/healthz")), (200, "ok\n".to_string()));
    assert_eq!(get(&format!("{base}/readyz")), (200, "ready\n".to_string()));
}

#[test]
fn a_stdio_server_serves_metrics_on_its_own_address() {
    let plugins = crate::common::plugin_dir(&[test_artifacts::ERRORS]);
    let mut server = Server::initialized(
        plugins.path(),
        &["--no-watch", "--metrics-addr", "127.0.0.1:0"],
        R4,
    );
    let metrics = server.metrics_url();
    let base = metrics.trim_end_matches("/metrics");
    server.call_ok("structured", json!({"text": "x"}));
    wait_for_status(&format!("{base}/readyz"), 200);
    let (status, scrape) = get(&metrics);
    assert_eq!(status, 200);
    assert_sample(
        &scrape,
        "mcp_wasm_host_calls_total{plugin=\"errors\",tool=\"structured\",outcome=\"ok\"} 1",
    );
    assert_eq!(get(&format!("{base}/healthz")).0, 200);
}

/// A web server on 127.0.0.1 that answers its one request only when the
/// test says so: `arrived` hears when the request is in, `release` lets
/// the answer go.
fn gate() -> (String, mpsc::Receiver<()>, mpsc::Sender<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/gate", listener.local_addr().unwrap());
    let (arrived_tx, arrived) = mpsc::channel();
    let (release, release_rx) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut line = String::new();
        while reader.read_line(&mut line).unwrap() > 0 && line != "\r\n" {
            line.clear();
        }
        arrived_tx.send(()).unwrap();
        release_rx.recv().unwrap();
        stream
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 16\r\nConnection: close\r\n\r\nthe real answer!")
            .unwrap();
        let _ = stream.read(&mut [0; 1]);
    });
    (url, arrived, release)
}

#[test]
fn sigterm_stops_readiness_and_new_connections_and_lets_the_running_call_answer() {
    let (url, arrived, release) = gate();
    let origin = url.trim_end_matches("/gate");
    let (_dir, plugins, config) = crate::common::plugins_with_policy(
        &[test_artifacts::NETPROBE],
        &format!(
            "[plugins.netprobe]\ntimeout = \"5m\"\n\n[plugins.netprobe.http]\nallow = [\"{origin}\"]\n"
        ),
    );
    let mut server = HttpServer::start(
        &plugins,
        &[
            "--no-watch",
            "--config",
            &config,
            "--metrics-addr",
            "127.0.0.1:0",
        ],
    );
    server.wait_for_stderr("metrics served at http://");
    let metrics = crate::common::logged_url(&server.stderr(), "metrics served at ").unwrap();
    let readyz = metrics.replace("/metrics", "/readyz");
    wait_for_status(&readyz, 200);

    let mcp = server.url.clone();
    let call = std::thread::spawn(move || {
        let mut client = Client::new(&mcp);
        assert_eq!(client.initialize(R4).status, 200);
        client.call(2, "request", json!({"method": "GET", "url": url}))
    });
    // The guest's request reached the gate: the call is running.
    arrived.recv_timeout(DEADLINE).unwrap();

    let killed = std::process::Command::new("kill")
        .args(["-TERM", &server.pid().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    assert_eq!(wait_for_status(&readyz, 503), "draining\n");
    // No new connections on the MCP port once draining.
    let authority = server.authority().to_string();
    eventually(
        DEADLINE,
        || "the MCP port still accepts connections while draining".into(),
        || {
            std::net::TcpStream::connect(&authority)
                .is_err()
                .then_some(())
        },
    );

    // The call in flight still gets its real result.
    release.send(()).unwrap();
    let answer = call.join().unwrap();
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert!(answer.to_string().contains("the real answer!"), "{answer}");
    let status = server.wait();
    assert!(
        status.success(),
        "exit status {status}:\n{}",
        server.stderr()
    );
    // (The log is read by a thread that may still be behind the exit.)
    server.wait_for_stderr("shutting down");
}

/// One span an OTLP collector received.
#[derive(Debug)]
struct Received {
    name: String,
    trace_id: String,
    span_id: String,
    parent_span_id: String,
    attributes: std::collections::BTreeMap<String, String>,
}

/// An OTLP/HTTP collector on 127.0.0.1: `POST /v1/traces` with protobuf,
/// keeping every span it is sent.
struct Collector {
    url: String,
    spans: std::sync::Arc<std::sync::Mutex<Vec<Received>>>,
    _runtime: tokio::runtime::Runtime,
}

fn collector() -> Collector {
    use axum::body::Bytes;
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
    use prost::Message as _;

    let spans = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = spans.clone();
    let app = axum::Router::new().route(
        "/v1/traces",
        axum::routing::post(move |body: Bytes| {
            let kept = kept.clone();
            async move {
                let request = ExportTraceServiceRequest::decode(body).unwrap();
                let mut kept = kept.lock().unwrap();
                for span in request
                    .resource_spans
                    .into_iter()
                    .flat_map(|r| r.scope_spans)
                    .flat_map(|s| s.spans)
                {
                    let attributes = span
                        .attributes
                        .into_iter()
                        .map(|kv| {
                            let value = match kv.value.and_then(|v| v.value) {
                                Some(Any::StringValue(s)) => s,
                                other => format!("{other:?}"),
                            };
                            (kv.key, value)
                        })
                        .collect();
                    kept.push(Received {
                        name: span.name,
                        trace_id: hex(&span.trace_id),
                        span_id: hex(&span.span_id),
                        parent_span_id: hex(&span.parent_span_id),
                        attributes,
                    });
                }
                // An empty ExportTraceServiceResponse.
                (
                    [("content-type", "application/x-protobuf")],
                    Vec::<u8>::new(),
                )
            }
        }),
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    listener.set_nonblocking(true).unwrap();
    runtime.spawn(async move {
        let listener = tokio::net::TcpListener::from_std(listener).unwrap();
        axum::serve(listener, app).await.unwrap();
    });
    Collector {
        url,
        spans,
        _runtime: runtime,
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn a_call_continues_the_trace_its_request_names() {
    let otlp = collector();
    let plugins = crate::common::plugin_dir(&[test_artifacts::ERRORS]);
    let mut server = HttpServer::start(
        plugins.path(),
        &["--no-watch", "--otlp-endpoint", &otlp.url],
    );
    let mut client = Client::new(&server.url);
    assert_eq!(client.initialize(R4).status, 200);

    // The trace named in `_meta` (2026-07-28's trace context)...
    let (meta_trace, meta_parent) = ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7");
    let ok = client.call_with(
        2,
        json!({
            "name": "structured",
            "arguments": {"text": "a b"},
            "_meta": {"traceparent": format!("00-{meta_trace}-{meta_parent}-01")}
        }),
    );
    assert_eq!(ok["result"]["isError"], false, "{ok}");
    // ... and the one in the HTTP request's `traceparent` header.
    let (header_trace, header_parent) = ("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331");
    client.add_header(
        "traceparent",
        &format!("00-{header_trace}-{header_parent}-01"),
    );
    let marked = client.call(3, "is_error_result", json!({}));
    assert_eq!(marked["result"]["isError"], true, "{marked}");

    // The exporter flushes at shutdown: what the collector holds after the
    // server exited is everything.
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &server.pid().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = server.wait();
    assert!(
        status.success(),
        "exit status {status}:\n{}",
        server.stderr()
    );

    let spans = otlp.spans.lock().unwrap();
    let call_span = |trace: &str| {
        spans
            .iter()
            .find(|s| s.name == "tools/call" && s.trace_id == trace)
            .unwrap_or_else(|| panic!("no tools/call span in trace {trace}: {spans:#?}"))
    };
    for (trace, parent, tool, outcome) in [
        (meta_trace, meta_parent, "structured", "ok"),
        (header_trace, header_parent, "is_error_result", "tool_error"),
    ] {
        let span = call_span(trace);
        assert_eq!(span.parent_span_id, parent, "{span:#?}");
        for (key, value) in [("plugin", "errors"), ("tool", tool), ("outcome", outcome)] {
            assert_eq!(
                span.attributes.get(key).map(String::as_str),
                Some(value),
                "{span:#?}"
            );
        }
        // The runtime's own spans of the call are its children.
        assert!(
            spans
                .iter()
                .any(|s| s.trace_id == trace && s.parent_span_id == span.span_id),
            "no child of {span:#?} in {spans:#?}"
        );
    }
}
