//! The malformed-input matrix against the real binary: one table of bad
//! messages, each with the JSON-RPC outcome it must get, sent over stdio,
//! HTTP with sessions and stateless HTTP. After every case, `ping` and a good
//! `tools/call` must still be answered. Also: messages before `initialize`
//! on stdio, a request id reused while in flight over HTTP, and `DELETE` of
//! an unknown session.
#![allow(clippy::unwrap_used)]

use crate::common::http::{Client, Reply, calls_running};
use crate::common::revision::{R3, R4};
use crate::common::{HttpServer, Server};
use serde_json::{Value, json};

/// The id every case's request carries, when it has one.
const ID: i64 = 77;

/// The limit on one message (a stdio line or an HTTP body).
const LIMIT: usize = 64 << 20;

/// What a case must get.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Outcome {
    /// A JSON-RPC error with this code; `echoes` says whether it names the
    /// request's id (otherwise the id is null). Over HTTP it comes with
    /// `status`.
    Error {
        code: i64,
        echoes: bool,
        status: u16,
    },
    /// Nothing: a notification or a response gets no answer (`202` over
    /// HTTP).
    Silent,
    /// A response (or error) from the client: no answer over stdio and in
    /// an HTTP session (`202`); stateless HTTP, where the server sends no
    /// requests, refuses it (`400`, `-32600`, no id).
    Response,
    /// A notification the server cannot read: no answer over stdio (JSON-RPC
    /// answers no notification); over HTTP, `400` with this error code and
    /// no id.
    RefusedNotification { code: i64 },
}

const fn ours(code: i64, echoes: bool) -> Outcome {
    Outcome::Error {
        code,
        echoes,
        status: 400,
    }
}

const PARSE: i64 = -32700;
const INVALID: i64 = -32600;
const PARAMS: i64 = -32602;
/// Answered by rmcp, not by the boundary: the message got through.
const UNKNOWN_METHOD: Outcome = Outcome::Error {
    code: -32601,
    echoes: true,
    status: 200,
};

struct Case {
    name: &'static str,
    bytes: Vec<u8>,
    outcome: Outcome,
}

fn case(name: &'static str, text: &str, outcome: Outcome) -> Case {
    bytes_case(name, text.as_bytes().to_vec(), outcome)
}

fn bytes_case(name: &'static str, bytes: Vec<u8>, outcome: Outcome) -> Case {
    Case {
        name,
        bytes,
        outcome,
    }
}

/// A request with id [`ID`] whose `params` are `params` (raw JSON text).
fn request(method: &str, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{ID},"method":"{method}","params":{params}}}"#)
}

fn nested(depth: usize, open: &str, close: &str) -> String {
    format!("{}1{}", open.repeat(depth), close.repeat(depth))
}

