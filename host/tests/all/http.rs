//! The Streamable HTTP transport against the real binary, with a plain HTTP
//! client: sessions, stateless mode, Host and Origin validation, bearer
//! tokens, the loopback default, HTTP alongside stdio, cancellation, and
//! tool list changes on a session's stream.
#![allow(clippy::unwrap_used)]

use std::process::Command;

use crate::common::HttpServer;
use crate::common::http::{Client, Reply, calls_ended, calls_running};
use crate::common::revision::{R3, R4};
use serde_json::{Value, json};

const TOKEN: &str = "s3cr3t-token-for-the-http-tests-0123";

/// A plugins directory holding only the `encoding` example: the transport
/// tests call its tools, and loading every example (some large) would only
/// slow their start.
fn examples() -> &'static std::path::Path {
    static DIR: std::sync::LazyLock<tempfile::TempDir> =
        std::sync::LazyLock::new(|| crate::common::plugin_dir(&[test_artifacts::ENCODING]));
    DIR.path()
}

#[test]
fn a_session_initializes_lists_and_calls_over_http() {
    let server = HttpServer::start(examples(), &["--no-watch"]);
    let mut client = Client::new(&server.url);
    let init = client.initialize(R3);
    assert_eq!(init.status, 200, "{init:#?}");
    assert!(client.session.is_some(), "no Mcp-Session-Id: {init:#?}");
    let result = &init.response(1)["result"];
    assert_eq!(result["protocolVersion"], R3);
    assert_eq!(result["serverInfo"]["name"], "mcp-wasm-host");

    let list = client.post(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let tools = list.response(2)["result"]["tools"]
        .as_array()
        .unwrap()
        .clone();
    assert!(
        tools.iter().any(|t| t["name"] == "base64_encode"),
        "{tools:?}"
    );

    let result = client.call(3, "base64_encode", json!({"text": "hello"}));
    assert_eq!(
        crate::common::text(&result["result"]),
        "aGVsbG8=",
        "{result}"
    );

    // A request naming a session the server does not have is refused.
    let mut stranger = Client::new(&server.url);
    stranger.session = Some("not-a-session".into());
    let refused = stranger.post(&json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}));
    assert!(
        (400..500).contains(&refused.status),
        "an unknown session id must get a 4xx: {refused:#?}"
    );

    // Nothing but logs, and those on stderr.
    assert!(!server.stderr().contains("UNEXPECTED STDOUT"));
}

#[test]
fn each_session_has_its_own_logging_level() {
    let plugins = crate::common::plugin_dir(&[test_artifacts::ERRORS]);
    let server = HttpServer::start(plugins.path(), &["--no-watch"]);
    let mut quiet = Client::new(&server.url);
    let mut chatty = Client::new(&server.url);
    quiet.initialize(R3);
    chatty.initialize(R3);
    let set = chatty.post(&json!({
        "jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "debug"}
    }));
    assert_eq!(set.response(2)["result"], json!({}));

    // In a session, log notifications travel on the session's GET stream.
    // `log_progress` logs debug, info, warning and error, in that order.
    let logged = |client: &mut Client| -> Vec<String> {
        let stream = client.listen();
        let reply = client.post(&json!({
            "jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "log_progress", "arguments": {}}
        }));
        assert_eq!(crate::common::text(&reply.response(3)["result"]), "logged");
        let mut levels = Vec::new();
        while levels.last().is_none_or(|l| l != "error") {
            let message = stream
                .recv_timeout(std::time::Duration::from_secs(60))
                .expect("the error-level message arrives");
            if message["method"] == "notifications/message" {
                levels.push(message["params"]["level"].as_str().unwrap().to_string());
            }
        }
        levels
    };
    assert_eq!(logged(&mut chatty), ["debug", "info", "warning", "error"]);
    assert_eq!(
        logged(&mut quiet),
        ["info", "warning", "error"],
        "the other session stays at info"
    );
}

/// A server of the `encoding` example under `policy` (keys of its section),
/// and two sessions with it.
fn two_sessions(policy: &str) -> ((tempfile::TempDir, HttpServer), Client, Client) {
    let policy = format!("[plugins.encoding]\n{policy}\n");
    let (dir, plugins, config) =
        crate::common::plugins_with_policy(&[test_artifacts::ENCODING], &policy);
    let server = HttpServer::start(&plugins, &["--no-watch", "--config", &config]);
    let (mut first, mut second) = (Client::new(&server.url), Client::new(&server.url));
    first.initialize(R4);
    second.initialize(R4);
    ((dir, server), first, second)
}

