//! Tool icons (WIT 0.2.0) against the real binary: `tools/list` carries
//! them from revision 2025-11-25 on and leaves them out before it, `inspect`
//! shows them, and a plugin with an invalid icon is refused at load with a
//! line that says which tool, which icon and why.
#![allow(clippy::unwrap_used)]

use crate::common::revision::{R1, R2, R3, R4, R5};
use std::process::Command;

use crate::common::{Server, plugin_dir};
use serde_json::{Value, json};

/// The tools a session at `version` lists, by name.
fn listed(version: &str) -> Vec<Value> {
    let dir = plugin_dir(&[test_artifacts::ICONS, test_artifacts::LEGACY]);
    let mut s = Server::initialized(dir.path(), &[], version);
    s.list_all_tools().0
}

fn tool<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name} in {tools:?}"))
}

const DOT: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

#[test]
fn tools_list_carries_icons_from_revision_2025_11_25_on() {
    for version in [R4, R5] {
        let tools = listed(version);
        assert_eq!(
            tool(&tools, "iconic")["icons"],
            json!([
                {
                    "src": "https://example.com/iconic-dark.png",
                    "mimeType": "image/png",
                    "sizes": ["48x48", "96x96"],
                    "theme": "dark"
                },
                {"src": DOT}
            ]),
            "{version}"
        );
        assert!(tool(&tools, "plain").get("icons").is_none(), "{version}");
        // A 0.1.0 plugin's tools have none.
        assert!(
            tool(&tools, "legacy_echo").get("icons").is_none(),
            "{version}"
        );
    }
}

#[test]
fn earlier_revisions_get_no_icons() {
    for version in [R3, R2, R1] {
        let tools = listed(version);
        let iconic = tool(&tools, "iconic");
        assert_eq!(iconic["description"], "Has two icons.", "{version}");
        assert!(iconic.get("icons").is_none(), "{version}: {iconic}");
    }
}

#[test]
fn an_example_plugin_shows_a_real_svg_icon() {
    let dir = plugin_dir(&[test_artifacts::TEXT]);
    let mut s = Server::initialized(dir.path(), &[], R4);
    let (tools, _) = s.list_all_tools();
    let icons = &tool(&tools, "text_stats")["icons"];
    let src = icons[0]["src"].as_str().unwrap();
    assert!(src.starts_with("data:image/svg+xml,%3Csvg"), "{icons}");
    assert_eq!(icons[0]["mimeType"], "image/svg+xml");
    assert_eq!(icons[0]["sizes"], json!(["any"]));
}

#[test]
fn a_plugin_with_an_invalid_icon_is_refused_at_load() {
    let dir = plugin_dir(&[test_artifacts::BADICON, test_artifacts::ICONS]);
    let mut s = Server::initialized(dir.path(), &[], R4);
    let (tools, _) = s.list_all_tools();
    assert!(
        tools.iter().all(|t| t["name"] != "shady"),
        "the plugin is not served: {tools:?}"
    );
    s.wait_for_stderr(
        "badicon.wasm: tool \"shady\": icon 1: its `src` must be an `https:` URL or a `data:` URI: http://example.com/tracker.png",
    );
}

#[test]
fn inspect_shows_the_icons_and_the_digest() {
    let run = |json: bool| {
        let mut command = Command::new(crate::common::binary());
        command
            .arg("inspect")
            .arg(test_artifacts::ICONS)
            .env_remove("MCP_WASM_HOST_CONFIG")
            .env_remove("RUST_LOG");
        if json {
            command.arg("--json");
        }
        let out = command.output().unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let digest = {
        use sha2::Digest as _;
        hex::encode(sha2::Sha256::digest(
            std::fs::read(test_artifacts::ICONS).unwrap(),
        ))
    };
    let report: Value = serde_json::from_str(&run(true)).unwrap();
    assert_eq!(report["sha256"], digest);
    let iconic = tool(report["tools"].as_array().unwrap(), "iconic");
    assert_eq!(iconic["icons"][1], json!({"src": DOT}));

    let text = run(false);
    assert!(text.contains(&format!("sha256     {digest}")), "{text}");
    assert!(
        text.contains("https://example.com/iconic-dark.png, image/png, 48x48 96x96, dark theme"),
        "{text}"
    );
    assert!(
        text.contains("data:image/png;base64,… (92 bytes)"),
        "{text}"
    );
}
