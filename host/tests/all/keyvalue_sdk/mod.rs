//! The SDKs' store APIs through the real binary (issue 45): one file per
//! SDK beside this one, each with its SDK's test plugin, a counter and a
//! notes tool written as the guide shows them (tools `count`, `add_note`,
//! `notes` and `put`, the same in every language), over the embedded store.
//! Granted, they remember across calls and restarts on one `--state-dir`;
//! not granted, each call is an error naming the policy key; sixteen calls
//! in flight lose no increment and no update; a plugin that does not use
//! the API does not import wasi:keyvalue. This file: the
//! scenarios every SDK's file runs, and the Rust SDK's
//! (`mcp_wasm_sdk::store`, `plugins/testing/sdkstore`); `c.rs` and `go.rs`
//! run them through [`sdk_store_tests`] on the plugins their languages'
//! builds make.
#![allow(clippy::unwrap_used)]

/// The tests of a compiled language's store API: `$built` (such as
/// `crate::c_plugins::built`) is the directory of its built plugins,
/// `sdkstore` among them, or `None` (said) without the toolchain; `$others`
/// names plugins of the same SDK that do not call its store.
macro_rules! sdk_store_tests {
    ($built:path, $others:expr) => {
        /// The path of the built plugin `name`, or `None` (said) without
        /// the toolchain.
        fn plugin(name: &str) -> Option<String> {
            Some($built()?.join(format!("{name}.wasm")).to_str()?.to_owned())
        }

        #[test]
        fn only_the_plugin_that_uses_the_store_imports_wasi_keyvalue() {
            let Some(store) = plugin("sdkstore") else {
                return;
            };
            let others: Vec<String> = $others.iter().map(|n| plugin(n).unwrap()).collect();
            let others: Vec<&str> = others.iter().map(String::as_str).collect();
            super::imports_wasi_keyvalue_only_where_used(&store, &others);
        }

        #[test]
        fn granted_the_tools_remember_across_calls_and_a_restart() {
            if let Some(store) = plugin("sdkstore") {
                super::remembers_across_calls_and_a_restart(&store);
            }
        }

        #[test]
        fn sixteen_calls_in_flight_lose_no_update() {
            if let Some(store) = plugin("sdkstore") {
                super::no_update_is_lost_with_sixteen_calls_in_flight(&store);
            }
        }

        #[test]
        fn not_granted_each_call_is_an_error_naming_the_policy_key() {
            if let Some(store) = plugin("sdkstore") {
                super::each_denied_call_names_the_policy_key(&store);
            }
        }
    };
}

mod c;
mod go;
mod js;
mod python;

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::json;

use crate::common::revision::R4;
use crate::common::{Server, plugins_with_policy, text};
use crate::keyvalue::{all_at_once, state_imports};

/// The plugin's name: the component file's stem.
fn name_of(component: &str) -> &str {
    Path::new(component).file_stem().unwrap().to_str().unwrap()
}

/// The policy granting the plugin `name` both buckets its tools open.
fn granted(name: &str) -> String {
    format!("[plugins.{name}.keyvalue]\nbuckets = [\"default\", \"notes\"]\n")
}

/// A stdio server over `component` alone under `policy`, keeping its state
/// in `state`; the directory holding the plugin and the policy.
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

/// The wasi:keyvalue interfaces the store API calls, all a plugin that uses
/// it imports.
fn store_and_atomics() -> BTreeSet<String> {
    BTreeSet::from([
        "wasi:keyvalue/atomics@0.2.0-draft2".to_string(),
        "wasi:keyvalue/store@0.2.0-draft2".to_string(),
    ])
}

/// `component`, a store test plugin, imports `store` and `atomics` (and not
/// `batch`); each of `others`, plugins of the same SDK that do not use the
/// API, imports no WASI state interface.
fn imports_wasi_keyvalue_only_where_used(component: &str, others: &[&str]) {
    assert_eq!(
        state_imports(component),
        store_and_atomics(),
        "{component} imports what its tools call, and not `batch`"
    );
    for other in others {
        assert_eq!(state_imports(other), BTreeSet::new(), "{other} imports");
    }
}

