//! Resources, resource templates, prompts and completions served from
//! plugins (WIT 0.2.1), against the real binary over stdio: lists, reads
//! (text, binary, template), prompts with their arguments filled in,
//! completions, the JSON-RPC errors of unknown names and missing arguments;
//! the same sandbox and limits as a tool call for every guest call (fuel,
//! deadline, panics, result size), with the server serving on; the naming
//! rules across plugins; and the watcher's `list_changed` and
//! `resources/updated` notifications.

#![allow(clippy::unwrap_used)]

use crate::common::revision::R4 as V;
use crate::common::{Server, plugin_dir};
use base64::Engine as _;
use serde_json::{Value, json};

fn result(response: &Value) -> &Value {
    response
        .get("result")
        .unwrap_or_else(|| panic!("expected a result: {response}"))
}

fn error(response: &Value) -> &Value {
    response
        .get("error")
        .unwrap_or_else(|| panic!("expected an error: {response}"))
}

#[test]
fn resources_prompts_and_completions_are_listed_read_and_filled_in() {
    let dir = plugin_dir(&[test_artifacts::CONFORMANCE, test_artifacts::FNV]);
    let mut s = Server::initialized(dir.path(), &[], V);

    let listed = s.request("resources/list", json!({}));
    let uris: Vec<&str> = result(&listed)["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert_eq!(
        uris,
        [
            "fnv://offset-basis",
            "test://static-binary",
            "test://static-text",
            "test://watched-resource"
        ]
    );
    let text = s.request("resources/read", json!({"uri": "test://static-text"}));
    assert_eq!(
        result(&text)["contents"],
        json!([{"uri": "test://static-text", "mimeType": "text/plain",
                "text": "This is the content of the static text resource."}])
    );
    let binary = s.request("resources/read", json!({"uri": "test://static-binary"}));
    let blob = result(&binary)["contents"][0]["blob"].as_str().unwrap();
    let png = base64::engine::general_purpose::STANDARD
        .decode(blob)
        .unwrap();
    assert_eq!(&png[..4], b"\x89PNG");

    let templates = s.request("resources/templates/list", json!({}));
    assert_eq!(
        result(&templates)["resourceTemplates"][0]["uriTemplate"],
        "test://template/{id}/data"
    );
    let data = s.request("resources/read", json!({"uri": "test://template/42/data"}));
    let json: Value =
        serde_json::from_str(result(&data)["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(json["id"], "42");

    // A URI nothing serves, and one only a template's shape is near.
    for uri in ["test://nothing", "test://template/1/2/data"] {
        let missing = s.request("resources/read", json!({"uri": uri}));
        assert_eq!(error(&missing)["code"], -32002, "{missing}");
        assert_eq!(error(&missing)["data"]["uri"], uri);
    }

    let prompts = s.request("prompts/list", json!({}));
    let names: Vec<&str> = result(&prompts)["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "fnv_explain",
            "test_input_required_result_prompt",
            "test_prompt_with_arguments",
            "test_prompt_with_embedded_resource",
            "test_prompt_with_image",
            "test_simple_prompt"
        ]
    );
    let got = s.request(
        "prompts/get",
        json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "a", "arg2": "b"}}),
    );
    assert_eq!(
        result(&got)["messages"],
        json!([{"role": "user", "content": {"type": "text",
                "text": "Prompt with arguments: arg1='a', arg2='b'"}}])
    );
    let embedded = s.request(
        "prompts/get",
        json!({"name": "test_prompt_with_embedded_resource", "arguments": {"resourceUri": "x://y"}}),
    );
    assert_eq!(
        result(&embedded)["messages"][0]["content"]["resource"]["uri"],
        "x://y"
    );
    let missing = s.request(
        "prompts/get",
        json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "a"}}),
    );
    assert_eq!(error(&missing)["code"], -32602);
    assert!(
        error(&missing)["message"]
            .as_str()
            .unwrap()
            .contains("arg2"),
        "{missing}"
    );
    let unknown = s.request("prompts/get", json!({"name": "nope"}));
    assert_eq!(error(&unknown)["code"], -32602);
    let not_text = s.request(
        "prompts/get",
        json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": 1, "arg2": "b"}}),
    );
    assert_eq!(error(&not_text)["code"], -32602);

    let completed = s.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
               "argument": {"name": "arg1", "value": "test"}}),
    );
    assert_eq!(
        result(&completed)["completion"]["values"],
        json!(["test", "testValue1"])
    );
    // A plugin without a completion for it suggests nothing.
    let none = s.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "fnv_explain"},
               "argument": {"name": "x", "value": ""}}),
    );
    assert_eq!(result(&none)["completion"]["values"], json!([]));
    let unknown = s.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "nope"},
               "argument": {"name": "x", "value": ""}}),
    );
    assert_eq!(error(&unknown)["code"], -32602);
}

