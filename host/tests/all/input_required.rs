//! A guest's requests to the client at protocol 2026-07-28 (multi
//! round-trip requests, SEP-2322), end to end over stdio and stateless HTTP
//! with the `asker` plugin: the call ends with `InputRequiredResult`, the
//! client retries with `inputResponses` and `requestState`, and the tool,
//! run again from the start, gets the answers. Also: the state is signed and
//! bound to its call (tampered, other arguments, other server key), answers
//! that do not fit are asked again, capabilities and the policy still apply,
//! the round limit, several requests at once, and two stateless replicas
//! sharing a key.

#![allow(clippy::unwrap_used)]

use crate::common::http::Client;
use crate::common::revision::{R4, R5};
use crate::common::{
    HttpServer, Server, binary, plugin_dir, run_node_client, run_python_client, text,
};
use serde_json::{Value, json};

const GRANTED: &str = "[plugins.asker.client]\nsampling = true\nelicitation = true\nroots = true\n";

/// A key for `--request-state-key-env`.
const KEY: &str = "0123456789abcdef0123456789abcdef-test-key";

struct Setup {
    _dir: tempfile::TempDir,
    plugins: tempfile::TempDir,
    config: std::path::PathBuf,
}

fn setup(policy: &str) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mcp-wasm-host.toml");
    std::fs::write(&config, policy).unwrap();
    Setup {
        _dir: dir,
        plugins: plugin_dir(&[test_artifacts::ASKER]),
        config,
    }
}

/// A stdio server for `setup` with `args` more, signing with [`KEY`].
fn start(setup: &Setup, args: &[&str]) -> Server {
    let mut all = vec![
        "--config",
        setup.config.to_str().unwrap(),
        "--request-state-key-env",
        "STATE_KEY",
    ];
    all.extend_from_slice(args);
    Server::start_with_env(setup.plugins.path(), &all, &[("STATE_KEY", KEY)])
}

fn meta(capabilities: Value) -> Value {
    crate::common::r5_meta(capabilities)
}

fn capable() -> Value {
    json!({"sampling": {}, "elicitation": {}, "roots": {}})
}

/// `tools/call` params at 2026-07-28, with `extra` fields merged in.
fn call_params(tool: &str, arguments: Value, capabilities: Value, extra: Value) -> Value {
    let mut params = json!({"name": tool, "arguments": arguments, "_meta": meta(capabilities)});
    if let Value::Object(extra) = extra {
        params.as_object_mut().unwrap().extend(extra);
    }
    params
}

/// The whole JSON-RPC response to a 2026-07-28 `tools/call`.
fn call(s: &mut Server, tool: &str, arguments: Value, extra: Value) -> Value {
    s.request("tools/call", call_params(tool, arguments, capable(), extra))
}

fn result(response: &Value) -> &Value {
    response
        .get("result")
        .unwrap_or_else(|| panic!("not a result: {response}"))
}

/// The `inputRequests` of an input-required response.
fn input_requests(response: &Value) -> &serde_json::Map<String, Value> {
    let r = result(response);
    assert_eq!(r["resultType"], "input_required", "{response}");
    r["inputRequests"].as_object().unwrap()
}

