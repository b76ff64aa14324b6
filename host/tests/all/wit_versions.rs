//! A plugin built against a version of the plugin WIT this host does not
//! serve (a newer SDK, or one older than any it keeps) is refused at load
//! with an error that names its version, the versions served, and what to
//! do; it is never served as a generic component instead.
#![allow(clippy::unwrap_used)]

use std::process::Command;

use crate::common::binary;

/// A component exporting `mcp-wasm-host:plugin/tools@VERSION`.
fn plugin_of_version(version: &str) -> Vec<u8> {
    let wit = format!(
        "package mcp-wasm-host:plugin@{version};\n\
         interface tools {{ list-tools: func() -> string; call-tool: func(name: string) -> string; }}\n\
         world w {{ export tools; }}\n"
    );
    let prefix = format!("mcp-wasm-host:plugin/tools@{version}");
    let core = format!(
        r#"(module (memory (export "memory") 1)
           (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32) unreachable)
           (func (export "{prefix}#list-tools") (result i32) unreachable)
           (func (export "{prefix}#call-tool") (param i32 i32) (result i32) unreachable))"#
    );
    test_artifacts::component_of_wit(&wit, "w", &core)
}

/// `check` on a directory holding only a plugin of WIT `version`: what it
/// printed, after asserting it failed.
fn check_refuses(version: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("versioned.wasm"),
        plugin_of_version(version),
    )
    .unwrap();
    let out = Command::new(binary())
        .env(crate::common::WAIT_FOR_LOAD, "1")
        .args(["check", dir.path().to_str().unwrap(), "--no-cache"])
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.status.success(), "{version}: {printed}");
    printed
}

#[test]
fn a_plugin_of_a_newer_wit_is_refused_saying_to_upgrade_the_host_or_use_an_older_sdk() {
    for version in ["0.3.0", "1.0.0"] {
        let stderr = check_refuses(version);
        for says in [
            format!("built against the plugin WIT {version}"),
            "which this host (mcp-wasm-host".to_owned(),
            "built with a newer SDK than this host".to_owned(),
            "install an mcp-wasm-host that serves".to_owned(),
            "docs/versions.md".to_owned(),
        ] {
            assert!(
                stderr.contains(&says),
                "{version}: {says:?} not in {stderr}"
            );
        }
        assert!(!stderr.contains("generic"), "{version}: {stderr}");
    }
}

#[test]
fn a_plugin_of_a_wit_older_than_any_kept_is_refused_saying_to_rebuild_it() {
    let stderr = check_refuses("0.0.9");
    assert!(
        stderr.contains("built against the plugin WIT 0.0.9")
            && stderr.contains("rebuild it with an SDK of WIT"),
        "{stderr}"
    );
}
