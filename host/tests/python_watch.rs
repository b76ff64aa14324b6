//! The official MCP Python SDK client (`mcp` from PyPI) and the live plugins
//! directory: `tests/python/watch_client.py` connects, copies a plugin into
//! the served directory, and must receive `notifications/tools/list_changed`
//! (through `ClientSession(message_handler=...)`) and then see the new tools.
//!
//! The client runs in the project's venv, which `scripts/setup-python.sh`
//! creates (`scripts/test.sh` runs it first and exports
//! `MCP_WASM_HOST_PYTHON`).
#![allow(clippy::unwrap_used)]

mod common;

use std::process::Command;

use serde_json::Value;

#[test]
fn python_sdk_hears_list_changed_and_sees_the_new_tools() {
    let root = common::workspace_root();
    let dir = common::plugin_dir(&[test_artifacts::ERRORS]);
    let out = Command::new(common::python())
        .arg(root.join("tests/python/watch_client.py"))
        .args(["--server", common::binary()])
        .arg("--plugins")
        .arg(dir.path())
        .args(["--add", test_artifacts::MANY])
        .args(["--expect-added", "tool_00,tool_12,tool_24"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the Python SDK client failed:\n{stdout}\n{stderr}"
    );
    let summary: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(summary["ok"], true, "{summary}");
    assert!(summary["notifications"].as_u64().unwrap() >= 1, "{summary}");
    let after = summary["after"].as_array().unwrap();
    assert!(after.iter().any(|n| n == "returns_error"), "{summary}");
    assert!(after.iter().any(|n| n == "tool_24"), "{summary}");
}