#[test]
fn each_session_has_its_own_rate_quota_and_the_tools_quota_is_shared() {
    let (_server, mut first, mut second) = two_sessions("client_rate_limit = 2");
    let encode = |client: &mut Client, id| client.call(id, "base64_encode", json!({"text": "hi"}));
    for id in 2..4 {
        assert_eq!(encode(&mut first, id)["result"]["isError"], false);
    }
    let refused = encode(&mut first, 4);
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let message = crate::common::text(&refused["result"]);
    assert!(
        message.contains("limited to 2 calls per minute for each client")
            && message.contains("`client_rate_limit`"),
        "{message}"
    );
    // The other session has its own quota.
    for id in 2..4 {
        assert_eq!(encode(&mut second, id)["result"]["isError"], false);
    }

    // `rate_limit` is one quota for all sessions together.
    let (_server, mut first, mut second) = two_sessions("rate_limit = 3");
    for id in 2..4 {
        assert_eq!(encode(&mut first, id)["result"]["isError"], false);
    }
    assert_eq!(encode(&mut second, 2)["result"]["isError"], false);
    let refused = encode(&mut second, 3);
    let message = crate::common::text(&refused["result"]);
    assert!(
        message.contains("limited to 3 calls per minute;") && message.contains("`rate_limit`"),
        "{message}"
    );
}

#[test]
fn stateless_mode_needs_no_session() {
    let server = HttpServer::start(examples(), &["--no-watch", "--stateless"]);
    server.wait_for_stderr("mode=\"stateless\"");
    let mut client = Client::new(&server.url);
    let init = client.initialize(R3);
    assert_eq!(init.status, 200, "{init:#?}");
    assert!(client.session.is_none(), "stateless: no Mcp-Session-Id");
    // Any replica can answer any request: a fresh client that never
    // initialized calls a tool directly.
    let mut other = Client::new(&server.url);
    let result = other.call(7, "base64_encode", json!({"text": "hi"}));
    assert_eq!(crate::common::text(&result["result"]), "aGk=", "{result}");
    let reply = other.post(&json!({"jsonrpc": "2.0", "id": 8, "method": "tools/list"}));
    assert!(
        reply
            .header("content-type")
            .unwrap()
            .starts_with("application/json"),
        "plain JSON responses in stateless mode: {reply:#?}"
    );
}

