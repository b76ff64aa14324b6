//! The Python SDK's store API (`mcp_wasm_sdk.store`) through the real
//! binary: `plugins/python/pystore`, built from source by
//! `scripts/build-python-plugin.sh` (the SDK's `mcp-wasm-sdk-build`, with
//! componentize-py from the project's venv), runs the scenarios of
//! [`super`]. `textstats`, a Python plugin that does not import the store
//! API, is built beside it to show that it imports no wasi:keyvalue.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::sync::OnceLock;

use crate::common::{run_build_script_for, target_dir};

/// The directory holding `pystore.wasm` and `textstats.wasm`, built once
/// per test binary.
fn built() -> &'static PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let out = target_dir().join("keyvalue-sdk").join("python");
        run_build_script_for(
            "build-python-plugin.sh",
            &out,
            &["pystore", "textstats"],
            &[],
        );
        out
    })
}

/// The component `name` of [`built`].
fn component(name: &str) -> String {
    built()
        .join(format!("{name}.wasm"))
        .to_str()
        .unwrap()
        .to_string()
}

#[test]
fn only_a_python_plugin_that_uses_the_store_imports_wasi_keyvalue() {
    super::imports_wasi_keyvalue_only_where_used(&component("pystore"), &[&component("textstats")]);
}

#[test]
fn granted_python_tools_remember_across_calls_and_a_restart() {
    super::remembers_across_calls_and_a_restart(&component("pystore"));
}

#[test]
fn sixteen_python_calls_in_flight_lose_no_update() {
    super::no_update_is_lost_with_sixteen_calls_in_flight(&component("pystore"));
}

#[test]
fn not_granted_each_python_call_is_an_error_naming_the_policy_key() {
    super::each_denied_call_names_the_policy_key(&component("pystore"));
}
