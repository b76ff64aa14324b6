//! The host's own memory and CPU against plugins that do their worst with
//! sizes: tool lists over the policy's bounds (the `toolbomb` test plugin,
//! sized by the environment its policy gives it), results that are large in
//! every part the client receives and huge error messages (the `bloat` test
//! plugin), and a huge tool list loading while `ping` is answered.
#![allow(clippy::unwrap_used)]

use crate::common::revision::R4;
use std::path::PathBuf;

use crate::common::{Server, plugins_with_policy, text};
use serde_json::{Value, json};

/// A plugins directory with `many` (a well-behaved plugin) and a copy of
/// `toolbomb` under each of `names`, and a policy file holding `policy`.
fn toolbombs(names: &[&str], policy: &str) -> (tempfile::TempDir, PathBuf, String) {
    let (dir, plugins, config) = plugins_with_policy(&[test_artifacts::MANY], policy);
    for name in names {
        std::fs::copy(
            test_artifacts::TOOLBOMB,
            plugins.join(format!("{name}.wasm")),
        )
        .unwrap();
    }
    (dir, plugins, config)
}

/// One plugin over each bound at its default, and one at every bound.
const OVER_THE_DEFAULTS: &str = r#"
[plugins.toomany]
env = { TOOLBOMB_TOOLS = "1001" }

[plugins.bigschema]
env = { TOOLBOMB_SCHEMA_BYTES = "65537" }

[plugins.biglist]
env = { TOOLBOMB_TOOLS = "100", TOOLBOMB_DESCRIPTION_BYTES = "21000" }

[plugins.fits]
env = { TOOLBOMB_TOOLS = "1000", TOOLBOMB_SCHEMA_BYTES = "65536" }
"#;

const PLUGINS: [&str; 4] = ["toomany", "bigschema", "biglist", "fits"];

/// The one line of `stderr` that mentions `needle`.
fn line_with<'a>(stderr: &'a str, needle: &str) -> &'a str {
    let lines: Vec<&str> = stderr.lines().filter(|l| l.contains(needle)).collect();
    assert_eq!(lines.len(), 1, "one line with {needle:?}:\n{stderr}");
    lines[0]
}

#[test]
fn a_plugin_over_a_tool_list_bound_is_refused_naming_the_key_while_the_others_serve() {
    let (_dir, plugins, config) = toolbombs(&PLUGINS, OVER_THE_DEFAULTS);
    // Not watched: a watcher's reload of a refused plugin would log its
    // refusal a second time.
    let mut s = Server::initialized(&plugins, &["--config", &config, "--no-watch"], R4);
    assert_eq!(text(&s.call_ok("tool_00", json!({}))), "tool_00");
    assert_eq!(text(&s.call_ok("tool_999", json!({}))), "tool_999");
    assert_eq!(text(&s.call_ok("tool_0", json!({}))), "tool_0");
    for (name, message) in [
        (
            "toomany",
            "it lists 1,001 tools, over the limit of 1,000 (raise `plugins.toomany.max_tools` in "
                .to_string(),
        ),
        (
            "bigschema",
            "tool \"tool_0\": its input schema is 65537 bytes, over the limit of 64 KiB (raise `plugins.bigschema.max_schema_size` in "
                .to_string(),
        ),
        (
            "biglist",
            "its tool list (names, titles, descriptions, schemas and icons) is 2.0 MiB, over the limit of 2 MiB (raise `plugins.biglist.max_tool_list_size` in "
                .to_string(),
        ),
    ] {
        let refusal = format!("{name}.wasm: {message}{config})");
        s.wait_for_stderr(&refusal);
        let stderr = s.stderr();
        let line = line_with(&stderr, &format!("{name}.wasm: "));
        assert!(line.contains("skipped plugin: "), "{line}");
    }
    let names: Vec<String> = s
        .list_all_tools()
        .0
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names.len(), 25 + 1000, "many's and fits' tools only");
}

