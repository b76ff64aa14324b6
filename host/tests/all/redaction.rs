//! Secrets never reach the client through anything a guest produces. The
//! `leaker` plugin holds an exposed secret and returns it, as itself,
//! JSON-escaped (with `\/`), in standard and URL-safe base64 and
//! percent-encoded with upper- and lower-case hex, after 0, 1 and 2 bytes
//! of padding (base64's three alignments), through every surface: a tool's
//! text, structured content, embedded resource, blob, image and link; a
//! task's status, input request and result; progress; a resource read
//! (text and blob); a prompt; a completion; and sampling and elicitation
//! requests. Every message the
//! client receives is searched for the secret in each form by this test's
//! own encoder, and must show `[redacted]` instead. Inbound, with
//! `block_secrets` a request whose arguments hold the secret in any form is
//! refused with the key named, before the guest runs.
//!
//! What the plugin lists at load holds the secret too, in every form: the
//! texts, schemas and icons of its tools, resources, templates and prompts
//! come back redacted from tools/list, resources/list,
//! resources/templates/list, prompts/list and `inspect` (text and JSON),
//! and the entries whose name or URI holds it are left out, with a log
//! line that names no value.

#![allow(clippy::unwrap_used)]

use crate::common::revision::R4;
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE, URL_SAFE_NO_PAD};
use serde_json::{Value, json};

use crate::common::{Server, plugin_dir};

/// The secret: it has characters each encoding treats specially.
const SECRET: &str = "tok/EN+sec\"ret=value~42";

const HOWS: [&str; 6] = [
    "exact",
    "json",
    "base64",
    "base64url",
    "percent",
    "percent_lower",
];
const PADS: [usize; 3] = [0, 1, 2];

struct Setup {
    _plugins: tempfile::TempDir,
    _config_dir: tempfile::TempDir,
    server: Server,
}

/// A server with the leaker plugin, its secret exposed, `extra` added to
/// its policy.
fn start(extra: &str) -> Setup {
    start_with(extra, SECRET)
}

/// [`start`] with the secret `secret`.
fn start_with(extra: &str, secret: &str) -> Setup {
    let plugins = plugin_dir(&[test_artifacts::LEAKER]);
    let config_dir = tempfile::tempdir().unwrap();
    let config = config_dir.path().join("mcp-wasm-host.toml");
    std::fs::write(
        &config,
        format!(
            "[plugins.leaker]\n{extra}\n[plugins.leaker.secrets.LEAK]\nenv = \"TEST_LEAKER_SECRET\"\nexpose = true\n\
             [plugins.leaker.client]\nsampling = true\nelicitation = true\n\
             [server]\ntask_sync_window = \"0s\"\n"
        ),
    )
    .unwrap();
    let server = Server::start_with_env(
        plugins.path(),
        &["--config", config.to_str().unwrap()],
        &[("TEST_LEAKER_SECRET", secret)],
    );
    Setup {
        _plugins: plugins,
        _config_dir: config_dir,
        server,
    }
}

fn handshake(s: &mut Server) {
    let init = s.request(
        "initialize",
        json!({
            "protocolVersion": R4,
            "capabilities": {"sampling": {}, "elicitation": {}},
            "clientInfo": {"name": "redaction-test", "version": "0"}
        }),
    );
    assert!(init.get("result").is_some(), "{init}");
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
}

/// The runs of base64 characters that the secret alone decides, when it
/// starts `pad` bytes into the encoded text, in both alphabets.
fn base64_cores(pad: usize) -> Vec<String> {
    let plain = format!("{}{SECRET} end", "x".repeat(pad));
    let first = (8 * pad).div_ceil(6);
    let end = 8 * (pad + SECRET.len()) / 6;
    [STANDARD.encode(&plain), URL_SAFE.encode(&plain)]
        .into_iter()
        .map(|e| e[first..end].to_string())
        .collect()
}