/// The matrix, shared by every transport.
fn cases() -> Vec<Case> {
    let with_bytes = |prefix: &str, bad: &[u8], suffix: &str| {
        let mut bytes = prefix.as_bytes().to_vec();
        bytes.extend_from_slice(bad);
        bytes.extend_from_slice(suffix.as_bytes());
        bytes
    };
    let bad_id = |name, id: &str| {
        let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        case(name, &text, ours(INVALID, false))
    };
    let head = format!(r#"{{"jsonrpc":"2.0","id":{ID},"method":"vendor/x","params":{{"s":""#);
    let mut v = vec![
        // Not JSON.
        case("plain text", "this is not json", ours(PARSE, false)),
        case("an opening brace", "{", ours(PARSE, false)),
        case(
            "a request cut short after its id",
            &format!(r#"{{"jsonrpc":"2.0","id":{ID},"method":"#),
            ours(PARSE, true),
        ),
        case(
            "two messages in one",
            &format!(r#"{{"jsonrpc":"2.0","id":{ID},"method":"ping"}} {{}}"#),
            ours(PARSE, true),
        ),
        case(
            "a number out of range",
            &request("vendor/x", r#"{"n":1e999}"#),
            ours(PARSE, true),
        ),
        // Invalid UTF-8, anywhere.
        bytes_case(
            "invalid UTF-8 in a string",
            with_bytes(&head, b"\xff", r#""}}"#),
            ours(PARSE, true),
        ),
        bytes_case(
            "invalid UTF-8 in a key",
            with_bytes(
                &request("tools/call", r#"{"name":"base64_encode","arguments":{""#),
                b"\xc3\x28",
                r#"":1}}}"#,
            ),
            ours(PARSE, true),
        ),
        bytes_case(
            "an overlong UTF-8 encoding",
            with_bytes(&head, b"\xc0\xaf", r#""}}"#),
            ours(PARSE, true),
        ),
        bytes_case(
            "a UTF-8 encoded surrogate",
            with_bytes(&head, b"\xed\xa0\x80", r#""}}"#),
            ours(PARSE, true),
        ),
        bytes_case(
            "invalid UTF-8 before the id",
            with_bytes(
                r#"{"jsonrpc":"2.0","x":""#,
                b"\xfe",
                &format!(r#"","id":{ID},"method":"ping"}}"#),
            ),
            ours(PARSE, false),
        ),
        // Lone surrogate escapes.
        case(
            "a lone high surrogate",
            &request("vendor/x", r#"{"s":"\ud800"}"#),
            ours(PARSE, true),
        ),
        case(
            "a lone low surrogate",
            &request("vendor/x", r#"{"s":"\udfff"}"#),
            ours(PARSE, true),
        ),
        case(
            "a high surrogate before a letter",
            &request("vendor/x", r#"{"s":"\ud800\u0041"}"#),
            ours(PARSE, true),
        ),
        case(
            "a lone surrogate in a key",
            &request(
                "tools/call",
                r#"{"name":"base64_encode","arguments":{"\ud83d":1}}"#,
            ),
            ours(PARSE, true),
        ),
        // Nesting.
        case(
            "arrays nested 200 deep",
            &request("vendor/x", &format!(r#"{{"a":{}}}"#, nested(200, "[", "]"))),
            ours(PARSE, true),
        ),
        case(
            "objects nested 200 deep",
            &request(
                "vendor/x",
                &format!(r#"{{"a":{}}}"#, nested(200, r#"{"a":"#, "}")),
            ),
            ours(PARSE, true),
        ),
        case(
            "arrays nested 100 deep reach the server",
            &request("vendor/x", &format!(r#"{{"a":{}}}"#, nested(100, "[", "]"))),
            UNKNOWN_METHOD,
        ),
        // JSON, but not one JSON-RPC message.
        case(
            "a batch",
            &format!(r#"[{{"jsonrpc":"2.0","id":{ID},"method":"ping"}}]"#),
            ours(INVALID, false),
        ),
        case("an empty batch", "[]", ours(INVALID, false)),
        case("a number", "42", ours(INVALID, false)),
        case("a string", r#""ping""#, ours(INVALID, false)),
        case("null", "null", ours(INVALID, false)),
        case("an empty object", "{}", ours(INVALID, false)),
        case(
            "jsonrpc 1.0",
            &format!(r#"{{"jsonrpc":"1.0","id":{ID},"method":"ping"}}"#),
            ours(INVALID, true),
        ),
        case(
            "no jsonrpc member",
            &format!(r#"{{"id":{ID},"method":"ping"}}"#),
            ours(INVALID, true),
        ),
        bad_id("a null id", "null"),
        bad_id("a fractional id", "1.5"),
        bad_id("a boolean id", "true"),
        bad_id("an array id", "[77]"),
        bad_id("an object id", r#"{"n":77}"#),
        bad_id("an id beyond 64 bits", "18446744073709551616"),
        case(
            "a method that is a number",
            &format!(r#"{{"jsonrpc":"2.0","id":{ID},"method":7}}"#),
            ours(INVALID, true),
        ),
        case(
            "a request with a result",
            &format!(r#"{{"jsonrpc":"2.0","id":{ID},"method":"ping","result":{{}}}}"#),
            ours(INVALID, true),
        ),
        case(
            "a response with a result and an error",
            &format!(
                r#"{{"jsonrpc":"2.0","id":{ID},"result":{{}},"error":{{"code":1,"message":"x"}}}}"#
            ),
            ours(INVALID, true),
        ),
        // Known methods with params of the wrong shape.
        case(
            "tools/call without params",
            &format!(r#"{{"jsonrpc":"2.0","id":{ID},"method":"tools/call"}}"#),
            ours(PARAMS, true),
        ),
        case(
            "tools/call with array params",
            &request("tools/call", "[]"),
            ours(PARAMS, true),
        ),
        case(
            "tools/call with a numeric name",
            &request("tools/call", r#"{"name":5}"#),
            ours(PARAMS, true),
        ),
        case(
            "tools/call with array arguments",
            &request("tools/call", r#"{"name":"base64_encode","arguments":[1]}"#),
            ours(PARAMS, true),
        ),
        case(
            "tools/call with string arguments",
            &request(
                "tools/call",
                r#"{"name":"base64_encode","arguments":"text"}"#,
            ),
            ours(PARAMS, true),
        ),
        case(
            "tools/call with a string id and no name",
            r#"{"jsonrpc":"2.0","id":"77","method":"tools/call","params":{}}"#,
            ours(PARAMS, true),
        ),
        case(
            "tools/list with a numeric cursor",
            &request("tools/list", r#"{"cursor":5}"#),
            ours(PARAMS, true),
        ),
        case(
            "tools/list with string params",
            &request("tools/list", r#""p""#),
            ours(PARAMS, true),
        ),
        case(
            "ping with array params",
            &request("ping", "[1]"),
            ours(PARAMS, true),
        ),
        case(
            "initialize without client info",
            &request("initialize", &format!(r#"{{"protocolVersion":"{R3}"}}"#)),
            ours(PARAMS, true),
        ),
        case(
            "logging/setLevel with an unknown level",
            &request("logging/setLevel", r#"{"level":"loud"}"#),
            ours(PARAMS, true),
        ),
        case(
            "resources/read without a uri",
            &request("resources/read", "{}"),
            ours(PARAMS, true),
        ),
        case(
            "completion/complete without a ref",
            &request("completion/complete", "{}"),
            ours(PARAMS, true),
        ),
        // Well formed, handled by the server itself.
        case(
            "an unknown method with array params",
            &request("vendor/unknown", "[1]"),
            ours(-32601, true),
        ),
        case(
            "an unknown method",
            &request("vendor/unknown", "{}"),
            UNKNOWN_METHOD,
        ),
        case(
            "an unknown notification",
            r#"{"jsonrpc":"2.0","method":"notifications/vendor"}"#,
            Outcome::Silent,
        ),
        case(
            "a cancellation with params of the wrong shape",
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}"#,
            Outcome::RefusedNotification { code: PARAMS },
        ),
        case(
            "a response nobody asked for",
            &format!(r#"{{"jsonrpc":"2.0","id":{ID},"result":{{}}}}"#),
            Outcome::Response,
        ),
        case(
            "an error nobody asked for",
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}"#,
            Outcome::Response,
        ),
    ];
    // Sizes: above rmcp's own 16 MiB line limit but within the host's, and
    // above the host's.
    let big = format!("{head}{}\"}}}}", "a".repeat(20 << 20));
    v.push(case(
        "a 20 MiB request reaches the server",
        &big,
        UNKNOWN_METHOD,
    ));
    let huge = format!("{head}{}\"}}}}", "a".repeat(LIMIT));
    v.push(case(
        "a request over the limit",
        &huge,
        Outcome::Error {
            code: INVALID,
            echoes: true,
            status: 413,
        },
    ));
    v
}

/// Checks one JSON-RPC error answer against a case.
fn assert_error(case: &Case, answer: &Value, code: i64, echoes: bool) {
    assert_eq!(answer["jsonrpc"], "2.0", "{}: {answer}", case.name);
    assert_eq!(answer["error"]["code"], code, "{}: {answer}", case.name);
    assert!(
        answer["error"]["message"].is_string(),
        "{}: {answer}",
        case.name
    );
    if echoes {
        let id = answer["id"]
            .as_i64()
            .or_else(|| answer["id"].as_str()?.parse().ok());
        assert_eq!(id, Some(ID), "{}: the id is named: {answer}", case.name);
    } else {
        assert!(answer["id"].is_null(), "{}: a null id: {answer}", case.name);
    }
}

/// A plugins directory holding only the `encoding` example: the transport
/// tests call its tools, and loading every example (some large) would only
/// slow their start.
fn examples() -> &'static std::path::Path {
    static DIR: std::sync::LazyLock<tempfile::TempDir> =
        std::sync::LazyLock::new(|| crate::common::plugin_dir(&[test_artifacts::ENCODING]));
    DIR.path()
}

fn good_call(id: i64) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "base64_encode", "arguments": {"text": "hi"}}
    })
}

fn assert_good_call(answer: &Value) {
    assert_eq!(crate::common::text(&answer["result"]), "aGk=", "{answer}");
}

#[test]
fn every_malformed_line_over_stdio_gets_its_answer_and_the_session_goes_on() {
    let mut s = Server::initialized(examples(), &["--no-watch"], R4);
    let mut next = 1000;
    for case in cases() {
        let mut line = case.bytes.clone();
        line.push(b'\n');
        s.send_raw(&line);
        next += 2;
        let (ping, call) = (next, next + 1);
        s.send(&json!({"jsonrpc": "2.0", "id": ping, "method": "ping"}));
        s.send(&good_call(call));
        // Whatever comes before both good answers must be the case's answer.
        let mut answers = Vec::new();
        let (mut pinged, mut called) = (false, false);
        let answered = matches!(case.outcome, Outcome::Error { .. });
        while !(pinged && called) || (answers.is_empty() && answered) {
            let message = s.recv();
            if message.get("method").is_some() {
                continue; // a notification
            }
            if message["id"] == ping {
                assert_eq!(message["result"], json!({}), "{}: {message}", case.name);
                pinged = true;
            } else if message["id"] == call {
                assert_good_call(&message);
                called = true;
            } else {
                answers.push(message);
            }
        }
        match case.outcome {
            Outcome::Silent | Outcome::Response | Outcome::RefusedNotification { .. } => {
                assert!(answers.is_empty(), "{}: {answers:?}", case.name)
            }
            Outcome::Error { code, echoes, .. } => {
                assert_eq!(answers.len(), 1, "{}: one answer: {answers:?}", case.name);
                assert_error(&case, &answers[0], code, echoes);
            }
        }
    }
    s.close_stdin();
    assert_eq!(s.wait(), Some(0), "{}", s.stderr());
}

/// Posts `body` as it is, in `session` if one is given.
fn post(url: &str, session: Option<&str>, body: &[u8]) -> Reply {
    Client::new(url).with_session(session).post_bytes(body)
}

/// Opens a session (or none, stateless) and returns its id.
fn http_session(url: &str, stateless: bool) -> Option<String> {
    if stateless {
        return None;
    }
    let mut client = Client::new(url);
    let init = client.initialize(R4);
    assert_eq!(init.status, 200, "{}", init.body);
    Some(client.session.unwrap())
}

fn http_matrix(stateless: bool) {
    let args: &[&str] = if stateless {
        &["--no-watch", "--stateless"]
    } else {
        &["--no-watch"]
    };
    let server = HttpServer::start(examples(), args);
    let session = http_session(&server.url, stateless);
    let session = session.as_deref();
    let mut next = 1000;
    for case in cases() {
        let reply = post(&server.url, session, &case.bytes);
        match case.outcome {
            Outcome::Response if stateless => {
                assert_eq!(reply.status, 400, "{}: {}", case.name, reply.body);
                assert_error(&case, &reply.messages[0], INVALID, false);
            }
            Outcome::Silent | Outcome::Response => {
                assert_eq!(reply.status, 202, "{}: {}", case.name, reply.body);
                assert!(reply.messages.is_empty(), "{}: {}", case.name, reply.body);
            }
            Outcome::Error {
                code,
                echoes,
                status,
            } => {
                assert_eq!(reply.status, status, "{}: {}", case.name, reply.body);
                let answers: Vec<&Value> = reply
                    .messages
                    .iter()
                    .filter(|m| m.get("method").is_none())
                    .collect();
                assert_eq!(answers.len(), 1, "{}: {}", case.name, reply.body);
                assert_error(&case, answers[0], code, echoes);
            }
            Outcome::RefusedNotification { code } => {
                assert_eq!(reply.status, 400, "{}: {}", case.name, reply.body);
                assert_eq!(reply.messages.len(), 1, "{}: {}", case.name, reply.body);
                assert_error(&case, &reply.messages[0], code, false);
            }
        }
        next += 2;
        let ping = post(
            &server.url,
            session,
            json!({"jsonrpc": "2.0", "id": next, "method": "ping"})
                .to_string()
                .as_bytes(),
        );
        assert_eq!(
            ping.status, 200,
            "{}: ping after it: {}",
            case.name, ping.body
        );
        let call = post(
            &server.url,
            session,
            good_call(next + 1).to_string().as_bytes(),
        );
        assert_eq!(
            call.status, 200,
            "{}: call after it: {}",
            case.name, call.body
        );
        let answer = call.messages.iter().find(|m| m["id"] == next + 1).unwrap();
        assert_good_call(answer);
    }
}

#[test]
fn every_malformed_body_over_http_sessions_gets_its_answer_and_the_session_goes_on() {
    http_matrix(false);
}

#[test]
fn every_malformed_body_over_stateless_http_gets_its_answer_and_the_server_goes_on() {
    http_matrix(true);
}

#[test]
fn the_matrix_covers_at_least_forty_cases_of_every_outcome() {
    let cases = cases();
    assert!(cases.len() >= 40, "{}", cases.len());
    for code in [PARSE, INVALID, PARAMS] {
        assert!(
            cases
                .iter()
                .any(|c| matches!(c.outcome, Outcome::Error { code: k, .. } if k == code)),
            "{code}"
        );
    }
    assert!(cases.iter().any(|c| c.outcome == Outcome::Silent));
}

#[test]
fn messages_before_initialize_over_stdio_are_ignored_or_answered_and_initialize_still_works() {
    let mut s = Server::start(examples(), &["--no-watch"]);
    s.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    s.send_line(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#);
    s.send_line(r#"{"jsonrpc":"2.0","id":5,"result":{}}"#);
    s.send_line(r#"{"jsonrpc":"2.0","id":6,"error":{"code":1,"message":"x"}}"#);
    s.send_line("not json");
    let parse_error = s.recv();
    assert_eq!(parse_error["error"]["code"], PARSE, "{parse_error}");
    let ping = s.request("ping", json!({}));
    assert_eq!(ping["result"], json!({}), "{ping}");
    let early = s.request("tools/list", json!({}));
    assert!(
        early.get("error").is_some(),
        "a request before initialize is refused: {early}"
    );
    let init = s.initialize(R4);
    assert!(init.get("result").is_some(), "{init}");
    let id = s.id();
    s.send(&good_call(id));
    assert_good_call(&s.response(id));
    // Ignored messages are logged.
    s.wait_for_stderr("before initialize");
    s.close_stdin();
    assert_eq!(s.wait(), Some(0), "{}", s.stderr());
}

#[test]
fn a_request_id_reused_while_in_flight_in_a_session_is_refused_and_then_free_again() {
    let (_dir, plugins, config) = crate::common::plugins_with_policy(
        &[test_artifacts::HOSTILE],
        "[plugins.hostile]\ntimeout = \"120s\"\nfuel = 1_000_000_000_000_000\nmax_concurrent_calls = 1\n",
    );
    let server = HttpServer::start(&plugins, &["--no-watch", "--config", &config]);
    let session = http_session(&server.url, false).unwrap();
    let spin = json!({
        "jsonrpc": "2.0", "id": 41, "method": "tools/call",
        "params": {"name": "spin", "arguments": {}}
    });
    let spinning = {
        let (url, session, spin) = (server.url.clone(), session.clone(), spin.to_string());
        std::thread::spawn(move || post(&url, Some(&session), spin.as_bytes()))
    };
    server.wait_for_sample(&calls_running("hostile"), |n| n == 1.0);
    let again = post(
        &server.url,
        Some(&session),
        br#"{"jsonrpc":"2.0","id":41,"method":"ping"}"#,
    );
    assert_eq!(again.status, 409, "{}", again.body);
    assert_eq!(
        again.messages[0]["error"]["code"], INVALID,
        "{}",
        again.body
    );
    assert_eq!(again.messages[0]["id"], 41, "{}", again.body);
    // Another id is fine meanwhile.
    let other = post(
        &server.url,
        Some(&session),
        br#"{"jsonrpc":"2.0","id":42,"method":"ping"}"#,
    );
    assert_eq!(other.status, 200, "{}", other.body);

    let cancel = post(
        &server.url,
        Some(&session),
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":41}}"#,
    );
    assert_eq!(cancel.status, 202, "{}", cancel.body);
    // The first request's stream has ended, so its id is free again.
    let first = spinning.join().unwrap();
    assert_eq!(first.status, 200, "{}", first.body);
    let reused = post(
        &server.url,
        Some(&session),
        br#"{"jsonrpc":"2.0","id":41,"method":"ping"}"#,
    );
    assert_eq!(reused.status, 200, "{}", reused.body);
    assert_eq!(reused.messages[0]["result"], json!({}), "{}", reused.body);
}

#[test]
fn delete_of_an_unknown_session_is_not_found_like_get_and_post() {
    let server = HttpServer::start(examples(), &["--no-watch"]);
    let verb = |verb: &str, session: &str| {
        Client::new(&server.url)
            .with_session(Some(session))
            .send(verb)
            .status
    };
    let delete = |session: &str| verb("DELETE", session);
    let get = |session: &str| verb("GET", session);
    assert_eq!(delete("no-such-session"), 404);
    assert_eq!(get("no-such-session"), 404);
    let ping = br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    assert_eq!(post(&server.url, Some("no-such-session"), ping).status, 404);

    let session = http_session(&server.url, false).unwrap();
    assert_eq!(post(&server.url, Some(&session), ping).status, 200);
    assert_eq!(delete(&session), 202);
    assert_eq!(delete(&session), 404, "a closed session is unknown");
    assert_eq!(post(&server.url, Some(&session), ping).status, 404);
}

#[test]
fn in_stateless_mode_the_same_id_in_flight_twice_is_served_twice() {
    // Each stateless POST has a server of its own, so ids cannot collide.
    let (_dir, plugins, config) = crate::common::plugins_with_policy(
        &[test_artifacts::HOSTILE],
        "[plugins.hostile]\ntimeout = \"5s\"\nfuel = 1_000_000_000_000_000\n",
    );
    let server = HttpServer::start(
        &plugins,
        &["--no-watch", "--stateless", "--config", &config],
    );
    let spinning = {
        let url = server.url.clone();
        std::thread::spawn(move || {
            post(
                &url,
                None,
                br#"{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"spin","arguments":{}}}"#,
            )
        })
    };
    server.wait_for_sample(&calls_running("hostile"), |n| n == 1.0);
    let again = post(
        &server.url,
        None,
        br#"{"jsonrpc":"2.0","id":41,"method":"ping"}"#,
    );
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(again.messages[0]["result"], json!({}), "{}", again.body);
    let first = spinning.join().unwrap();
    assert_eq!(first.status, 200, "{}", first.body);
    let answer = first.messages.iter().find(|m| m["id"] == 41).unwrap();
    assert_eq!(
        answer["result"]["isError"], true,
        "the deadline stops it: {answer}"
    );
}