/// rmcp serves each stateless request as a service of its own, whose
/// lifecycle lines would come with every request: by default only the
/// call's audit line is logged, and `--log info` brings rmcp's back.
#[test]
fn stateless_requests_log_no_service_lifecycle_by_default() {
    let quiet: &[&str] = &["--no-watch", "--stateless"];
    let verbose: &[&str] = &["--no-watch", "--stateless", "--log", "info"];
    for (args, shown) in [(quiet, false), (verbose, true)] {
        // An empty RUST_LOG leaves the filter to `--log` or the default.
        let server = HttpServer::start_with_env(examples(), args, &[("RUST_LOG", "")]);
        let mut client = Client::new(&server.url);
        let result = client.call(1, "base64_encode", json!({"text": "hi"}));
        assert_eq!(crate::common::text(&result["result"]), "aGk=", "{result}");
        // rmcp logs its service's start before the handler runs, and the
        // handler writes the audit line before it answers.
        server.wait_for_stderr("outcome=\"ok\"");
        let stderr = server.stderr();
        assert_eq!(
            stderr.contains("Service initialized"),
            shown,
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn foreign_hosts_and_origins_are_refused() {
    let server = HttpServer::start(examples(), &["--no-watch"]);
    let rebinding = Client::new(&server.url)
        .with_header("Host", "evil.example.com")
        .initialize(R3);
    assert_eq!(rebinding.status, 403, "{rebinding:#?}");

    let cross_site = Client::new(&server.url)
        .with_header("Origin", "http://evil.example.com")
        .initialize(R3);
    assert_eq!(cross_site.status, 403, "{cross_site:#?}");

    // A page on loopback (such as the MCP Inspector's UI) is fine.
    let inspector = Client::new(&server.url)
        .with_header("Origin", "http://localhost:6274")
        .initialize(R3);
    assert_eq!(inspector.status, 200, "{inspector:#?}");

    // An origin the operator allowed is fine too.
    let server = HttpServer::start(
        examples(),
        &["--no-watch", "--allowed-origin", "https://app.example.com"],
    );
    let allowed = Client::new(&server.url)
        .with_header("Origin", "https://app.example.com")
        .initialize(R3);
    assert_eq!(allowed.status, 200, "{allowed:#?}");
}

#[test]
fn a_bearer_token_is_required_when_configured() {
    let server = HttpServer::start_with_env(
        examples(),
        &["--no-watch", "--auth-token-env", "MCP_TEST_TOKEN"],
        &[("MCP_TEST_TOKEN", TOKEN)],
    );
    assert!(
        !server.stderr().contains(TOKEN),
        "the token never appears in the log"
    );
    let missing = Client::new(&server.url).initialize(R3);
    assert_eq!(missing.status, 401, "{missing:#?}");
    assert_eq!(
        missing.header("www-authenticate"),
        Some("Bearer realm=\"mcp-wasm-host\"")
    );
    let wrong = Client::new(&server.url)
        .with_header("Authorization", "Bearer not-the-token-at-all-000000")
        .initialize(R3);
    assert_eq!(wrong.status, 401, "{wrong:#?}");
    assert!(
        wrong
            .header("www-authenticate")
            .unwrap()
            .contains("error=\"invalid_token\""),
        "{wrong:#?}"
    );
    let mut right =
        Client::new(&server.url).with_header("Authorization", &format!("Bearer {TOKEN}"));
    let init = right.initialize(R3);
    assert_eq!(init.status, 200, "{init:#?}");
    let result = right.call(2, "hex_encode", json!({"text": "A"}));
    assert_eq!(crate::common::text(&result["result"]), "41", "{result}");

    // From a file, with the newline `echo` leaves.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("token");
    std::fs::write(&file, format!("{TOKEN}\n")).unwrap();
    let server = HttpServer::start(
        examples(),
        &["--no-watch", "--auth-token-file", file.to_str().unwrap()],
    );
    let ok = Client::new(&server.url)
        .with_header("Authorization", &format!("Bearer {TOKEN}"))
        .initialize(R3);
    assert_eq!(ok.status, 200, "{ok:#?}");
}

/// Runs `serve ARGS` expecting it to refuse to start; returns its stderr.
fn refused_start(args: &[&str], env: &[(&str, &str)]) -> String {
    let mut command = Command::new(crate::common::binary());
    command.env(crate::common::WAIT_FOR_LOAD, "1");
    command
        .args([
            "serve",
            "--plugins",
            test_artifacts::EXAMPLES_DIR,
            "--no-watch",
        ])
        .args(args)
        .env(
            "MCP_WASM_HOST_CACHE_DIR",
            crate::common::target_dir().join("test-cache"),
        )
        .env_remove("MCP_TEST_TOKEN");
    for (k, v) in env {
        command.env(k, v);
    }
    let out = command.output().unwrap();
    assert!(!out.status.success(), "should not have started: {args:?}");
    assert!(out.stdout.is_empty(), "nothing on stdout");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn unsafe_or_broken_settings_stop_the_server_with_a_reason() {
    let remote = refused_start(&["--http", "0.0.0.0:0"], &[]);
    assert!(remote.contains("--http-allow-remote"), "{remote}");

    let unset = refused_start(&["--http", "0", "--auth-token-env", "MCP_TEST_TOKEN"], &[]);
    assert!(unset.contains("MCP_TEST_TOKEN is not set"), "{unset}");

    let weak = refused_start(
        &["--http", "0", "--auth-token-env", "MCP_TEST_TOKEN"],
        &[("MCP_TEST_TOKEN", "1234")],
    );
    assert!(weak.contains("at least 16"), "{weak}");
    assert!(!weak.contains("1234\""), "{weak}");

    let no_file = refused_start(
        &["--http", "0", "--auth-token-file", "/nonexistent/token"],
        &[],
    );
    assert!(no_file.contains("/nonexistent/token"), "{no_file}");

    let bad_addr = refused_start(&["--http", "nowhere"], &[]);
    assert!(bad_addr.contains("IP:PORT"), "{bad_addr}");

    let no_http = refused_start(&["--stateless"], &[]);
    assert!(no_http.contains("--http"), "{no_http}");
}

#[test]
fn http_and_stdio_serve_side_by_side() {
    let plugins = examples();
    let mut stdio =
        crate::common::Server::start(plugins, &["--no-watch", "--http", "127.0.0.1:0", "--stdio"]);
    stdio.wait_for_stderr("listening on http://");
    let log = stdio.stderr();
    let at = log.find("listening on ").unwrap() + "listening on ".len();
    let url = log[at..].split_whitespace().next().unwrap().to_string();

    let init = stdio.initialize(R3);
    assert!(init.get("result").is_some(), "{init}");
    let mut http = Client::new(&url);
    assert_eq!(http.initialize(R4).status, 200);

    let over_stdio = stdio.call_ok("base64_encode", json!({"text": "x"}));
    let over_http = http.call(2, "base64_encode", json!({"text": "x"}));
    assert_eq!(crate::common::text(&over_stdio), "eA==");
    assert_eq!(crate::common::text(&over_http["result"]), "eA==");

    // Closing stdin ends the process, HTTP included.
    stdio.close_stdin();
    assert_eq!(stdio.wait(), Some(0));
}

#[test]
fn a_cancelled_call_over_http_stops_its_guest() {
    let (_dir, plugins, config) = crate::common::plugins_with_policy(
        &[test_artifacts::HOSTILE],
        "[plugins.hostile]\ntimeout = \"120s\"\nfuel = 1_000_000_000_000_000\nmax_concurrent_calls = 1\n",
    );
    let server = HttpServer::start(&plugins, &["--no-watch", "--config", &config]);
    let mut client = Client::new(&server.url);
    client.initialize(R4);

    // The spinning call holds its POST open on another thread.
    let mut caller = Client::new(&server.url);
    caller.session = client.session.clone();
    let spinning = std::thread::spawn(move || {
        caller.post(&json!({
            "jsonrpc": "2.0", "id": 41, "method": "tools/call",
            "params": {"name": "spin", "arguments": {}}
        }))
    });
    server.wait_for_sample(&calls_running("hostile"), |n| n == 1.0);
    let ack = client.post(&json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 41, "reason": "test"}
    }));
    assert_eq!(ack.status, 202, "{ack:#?}");
    // The call ends as cancelled, and its guest has stopped running.
    server.wait_for_sample(&calls_ended("hostile", "spin", "cancelled"), |n| n == 1.0);
    server.wait_for_sample(&calls_running("hostile"), |n| n == 0.0);
    // The only call slot is free again.
    let ok = client.call(42, "ok", json!({}));
    assert_eq!(ok["result"]["isError"], false, "{ok}");
    // The cancelled call's stream ends without a response to it.
    let reply = spinning.join().unwrap();
    assert!(
        !reply
            .messages
            .iter()
            .any(|m| m["id"] == 41 && (m.get("result").is_some() || m.get("error").is_some())),
        "a cancelled call gets no response: {reply:#?}"
    );
}

#[test]
fn http_sessions_hear_that_the_tool_list_changed() {
    let plugins = crate::common::plugin_dir(&[test_artifacts::ERRORS]);
    let server = HttpServer::start(plugins.path(), &[]);
    let mut client = Client::new(&server.url);
    client.initialize(R3);
    let before = client.post(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let count = |reply: &Reply, id| {
        reply.response(id)["result"]["tools"]
            .as_array()
            .unwrap()
            .len()
    };
    let tools_before = count(&before, 2);

    let stream = client.listen();
    std::fs::copy(test_artifacts::PANIC, plugins.path().join("panic.wasm")).unwrap();
    loop {
        let message = stream
            .recv_timeout(std::time::Duration::from_secs(120))
            .expect("notifications/tools/list_changed arrives on the GET stream");
        if message["method"] == "notifications/tools/list_changed" {
            break;
        }
    }
    let after = client.post(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}));
    assert!(count(&after, 3) > tools_before, "{after:#?}");
}