/// The store test plugin `component`, granted its buckets, counts and
/// keeps notes across calls, and finds them again after a restart (the
/// first server killed) on the same state directory.
fn remembers_across_calls_and_a_restart(component: &str) {
    let policy = granted(name_of(component));
    let state = tempfile::tempdir().unwrap();
    {
        let (mut first, _dir) = serve(component, &policy, state.path());
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
    let (mut second, _dir) = serve(component, &policy, state.path());
    assert_eq!(call_text(&mut second, "count", json!({})), "called 3 times");
    assert_eq!(call_text(&mut second, "notes", json!({})), "milk\neggs\n");
    assert_eq!(
        call_text(&mut second, "put", json!({"key": "a", "value": "y"})),
        "a\nall\nb"
    );
}

/// Sixteen `count` calls and sixteen `add_note` calls of the store test
/// plugin `component`, each sixteen sent at once: every count sees its own
/// number (the increment is atomic), and every note is kept exactly once
/// (the SDK's compare-and-swap `update` tries again when another call
/// wrote the notes first).
fn no_update_is_lost_with_sixteen_calls_in_flight(component: &str) {
    let policy = granted(name_of(component));
    let state = tempfile::tempdir().unwrap();
    let (mut server, _dir) = serve(component, &policy, state.path());
    let counts: Vec<(&str, serde_json::Value)> = (0..16).map(|_| ("count", json!({}))).collect();
    let mut seen: Vec<u32> = all_at_once(&mut server, &counts)
        .iter()
        .map(|result| {
            let said = text(result);
            said.strip_prefix("called ")
                .and_then(|n| n.strip_suffix(" times"))
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("count said {said:?}"))
        })
        .collect();
    seen.sort_unstable();
    assert_eq!(
        seen,
        (1..=16).collect::<Vec<_>>(),
        "each count saw its own number"
    );

    let letters: Vec<String> = ('a'..='p').map(String::from).collect();
    let notes: Vec<(&str, serde_json::Value)> = letters
        .iter()
        .map(|l| ("add_note", json!({"text": l})))
        .collect();
    all_at_once(&mut server, &notes);
    let mut kept: Vec<String> = call_text(&mut server, "notes", json!({}))
        .lines()
        .map(str::to_string)
        .collect();
    kept.sort();
    assert_eq!(kept, letters, "every note is kept exactly once");
}

/// Each call of the store test plugin `component` that opens a bucket its
/// policy does not grant is an error with the SDK's words, naming the
/// bucket, and the host's, naming the policy key.
fn each_denied_call_names_the_policy_key(component: &str) {
    let name = name_of(component);
    let state = tempfile::tempdir().unwrap();
    let only_default = format!("[plugins.{name}.keyvalue]\nbuckets = [\"default\"]\n");
    // (policy, tool, its arguments, the bucket it opens)
    let table = [
        ("", "count", json!({}), "default"),
        ("", "notes", json!({}), "notes"),
        (&only_default, "add_note", json!({"text": "t"}), "notes"),
    ];
    for (policy, tool, arguments, bucket) in table {
        let (mut server, _dir) = serve(component, policy, state.path());
        let error = server.call_err(tool, arguments);
        // The SDK's words (the guest does not know its name) and the host's.
        let sdk = format!("`[plugins.<this plugin>.keyvalue] buckets = [\"{bucket}\"]`");
        assert!(error.contains(&sdk), "{tool} under {policy:?}: {error}");
        let key = format!("plugins.{name}.keyvalue.buckets");
        assert!(error.contains(&key), "{tool} under {policy:?}: {error}");
    }
}

#[test]
fn only_a_plugin_that_uses_the_store_imports_wasi_keyvalue() {
    imports_wasi_keyvalue_only_where_used(
        test_artifacts::SDKSTORE,
        &[test_artifacts::TEXT, test_artifacts::COUNTER],
    );
}

#[test]
fn granted_the_tools_remember_across_calls_and_a_restart() {
    remembers_across_calls_and_a_restart(test_artifacts::SDKSTORE);
}

#[test]
fn sixteen_calls_in_flight_lose_no_update() {
    no_update_is_lost_with_sixteen_calls_in_flight(test_artifacts::SDKSTORE);
}

#[test]
fn not_granted_each_call_is_an_error_naming_the_policy_key() {
    each_denied_call_names_the_policy_key(test_artifacts::SDKSTORE);
}