#[test]
fn a_hostile_read_prompt_or_completion_is_stopped_by_the_limits_and_the_server_serves_on() {
    let policy =
        "[plugins.hostile]\nfuel = 50_000_000\ntimeout = \"2s\"\nmax_result_size = \"1MiB\"\n";
    let (_dir, plugins, config) =
        crate::common::plugins_with_policy(&[test_artifacts::HOSTILE], policy);
    let mut s = Server::initialized(&plugins, &["--config", &config], V);
    let message = |r: &Value| error(r)["message"].as_str().unwrap().to_string();

    let spin = s.request("resources/read", json!({"uri": "hostile://spin"}));
    assert_eq!(error(&spin)["code"], -32603);
    assert!(message(&spin).contains("fuel"), "{spin}");
    let panic = s.request("resources/read", json!({"uri": "hostile://panic"}));
    assert!(message(&panic).contains("the resource exploded"), "{panic}");
    let sleep = s.request("resources/read", json!({"uri": "hostile://sleep"}));
    assert!(message(&sleep).contains("timed out"), "{sleep}");
    let big = s.request("resources/read", json!({"uri": "hostile://big/4"}));
    assert!(message(&big).contains("max_result_size"), "{big}");
    let small = s.request("resources/read", json!({"uri": "hostile://big/0"}));
    assert!(result(&small)["contents"][0]["text"].is_string(), "{small}");
    let prompt = s.request("prompts/get", json!({"name": "hostile_spin"}));
    assert!(message(&prompt).contains("fuel"), "{prompt}");
    let complete = s.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "hostile_spin"},
               "argument": {"name": "x", "value": ""}}),
    );
    assert!(message(&complete).contains("fuel"), "{complete}");

    // Every one of them was audited, and the server still answers.
    let stderr = s.stderr();
    assert!(
        stderr.contains("resources/read hostile://spin") && stderr.contains("out_of_fuel"),
        "{stderr}"
    );
    let tools = s.request("tools/list", json!({}));
    assert!(result(&tools)["tools"].as_array().unwrap().len() > 5);
}

#[test]
fn a_uri_two_plugins_list_is_served_by_the_first_and_a_shared_prompt_name_is_qualified() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["fnv.wasm", "fnv2.wasm"] {
        std::fs::copy(test_artifacts::FNV, dir.path().join(name)).unwrap();
    }
    let mut s = Server::initialized(dir.path(), &[], V);
    let listed = s.request("resources/list", json!({}));
    assert_eq!(result(&listed)["resources"].as_array().unwrap().len(), 1);
    let prompts = s.request("prompts/list", json!({}));
    let names: Vec<&str> = result(&prompts)["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["fnv.fnv_explain", "fnv2.fnv_explain"]);
    s.wait_for_stderr("resource \"fnv://offset-basis\" of plugin \"fnv2\" left out");
    let got = s.request("prompts/get", json!({"name": "fnv2.fnv_explain"}));
    assert!(result(&got)["messages"][0]["content"]["text"].is_string());

    // `check` says what was left out, and fails.
    let out = std::process::Command::new(crate::common::binary())
        .env(crate::common::WAIT_FOR_LOAD, "1")
        .arg("check")
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stdout.contains("ok   fnv.wasm  (1 tool, 1 resource, 1 prompt)"),
        "{stdout}"
    );
    assert!(stdout.contains("FAIL fnv2.wasm"), "{stdout}");
}

#[test]
fn the_watcher_announces_list_changes_and_updates_of_subscribed_resources() {
    let dir = plugin_dir(&[test_artifacts::CONFORMANCE]);
    let mut s = Server::initialized(dir.path(), &[], V);
    let caps = s.request("resources/list", json!({}));
    assert!(caps.get("result").is_some());
    let subscribed = s.request("resources/subscribe", json!({"uri": "test://static-text"}));
    assert_eq!(result(&subscribed), &json!({}));
    s.request("resources/subscribe", json!({"uri": "fnv://offset-basis"}));

    // A plugin with a tool, a prompt and a resource appears: every list
    // changed, and the subscribed URI it serves now has a server.
    std::fs::copy(test_artifacts::FNV, dir.path().join("fnv.wasm")).unwrap();
    s.wait_for_notification("notifications/tools/list_changed");
    s.wait_for_notification("notifications/resources/list_changed");
    s.wait_for_notification("notifications/prompts/list_changed");
    let updated = s.wait_for_notification("notifications/resources/updated");
    assert_eq!(updated["params"]["uri"], "fnv://offset-basis");
    let read = s.request("resources/read", json!({"uri": "fnv://offset-basis"}));
    assert_eq!(result(&read)["contents"][0]["text"], "cbf29ce484222325");

    // Unsubscribed, then the plugin goes: the lists change, no update.
    s.request(
        "resources/unsubscribe",
        json!({"uri": "fnv://offset-basis"}),
    );
    std::fs::remove_file(dir.path().join("fnv.wasm")).unwrap();
    s.wait_for_notification("notifications/resources/list_changed");
    // The conformance plugin goes: its subscribed resource is updated.
    std::fs::remove_file(dir.path().join("conformance.wasm")).unwrap();
    let updated = s.wait_for_notification("notifications/resources/updated");
    assert_eq!(updated["params"]["uri"], "test://static-text");
    assert!(
        !s.notifications
            .iter()
            .any(|n| n["method"] == "notifications/resources/updated"),
        "no update for the unsubscribed URI: {:?}",
        s.notifications
    );
}

