//! The side-by-side benchmark (`benches/native`) compares like with like:
//! the `fnv` test plugin, served by the real binary, answers every text with
//! exactly what the native baseline server's `hash` tool answers.

use crate::common::Server;
use crate::common::revision::R3;
use serde_json::json;

#[test]
fn the_fnv_plugin_answers_what_the_native_servers_tool_answers() {
    let plugins = crate::common::plugin_dir(&[test_artifacts::FNV]);
    let mut server = Server::initialized(plugins.path(), &[], R3);
    for text in [
        "",
        "a",
        "foobar",
        "The quick brown fox jumps over the lazy dog: hash me, fast",
        "non-ASCII: ünïcödé ✓ 🦀",
        &"long text ".repeat(10_000),
    ] {
        let arguments = json!({ "text": text });
        let native = native_mcp_server::tool::call(arguments.as_object());
        let native = native.content[0].as_text().unwrap().text.clone();
        assert_eq!(
            crate::common::text(&server.call_ok("hash", arguments)),
            native,
            "{:?}",
            &text[..text.len().min(40)]
        );
    }
}