#[test]
fn bodies_that_are_not_one_json_rpc_message_get_a_json_rpc_error() {
    let server = HttpServer::start(examples(), &["--no-watch"]);
    let mut client = Client::new(&server.url);
    client.initialize(R3);
    let post_raw = |body: &str| {
        let reply = Client::new(&server.url)
            .with_session(client.session.as_deref())
            .post_bytes(body.as_bytes());
        let body: Value = serde_json::from_str(&reply.body).unwrap();
        (reply.status, body)
    };
    for (body, code) in [
        ("this is not json", -32700),
        (r#"{"jsonrpc":"2.0","id":1,"method":"#, -32700),
        (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, -32600),
        (r#"{"id":1,"method":"ping"}"#, -32600),
    ] {
        let (status, reply) = post_raw(body);
        assert_eq!(status, 400, "{body}: {reply}");
        assert_eq!(reply["error"]["code"], code, "{body}: {reply}");
        assert_eq!(reply["jsonrpc"], "2.0");
    }
    // Nothing was lost: the session still works.
    let result = client.call(5, "hex_encode", json!({"text": "ok"}));
    assert_eq!(crate::common::text(&result["result"]), "6f6b", "{result}");
}

#[test]
fn stateless_responses_carry_the_calls_notifications_first() {
    let plugins = crate::common::plugin_dir(&[test_artifacts::ERRORS]);
    let server = HttpServer::start(plugins.path(), &["--no-watch", "--stateless"]);
    let reply = Client::new(&server.url).post(&json!({
        "jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "log_progress", "arguments": {}, "_meta": {"progressToken": "p"}}
    }));
    let kinds: Vec<&str> = reply
        .messages
        .iter()
        .map(|m| m["method"].as_str().unwrap_or("response"))
        .collect();
    assert_eq!(
        kinds,
        [
            "notifications/message",
            "notifications/progress",
            "notifications/message",
            "notifications/progress",
            "notifications/message",
            "notifications/progress",
            "response"
        ],
        "info, warning and error logs and three progress reports, then the result: {reply:#?}"
    );
}

/// What the `counter` plugin's `count` answers a client: the calls its
/// instance has served.
fn count(client: &mut Client, id: i64) -> u32 {
    let response = client.call(id, "count", json!({}));
    crate::common::text(&response["result"]).parse().unwrap()
}

fn counter_with(policy: &str, stateless: bool) -> (tempfile::TempDir, HttpServer) {
    let (dir, plugins, config) =
        crate::common::plugins_with_policy(&[test_artifacts::COUNTER], policy);
    let mut args = vec!["--no-watch", "--config", &config];
    if stateless {
        args.push("--stateless");
    }
    let server = HttpServer::start(&plugins, &args);
    (dir, server)
}

#[test]
fn with_session_reuse_state_carries_within_a_session_and_never_to_another() {
    let (_dir, server) = counter_with("[plugins.counter]\nreuse_instances = \"session\"\n", false);
    let (mut a, mut b) = (Client::new(&server.url), Client::new(&server.url));
    for client in [&mut a, &mut b] {
        assert_eq!(client.initialize(R3).status, 200);
    }
    assert_ne!(a.session, b.session);
    // Both sessions open, their calls interleaved.
    assert_eq!([count(&mut a, 2), count(&mut a, 3)], [1, 2]);
    assert_eq!(count(&mut b, 2), 1, "b never sees a's instance");
    assert_eq!(count(&mut a, 4), 3, "nor a b's");
    assert_eq!([count(&mut b, 3), count(&mut b, 4)], [2, 3]);
    assert_eq!(count(&mut a, 5), 4);
    // a ends; a new session starts afresh, and b keeps its state.
    let closed = a.send("DELETE");
    assert!((200..300).contains(&closed.status), "{closed:?}");
    let mut c = Client::new(&server.url);
    assert_eq!(c.initialize(R3).status, 200);
    assert_eq!(count(&mut c, 2), 1);
    assert_eq!(count(&mut b, 5), 4, "b's state is untouched");
}

#[test]
fn by_default_every_http_call_gets_a_fresh_instance() {
    let (_dir, server) = counter_with("", false);
    let (mut a, mut b) = (Client::new(&server.url), Client::new(&server.url));
    for client in [&mut a, &mut b] {
        assert_eq!(client.initialize(R3).status, 200);
    }
    for id in 2..6 {
        assert_eq!([count(&mut a, id), count(&mut b, id)], [1, 1]);
    }
}

#[test]
fn stateless_requests_never_share_an_instance_even_with_session_reuse() {
    let (_dir, server) = counter_with("[plugins.counter]\nreuse_instances = \"session\"\n", true);
    server.wait_for_stderr("mode=\"stateless\"");
    let mut client = Client::new(&server.url);
    for id in 1..6 {
        assert_eq!(count(&mut client, id), 1);
    }
}