#[test]
fn a_prompt_asks_the_client_in_rounds_at_2026_07_28() {
    let dir = plugin_dir(&[test_artifacts::CONFORMANCE]);
    let policy = dir.path().join("policy.toml");
    std::fs::write(
        &policy,
        "[plugins.conformance.client]\nelicitation = true\n",
    )
    .unwrap();
    let mut s = Server::start(dir.path(), &["--config", policy.to_str().unwrap()]);
    let meta = crate::common::r5_meta(json!({"elicitation": {}}));
    let first = s.request(
        "prompts/get",
        json!({"name": "test_input_required_result_prompt", "_meta": meta}),
    );
    let first = result(&first);
    assert_eq!(first["resultType"], "input_required", "{first}");
    let asked = &first["inputRequests"]["user_context"];
    assert_eq!(asked["method"], "elicitation/create");
    let answer = json!({"action": "accept", "content": {"context": "tests"}});
    let second = s.request(
        "prompts/get",
        json!({"name": "test_input_required_result_prompt", "_meta": meta,
               "inputResponses": {"user_context": answer},
               "requestState": first["requestState"]}),
    );
    assert_eq!(
        result(&second)["messages"][0]["content"]["text"],
        "Use this context: tests",
        "{second}"
    );
    // A state from another prompt (here: tampered) is refused.
    let forged = s.request(
        "prompts/get",
        json!({"name": "test_input_required_result_prompt", "_meta": meta,
               "inputResponses": {"user_context": answer},
               "requestState": format!("{}x", first["requestState"].as_str().unwrap())}),
    );
    assert_eq!(error(&forged)["code"], -32602);
}

/// Over-size arguments, on each of the four surfaces that run a guest: the
/// same message naming `max_argument_size` and where to raise it; a tool
/// answers with an `isError` result, the others with `-32603`, as
/// docs/protocol.md says. The arguments of a read are its URI.
#[test]
fn over_size_arguments_name_the_key_on_every_surface() {
    let policy = "[plugins.hostile]\nmax_argument_size = 40\n";
    let (dir, plugins, config) =
        crate::common::plugins_with_policy(&[test_artifacts::HOSTILE], policy);
    let mut s = Server::initialized(&plugins, &["--config", &config], V);
    let big = "y".repeat(100);
    let hint = format!(
        "(raise `plugins.hostile.max_argument_size` in {})",
        dir.path().join("mcp-wasm-host.toml").display()
    );
    let cases = [
        (
            "tools/call",
            json!({"name": "echo_size", "arguments": {"data": big}}),
            "tool \"echo_size\"",
        ),
        (
            "resources/read",
            json!({"uri": format!("hostile://big/{big}")}),
            "resources/read hostile://big/",
        ),
        (
            "prompts/get",
            json!({"name": "hostile_spin", "arguments": {"x": big}}),
            "prompts/get hostile_spin",
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "hostile_spin"},
                   "argument": {"name": "x", "value": big}}),
            "completion/complete x",
        ),
    ];
    for (method, params, what) in cases {
        let response = s.request(method, params);
        let message = if method == "tools/call" {
            let result = result(&response);
            assert_eq!(result["isError"], true, "{response}");
            crate::common::text(result)
        } else {
            assert_eq!(error(&response)["code"], -32603, "{method}: {response}");
            error(&response)["message"].as_str().unwrap().to_string()
        };
        assert!(
            message.starts_with(&format!("the arguments to {what}"))
                && message.contains("over its limit of 40 bytes")
                && message.ends_with(&hint),
            "{method}: {message}"
        );
    }
    // Under the limit, the same requests reach the guest.
    let small = s.request(
        "tools/call",
        json!({"name": "echo_size", "arguments": {"data": "y"}}),
    );
    assert_ne!(result(&small)["isError"], true, "{small}");
}