fn state(response: &Value) -> String {
    result(response)["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("no requestState: {response}"))
        .to_string()
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

fn elicit_args() -> Value {
    json!({"message": "Your name?", "schema": {"type": "object", "properties": {"name": {"type": "string"}}}})
}

#[test]
fn an_elicitation_ends_the_call_and_the_retry_gives_the_guest_the_answer() {
    let setup = setup(GRANTED);
    let mut s = start(&setup, &[]);
    let first = call(&mut s, "elicit", elicit_args(), json!({}));
    let requests = input_requests(&first);
    assert_eq!(requests.len(), 1, "{first}");
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(key, "elicitation-1");
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["message"], "Your name?");
    assert!(
        result(&first)["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "mcp-wasm-host",
        "{first}"
    );

    let second = call(
        &mut s,
        "elicit",
        elicit_args(),
        json!({
            "inputResponses": {key: accept(json!({"name": "Ada"}))},
            "requestState": state(&first)
        }),
    );
    let r = result(&second);
    assert_ne!(r["resultType"], "input_required", "{second}");
    assert_eq!(r["isError"], false, "{second}");
    let answer: Value = serde_json::from_str(&text(r)).unwrap();
    assert_eq!(
        answer,
        json!({"action": "accept", "content": {"name": "Ada"}})
    );
}

#[test]
fn a_guest_that_asks_twice_takes_two_rounds_and_gets_both_answers() {
    let setup = setup(GRANTED);
    let mut s = start(&setup, &[]);
    let args = json!({"first": "Name?", "second": "Colour?"});
    let one = call(&mut s, "interview", args.clone(), json!({}));
    assert_eq!(
        input_requests(&one).keys().collect::<Vec<_>>(),
        ["elicitation-1"]
    );
    let two = call(
        &mut s,
        "interview",
        args.clone(),
        json!({
            "inputResponses": {"elicitation-1": accept(json!({"answer": "Ada"}))},
            "requestState": state(&one)
        }),
    );
    let requests = input_requests(&two);
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["elicitation-2"]);
    assert_eq!(requests["elicitation-2"]["params"]["message"], "Colour?");
    assert_ne!(state(&one), state(&two));
    // The last round sends only the last answer: the first travels in the
    // state.
    let three = call(
        &mut s,
        "interview",
        args,
        json!({
            "inputResponses": {"elicitation-2": accept(json!({"answer": "green"}))},
            "requestState": state(&two)
        }),
    );
    let answer: Value = serde_json::from_str(&text(result(&three))).unwrap();
    assert_eq!(
        answer,
        json!({"first": {"answer": "Ada"}, "second": {"answer": "green"}})
    );
}

#[test]
fn a_changed_state_or_a_state_from_another_call_is_refused_with_invalid_params() {
    let setup = setup(GRANTED);
    let mut s = start(&setup, &[]);
    let first = call(&mut s, "elicit", elicit_args(), json!({}));
    let sealed = state(&first);
    let answer = json!({"elicitation-1": accept(json!({"name": "Ada"}))});

    let mut tampered = sealed.clone();
    tampered.push_str("-TAMPERED");
    let mut flipped = sealed.clone().into_bytes();
    let middle = flipped.len() / 2;
    flipped[middle] = if flipped[middle] == b'A' { b'B' } else { b'A' };
    let flipped = String::from_utf8(flipped).unwrap();
    for bad in [tampered, flipped, "not a state".to_string()] {
        let refused = call(
            &mut s,
            "elicit",
            elicit_args(),
            json!({"inputResponses": answer, "requestState": bad}),
        );
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains("requestState"),
            "{refused}"
        );
    }

    // The same state with other arguments: another call.
    let mut other = elicit_args();
    other["message"] = json!("Your age?");
    let replayed = call(
        &mut s,
        "elicit",
        other,
        json!({"inputResponses": answer, "requestState": sealed}),
    );
    assert_eq!(replayed["error"]["code"], -32602, "{replayed}");

    // Arguments are bound by value, not by how the client ordered them.
    let reordered = json!({"schema": elicit_args()["schema"], "message": "Your name?"});
    let ok = call(
        &mut s,
        "elicit",
        reordered,
        json!({"inputResponses": answer, "requestState": state(&first)}),
    );
    assert_eq!(result(&ok)["isError"], false, "{ok}");
}

#[test]
fn a_state_signed_by_another_key_is_refused() {
    let setup = setup(GRANTED);
    let mut a = start(&setup, &[]);
    let first = call(&mut a, "elicit", elicit_args(), json!({}));
    // A server without a shared key makes its own at start.
    let mut b = Server::start(
        setup.plugins.path(),
        &["--config", setup.config.to_str().unwrap()],
    );
    let refused = call(
        &mut b,
        "elicit",
        elicit_args(),
        json!({
            "inputResponses": {"elicitation-1": accept(json!({"name": "Ada"}))},
            "requestState": state(&first)
        }),
    );
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
}

