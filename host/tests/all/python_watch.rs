//! The official MCP Python SDK client (`mcp` from PyPI) and the live plugins
//! directory: `tests/python/watch_client.py` connects, copies a plugin into
//! the served directory, and must receive `notifications/tools/list_changed`
//! (through `ClientSession(message_handler=...)`) and then see the new tools.
//!
//! The client runs in the project's venv, which `scripts/setup-python.sh`
//! creates (`scripts/test.sh` runs it first and exports
//! `MCP_WASM_HOST_PYTHON`).
#![allow(clippy::unwrap_used)]

#[test]
fn python_sdk_hears_list_changed_and_sees_the_new_tools() {
    let dir = crate::common::plugin_dir(&[test_artifacts::ERRORS]);
    let summary = crate::common::run_python_client(
        "watch_client.py",
        &[
            "--plugins".as_ref(),
            dir.path().as_os_str(),
            "--add".as_ref(),
            test_artifacts::MANY.as_ref(),
            "--expect-added".as_ref(),
            "tool_00,tool_12,tool_24".as_ref(),
        ],
    );
    assert_eq!(summary["ok"], true, "{summary}");
    assert!(summary["notifications"].as_u64().unwrap() >= 1, "{summary}");
    let after = summary["after"].as_array().unwrap();
    assert!(after.iter().any(|n| n == "returns_error"), "{summary}");
    assert!(after.iter().any(|n| n == "tool_24"), "{summary}");
}
