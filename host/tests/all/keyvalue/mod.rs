//! Tools that remember (issue 45): components written with plain
//! wit-bindgen against the vendored wasi:keyvalue, wasi:config and
//! wasi:logging WIT (`plugins/testing/kvnotes`, `kvdraft`, `cfglabels`),
//! served by the real binary over the embedded store and over a real
//! redis-server: deny by default, granted buckets, quotas, concurrency,
//! persistence, scopes, config values, logging, and names that try to
//! reach another plugin's data.
#![allow(clippy::unwrap_used)]

mod config;
mod names;
mod quotas;
mod redis;

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Value, json};

use crate::common::revision::R4;
use crate::common::{DEADLINE, Server, eventually, plugins_with_policy};

/// The counter and notes component (wasi:keyvalue@0.2.0-draft2, config, logging).
const KVNOTES: &str = test_artifacts::KVNOTES;

/// The policy section granting `kvnotes` the buckets `default` and `notes`.
const GRANTED: &str = "[plugins.kvnotes.keyvalue]\nbuckets = [\"default\", \"notes\"]\n";

/// A stdio server over copies of `components` under `policy`, keeping its
/// state in `state` (else in the returned directory, which holds the
/// plugins and the policy and lives as long as the caller keeps it).
fn serve_in(
    components: &[&str],
    policy: &str,
    state: Option<&Path>,
) -> (Server, tempfile::TempDir) {
    let (dir, plugins, config) = plugins_with_policy(components, policy);
    let state = state.map_or_else(|| dir.path().join("state"), Path::to_path_buf);
    let server = Server::initialized(
        &plugins,
        &["--config", &config, "--state-dir", state.to_str().unwrap()],
        R4,
    );
    (server, dir)
}

/// A stdio server over copies of `components` under `policy`, with a state
/// directory of its own.
fn serve(components: &[&str], policy: &str) -> (Server, tempfile::TempDir) {
    serve_in(components, policy, None)
}

/// The `result` of a tool whose WIT result is `result<T, string>` with a
/// `T`: its structured content's `result`, after asserting success.
fn value(server: &mut Server, tool: &str, arguments: Value) -> Value {
    server.call_structured(tool, arguments)["result"].clone()
}

/// Calls `tool` until a call succeeds (the store came back); the value it
/// returned.
fn until_it_succeeds(server: &mut Server, tool: &str, arguments: Value) -> Value {
    eventually(
        DEADLINE,
        || format!("every call of {tool}({arguments}) failed"),
        || {
            let response = server.call(tool, arguments.clone());
            let result = &response["result"];
            (result["isError"] != json!(true))
                .then(|| result["structuredContent"]["result"].clone())
        },
    )
}

/// The text of the `open` denial of `bucket` that a call of `tool` with
/// `arguments` comes back with, after asserting it is the WIT
/// `access-denied` and names `key` of the policy.
fn assert_denied(server: &mut Server, tool: &str, arguments: Value, key: &str) -> String {
    let error = server.call_err(tool, arguments.clone());
    assert!(
        error.contains("access-denied") && error.contains(key),
        "{tool}({arguments}) should be denied with the WIT access-denied and name {key}: {error}"
    );
    error
}

#[test]
fn the_guests_import_the_wasi_labels_they_were_written_for_and_no_other() {
    let table: &[(&str, &str, &[&str])] = &[
        (
            "kvnotes",
            KVNOTES,
            &[
                "wasi:config/store@0.2.0-rc.1",
                "wasi:keyvalue/atomics@0.2.0-draft2",
                "wasi:keyvalue/batch@0.2.0-draft2",
                "wasi:keyvalue/store@0.2.0-draft2",
                "wasi:logging/logging@0.1.0-draft",
            ],
        ),
        (
            "kvdraft",
            test_artifacts::KVDRAFT,
            &[
                "wasi:keyvalue/atomics@0.2.0-draft",
                "wasi:keyvalue/batch@0.2.0-draft",
                "wasi:keyvalue/store@0.2.0-draft",
            ],
        ),
        (
            "cfglabels",
            test_artifacts::CFGLABELS,
            &[
                "wasi:config/store@0.2.0-draft",
                "wasi:config/store@0.2.0-draft-2024-09-27",
                "wasi:config/store@0.2.0-rc.1",
            ],
        ),
    ];
    for (name, path, expected) in table {
        let expected: BTreeSet<String> = expected.iter().map(|s| s.to_string()).collect();
        assert_eq!(state_imports(path), expected, "{name} imports");
    }
}