#[test]
fn an_answer_that_does_not_fit_the_request_is_asked_again_and_unknown_keys_are_ignored() {
    let setup = setup(GRANTED);
    let mut s = start(&setup, &[]);
    let first = call(&mut s, "elicit", elicit_args(), json!({}));
    // A number is not an elicitation result; an unknown key is ignored.
    let again = call(
        &mut s,
        "elicit",
        elicit_args(),
        json!({
            "inputResponses": {"elicitation-1": 12345, "extra": accept(json!({}))},
            "requestState": state(&first)
        }),
    );
    assert!(
        input_requests(&again).contains_key("elicitation-1"),
        "{again}"
    );
    // Answering before being asked (no state) works when the key fits.
    let direct = call(
        &mut s,
        "elicit",
        elicit_args(),
        json!({"inputResponses": {
            "elicitation-1": accept(json!({"name": "Bo"})),
            "unrelated": accept(json!({}))
        }}),
    );
    let answer: Value = serde_json::from_str(&text(result(&direct))).unwrap();
    assert_eq!(answer["content"]["name"], "Bo", "{direct}");
}

#[test]
fn several_requests_go_out_together_and_each_kind_needs_its_capability_and_grant() {
    let setup = setup("[plugins.asker.client]\nsampling = true\nelicitation = true\n");
    let mut s = start(&setup, &[]);
    let args =
        json!({"requests": [["name", "elicit"], ["greeting", "sample"], ["where", "roots"]]});
    // The client declares elicitation and roots, not sampling; the policy
    // does not grant roots.
    let first = s.request(
        "tools/call",
        call_params(
            "batch",
            args.clone(),
            json!({"elicitation": {}, "roots": {}}),
            json!({}),
        ),
    );
    let requests = input_requests(&first);
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["name"], "{first}");
    let second = s.request(
        "tools/call",
        call_params(
            "batch",
            args,
            json!({"elicitation": {}, "roots": {}}),
            json!({
                "inputResponses": {"name": accept(json!({"answer": "Ada"}))},
                "requestState": state(&first)
            }),
        ),
    );
    let out: Value = serde_json::from_str(&text(result(&second))).unwrap();
    let answers = out["answers"].as_array().unwrap();
    assert_eq!(answers[0]["content"]["answer"], "Ada", "{out}");
    let sampling = answers[1]["error"].as_str().unwrap();
    assert!(
        sampling.starts_with("unsupported:") && sampling.contains("sampling"),
        "{sampling}"
    );
    let roots = answers[2]["error"].as_str().unwrap();
    assert!(
        roots.starts_with("denied:") && roots.contains("`roots = true`"),
        "{roots}"
    );
}

#[test]
fn roots_sampling_and_elicitation_arrive_in_one_round() {
    let setup = setup(GRANTED);
    let mut s = start(&setup, &[]);
    let args =
        json!({"requests": [["name", "elicit"], ["greeting", "sample"], ["where", "roots"]]});
    let first = call(&mut s, "batch", args.clone(), json!({}));
    let requests = input_requests(&first);
    let methods: Vec<&str> = ["name", "greeting", "where"]
        .iter()
        .map(|k| requests[*k]["method"].as_str().unwrap())
        .collect();
    assert_eq!(
        methods,
        ["elicitation/create", "sampling/createMessage", "roots/list"]
    );
    let second = call(
        &mut s,
        "batch",
        args,
        json!({
            "inputResponses": {
                "name": accept(json!({"answer": "Ada"})),
                "greeting": {"role": "assistant", "content": {"type": "text", "text": "Hi"}, "model": "m"},
                "where": {"roots": [{"uri": "file:///work", "name": "work"}]}
            },
            "requestState": state(&first)
        }),
    );
    let out: Value = serde_json::from_str(&text(result(&second))).unwrap();
    assert_eq!(
        out["answers"],
        json!([
            {"action": "accept", "content": {"answer": "Ada"}},
            {"text": "Hi", "model": "m"},
            {"roots": [{"uri": "file:///work", "name": "work"}]}
        ])
    );
}

#[test]
fn a_call_past_the_round_limit_ends_with_an_error_naming_the_flag() {
    let setup = setup(GRANTED);
    let mut s = start(&setup, &["--max-input-rounds", "1"]);
    let args = json!({"first": "Name?", "second": "Colour?"});
    let one = call(&mut s, "interview", args.clone(), json!({}));
    let two = call(
        &mut s,
        "interview",
        args,
        json!({
            "inputResponses": {"elicitation-1": accept(json!({"answer": "Ada"}))},
            "requestState": state(&one)
        }),
    );
    let r = result(&two);
    assert_eq!(r["isError"], true, "{two}");
    assert!(text(r).contains("--max-input-rounds"), "{two}");
    // Every round's result carries its receipt, this one too.
    for response in [&one, &two] {
        let receipt = &result(response)["_meta"]["mcp-wasm-host/receipt"];
        assert_eq!(receipt["outcome"], "input_required", "{response}");
        assert!(receipt["fuelUsed"].as_u64().unwrap() > 0, "{response}");
    }
}