/// Every form of the secret this test looks for, by name: the value, its
/// JSON escapes, its percent-encodings, and every 8-character run of its
/// base64 at each alignment.
fn forms() -> Vec<(String, String)> {
    let json = serde_json::to_string(SECRET).unwrap();
    let json = json.trim_matches('"').to_string();
    let percent = |upper: bool| -> String {
        SECRET
            .bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                    char::from(b).to_string()
                } else if upper {
                    format!("%{b:02X}")
                } else {
                    format!("%{b:02x}")
                }
            })
            .collect()
    };
    let mut out = vec![
        ("exact".to_string(), SECRET.to_string()),
        ("json".into(), json.clone()),
        ("json \\/".into(), json.replace('/', "\\/")),
        ("percent".into(), percent(true)),
        ("percent lower".into(), percent(false)),
    ];
    for pad in PADS {
        for core in base64_cores(pad) {
            for window in core.as_bytes().windows(8) {
                out.push((
                    format!("base64 at pad {pad}"),
                    String::from_utf8(window.to_vec()).unwrap(),
                ));
            }
        }
    }
    out
}

/// Where in `message` the secret shows in one of `forms`, if anywhere:
/// every string and key, and the decoded bytes of every base64 `data` and
/// `blob` field. Also counts the `[redacted]` marks seen.
fn search(message: &Value, forms: &[(String, String)], marks: &mut usize) -> Option<String> {
    let check = |text: &str, marks: &mut usize| {
        *marks += text.matches("[redacted]").count();
        forms
            .iter()
            .find(|(_, form)| text.contains(form.as_str()))
            .map(|(name, _)| format!("{name} in {text:?}"))
    };
    match message {
        Value::String(s) => check(s, marks),
        Value::Array(items) => items.iter().find_map(|v| search(v, forms, marks)),
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            check(k, marks).or_else(|| {
                if let (true, Some(encoded)) = (k == "data" || k == "blob", v.as_str()) {
                    let bytes = STANDARD.decode(encoded).unwrap();
                    check(&String::from_utf8_lossy(&bytes), marks)
                } else {
                    search(v, forms, marks)
                }
            })
        }),
        _ => None,
    }
}

/// Fails if `message` shows the secret; returns how many `[redacted]`
/// marks it holds.
fn no_secret(message: &Value, case: &str) -> usize {
    let mut marks = 0;
    if let Some(found) = search(message, &forms(), &mut marks) {
        panic!("{case}: the secret reached the client ({found}): {message}");
    }
    marks
}

/// Waits for the server's next request to the client.
fn next_request(s: &mut Server) -> Value {
    loop {
        let msg = s.recv();
        if msg.get("method").is_some() && msg.get("id").is_some() {
            return msg;
        }
        no_secret(&msg, "a message before the request to the client");
    }
}

