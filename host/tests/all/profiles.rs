//! Profiles (`[profiles.NAME]`): the official Python SDK client on two
//! profiles over HTTP (`/mcp/NAME`) and one over stdio (`serve --profile`)
//! lists and calls only its profile's tools, and a hidden tool's error is
//! byte for byte that of a tool nothing serves; an unknown profile stops
//! the server naming the known ones; a reload that changes a profile tells
//! its sessions, and no other.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::common::http::{self, Client};
use crate::common::log::{self, Event};
use crate::common::revision::R4;
use crate::common::{HttpServer, JSON_LOGS, Server, plugins_with_policy};

const POLICY: &str = r#"
[profiles.enc]
plugins = ["encoding"]
exclude_tools = ["uuid", "hash"]

[profiles.data]
tools = ["json_*", "text_stats"]

[profiles.readers]
plugins = ["github"]
annotations = ["read_only"]
"#;

const ENC: &str = "base64_decode,base64_encode,hex_decode,hex_encode,url_decode,url_encode";
const DATA: &str = "json_format,json_query,json_validate,text_stats";

fn example(name: &str) -> String {
    Path::new(test_artifacts::EXAMPLES_DIR)
        .join(format!("{name}.wasm"))
        .to_str()
        .unwrap()
        .to_string()
}

fn examples() -> Vec<String> {
    ["encoding", "json", "text", "github"]
        .iter()
        .map(|n| example(n))
        .collect()
}

fn client(args: &[&str]) -> Value {
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
    crate::common::run_python_client("profile_client.py", &args)
}

#[test]
fn python_sdk_clients_see_and_call_only_their_profiles_tools() {
    let files = examples();
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    let (_dir, plugins, config) = plugins_with_policy(&files, POLICY);
    let server = HttpServer::start(&plugins, &["--config", &config]);

    let enc = client(&[
        "--url",
        &format!("{}/enc", server.url),
        "--expect-tools",
        ENC,
        "--call",
        "base64_encode",
        "--args",
        r#"{"text": "Hello, World!"}"#,
        "--expect-text",
        "SGVsbG8sIFdvcmxkIQ==",
        "--hidden",
        "uuid,hash,json_format,list_issues",
    ]);
    assert_eq!(enc["hidden"]["uuid"]["code"], -32602, "{enc}");

    client(&[
        "--url",
        &format!("{}/data", server.url),
        "--expect-tools",
        DATA,
        "--call",
        "json_format",
        "--args",
        r#"{"document": "{\"b\":1}", "indent": 0}"#,
        "--expect-text",
        r#"{"b":1}"#,
        "--hidden",
        "base64_encode,uuid,create_issue",
    ]);

    // An unknown profile's path is no endpoint.
    let mut nowhere = Client::new(&format!("{}/nope", server.url));
    let reply = nowhere.post(&http::initialize_request(1, R4));
    assert_eq!(reply.status, 404, "{reply:#?}");
    // `/mcp` itself serves everything.
    let mut all = Client::new(&server.url);
    assert_eq!(all.initialize(R4).status, 200);
    all.call_value("uuid", json!({"count": 1}));

    // stdio, bound to the read-only tools of `github`.
    let stdio = client(&[
        "--plugins",
        plugins.to_str().unwrap(),
        "--server-arg=--config",
        &format!("--server-arg={config}"),
        "--server-arg=--profile",
        "--server-arg=readers",
        "--expect-tools",
        "list_issues",
        "--call",
        "list_issues",
        "--args",
        r#"{"owner": "octo", "repo": "demo"}"#,
        "--expect-text",
        "HTTP-request-denied",
        "--hidden",
        "create_issue,base64_encode",
    ]);
    assert_eq!(stdio["tools"], json!(["list_issues"]), "{stdio}");
}

/// The raw response line to `tools/call` of `name` (request id 7) from a
/// stdio server on `plugins` bound to the profile `data`.
fn raw_call(plugins: &Path, config: &str, name: &str) -> String {
    let mut s = Server::initialized(plugins, &["--config", config, "--profile", "data"], R4);
    s.send(&json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": name, "arguments": {}}
    }));
    let response = s.response(7);
    assert_eq!(response["error"]["code"], -32602, "{response}");
    s.raw.last().unwrap().clone()
}

#[test]
fn a_hidden_tool_is_answered_byte_for_byte_as_one_nothing_serves() {
    // `uuid` is served and hidden by the profile in one server, and served
    // by no plugin in the other.
    let (_with, with_plugins, with_config) =
        plugins_with_policy(&[&example("encoding"), &example("json")], POLICY);
    let (_without, without_plugins, without_config) =
        plugins_with_policy(&[&example("json")], POLICY);
    let hidden = raw_call(&with_plugins, &with_config, "uuid");
    let missing = raw_call(&without_plugins, &without_config, "uuid");
    assert_eq!(hidden, missing);
    assert!(hidden.contains("unknown tool"), "{hidden}");
}

