//! The SDKs' store APIs through the real binary (issue 45): one file per
//! SDK beside this one, each with its `sdkstore` test plugin, a counter and
//! a notes tool written as the guide shows them, over the embedded store.
//! Granted, they remember across calls and restarts on one `--state-dir`;
//! not granted, each call is an error naming the policy key; sixteen calls
//! in flight all land; a plugin that does not use the API does not import
//! wasi:keyvalue. The checks are here,
//! shared; this file runs them on the Rust SDK's (`mcp_wasm_sdk::store`,
//! `plugins/testing/sdkstore`), `c.rs` on the C SDK's and `go.rs` on the Go
//! SDK's.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::json;

use crate::common::revision::R4;
use crate::common::{Server, plugins_with_policy, text};
use crate::keyvalue::{all_at_once, state_imports};

/// The tests of a compiled-language SDK's store API: `$built` (e.g.
/// `crate::c_plugins::built`) builds its plugins, `sdkstore` among them, and
/// `$other` names two that use the SDK and not its store.
macro_rules! sdk_store_tests {
    ($built:path, $other:expr) => {
        /// The path of the built plugin `name`, or `None` (said) without
        /// the toolchain.
        fn plugin(name: &str) -> Option<String> {
            super::component($built()?, name)
        }

        #[test]
        fn only_the_plugin_that_uses_the_store_imports_wasi_keyvalue() {
            let Some(store) = plugin("sdkstore") else {
                return;
            };
            super::imports_store_and_atomics(&store);
            for name in $other {
                super::import_no_state(&[(name, &plugin(name).unwrap())]);
            }
        }

        #[test]
        fn granted_the_tools_remember_across_calls_and_a_restart() {
            if let Some(store) = plugin("sdkstore") {
                super::remembers_across_calls_and_a_restart(&store);
            }
        }

        #[test]
        fn sixteen_calls_in_flight_all_land() {
            if let Some(store) = plugin("sdkstore") {
                super::lands_sixteen_calls_in_flight(&store);
            }
        }

        #[test]
        fn not_granted_each_call_is_an_error_naming_the_policy_key() {
            if let Some(store) = plugin("sdkstore") {
                super::denies_naming_the_policy_key(&store);
            }
        }
    };
}

mod c;
mod go;

/// The policy granting `sdkstore` both buckets its tools open.
const GRANTED: &str = "[plugins.sdkstore.keyvalue]\nbuckets = [\"default\", \"notes\"]\n";

/// A stdio server over the `sdkstore` plugin at `component` under
/// `policy`, keeping its state in `state`; the directory holding the plugin
/// and the policy.
fn serve(component: &str, policy: &str, state: &Path) -> (Server, tempfile::TempDir) {
    let (dir, plugins, config) = plugins_with_policy(&[component], policy);
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

/// The component `name` built into `dir`, as a path string.
fn component(dir: &Path, name: &str) -> Option<String> {
    Some(dir.join(format!("{name}.wasm")).to_str()?.to_owned())
}

/// Asserts that the component at `path` imports wasi:keyvalue's `store`
/// and `atomics`, what the sdkstore tools call, and not `batch`.
fn imports_store_and_atomics(path: &str) {
    assert_eq!(
        state_imports(path),
        BTreeSet::from([
            "wasi:keyvalue/atomics@0.2.0-draft2".to_string(),
            "wasi:keyvalue/store@0.2.0-draft2".to_string(),
        ]),
        "{path} imports what its tools call"
    );
}

/// Asserts that each `(name, component)` imports no WASI state interface.
fn import_no_state(components: &[(&str, &str)]) {
    for (name, path) in components {
        assert_eq!(state_imports(path), BTreeSet::new(), "{name} imports");
    }
}

/// The sdkstore plugin at `component`, granted both buckets, remembers
/// across calls and a killed-and-restarted server on one `--state-dir`.
fn remembers_across_calls_and_a_restart(component: &str) {
    let state = tempfile::tempdir().unwrap();
    {
        let (mut first, _dir) = serve(component, GRANTED, state.path());
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
    let (mut second, _dir) = serve(component, GRANTED, state.path());
    assert_eq!(call_text(&mut second, "count", json!({})), "called 3 times");
    assert_eq!(call_text(&mut second, "notes", json!({})), "milk\neggs\n");
    assert_eq!(
        call_text(&mut second, "put", json!({"key": "a", "value": "y"})),
        "a\nall\nb"
    );
}

/// Without a grant of the bucket it opens, each sdkstore tool's call is an
/// error naming the policy key, in the SDK's words and the host's.
fn denies_naming_the_policy_key(component: &str) {
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
        let (mut server, _dir) = serve(component, policy, state.path());
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

/// Sixteen counts and sixteen notes sent at once to the sdkstore plugin at
/// `component` all land: its increment is atomic, and its update tries
/// again when another call wrote the notes first.
fn lands_sixteen_calls_in_flight(component: &str) {
    let state = tempfile::tempdir().unwrap();
    let (mut server, _dir) = serve(component, GRANTED, state.path());
    let counts = vec![("count", json!({})); 16];
    let seen: BTreeSet<String> = all_at_once(&mut server, &counts).iter().map(text).collect();
    let want: BTreeSet<String> = (1..=16).map(|n| format!("called {n} times")).collect();
    assert_eq!(seen, want, "each count saw its own number");
    let letters: Vec<String> = ('a'..='p').map(String::from).collect();
    let notes: Vec<(&str, serde_json::Value)> = letters
        .iter()
        .map(|l| ("add_note", json!({"text": l})))
        .collect();
    all_at_once(&mut server, &notes);
    let all = call_text(&mut server, "notes", json!({}));
    let mut lines: Vec<&str> = all.lines().collect();
    lines.sort_unstable();
    assert_eq!(lines, letters, "every note is kept exactly once: {all:?}");
}

#[test]
fn only_a_plugin_that_uses_the_store_imports_wasi_keyvalue() {
    imports_store_and_atomics(test_artifacts::SDKSTORE);
    import_no_state(&[
        ("text", test_artifacts::TEXT),
        ("counter", test_artifacts::COUNTER),
    ]);
}

#[test]
fn granted_the_tools_remember_across_calls_and_a_restart() {
    remembers_across_calls_and_a_restart(test_artifacts::SDKSTORE);
}

#[test]
fn not_granted_each_call_is_an_error_naming_the_policy_key() {
    denies_naming_the_policy_key(test_artifacts::SDKSTORE);
}

#[test]
fn sixteen_calls_in_flight_all_land() {
    lands_sixteen_calls_in_flight(test_artifacts::SDKSTORE);
}