#[test]
fn no_form_of_a_secret_leaves_through_any_surface() {
    let mut setup = start("");
    let s = &mut setup.server;
    handshake(s);
    // The plugin does hold the secret: its forms come back redacted, not
    // missing (each case below also counts its `[redacted]` marks).
    let mut cases = 0;
    for how in HOWS {
        for pad in PADS {
            let args = |surface: &str| json!({"how": how, "pad": pad, "surface": surface});
            let mut check = |response: &Value, case: String| {
                assert!(response.get("error").is_none(), "{case}: {response}");
                let marks = no_secret(response, &case);
                assert!(marks >= 1, "{case}: nothing was redacted: {response}");
                cases += 1;
            };
            for surface in ["text", "structured", "embedded", "blob", "image", "link"] {
                let r = s.request(
                    "tools/call",
                    json!({"name": "leak", "arguments": args(surface)}),
                );
                check(&r, format!("tool {surface}, {how}, pad {pad}"));
            }
            // Progress, before the response.
            let id = s.send_request(
                "tools/call",
                json!({"name": "leak_progress", "arguments": args(""),
                       "_meta": {"progressToken": "p"}}),
            );
            let mut progress = Vec::new();
            let r = s.stream_until_response(id, |m| progress.push(m.clone()));
            let progress = Value::Array(progress);
            assert!(
                progress.to_string().contains("notifications/progress"),
                "{progress}"
            );
            check(&progress, format!("progress, {how}, pad {pad}"));
            no_secret(&r, "leak_progress's result");
            // Requests to the client, answered.
            for (tool, method, answer) in [
                (
                    "leak_sample",
                    "sampling/createMessage",
                    json!({"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m"}),
                ),
                (
                    "leak_elicit",
                    "elicitation/create",
                    json!({"action": "decline"}),
                ),
            ] {
                let id = s.send_request("tools/call", json!({"name": tool, "arguments": args("")}));
                let request = next_request(s);
                assert_eq!(request["method"], method, "{request}");
                check(&request, format!("{method}, {how}, pad {pad}"));
                s.send(&json!({"jsonrpc": "2.0", "id": request["id"], "result": answer}));
                let r = s.response(id);
                assert_ne!(r["result"]["isError"], true, "{r}");
                no_secret(&r, tool);
            }
            for kind in ["text", "blob"] {
                let r = s.request(
                    "resources/read",
                    json!({"uri": format!("leak://{kind}/{how}/{pad}")}),
                );
                check(&r, format!("resource {kind}, {how}, pad {pad}"));
            }
            let r = s.request(
                "prompts/get",
                json!({"name": "leak", "arguments": {"how": how, "pad": pad.to_string()}}),
            );
            check(&r, format!("prompt, {how}, pad {pad}"));
            let r = s.request(
                "completion/complete",
                json!({
                    "ref": {"type": "ref/prompt", "name": "leak"},
                    "argument": {"name": "how", "value": how},
                    "context": {"arguments": {"pad": pad.to_string()}}
                }),
            );
            check(&r, format!("completion, {how}, pad {pad}"));
        }
    }
    assert_eq!(cases, HOWS.len() * PADS.len() * 13);
    // Nothing the server wrote shows it either, not even in its log.
    let mut marks = 0;
    for line in &s.raw {
        let v: Value = serde_json::from_str(line).unwrap();
        assert!(search(&v, &forms(), &mut marks).is_none(), "{line}");
    }
    assert!(!s.stderr().contains(SECRET), "{}", s.stderr());
}

/// `tasks/get` until `done` holds of its result.
fn poll(s: &mut Server, id: &str, meta: &Value, done: impl Fn(&Value) -> bool) -> Value {
    crate::common::eventually(
        crate::common::DEADLINE,
        || format!("task {id} never reached the state the test waits for"),
        || {
            let got = s.request("tasks/get", json!({"taskId": id, "_meta": meta}));
            no_secret(&got, "tasks/get");
            done(&got["result"]).then_some(got)
        },
    )
}

