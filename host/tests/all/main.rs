//! The integration tests, one binary (as wasmtime's `tests/all`): each
//! module drives the real `mcp-wasm-host` binary with the test plugins that
//! `tests/artifacts` builds. One binary links once, which keeps `cargo test`
//! and CI short; `cargo test --test all MODULE::` runs one module's tests.

#![allow(clippy::unwrap_used)]

mod common;

mod address_space;
mod apps;
mod async_components;
mod blame;
mod bounds;
mod c_plugins;
mod cache;
mod client_requests;
mod cluster_limits;
mod cluster_notify;
mod cluster_sessions;
mod cluster_store_down;
mod cluster_tasks;
mod docs_paths;
mod engine_bounds;
mod flood;
mod generic;
mod go_plugins;
mod host_errors;
mod http;
mod icons;
mod input_required;
mod inspect;
mod inspector_strict;
mod instance_slots;
mod integer_edges;
mod isolation;
mod js_plugins;
mod keyvalue;
mod keyvalue_languages;
mod keyvalue_sdk;
mod layering;
mod light_forms;
mod loading;
mod malformed;
mod native_baseline;
mod network;
mod new_projects;
mod oauth;
mod observability;
mod plugins_used;
mod profile_oauth;
mod profiles;
mod python_sdk;
mod python_watch;
mod quick_compile;
mod receipts;
mod redaction;
mod registry;
mod reload;
mod replicas;
mod reuse;
mod revision_2026;
mod revisions;
mod sandbox;
mod served;
mod served_bounds;
mod served_clients;
mod sessions;
mod stdio;
mod tasks;
mod tool_clash;
mod ts_sdk;
mod ts_sdk_v2;
mod utilities;
mod watch;
mod wit_versions;