#[test]
fn an_unknown_profile_stops_the_server_naming_the_known_ones() {
    let (_dir, plugins, config) = plugins_with_policy(&[&example("json")], POLICY);
    let out = Command::new(crate::common::binary())
        .args(["serve", "--plugins"])
        .arg(&plugins)
        .args(["--config", &config, "--profile", "nope"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            r#"--profile: unknown profile "nope": the policy file defines data, enc, readers"#
        ),
        "{stderr}"
    );
}

#[test]
fn what_a_profile_names_and_nothing_serves_is_reported() {
    let policy = r#"
[profiles.typo]
plugins = ["json", "ghost"]
tools = ["json_*", "jsno_*"]
"#;
    let (_dir, plugins, config) = plugins_with_policy(&[&example("json")], policy);
    let s = Server::initialized(&plugins, &["--config", &config], R4);
    s.wait_for_stderr("`profiles.typo.tools`: \"jsno_*\" matches no tool");
    let stderr = s.stderr();
    assert!(
        stderr
            .contains("`profiles.typo.plugins`: no plugin \"ghost\" is loaded (it may come later)"),
        "{stderr}"
    );
    assert!(!stderr.contains("\"json_*\" matches no tool"), "{stderr}");
}

/// An HTTP server on `encoding` and `json` under `POLICY`, logging JSON,
/// once it watches the plugins directory (and the policy file).
fn watching_server() -> (tempfile::TempDir, std::path::PathBuf, String, HttpServer) {
    let files = [example("encoding"), example("json")];
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    let (dir, plugins, config) = plugins_with_policy(&files, POLICY);
    let server = HttpServer::start(&plugins, &["--config", &config, JSON_LOGS[0], JSON_LOGS[1]]);
    server.wait_for_stderr("watching the plugins directory");
    (dir, plugins, config, server)
}

/// A session of `server` at `path` (`""` is `/mcp`) and its listen stream.
fn listening(server: &HttpServer, path: &str) -> (Client, std::sync::mpsc::Receiver<Value>) {
    let mut c = Client::new(&format!("{}{path}", server.url));
    assert_eq!(c.initialize(R4).status, 200);
    let stream = c.listen();
    (c, stream)
}

/// The log events of `server` so far whose message holds `text`, once one
/// is logged.
pub(crate) fn logged(server: &HttpServer, text: &str) -> Vec<Event> {
    server.wait_for_stderr(text);
    log::events(&server.stderr())
        .into_iter()
        .filter(|e| e.text("message").contains(text))
        .collect()
}

/// The tools/list_changed notifications that arrived on `stream` so far.
pub(crate) fn changes(stream: &std::sync::mpsc::Receiver<Value>) -> usize {
    stream
        .try_iter()
        .filter(|m| m["method"] == "notifications/tools/list_changed")
        .count()
}

#[test]
fn a_reload_that_changes_a_profile_tells_its_sessions_only() {
    let (_dir, _plugins, config, server) = watching_server();
    let session = |path: &str| listening(&server, path);
    let (mut enc, enc_stream) = session("/enc");
    let (_data, data_stream) = session("/data");
    let (_all, all_stream) = session("");
    // Once the plugins are listed (a list waits for the first load), a
    // change of what a profile shows of them is a change to its sessions.
    let names = |c: &mut Client| -> Vec<String> {
        c.request("tools/list", json!({}))["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(!names(&mut enc).contains(&"hash".to_string()));

    // `enc` shows `hash` again; `data` changes its words, not its view.
    let changed = POLICY
        .replace(
            r#"exclude_tools = ["uuid", "hash"]"#,
            r#"exclude_tools = ["uuid"]"#,
        )
        .replace(
            r#"tools = ["json_*", "text_stats"]"#,
            "tools = [\"json_*\", \"text_stats\"]\nexclude_tools = [\"no_such_tool\"]",
        );
    std::fs::write(&config, changed).unwrap();
    let told = enc_stream
        .recv_timeout(crate::common::DEADLINE)
        .unwrap_or_else(|_| panic!("the enc session heard nothing:\n{}", server.stderr()));
    assert_eq!(told["method"], "notifications/tools/list_changed", "{told}");
    assert!(names(&mut enc).contains(&"hash".to_string()));
    // The sessions of each profile are told in the profiles' order
    // (`data` before `enc`): once `enc`'s line is logged, one for `data`
    // would have been.
    let events = logged(&server, "a profile's lists changed");
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].text("profile"), "enc", "{events:?}");
    assert_eq!(changes(&data_stream), 0);
    assert_eq!(changes(&all_stream), 0);
}