#[test]
fn raising_a_bound_in_the_policy_lets_the_plugin_load() {
    let raised = OVER_THE_DEFAULTS
        .replace(
            "[plugins.toomany]\n",
            "[plugins.toomany]\nmax_tools = 1001\n",
        )
        .replace(
            "[plugins.bigschema]\n",
            "[plugins.bigschema]\nmax_schema_size = 65537\n",
        )
        .replace(
            "[plugins.biglist]\n",
            "[plugins.biglist]\nmax_tool_list_size = \"3 MiB\"\n",
        );
    let (_dir, plugins, config) = toolbombs(&PLUGINS, &raised);
    let mut s = Server::initialized(&plugins, &["--config", &config], R4);
    // A name more than one copy exports is offered as `<plugin>.tool_N`.
    for (tool, answer) in [
        ("tool_1000", "tool_1000"),
        ("bigschema.tool_0", "tool_0"),
        ("biglist.tool_99", "tool_99"),
        ("fits.tool_999", "tool_999"),
        ("tool_00", "tool_00"),
    ] {
        assert_eq!(text(&s.call_ok(tool, json!({}))), answer);
    }
    assert!(!s.stderr().contains("skipped plugin"), "{}", s.stderr());
}

#[test]
fn ping_is_answered_while_plugins_with_a_hundred_thousand_tools_load() {
    // Two such plugins on two async workers: were their loading on the
    // workers, both would be busy until one had loaded, and the ping would
    // wait for it.
    let policy = r#"
[plugins.huge1]
max_tools = 100_000
max_tool_list_size = "16 MiB"
env = { TOOLBOMB_TOOLS = "100000" }

[plugins.huge2]
max_tools = 100_000
max_tool_list_size = "16 MiB"
env = { TOOLBOMB_TOOLS = "100000" }
"#;
    let (_dir, plugins, config) = toolbombs(&["huge1", "huge2"], policy);
    let mut s = Server::start_with_env(
        &plugins,
        &["--config", &config],
        &[("TOKIO_WORKER_THREADS", "2")],
    );
    let init = s.initialize(R4);
    assert!(init.get("result").is_some(), "{init}");
    // Both have listed their tools: checking them and compiling their
    // schemas (seconds of host CPU each) comes next.
    for plugin in ["huge1", "huge2"] {
        s.wait_for_stderr(&format!(
            "instantiate{{plugin={plugin}}}: mcp_wasm_host_runtime::load::plugin: listed its tools"
        ));
    }
    let ping = s.request("ping", json!({}));
    assert_eq!(ping["result"], json!({}), "{ping}");
    let loaded = |stderr: &str| {
        stderr
            .lines()
            .filter(|l| l.contains("loaded plugin") && l.contains("huge"))
            .count()
    };
    assert_eq!(
        loaded(&s.stderr()),
        0,
        "the ping was answered only after a huge plugin had loaded:\n{}",
        s.stderr()
    );
    // Then both load.
    assert_eq!(
        text(&s.call_ok("huge2.tool_99999", json!({}))),
        "tool_99999"
    );
    assert_eq!(loaded(&s.stderr()), 2);
}

/// The `bloat` plugin with a 64 KiB result limit, and `many`.
fn bloat() -> (tempfile::TempDir, Server, String) {
    let policy = "[plugins.bloat]\nmax_result_size = \"64 KiB\"\nrate_limit = 0\n";
    let (dir, plugins, config) =
        plugins_with_policy(&[test_artifacts::BLOAT, test_artifacts::MANY], policy);
    let s = Server::initialized(&plugins, &["--config", &config], R4);
    (dir, s, config)
}