/// The WASI state interfaces (`wasi:keyvalue`, `wasi:config`,
/// `wasi:logging`) the component at `path` imports, decoded with
/// wit-component.
pub(crate) fn state_imports(path: &str) -> BTreeSet<String> {
    let bytes = std::fs::read(path).unwrap();
    let wit_component::DecodedWasm::Component(resolve, world) =
        wit_component::decode(&bytes).unwrap()
    else {
        panic!("{path} is not a component");
    };
    resolve.worlds[world]
        .imports
        .keys()
        .map(|key| resolve.name_world_key(key))
        .filter(|import| {
            ["wasi:keyvalue/", "wasi:config/", "wasi:logging/"]
                .iter()
                .any(|p| import.starts_with(p))
        })
        .collect()
}

#[test]
fn a_component_without_a_grant_loads_and_every_open_is_denied_naming_the_key() {
    let key = "plugins.kvnotes.keyvalue.buckets";
    // (what the policy says, the bucket opened)
    let table: &[(&str, &str)] = &[
        ("", "default"),
        ("[plugins.kvnotes]\ntimeout = \"30s\"\n", "default"),
        ("[plugins.kvnotes.keyvalue]\nbuckets = []\n", "default"),
        (GRANTED, "elsewhere"),
        (GRANTED, "Default"),
        (GRANTED, "default "),
    ];
    for (policy, bucket) in table {
        let (mut server, _dir) = serve(&[KVNOTES], policy);
        let (tools, _) = server.list_all_tools();
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        assert!(
            names.contains(&"increment") && names.contains(&"add-note"),
            "under {policy:?} the component loads with its tools: {names:?}"
        );
        let calls = [
            (
                "increment",
                json!({"bucket": bucket, "key": "k", "delta": 1}),
            ),
            ("put", json!({"bucket": bucket, "key": "k", "value": "v"})),
            ("get", json!({"bucket": bucket, "key": "k"})),
            ("keys", json!({"bucket": bucket})),
            (
                "cas-append",
                json!({"bucket": bucket, "key": "k", "suffix": "s"}),
            ),
            ("get-many", json!({"bucket": bucket, "keys": ["k"]})),
        ];
        for (tool, arguments) in calls {
            assert_denied(&mut server, tool, arguments, key);
        }
        server.wait_for_stderr(key);
        // The component still runs: a tool using no store answers.
        assert_eq!(value(&mut server, "ping", json!({})), json!("pong"));
    }
}

