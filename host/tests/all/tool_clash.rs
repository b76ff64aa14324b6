//! `[server] tool_clash` through the real binary: two plugins (`dupa`,
//! `dupb`) export `echo`. Under `"qualify"` (the default, in stdio.rs)
//! both become `<plugin>.echo`; under `"prefix"` the plugin already
//! serving `echo` keeps it and the newcomer is qualified; under `"refuse"`
//! the newcomer's `echo` is left out. Each is decided at load and logged
//! naming both plugins. Waits are for notifications and log lines.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;

use crate::common::revision::R4;
use crate::common::{Server, plugin_dir, text};
use serde_json::json;

const LIST_CHANGED: &str = "notifications/tools/list_changed";

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// A server on a directory holding `files`, with `[server] tool_clash =
/// rule`.
fn serve(files: &[&str], rule: &str) -> (tempfile::TempDir, tempfile::TempDir, Server) {
    let dir = plugin_dir(files);
    let policy = tempfile::tempdir().unwrap();
    let config = policy.path().join("policy.toml");
    std::fs::write(&config, format!("[server]\ntool_clash = \"{rule}\"\n")).unwrap();
    let s = Server::initialized(dir.path(), &["--config", config.to_str().unwrap()], R4);
    s.wait_for_stderr("watching the plugins directory");
    (dir, policy, s)
}

#[test]
fn under_prefix_the_plugin_that_serves_a_name_keeps_it_and_a_newcomer_is_qualified() {
    // At the first load the file that sorts first keeps the name.
    let (_dir, _policy, mut s) = serve(&[test_artifacts::DUPA, test_artifacts::DUPB], "prefix");
    assert_eq!(s.tool_name_set(), set(&["dupb.echo", "echo"]));
    assert_eq!(text(&s.call_ok("echo", json!({"text": "hi"}))), "a:hi");
    assert_eq!(text(&s.call_ok("dupb.echo", json!({"text": "hi"}))), "b:hi");
    s.wait_for_stderr("tool \"echo\" of plugin \"dupb\" is offered as \"dupb.echo\": plugin \"dupa\" already serves \"echo\"");

    // Later, one that sorts first arrives: the plugin already serving
    // `echo` keeps it, whatever the file order.
    let (dir, _policy, mut s) = serve(&[test_artifacts::DUPB], "prefix");
    assert_eq!(s.tool_name_set(), set(&["echo"]));
    std::fs::copy(test_artifacts::DUPA, dir.path().join("dupa.wasm")).unwrap();
    s.wait_for_notification(LIST_CHANGED);
    assert_eq!(s.tool_name_set(), set(&["dupa.echo", "echo"]));
    assert_eq!(text(&s.call_ok("echo", json!({"text": "hi"}))), "b:hi");
    assert_eq!(text(&s.call_ok("dupa.echo", json!({"text": "hi"}))), "a:hi");
    s.wait_for_stderr("tool \"echo\" of plugin \"dupa\" is offered as \"dupa.echo\": plugin \"dupb\" already serves \"echo\"");

    // The keeper leaves: the other takes the plain name.
    s.notifications.clear();
    std::fs::remove_file(dir.path().join("dupb.wasm")).unwrap();
    s.wait_for_notification(LIST_CHANGED);
    assert_eq!(s.tool_name_set(), set(&["echo"]));
    assert_eq!(text(&s.call_ok("echo", json!({"text": "hi"}))), "a:hi");
}

#[test]
fn under_refuse_a_newcomers_clashing_tool_is_left_out_naming_both_plugins() {
    let (dir, _policy, mut s) = serve(&[test_artifacts::DUPB], "refuse");
    assert_eq!(s.tool_name_set(), set(&["echo"]));
    std::fs::copy(test_artifacts::DUPA, dir.path().join("dupa.wasm")).unwrap();
    s.wait_for_stderr("tool \"echo\" of plugin \"dupa\" left out: plugin \"dupb\" already serves a tool of this name, and `[server] tool_clash = \"refuse\"` keeps it theirs");
    assert_eq!(s.tool_name_set(), set(&["echo"]));
    assert_eq!(text(&s.call_ok("echo", json!({"text": "hi"}))), "b:hi");
    let hidden = s.call("dupa.echo", json!({"text": "hi"}));
    assert_eq!(hidden["error"]["code"], -32602, "{hidden}");
}

#[test]
fn a_typo_in_the_rule_is_refused_naming_the_key_and_the_choices() {
    let policy = tempfile::tempdir().unwrap();
    let config = policy.path().join("policy.toml");
    std::fs::write(&config, "[server]\ntool_clash = \"rename\"\n").unwrap();
    let out = std::process::Command::new(crate::common::binary())
        .args([
            "check",
            "--config",
            config.to_str().unwrap(),
            test_artifacts::DUPA,
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("tool_clash") && err.contains("qualify") && err.contains("refuse"),
        "{err}"
    );
}