#[test]
fn every_part_of_a_result_counts_toward_max_result_size() {
    let (_dir, mut s, config) = bloat();
    let over = format!(
        "over its result limit of 64 KiB (raise `plugins.bloat.max_result_size` in {config})"
    );
    // Each part, large enough to be over the limit as the client receives
    // it: control characters are six bytes each once escaped, binary data
    // is a third larger in base64, and the rest are over it as they are.
    let parts: [(&str, Value, Value); 15] = [
        (
            "field",
            json!({"field": "escaped_text", "bytes": 12_000}),
            json!({"field": "escaped_text", "bytes": 10}),
        ),
        (
            "field",
            json!({"field": "audio_data", "bytes": 50_000}),
            json!({"field": "audio_data", "bytes": 10}),
        ),
        (
            "field",
            json!({"field": "resource_blob", "bytes": 50_000}),
            json!({"field": "resource_blob", "bytes": 10}),
        ),
        (
            "field",
            json!({"field": "image_mime_type", "bytes": 70_000}),
            json!({"field": "image_mime_type", "bytes": 10}),
        ),
        (
            "field",
            json!({"field": "resource_uri", "bytes": 70_000}),
            json!({"field": "resource_uri", "bytes": 10}),
        ),
        (
            "field",
            json!({"field": "resource_mime_type", "bytes": 70_000}),
            json!({"field": "resource_mime_type", "bytes": 10}),
        ),
        (
            "field",
            json!({"field": "link_uri", "bytes": 70_000}),
            json!({"field": "link_uri", "bytes": 10}),
        ),
        (
            "field",
            json!({"field": "link_name", "bytes": 70_000}),
            json!({"field": "link_name", "bytes": 10}),
        ),
        (
            "field",
            json!({"field": "link_title", "bytes": 70_000}),
            json!({"field": "link_title", "bytes": 10}),
        ),
        (
            "field",
            json!({"field": "link_description", "bytes": 70_000}),
            json!({"field": "link_description", "bytes": 10}),
        ),
        (
            "field",
            json!({"field": "link_mime_type", "bytes": 70_000}),
            json!({"field": "link_mime_type", "bytes": 10}),
        ),
        (
            "field",
            json!({"field": "last_modified", "bytes": 70_000}),
            json!({"field": "last_modified", "bytes": 10}),
        ),
        (
            "field",
            json!({"field": "structured", "bytes": 40_000}),
            json!({"field": "structured", "bytes": 10}),
        ),
        // Empty blocks: each costs its framing.
        ("blocks", json!({"count": 1000}), json!({"count": 10})),
        ("audience", json!({"count": 6000}), json!({"count": 10})),
    ];
    for (tool, large, small) in parts {
        let message = s.call_err(tool, large.clone());
        assert!(
            message.starts_with(&format!("tool \"{tool}\" of plugin \"bloat\" returned "))
                && message.ends_with(&over),
            "{tool}({large}): {message}"
        );
        s.call_ok(tool, small);
    }
    assert_eq!(text(&s.call_ok("tool_00", json!({}))), "tool_00");
}

/// Asserts that `message` holds at most 16 KiB of guest text, cut with a
/// note of how much was cut.
fn assert_clipped(message: &str) {
    assert!(
        message.len() < 16 * 1024 + 1024,
        "{} bytes: {}…",
        message.len(),
        &message[..200]
    );
    assert!(
        message.contains("… (") && message.contains(" bytes cut)"),
        "{message}"
    );
}

#[test]
fn a_guest_s_error_message_is_clipped_whatever_its_kind() {
    let (_dir, mut s, config) = bloat();
    for kind in ["invalid_arguments", "unknown_tool", "denied", "failed"] {
        let message = s.call_err("error", json!({"kind": kind, "bytes": 4 << 20}));
        assert_clipped(&message);
        assert!(
            message.starts_with("tool \"error\" of plugin \"bloat\" "),
            "{message}"
        );
        // Two-byte characters, cut on a character boundary.
        assert!(message.contains("éé… ("), "{}", &message[..100]);
        if kind == "denied" {
            assert!(
                message.ends_with(&format!("(in {config}))")),
                "the policy hint follows the clipped message: {}",
                &message[message.len() - 300..]
            );
        } else {
            assert!(message.ends_with(" bytes cut)"), "{kind}");
        }
    }
    let message = s.call_err("panic", json!({"bytes": 60_000}));
    assert!(message.starts_with("plugin \"bloat\" panicked in tool \"panic\": ppp"));
    assert_clipped(&message);
    // The server's log line for the failure is clipped too. (The guest's
    // stderr, logged line by line, is held by the capture limit.) It
    // reaches stderr on its own pipe, maybe after the response: waited for.
    s.wait_for_stderr("panicked in tool \"panic\"");
    let stderr = s.stderr();
    let failure = line_with(&stderr, "panicked in tool \"panic\"");
    assert!(failure.len() < 20 * 1024, "{} bytes", failure.len());
}