#[test]
fn check_shows_the_tools_each_profile_serves() {
    let files = examples();
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    let (_dir, plugins, config) = plugins_with_policy(&files, POLICY);
    let out = Command::new(crate::common::binary())
        .arg("check")
        .arg(&plugins)
        .args(["--config", &config])
        .env(
            "MCP_WASM_HOST_CACHE_DIR",
            crate::common::target_dir().join("test-cache"),
        )
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("profile enc: {}\n", ENC.replace(',', ", "))),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("profile data: {}\n", DATA.replace(',', ", "))),
        "{stdout}"
    );
    assert!(
        stdout.contains("profile readers: list_issues\n"),
        "{stdout}"
    );
}

/// `inspect FILE --config POLICY ARGS…`: its stdout, after it succeeded.
fn inspect(file: &str, config: &str, args: &[&str]) -> String {
    let out = Command::new(crate::common::binary())
        .args(["inspect", file, "--config", config])
        .args(args)
        .env(
            "MCP_WASM_HOST_CACHE_DIR",
            crate::common::target_dir().join("test-cache"),
        )
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn inspect_shows_the_tools_each_profile_serves_of_the_plugin() {
    let (_dir, _plugins, config) = plugins_with_policy(&[], POLICY);
    let encoding = example("encoding");
    let text = inspect(&encoding, &config, &[]);
    let line = |name: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no line for {name}:\n{text}"))
            .split_whitespace()
            .skip(1)
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(line("enc"), ENC.replace(',', ", "), "{text}");
    assert_eq!(line("data"), "no tools", "{text}");
    assert_eq!(line("readers"), "no tools", "{text}");
    let json: Value = serde_json::from_str(&inspect(&encoding, &config, &["--json"])).unwrap();
    let enc: Vec<&str> = ENC.split(',').collect();
    assert_eq!(
        json["profiles"],
        json!({"enc": enc, "data": [], "readers": []}),
        "{json:#}"
    );
}

#[test]
fn a_new_plugin_is_told_only_to_the_sessions_whose_profile_shows_it() {
    let (_dir, plugins, _config, server) = watching_server();
    let session = |path: &str| {
        let (mut c, stream) = listening(&server, path);
        c.request("tools/list", json!({}));
        (c, stream)
    };
    let (_enc, enc_stream) = session("/enc");
    let (_data, data_stream) = session("/data");
    let (_all, all_stream) = session("");
    server.wait_for_stderr("clients are told of list changes from now on");

    // `text` brings `text_stats`: in `data`'s view and everyone's, not in
    // `enc`'s (the encoding plugin only).
    std::fs::copy(example("text"), plugins.join("text.wasm")).unwrap();
    for (name, stream) in [("data", &data_stream), ("/mcp", &all_stream)] {
        let told = stream
            .recv_timeout(crate::common::DEADLINE)
            .unwrap_or_else(|_| panic!("{name} heard nothing:\n{}", server.stderr()));
        assert_eq!(told["method"], "notifications/tools/list_changed", "{told}");
    }
    let untold = logged(
        &server,
        "not telling the sessions whose profiles show none of it",
    );
    assert_eq!(untold.len(), 1, "{untold:?}");
    assert_eq!(untold[0].field("sessions"), 1, "{untold:?}");
    assert_eq!(changes(&enc_stream), 0);
}

#[test]
fn a_listen_stream_hears_only_the_list_changes_its_profile_shows() {
    let policy = "[profiles.errs]\nplugins = [\"errors\"]\n";
    let (_dir, plugins, config) = plugins_with_policy(&[test_artifacts::ERRORS], policy);
    let mut s = Server::start(
        &plugins,
        &[
            "--config",
            &config,
            "--profile",
            "errs",
            JSON_LOGS[0],
            JSON_LOGS[1],
        ],
    );
    let meta = || crate::common::r5_meta(json!({}));
    s.request("tools/list", json!({"_meta": meta()}));
    s.send_request(
        "subscriptions/listen",
        json!({"_meta": meta(), "notifications": {"toolsListChanged": true}}),
    );
    let ack = s.recv();
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    // fnv's tool is no part of `errs`: the stream is not told.
    std::fs::copy(test_artifacts::FNV, plugins.join("fnv.wasm")).unwrap();
    s.wait_for_stderr("not telling a listen stream what its profiles do not show");
    // errors goes: that is a change of its view.
    std::fs::remove_file(plugins.join("errors.wasm")).unwrap();
    let told = s.recv();
    assert_eq!(told["method"], "notifications/tools/list_changed", "{told}");
    let listed = s.request("tools/list", json!({"_meta": meta()}));
    assert_eq!(listed["result"]["tools"], json!([]), "{listed}");
    assert!(s.notifications.is_empty(), "{:?}", s.notifications);
}