#[test]
fn a_granted_bucket_gets_sets_deletes_lists_counts_and_swaps() {
    let (mut server, _dir) = serve(&[KVNOTES], GRANTED);
    let b = "default";
    // (tool, arguments, the ok value; Null for a function returning nothing)
    let table: Vec<(&str, Value, Value)> = vec![
        ("get", json!({"bucket": b, "key": "a"}), Value::Null),
        ("exists", json!({"bucket": b, "key": "a"}), json!(false)),
        (
            "put",
            json!({"bucket": b, "key": "a", "value": "one"}),
            Value::Null,
        ),
        ("get", json!({"bucket": b, "key": "a"}), json!("one")),
        ("exists", json!({"bucket": b, "key": "a"}), json!(true)),
        (
            "put",
            json!({"bucket": b, "key": "a", "value": "uno"}),
            Value::Null,
        ),
        ("get", json!({"bucket": b, "key": "a"}), json!("uno")),
        (
            "put",
            json!({"bucket": b, "key": "ü/ß 😀", "value": ""}),
            Value::Null,
        ),
        ("get", json!({"bucket": b, "key": "ü/ß 😀"}), json!("")),
        ("keys", json!({"bucket": b}), json!(["a", "ü/ß 😀"])),
        ("delete", json!({"bucket": b, "key": "ü/ß 😀"}), Value::Null),
        (
            "delete",
            json!({"bucket": b, "key": "never-set"}),
            Value::Null,
        ),
        ("keys", json!({"bucket": b}), json!(["a"])),
        (
            "increment",
            json!({"bucket": b, "key": "n", "delta": 5}),
            json!(5),
        ),
        (
            "increment",
            json!({"bucket": b, "key": "n", "delta": -7}),
            json!(-2),
        ),
        (
            "increment",
            json!({"bucket": b, "key": "n", "delta": 0}),
            json!(-2),
        ),
        (
            "cas-append",
            json!({"bucket": b, "key": "c", "suffix": "x"}),
            json!("x"),
        ),
        (
            "cas-append",
            json!({"bucket": b, "key": "c", "suffix": "yz"}),
            json!("xyz"),
        ),
        ("get", json!({"bucket": b, "key": "c"}), json!("xyz")),
        (
            "put-many",
            json!({"bucket": b, "entries": [["m1", "v1"], ["m2", "v2"], ["m3", "v3"]]}),
            Value::Null,
        ),
        (
            "get-many",
            json!({"bucket": b, "keys": ["m1", "absent", "m3"]}),
            json!(["v1", null, "v3"]),
        ),
        (
            "delete-many",
            json!({"bucket": b, "keys": ["m1", "m3"]}),
            Value::Null,
        ),
        (
            "get-many",
            json!({"bucket": b, "keys": ["m1", "m2", "m3"]}),
            json!([null, "v2", null]),
        ),
        ("keys", json!({"bucket": b}), json!(["a", "c", "m2", "n"])),
        // The bucket "notes" is another namespace.
        ("keys", json!({"bucket": "notes"}), json!([])),
        ("add-note", json!({"text": "first"}), json!(1)),
        ("add-note", json!({"text": "second"}), json!(2)),
        ("notes", json!({}), json!(["first", "second"])),
    ];
    for (tool, arguments, expected) in table {
        if expected.is_null() && !matches!(tool, "get") {
            server.call_ok(tool, arguments);
        } else {
            let got = value(&mut server, tool, arguments.clone());
            assert_eq!(got, expected, "{tool}({arguments})");
        }
    }
    // Listing walks every page: more keys than one page is likely to hold.
    assert_eq!(
        value(
            &mut server,
            "fill",
            json!({"bucket": "notes", "prefix": "bulk-", "count": 600, "size": 3})
        ),
        json!(600)
    );
    let keys = value(&mut server, "keys", json!({"bucket": "notes"}));
    let keys: Vec<&str> = keys
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(keys.iter().filter(|k| k.starts_with("bulk-")).count(), 600);
    let unique: BTreeSet<&&str> = keys.iter().collect();
    assert_eq!(unique.len(), keys.len(), "no key listed twice");
}

/// Sends every call at once over one stdio session, then collects the
/// responses in whatever order they come; returns their results.
pub(crate) fn all_at_once(server: &mut Server, calls: &[(&str, Value)]) -> Vec<Value> {
    let ids: Vec<i64> = calls
        .iter()
        .map(|(tool, arguments)| {
            server.send_request("tools/call", json!({"name": tool, "arguments": arguments}))
        })
        .collect();
    let mut results = std::collections::BTreeMap::new();
    while results.len() < ids.len() {
        let message = server.recv();
        match message["id"].as_i64() {
            Some(id) if ids.contains(&id) => {
                let result = message
                    .get("result")
                    .cloned()
                    .unwrap_or_else(|| panic!("call {id} failed: {message}"));
                assert_ne!(result["isError"], json!(true), "call {id}: {result}");
                results.insert(id, result);
            }
            _ => server.notifications.push(message),
        }
    }
    ids.iter().map(|id| results.remove(id).unwrap()).collect()
}

