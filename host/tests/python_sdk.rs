//! The official MCP Python SDK client (`mcp` from PyPI) against the real
//! binary over stdio: it lists every page of the example plugins' tools and
//! calls every example tool (`tests/example_calls.json`).
//!
//! The client runs in the project's venv, which `scripts/setup-python.sh`
//! creates (`scripts/test.sh` runs it first and exports
//! `MCP_WASM_HOST_PYTHON`).
#![allow(clippy::unwrap_used)]

mod common;

use std::process::Command;

use serde_json::Value;

#[test]
fn python_sdk_lists_every_page_and_calls_every_example_tool() {
    let root = common::workspace_root();
    let calls_file = root.join("tests/example_calls.json");
    let calls: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(&calls_file).unwrap()).unwrap();
    let mut expected: Vec<String> = calls
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect();
    expected.sort();
    expected.dedup();

    let out = Command::new(common::python())
        .arg(root.join("tests/python/sdk_client.py"))
        .args(["--server", common::binary()])
        .arg("--plugins")
        .arg(test_artifacts::EXAMPLES_DIR)
        .args(["--page-size", "3"])
        .args(["--expect-tools", &expected.join(",")])
        .arg("--call-all-file")
        .arg(&calls_file)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the Python SDK client failed:\n{stdout}\n{stderr}"
    );
    let summary: Value = serde_json::from_str(stdout.trim()).unwrap();
    let pages = summary["pages"].as_u64().unwrap();
    assert!(
        pages >= 2,
        "the examples span several pages of 3: {summary}"
    );
    assert_eq!(
        summary["tools"].as_u64().unwrap() as usize,
        expected.len(),
        "{summary}"
    );
}
