//! The JavaScript SDK's store API (`mcp-wasm-sdk/store`) through the real
//! binary: `plugins/js/jsstore` (TypeScript), built from source with the
//! other JavaScript plugins by `scripts/build-js-plugin.sh`
//! ([`crate::js_plugins::built`]: esbuild, then componentize-js), runs the
//! scenarios of [`super`]; `markdown`, which does not import the store API,
//! imports no wasi:keyvalue. Needs Node (`MCP_WASM_HOST_NODE`): without it
//! each test says so and passes without running, except under CI.
#![allow(clippy::unwrap_used)]

/// The built JavaScript plugin `name`, or `None` when Node is not set up.
fn component(name: &str) -> Option<String> {
    let dir = crate::js_plugins::built()?;
    Some(
        dir.join(format!("{name}.wasm"))
            .to_str()
            .unwrap()
            .to_string(),
    )
}

#[test]
fn only_a_js_plugin_that_uses_the_store_imports_wasi_keyvalue() {
    let (Some(store), Some(markdown)) = (component("jsstore"), component("markdown")) else {
        return;
    };
    super::imports_wasi_keyvalue_only_where_used(&store, &[&markdown]);
}

#[test]
fn granted_js_tools_remember_across_calls_and_a_restart() {
    if let Some(store) = component("jsstore") {
        super::remembers_across_calls_and_a_restart(&store);
    }
}

#[test]
fn sixteen_js_calls_in_flight_lose_no_update() {
    if let Some(store) = component("jsstore") {
        super::no_update_is_lost_with_sixteen_calls_in_flight(&store);
    }
}

#[test]
fn not_granted_each_js_call_is_an_error_naming_the_policy_key() {
    if let Some(store) = component("jsstore") {
        super::each_denied_call_names_the_policy_key(&store);
    }
}