#[test]
fn sixteen_increments_and_sixteen_compare_and_swaps_in_flight_all_count() {
    let (mut server, _dir) = serve(&[KVNOTES], GRANTED);
    let increments: Vec<(&str, Value)> = (0..16)
        .map(|_| {
            (
                "increment",
                json!({"bucket": "default", "key": "hits", "delta": 1}),
            )
        })
        .collect();
    let results = all_at_once(&mut server, &increments);
    let mut seen: Vec<i64> = results
        .iter()
        .map(|r| r["structuredContent"]["result"].as_i64().unwrap())
        .collect();
    seen.sort_unstable();
    assert_eq!(
        seen,
        (1..=16).collect::<Vec<_>>(),
        "each increment saw its own value"
    );
    assert_eq!(
        value(
            &mut server,
            "increment",
            json!({"bucket": "default", "key": "hits", "delta": 0})
        ),
        json!(16)
    );

    let letters: Vec<String> = ('a'..='p').map(String::from).collect();
    let appends: Vec<(&str, Value)> = letters
        .iter()
        .map(|l| {
            (
                "cas-append",
                json!({"bucket": "default", "key": "log", "suffix": l}),
            )
        })
        .collect();
    all_at_once(&mut server, &appends);
    let log = value(
        &mut server,
        "get",
        json!({"bucket": "default", "key": "log"}),
    );
    let mut log: Vec<char> = log.as_str().unwrap().chars().collect();
    log.sort_unstable();
    assert_eq!(
        log.into_iter().collect::<String>(),
        letters.concat(),
        "every append is in the value exactly once"
    );
}

#[test]
fn what_a_tool_stored_survives_a_killed_server_on_the_same_state_dir() {
    let state = tempfile::tempdir().unwrap();
    {
        let (mut first, _dir) = serve_in(&[KVNOTES], GRANTED, Some(state.path()));
        for _ in 0..3 {
            value(
                &mut first,
                "increment",
                json!({"bucket": "default", "key": "n", "delta": 1}),
            );
        }
        value(&mut first, "add-note", json!({"text": "kept"}));
        first.call_ok(
            "put",
            json!({"bucket": "default", "key": "k", "value": "v"}),
        );
        // Dropped: killed (SIGKILL), no clean shutdown.
    }
    let (mut second, _dir) = serve_in(&[KVNOTES], GRANTED, Some(state.path()));
    assert_eq!(
        value(
            &mut second,
            "increment",
            json!({"bucket": "default", "key": "n", "delta": 1})
        ),
        json!(4)
    );
    assert_eq!(value(&mut second, "notes", json!({})), json!(["kept"]));
    assert_eq!(
        value(&mut second, "get", json!({"bucket": "default", "key": "k"})),
        json!("v")
    );
}

#[test]
fn a_second_server_on_the_same_state_dir_fails_its_calls_naming_the_store_file() {
    let state = tempfile::tempdir().unwrap();
    let (mut first, _a) = serve_in(&[KVNOTES], GRANTED, Some(state.path()));
    let hit = json!({"bucket": "default", "key": "n", "delta": 1});
    assert_eq!(value(&mut first, "increment", hit.clone()), json!(1));
    // The embedded file is opened on first use: the second server starts,
    // and its calls that need the store fail cleanly, naming the file,
    // while its calls that need none answer.
    let (mut second, _b) = serve_in(&[KVNOTES], GRANTED, Some(state.path()));
    let error = second.call_err("increment", hit.clone());
    assert!(
        error.contains("store.redb") && error.contains("other: "),
        "the WIT other error naming the store file: {error}"
    );
    assert!(!error.contains("panicked"), "{error}");
    assert_eq!(value(&mut second, "ping", json!({})), json!("pong"));
    // The first server is unaffected.
    assert_eq!(value(&mut first, "increment", hit.clone()), json!(2));
    // Once the first is gone, the second opens the file at its next use.
    drop(first);
    let got = until_it_succeeds(&mut second, "increment", hit);
    assert_eq!(got, json!(3));
}