#[test]
fn a_tasks_status_input_requests_and_result_show_no_form_of_a_secret() {
    let mut setup = start("");
    let s = &mut setup.server;
    let meta = crate::common::r5_meta(
        json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}),
    );
    let terminal = |r: &Value| r["status"] != "working" && r["status"] != "input_required";
    let mut tasks = 0;
    for how in HOWS {
        for pad in PADS {
            let case = format!("task, {how}, pad {pad}");
            let params = json!({"name": "leak_task", "arguments": {"how": how, "pad": pad},
                                "_meta": meta});
            let r = s.request("tools/call", params.clone());
            if r["result"]["resultType"] == "input_required" {
                // The call asked within the sync window: it answers as an
                // ordinary call does, with the request in its result, and
                // the retry carries the answer.
                assert!(no_secret(&r, &case) >= 1, "{case}: {r}");
                let key = r["result"]["inputRequests"]
                    .as_object()
                    .unwrap()
                    .keys()
                    .next()
                    .unwrap();
                let mut retry = params.clone();
                retry["inputResponses"] = json!({key: {"action": "decline"}});
                retry["requestState"] = r["result"]["requestState"].clone();
                let done = s.request("tools/call", retry);
                assert_eq!(done["result"]["resultType"], "complete", "{case}: {done}");
                assert!(no_secret(&done, &case) >= 1, "{case}: {done}");
                continue;
            }
            tasks += 1;
            assert_eq!(r["result"]["resultType"], "task", "{case}: {r}");
            no_secret(&r, &case);
            let id = r["result"]["taskId"].as_str().unwrap().to_string();
            // The guest asks the client's user: the request is the task's.
            let asking = poll(s, &id, &meta, |r| {
                terminal(r)
                    || r["inputRequests"]
                        .as_object()
                        .is_some_and(|m| !m.is_empty())
            });
            assert_eq!(
                asking["result"]["status"], "input_required",
                "{case}: {asking}"
            );
            assert!(no_secret(&asking, &case) >= 1, "{case}: {asking}");
            let key = asking["result"]["inputRequests"]
                .as_object()
                .unwrap()
                .keys()
                .next()
                .unwrap()
                .clone();
            let ack = s.request(
                "tasks/update",
                json!({"taskId": id, "inputResponses": {key: {"action": "decline"}},
                       "_meta": meta}),
            );
            assert!(ack.get("error").is_none(), "{case}: {ack}");
            let done = poll(s, &id, &meta, terminal);
            assert_eq!(done["result"]["status"], "completed", "{case}: {done}");
            assert!(no_secret(&done, &case) >= 1, "{case}: {done}");
        }
    }
    // The guest outlasts the zero sync window: the calls run as tasks.
    assert!(tasks >= 1, "no call ran as a task");
    for line in &s.raw {
        let v: Value = serde_json::from_str(line).unwrap();
        assert!(search(&v, &forms(), &mut 0).is_none(), "{line}");
    }
}

#[test]
fn with_block_secrets_arguments_holding_a_secret_are_refused_before_the_guest_runs() {
    let mut setup = start("block_secrets = true");
    let s = &mut setup.server;
    handshake(s);
    let (_, json_form) = forms().remove(1);
    let encoded = [
        ("exact", SECRET.to_string()),
        ("base64", STANDARD.encode(format!("Bearer {SECRET}"))),
        ("base64url", URL_SAFE_NO_PAD.encode(format!("ab{SECRET}"))),
        ("percent", forms()[3].1.clone()),
        ("percent lower", forms()[4].1.clone()),
        ("json in a string", json_form),
    ];
    let key = "plugins.leaker.block_secrets";
    for (name, value) in &encoded {
        let held = format!("before {value} after");
        // A tool call: a tool error naming the key.
        let r = s.request(
            "tools/call",
            json!({"name": "leak", "arguments": {"how": held, "pad": 0}}),
        );
        assert_eq!(r["result"]["isError"], true, "{name}: {r}");
        let text = r["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains(key) && text.contains("LEAK"),
            "{name}: {text}"
        );
        no_secret(&r, name);
        // A prompt, a completion and a resource read: a JSON-RPC error.
        for (method, params) in [
            (
                "prompts/get",
                json!({"name": "leak", "arguments": {"how": held, "pad": "0"}}),
            ),
            (
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "leak"},
                       "argument": {"name": "how", "value": held}}),
            ),
        ] {
            let r = s.request(method, params);
            let message = r["error"]["message"].as_str().unwrap_or_default();
            assert!(message.contains(key), "{name}, {method}: {r}");
            no_secret(&r, name);
        }
    }
    let r = s.request(
        "resources/read",
        json!({"uri": format!("leak://text/{}/0", forms()[3].1)}),
    );
    assert!(r["error"]["message"].as_str().unwrap().contains(key), "{r}");
    // Arguments without a secret are served.
    let r = s.request(
        "tools/call",
        json!({"name": "leak", "arguments": {"how": "exact", "pad": 0}}),
    );
    assert_ne!(r["result"]["isError"], true, "{r}");
    // The refusals are audited, without the value.
    s.wait_for_stderr("arguments_refused");
    assert!(!s.stderr().contains(SECRET), "{}", s.stderr());
}

