//! wasi:config values from the policy (plain, from the environment, from a
//! secret that never shows in the server's log) at each of its three labels,
//! and wasi:logging lines in the server log and to the client.

use serde_json::{Value, json};

use super::{KVNOTES, value};
use crate::common::revision::R4;
use crate::common::{Server, plugins_with_policy};

/// A secret value no log line may hold.
const SECRET: &str = "kv-secret-7f3a9c21e4";

/// A stdio server over `components` under `policy`, with `env` set.
fn serve_with_env(
    components: &[&str],
    policy: &str,
    env: &[(&str, &str)],
) -> (Server, tempfile::TempDir) {
    let (dir, plugins, config) = plugins_with_policy(components, policy);
    let state = dir.path().join("state");
    let mut server = Server::start_with_env(
        &plugins,
        &["--config", &config, "--state-dir", state.to_str().unwrap()],
        env,
    );
    let init = server.initialize(R4);
    assert!(init.get("result").is_some(), "initialize failed: {init}");
    (server, dir)
}

#[test]
fn config_values_come_from_the_policy_the_environment_and_secrets() {
    let policy = r#"
[plugins.kvnotes.config]
greeting = "hello"
region = { env = "KV_TEST_REGION" }
api_key = { secret = "API_KEY" }

[plugins.kvnotes.secrets.API_KEY]
env = "KV_TEST_SECRET"
expose = true
"#;
    let (mut server, _dir) = serve_with_env(
        &[KVNOTES],
        policy,
        &[("KV_TEST_REGION", "eu-west-3"), ("KV_TEST_SECRET", SECRET)],
    );
    // Before the plugin has read the secret, nothing the server logged
    // holds it: not the policy's load, not a denied call.
    server.call_err("get", json!({"bucket": "default", "key": "k"}));
    server.wait_for_stderr("plugins.kvnotes.keyvalue.buckets");
    let log = server.stderr();
    assert!(
        !log.contains(SECRET),
        "the secret is in the server log:\n{log}"
    );
    let table: &[(&str, Value)] = &[
        ("greeting", json!("hello")),
        ("region", json!("eu-west-3")),
        ("absent", Value::Null),
        ("KV_TEST_REGION", Value::Null),
        ("API_KEY", Value::Null),
        ("api_key", json!(SECRET)),
    ];
    for (key, expected) in table {
        assert_eq!(
            value(&mut server, "config", json!({"key": key})),
            *expected,
            "config {key}"
        );
    }
    assert_eq!(
        value(&mut server, "config-all", json!({})),
        json!([
            ["api_key", SECRET],
            ["greeting", "hello"],
            ["region", "eu-west-3"]
        ])
    );
}

#[test]
fn a_component_without_config_values_sees_none_at_every_label() {
    let (mut server, _dir) = serve_with_env(&[test_artifacts::CFGLABELS], "", &[]);
    for tool in ["get-draft", "get-spin", "get-rc"] {
        assert_eq!(
            value(&mut server, tool, json!({"key": "greeting"})),
            Value::Null,
            "{tool}"
        );
    }
    assert_eq!(value(&mut server, "all-draft", json!({})), json!([]));
}

#[test]
fn every_config_label_reads_the_same_values() {
    let policy = r#"
[plugins.cfglabels.config]
greeting = "hi"
"with space" = "a b"
"#;
    let (mut server, _dir) = serve_with_env(&[test_artifacts::CFGLABELS], policy, &[]);
    for tool in ["get-draft", "get-spin", "get-rc"] {
        let table: &[(&str, Value)] = &[
            ("greeting", json!("hi")),
            ("with space", json!("a b")),
            ("absent", Value::Null),
        ];
        for (key, expected) in table {
            assert_eq!(
                value(&mut server, tool, json!({"key": key})),
                *expected,
                "{tool}({key})"
            );
        }
    }
    assert_eq!(
        value(&mut server, "all-draft", json!({})),
        json!([["greeting", "hi"], ["with space", "a b"]])
    );
}

#[test]
fn a_wasi_logging_line_reaches_the_server_log_naming_the_plugin_and_the_client() {
    let (mut server, _dir) = serve_with_env(&[KVNOTES], "", &[]);
    let set = server.request("logging/setLevel", json!({"level": "debug"}));
    assert!(set.get("result").is_some(), "{set}");
    // (level, the marker logged; the tracing level the server log shows)
    let table = [
        ("warn", "kv-log-marker-warn-51", "WARN"),
        ("info", "kv-log-marker-info-52", "INFO"),
        ("error", "kv-log-marker-error-53", "ERROR"),
    ];
    for (level, marker, shown) in table {
        server.call_ok("log-message", json!({"level": level, "message": marker}));
        server.wait_for_stderr(marker);
        let log = server.stderr();
        let line = log.lines().find(|l| l.contains(marker)).unwrap();
        // The guest's context is "notes-tool"; the plugin's name comes from
        // the host.
        assert!(
            line.contains("kvnotes") && line.contains(shown),
            "the log line names the plugin at level {shown}: {line}"
        );
        // Notifications sent during the call are in before a later response.
        value(&mut server, "ping", json!({}));
        let sent = server
            .notifications
            .iter()
            .any(|n| n["method"] == "notifications/message" && n.to_string().contains(marker));
        assert!(
            sent,
            "the client got {marker} as a log notification: {:?}",
            server.notifications
        );
    }
}