#[test]
fn a_session_scoped_bucket_holds_each_http_session_its_own_data() {
    use crate::common::http::Client;
    let policy =
        "[plugins.kvnotes.keyvalue]\nbuckets = [\"default\", \"notes\"]\nscope = \"session\"\n";
    let (dir, plugins, config) = plugins_with_policy(&[KVNOTES], policy);
    let state = dir.path().join("state");
    let server = crate::common::HttpServer::start(
        &plugins,
        &["--config", &config, "--state-dir", state.to_str().unwrap()],
    );
    let mut clients: Vec<Client> = (0..2)
        .map(|_| {
            let mut client = Client::new(&server.url);
            let reply = client.initialize(R4);
            assert_eq!(reply.status, 200, "{reply:#?}");
            assert!(client.session.is_some(), "the server assigns a session");
            client
        })
        .collect();
    assert_ne!(clients[0].session, clients[1].session);
    for (n, client) in clients.iter_mut().enumerate() {
        let delta = 10 * (n as i64 + 1);
        let got = client.call_value(
            "increment",
            json!({"bucket": "default", "key": "n", "delta": delta}),
        );
        assert_eq!(got, json!(delta), "session {n} starts from zero");
        client.call_value("add-note", json!({"text": format!("note of session {n}")}));
    }
    for (n, client) in clients.iter_mut().enumerate() {
        let notes = client.call_value("notes", json!({}));
        assert_eq!(notes, json!([format!("note of session {n}")]));
        let got = client.call_value(
            "increment",
            json!({"bucket": "default", "key": "n", "delta": 0}),
        );
        assert_eq!(got, json!(10 * (n as i64 + 1)));
    }
}

#[test]
fn a_scope_the_caller_cannot_fill_is_denied_naming_the_scope_key() {
    let key = "plugins.kvnotes.keyvalue.scope";
    let scoped = |scope: &str| {
        format!("[plugins.kvnotes.keyvalue]\nbuckets = [\"notes\"]\nscope = \"{scope}\"\n")
    };
    // Over stdio there is no OAuth subject.
    let (mut server, _dir) = serve(&[KVNOTES], &scoped("user"));
    assert_denied(&mut server, "add-note", json!({"text": "t"}), key);
    // A stateless HTTP request has neither a session nor, here, a subject.
    for scope in ["session", "user"] {
        let (dir, plugins, config) = plugins_with_policy(&[KVNOTES], &scoped(scope));
        let state = dir.path().join("state");
        let server = crate::common::HttpServer::start(
            &plugins,
            &[
                "--stateless",
                "--config",
                &config,
                "--state-dir",
                state.to_str().unwrap(),
            ],
        );
        let mut client = crate::common::http::Client::new(&server.url);
        let response = client.call(7, "add-note", json!({"text": "t"}));
        let result = &response["result"];
        assert_eq!(result["isError"], json!(true), "scope {scope}: {response}");
        let error = crate::common::text(result);
        assert!(
            error.contains("access-denied") && error.contains(key),
            "scope {scope} without its owner: {error}"
        );
    }
}

#[test]
fn the_draft_label_counts_with_u64_and_lists_with_a_numeric_cursor() {
    let policy = "[plugins.kvdraft.keyvalue]\nbuckets = [\"default\"]\n";
    let (mut server, _dir) = serve(&[test_artifacts::KVDRAFT], policy);
    let b = "default";
    assert_eq!(
        value(
            &mut server,
            "increment",
            json!({"bucket": b, "key": "n", "delta": 2})
        ),
        json!(2)
    );
    assert_eq!(
        value(
            &mut server,
            "increment",
            json!({"bucket": b, "key": "n", "delta": 3})
        ),
        json!(5)
    );
    server.call_ok("put", json!({"bucket": b, "key": "k", "value": "v"}));
    assert_eq!(
        value(&mut server, "get", json!({"bucket": b, "key": "k"})),
        json!("v")
    );
    for batch in 0..6 {
        let entries: Vec<Value> = (0..100)
            .map(|i| json!([format!("bulk-{batch}-{i}"), "x"]))
            .collect();
        server.call_ok("put-many", json!({"bucket": b, "entries": entries}));
    }
    let keys = value(&mut server, "keys", json!({"bucket": b}));
    assert_eq!(keys.as_array().unwrap().len(), 602, "{keys}");
    server.call_ok("delete", json!({"bucket": b, "key": "k"}));
    assert_eq!(
        value(&mut server, "get", json!({"bucket": b, "key": "k"})),
        Value::Null
    );
    let error = server.call_err("get", json!({"bucket": "notes", "key": "k"}));
    assert!(
        error.contains("access-denied") && error.contains("plugins.kvdraft.keyvalue.buckets"),
        "{error}"
    );
}

#[test]
fn the_python_sdk_client_counts_and_takes_notes_over_the_embedded_store() {
    let (dir, plugins, config) = plugins_with_policy(&[KVNOTES], GRANTED);
    python_counts_and_takes_notes(&plugins, &config, &dir.path().join("state"));
}