#[test]
fn without_block_secrets_such_arguments_reach_the_guest() {
    let mut setup = start("");
    let s = &mut setup.server;
    handshake(s);
    let r = s.request(
        "tools/call",
        json!({"name": "leak", "arguments": {"how": SECRET, "pad": 0}}),
    );
    // The guest ran (its unknown encoding means "exact"); its result is
    // redacted all the same.
    assert_ne!(r["result"]["isError"], true, "{r}");
    assert!(no_secret(&r, "unblocked") >= 1, "{r}");
}

/// Every page of a list method's items.
fn list_all(s: &mut Server, method: &str, key: &str) -> Vec<Value> {
    let mut items = Vec::new();
    let mut cursor: Option<Value> = None;
    loop {
        let params = cursor.map_or_else(|| json!({}), |c| json!({"cursor": c}));
        let r = s.request(method, params);
        assert!(r.get("error").is_none(), "{method}: {r}");
        items.extend(r["result"][key].as_array().unwrap().iter().cloned());
        match r["result"].get("nextCursor") {
            Some(c) if !c.is_null() => cursor = Some(c.clone()),
            _ => return items,
        }
    }
}

#[test]
fn every_list_and_inspect_show_no_form_of_a_secret_and_leave_out_names_that_hold_one() {
    let mut setup = start("");
    let s = &mut setup.server;
    handshake(s);
    // (method, result key, the field naming an entry, the listed entry
    // whose texts hold the secret, how many entries are left out)
    let lists = [
        ("tools/list", "tools", "name", "leak_listed", 3),
        ("resources/list", "resources", "uri", "leak://listed", 3),
        (
            "resources/templates/list",
            "resourceTemplates",
            "uriTemplate",
            "leak://listed/{x}",
            3,
        ),
        ("prompts/list", "prompts", "name", "leak_listed", 6),
    ];
    for (method, key, id, listed, _) in lists {
        let items = list_all(s, method, key);
        let all = Value::Array(items.clone());
        let marks = no_secret(&all, method);
        let entry = items
            .iter()
            .find(|i| i[id] == listed)
            .unwrap_or_else(|| panic!("{method}: {listed} is missing: {all}"));
        // Every text of the entry held every form at every alignment (18),
        // and each comes back as a mark.
        assert!(
            no_secret(entry, method) >= 18,
            "{method}: {listed} was not redacted: {entry}"
        );
        assert!(marks >= 18, "{method}: {all}");
        for item in &items {
            let name = item[id].as_str().unwrap();
            assert!(
                !name.contains("named") && !name.starts_with("leak_argument"),
                "{method}: {name} holds the secret and is listed"
            );
        }
    }
    // Each entry left out is logged, with no value: the plugin, its kind
    // and its position in the plugin's list.
    // (The last one: the leaker's seventh prompt.)
    s.wait_for_stderr("kind=\"prompt\" position=7");
    let expected: usize = lists.iter().map(|l| l.4).sum();
    let stderr = s.stderr();
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("left out of the plugin's lists"))
        .collect();
    assert_eq!(lines.len(), expected, "{stderr}");
    no_secret(&Value::String(stderr.clone()), "the server log");
    for kind in ["tool", "resource", "resource template", "prompt"] {
        assert!(
            lines
                .iter()
                .any(|l| l.contains(&format!("kind=\"{kind}\""))),
            "no {kind} left out: {stderr}"
        );
    }

    // `inspect`, text and JSON, under the same policy.
    let config = setup._config_dir.path().join("mcp-wasm-host.toml");
    for json in [false, true] {
        let mut command = std::process::Command::new(crate::common::binary());
        command.env(crate::common::WAIT_FOR_LOAD, "1");
        command
            .args(["inspect", test_artifacts::LEAKER, "--config"])
            .arg(&config)
            .env_remove("MCP_WASM_HOST_CONFIG")
            .env_remove("RUST_LOG")
            .env("TEST_LEAKER_SECRET", SECRET);
        if json {
            command.arg("--json");
        }
        let out = command.output().unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
        assert!(stdout.contains("leak_listed"), "{stdout}");
        let case = format!("inspect (json: {json})");
        // The text report may wrap long lines; the JSON one holds every
        // mark.
        let least = if json { 18 } else { 1 };
        assert!(
            no_secret(&Value::String(stdout.clone()), &case) >= least,
            "{case}: nothing was redacted: {stdout}"
        );
        no_secret(&Value::String(stderr), &case);
        if json {
            let report: Value = serde_json::from_str(&stdout).unwrap();
            no_secret(&report, &case);
        }
    }
}