#[test]
fn at_2025_11_25_the_same_guest_gets_its_roots_through_a_server_to_client_request() {
    let setup = setup(GRANTED);
    let mut s = start(&setup, &[]);
    let id = s.send_request(
        "initialize",
        json!({
            "protocolVersion": R4,
            "capabilities": {"roots": {}},
            "clientInfo": {"name": "input-required-test", "version": "0"}
        }),
    );
    assert!(s.response(id).get("result").is_some());
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let call = s.send_request("tools/call", json!({"name": "roots", "arguments": {}}));
    let ask = s.recv();
    assert_eq!(ask["method"], "roots/list", "{ask}");
    s.send(&json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": [{"uri": "file:///home/ada"}]}}));
    let response = s.response(call);
    let out: Value = serde_json::from_str(&text(result(&response))).unwrap();
    assert_eq!(
        out,
        json!({"roots": [{"uri": "file:///home/ada", "name": null}]})
    );
}

/// POSTs a 2026-07-28 `tools/call` to a stateless HTTP server.
fn post_call(server: &HttpServer, params: &Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    Client::new(&server.url)
        .with_header("MCP-Protocol-Version", R5)
        .with_header("Mcp-Method", "tools/call")
        .with_header("Mcp-Name", params["name"].as_str().unwrap())
        .post(&body)
        .response(1)
        .clone()
}

/// Two stateless HTTP servers on the same plugins and policy, sharing the
/// request-state key [`KEY`]: replicas behind a load balancer.
fn replicas(setup: &Setup) -> (HttpServer, HttpServer) {
    let args = [
        "--config",
        setup.config.to_str().unwrap(),
        "--stateless",
        "--request-state-key-env",
        "STATE_KEY",
    ];
    let start = || HttpServer::start_with_env(setup.plugins.path(), &args, &[("STATE_KEY", KEY)]);
    (start(), start())
}

#[test]
fn rounds_cross_stateless_http_replicas_that_share_the_key() {
    let setup = setup(GRANTED);
    let (a, b) = replicas(&setup);
    let interview = json!({"first": "Name?", "second": "Colour?"});
    let one = post_call(
        &a,
        &call_params("interview", interview.clone(), capable(), json!({})),
    );
    let two = post_call(
        &b,
        &call_params(
            "interview",
            interview.clone(),
            capable(),
            json!({
                "inputResponses": {"elicitation-1": accept(json!({"answer": "Ada"}))},
                "requestState": state(&one)
            }),
        ),
    );
    assert!(input_requests(&two).contains_key("elicitation-2"), "{two}");
    let three = post_call(
        &a,
        &call_params(
            "interview",
            interview,
            capable(),
            json!({
                "inputResponses": {"elicitation-2": accept(json!({"answer": "green"}))},
                "requestState": state(&two)
            }),
        ),
    );
    let out: Value = serde_json::from_str(&text(result(&three))).unwrap();
    assert_eq!(
        out,
        json!({"first": {"answer": "Ada"}, "second": {"answer": "green"}})
    );
}

#[test]
fn the_python_sdk_client_answers_the_guests_requests_at_2026_07_28_over_stdio() {
    let setup = setup(GRANTED);
    let summary = run_python_client("input_required_client.py", &served_by(&setup));
    assert_eq!(summary["automatic"]["negotiated"], R5, "{summary}");
    assert_eq!(summary["automatic"]["asked"], asked_in_order(), "{summary}");
}

#[test]
fn the_python_sdk_client_takes_the_rounds_across_two_stateless_replicas() {
    let setup = setup(GRANTED);
    let (a, b) = replicas(&setup);
    let summary = run_python_client(
        "input_required_client.py",
        &[
            "--url".as_ref(),
            a.url.as_ref(),
            "--url-b".as_ref(),
            b.url.as_ref(),
        ],
    );
    assert_eq!(summary["transport"], "http", "{summary}");
    // Round 1 on a, round 2 on b, the last round on a again.
    assert_eq!(
        summary["replicas"]["servers"],
        json!(["a", "b", "a"]),
        "{summary}"
    );
    assert_eq!(
        summary["replicas"]["interview"],
        json!({"first": {"answer": "Ada"}, "second": {"answer": "green"}})
    );
}

/// `--plugins DIR --config FILE` for a client that starts the server.
fn served_by(setup: &Setup) -> Vec<&std::ffi::OsStr> {
    vec![
        "--plugins".as_ref(),
        setup.plugins.path().as_os_str(),
        "--config".as_ref(),
        setup.config.as_os_str(),
    ]
}

/// What a real client's handlers are asked, in order, by `interview` and
/// `batch`.
fn asked_in_order() -> Value {
    json!([
        "elicitation: Name?",
        "elicitation: Colour?",
        "sampling",
        "roots",
        "elicitation: who"
    ])
}

#[test]
fn the_typescript_v2_client_answers_the_guests_requests_at_2026_07_28_over_stdio() {
    let setup = setup(GRANTED);
    let mut args: Vec<&std::ffi::OsStr> =
        vec!["--stdio".as_ref(), binary().as_ref(), "serve".as_ref()];
    args.extend(served_by(&setup));
    let summary = run_node_client("input-required-v2.mjs", &args);
    assert_eq!(summary["negotiated"], R5, "{summary}");
    assert_eq!(summary["asked"], asked_in_order(), "{summary}");
}

#[test]
fn the_typescript_v2_client_answers_the_guests_requests_on_a_stateless_http_server() {
    let setup = setup(GRANTED);
    let server = HttpServer::start(
        setup.plugins.path(),
        &["--config", setup.config.to_str().unwrap(), "--stateless"],
    );
    let summary = run_node_client(
        "input-required-v2.mjs",
        &["--url".as_ref(), server.url.as_ref()],
    );
    assert_eq!(summary["asked"], asked_in_order(), "{summary}");
    assert_eq!(
        summary["interview"],
        json!({"first": {"answer": "Ada"}, "second": {"answer": "green"}})
    );
}

#[test]
fn the_requests_to_the_client_count_against_the_calls_result_size() {
    let setup = setup(&format!(
        "[plugins.asker]\nmax_result_size = \"2KiB\"\n{GRANTED}"
    ));
    let mut s = start(&setup, &[]);
    let mut args = elicit_args();
    args["message"] = json!("x".repeat(4096));
    let refused = call(&mut s, "elicit", args, json!({}));
    let r = result(&refused);
    assert_eq!(r["isError"], true, "{refused}");
    let message = text(r);
    assert!(
        message.contains("failed: this request would bring")
            && message.contains("`max_result_size` in [plugins.asker]"),
        "{message}"
    );
    // A request within the limit is asked.
    assert!(
        input_requests(&call(&mut s, "elicit", elicit_args(), json!({})))
            .contains_key("elicitation-1")
    );
}

#[test]
fn a_plugin_built_against_wit_0_1_2_asks_in_rounds_and_requires_capabilities() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mcp-wasm-host.toml");
    std::fs::write(
        &config,
        "[plugins.legacy012.client]\nelicitation = true\nroots = true\n",
    )
    .unwrap();
    let plugins = plugin_dir(&[test_artifacts::LEGACY012]);
    let mut s =
        Server::start_with_env(plugins.path(), &["--config", config.to_str().unwrap()], &[]);
    let first = call(&mut s, "legacy_batch", json!({}), json!({}));
    let requests = input_requests(&first);
    assert_eq!(
        requests.keys().collect::<Vec<_>>(),
        ["where", "who"],
        "{first}"
    );
    let second = call(
        &mut s,
        "legacy_batch",
        json!({}),
        json!({
            "inputResponses": {
                "who": accept(json!({"name": "Ada"})),
                "where": {"roots": [{"uri": "file:///srv"}]}
            },
            "requestState": state(&first)
        }),
    );
    assert_eq!(
        text(result(&second)),
        "elicit {\"name\":\"Ada\"}\nroots file:///srv",
        "{second}"
    );
    // Without the roots capability, `require` ends the call with -32021.
    let refused = s.request(
        "tools/call",
        call_params(
            "legacy_batch",
            json!({}),
            json!({"elicitation": {}}),
            json!({}),
        ),
    );
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
}