/// The official Python SDK client lists the tools of the kvnotes component
/// in `plugins` under `config` and calls its counter and notes tools, with
/// the server keeping its state in `state`.
fn python_counts_and_takes_notes(plugins: &Path, config: &str, state: &Path) {
    let calls = json!([
        {"name": "increment", "arguments": {"bucket": "default", "key": "n", "delta": 2}, "expect": "2"},
        {"name": "increment", "arguments": {"bucket": "default", "key": "n", "delta": 40}, "expect": "42"},
        {"name": "add-note", "arguments": {"text": "buy milk"}, "expect": "1"},
        {"name": "add-note", "arguments": {"text": "call home"}, "expect": "2"},
        {"name": "notes", "arguments": {}, "expect": ["buy milk", "call home"]},
        {"name": "get", "arguments": {"bucket": "secret-bucket", "key": "k"},
         "expect": ["access-denied", "plugins.kvnotes.keyvalue.buckets"], "is_error": true},
    ]);
    let file = state.with_extension("calls.json");
    std::fs::write(&file, calls.to_string()).unwrap();
    let summary = crate::common::run_python_client(
        "sdk_client.py",
        &[
            "--plugins".as_ref(),
            plugins.as_os_str(),
            format!("--server-arg=--config={config}").as_ref(),
            format!("--server-arg=--state-dir={}", state.display()).as_ref(),
            "--call-all-file".as_ref(),
            file.as_os_str(),
        ],
    );
    assert!(summary.is_object(), "{summary}");
}

/// A component built against Spin's copy of wasi:keyvalue@0.2.0-draft2
/// (its `batch.get-many` returns `list<tuple<string, option<list<u8>>>>`,
/// upstream's `list<option<tuple<string, list<u8>>>>`), importing `open`
/// of `store` and, when `with_batch`, Spin's `get-many`.
fn spin_shaped(with_batch: bool) -> Vec<u8> {
    let wit = r#"
package test:spinlike;

package wasi:keyvalue@0.2.0-draft2 {
    interface store {
        variant error { no-such-store, access-denied, other(string) }
        resource bucket {
            get: func(key: string) -> result<option<list<u8>>, error>;
        }
        open: func(identifier: string) -> result<bucket, error>;
    }
    interface batch {
        use store.{bucket, error};
        get-many: func(bucket: borrow<bucket>, keys: list<string>) -> result<list<tuple<string, option<list<u8>>>>, error>;
    }
}

world w {
    import wasi:keyvalue/store@0.2.0-draft2;
    import wasi:keyvalue/batch@0.2.0-draft2;
    export answer: func() -> u32;
}
"#;
    let batch = if with_batch {
        r#"(import "wasi:keyvalue/batch@0.2.0-draft2" "get-many" (func (param i32 i32 i32 i32)))"#
    } else {
        ""
    };
    let core = format!(
        r#"(module
        (import "wasi:keyvalue/store@0.2.0-draft2" "open" (func (param i32 i32 i32)))
        {batch}
        (memory (export "memory") 1)
        (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32) unreachable)
        (func (export "answer") (result i32) i32.const 42))"#
    );
    test_artifacts::component_of_wit(wit, "w", &core)
}

#[test]
fn spins_get_many_fails_to_link_naming_the_interface_while_its_store_alone_links() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("spinstore.wasm"), spin_shaped(false)).unwrap();
    std::fs::write(dir.path().join("spinbatch.wasm"), spin_shaped(true)).unwrap();
    let state = dir.path().join("state");
    let mut server = Server::initialized(dir.path(), &["--state-dir", state.to_str().unwrap()], R4);
    let (tools, _) = server.list_all_tools();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["answer"], "only the store-only component loads");
    assert_eq!(value(&mut server, "answer", json!({})), json!(42));
    server.wait_for_stderr("wasi:keyvalue/batch@0.2.0-draft2");
    let log = server.stderr();
    assert!(
        log.lines()
            .any(|l| l.contains("spinbatch.wasm") && l.contains("wasi:keyvalue/batch@0.2.0-draft2")),
        "the refusal of spinbatch names the interface:\n{log}"
    );
}