/// The largest padding `accepted` allows, found by bisection in `0..high`
/// (`accepted` holds at 0 and not at `high`).
fn boundary(high: usize, mut accepted: impl FnMut(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, high);
    assert!(accepted(low) && !accepted(high));
    while high - low > 1 {
        let mid = (low + high) / 2;
        if accepted(mid) {
            low = mid;
        } else {
            high = mid;
        }
    }
    low
}

/// `max_result_size` holds the guest's own result, before redaction: with
/// a 3-byte secret, which `[redacted]` (10 bytes) replaces, the largest
/// result allowed is exactly as large as with a 3-byte decoy in its place,
/// for a tool's result and for a resource read. At that boundary the
/// result is allowed and comes back redacted (larger than the limit
/// counted on it); one byte more is refused, naming the key, and the
/// refusal shows no form of the secret.
#[test]
fn max_result_size_counts_the_guests_result_before_redaction_at_the_boundary() {
    const SHORT: &str = "k3y";
    let mut setup = start_with("max_result_size = \"2 KiB\"\n", SHORT);
    let s = &mut setup.server;
    handshake(s);
    let short_forms = [("exact".to_string(), SHORT.to_string())];
    type Ask = fn(&mut Server, &str, usize) -> Value;
    let surfaces: [(&str, Ask); 2] = [
        ("tool", |s, how, pad| {
            s.request(
                "tools/call",
                json!({"name": "leak", "arguments": {"how": how, "pad": pad, "surface": "text"}}),
            )
        }),
        ("resource", |s, how, pad| {
            s.request(
                "resources/read",
                json!({"uri": format!("leak://text/{how}/{pad}")}),
            )
        }),
    ];
    let refused = |r: &Value| {
        (r["result"]["isError"] == true || r.get("error").is_some())
            && r.to_string().contains("max_result_size")
    };
    for (surface, ask) in surfaces {
        let decoy = boundary(4096, |pad| !refused(&ask(s, "decoy", pad)));
        let secret = boundary(4096, |pad| !refused(&ask(s, "exact", pad)));
        assert_eq!(
            secret, decoy,
            "{surface}: redaction moved the boundary of max_result_size"
        );
        let at = ask(s, "exact", secret);
        assert!(!refused(&at), "{surface}: {at}");
        let mut marks = 0;
        assert_eq!(
            search(&at, &short_forms, &mut marks),
            None,
            "{surface}: {at}"
        );
        assert_eq!(marks, 1, "{surface}: not redacted at the boundary: {at}");
        let over = ask(s, "exact", secret + 1);
        assert!(refused(&over), "{surface}: {over}");
        assert!(
            over.to_string().contains("max_result_size"),
            "{surface}: the refusal names no key: {over}"
        );
        assert_eq!(
            search(&over, &short_forms, &mut marks),
            None,
            "{surface}: {over}"
        );
    }
}
