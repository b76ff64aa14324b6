//! The official MCP Python SDK client (`mcp` from PyPI) against the real
//! binary over stdio: it lists every page of the example plugins' tools and
//! calls every example tool (`tests/example_calls.json`).
//!
//! The client runs in the project's venv, which `scripts/setup-python.sh`
//! creates (`scripts/test.sh` runs it first and exports
//! `MCP_WASM_HOST_PYTHON`).
#![allow(clippy::unwrap_used)]

use serde_json::Value;

#[test]
fn python_sdk_lists_every_page_and_calls_every_example_tool() {
    let root = crate::common::workspace_root();
    let calls_file = root.join("tests/example_calls.json");
    let calls: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(&calls_file).unwrap()).unwrap();
    let mut expected: Vec<String> = calls
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect();
    expected.sort();
    expected.dedup();

    let summary = crate::common::run_python_client(
        "sdk_client.py",
        &[
            "--plugins".as_ref(),
            test_artifacts::EXAMPLES_DIR.as_ref(),
            "--page-size".as_ref(),
            "3".as_ref(),
            "--expect-tools".as_ref(),
            expected.join(",").as_ref(),
            "--call-all-file".as_ref(),
            calls_file.as_os_str(),
        ],
    );
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
