//! The SDKs' store APIs through the real binary (issue 45): one file per
//! SDK beside this one. This file: the Rust SDK's (`mcp_wasm_sdk::store`),
//! with `plugins/testing/sdkstore`, a counter and a notes tool written as the
//! guide shows them, over the embedded store. Granted, they remember across
//! calls and restarts on one `--state-dir`; not granted, each call is an
//! error naming the policy key; a plugin that does not use the API does not
//! import wasi:keyvalue.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::json;

use crate::common::revision::R4;
use crate::common::{Server, plugins_with_policy, text};
use crate::keyvalue::state_imports;

/// The policy granting `sdkstore` both buckets its tools open.
const GRANTED: &str = "[plugins.sdkstore.keyvalue]\nbuckets = [\"default\", \"notes\"]\n";

/// A stdio server over the `sdkstore` plugin under `policy`, keeping its
/// state in `state`; the directory holding the plugin and the policy.
fn serve(policy: &str, state: &Path) -> (Server, tempfile::TempDir) {
    let (dir, plugins, config) = plugins_with_policy(&[test_artifacts::SDKSTORE], policy);
    let server = Server::initialized(
        &plugins,
        &["--config", &config, "--state-dir", state.to_str().unwrap()],
        R4,
    );
    (server, dir)
}

/// The text a successful call of `tool` returns.
fn call_text(server: &mut Server, tool: &str, arguments: serde_json::Value) -> String {
    text(&server.call_ok(tool, arguments))
}

#[test]
fn only_a_plugin_that_uses_the_store_imports_wasi_keyvalue() {
    assert_eq!(
        state_imports(test_artifacts::SDKSTORE),
        BTreeSet::from([
            "wasi:keyvalue/atomics@0.2.0-draft2".to_string(),
            "wasi:keyvalue/store@0.2.0-draft2".to_string(),
        ]),
        "sdkstore imports what its tools call, and not `batch`"
    );
    for (name, path) in [
        ("text", test_artifacts::TEXT),
        ("counter", test_artifacts::COUNTER),
    ] {
        assert_eq!(state_imports(path), BTreeSet::new(), "{name} imports");
    }
}

#[test]
fn granted_the_tools_remember_across_calls_and_a_restart() {
    let state = tempfile::tempdir().unwrap();
    {
        let (mut first, _dir) = serve(GRANTED, state.path());
        assert_eq!(call_text(&mut first, "count", json!({})), "called 1 times");
        assert_eq!(call_text(&mut first, "count", json!({})), "called 2 times");
        for note in ["milk", "eggs"] {
            assert_eq!(
                call_text(&mut first, "add_note", json!({"text": note})),
                "noted"
            );
        }
        assert_eq!(call_text(&mut first, "notes", json!({})), "milk\neggs\n");
        // Every key of the bucket, through the SDK's paging.
        assert_eq!(
            call_text(&mut first, "put", json!({"key": "b", "value": "x"})),
            "all\nb"
        );
        // Dropped: killed, no clean shutdown.
    }
    let (mut second, _dir) = serve(GRANTED, state.path());
    assert_eq!(call_text(&mut second, "count", json!({})), "called 3 times");
    assert_eq!(call_text(&mut second, "notes", json!({})), "milk\neggs\n");
    assert_eq!(
        call_text(&mut second, "put", json!({"key": "a", "value": "y"})),
        "a\nall\nb"
    );
}

#[test]
fn not_granted_each_call_is_an_error_naming_the_policy_key() {
    let state = tempfile::tempdir().unwrap();
    // (policy, tool, its arguments, the bucket it opens)
    let table = [
        ("", "count", json!({}), "default"),
        ("", "notes", json!({}), "notes"),
        (
            "[plugins.sdkstore.keyvalue]\nbuckets = [\"default\"]\n",
            "add_note",
            json!({"text": "t"}),
            "notes",
        ),
    ];
    for (policy, tool, arguments, bucket) in table {
        let (mut server, _dir) = serve(policy, state.path());
        let error = server.call_err(tool, arguments);
        // The SDK's words (the guest does not know its name) and the host's.
        let sdk = format!("`[plugins.<this plugin>.keyvalue] buckets = [\"{bucket}\"]`");
        assert!(error.contains(&sdk), "{tool} under {policy:?}: {error}");
        assert!(
            error.contains("plugins.sdkstore.keyvalue.buckets"),
            "{tool} under {policy:?}: {error}"
        );
    }
}
