//! Test plugin built against WIT `mcp-wasm-host:plugin@0.1.0`, the version
//! before the `client` interface: it imports `host@0.1.0` and exports
//! `tools@0.1.0`, and must keep loading in a host that speaks a later 0.1.x.

// Only a wasm32 build has anything in it: the exports carry the component
// model's names (`mcp-wasm-host:plugin/tools@0.1.0#...`), which a native
// linker cannot export, so natively (`cargo build --workspace`) the crate is
// empty.
#![cfg(target_family = "wasm")]

#[allow(
    unsafe_code,
    unused_qualifications,
    missing_debug_implementations,
    clippy::all
)]
mod bindings {
    wit_bindgen::generate!({
        path: "../../../wit/history/plugin@0.1.0.wit",
        world: "plugin",
    });
}

use bindings::exports::mcp_wasm_host::plugin::tools::Guest;
use bindings::mcp_wasm_host::plugin::host;
use bindings::mcp_wasm_host::plugin::types::{
    CallResult, ContentBlock, LogLevel, TextContent, ToolAnnotations, ToolDefinition, ToolError,
};

struct Legacy;

impl Guest for Legacy {
    fn list_tools() -> Vec<ToolDefinition> {
        vec![ToolDefinition {
            name: "legacy_echo".into(),
            title: None,
            description: "Echoes `text`, from a plugin built against WIT 0.1.0.".into(),
            input_schema:
                r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"#
                    .into(),
            output_schema: None,
            annotations: ToolAnnotations {
                title: None,
                read_only_hint: Some(true),
                destructive_hint: None,
                idempotent_hint: Some(true),
                open_world_hint: Some(false),
            },
        }]
    }

    fn call_tool(name: String, arguments: String) -> Result<CallResult, ToolError> {
        if name != "legacy_echo" {
            return Err(ToolError::UnknownTool(name));
        }
        // The host import of 0.1.0, resolved by a later host.
        host::log(LogLevel::Info, "legacy plugin called");
        host::report_progress(1.0, Some(1.0), None);
        // The arguments are `{"text":"…"}`, validated by the host; a real
        // plugin would use a JSON parser.
        let text = arguments
            .split_once(":\"")
            .and_then(|(_, rest)| rest.rsplit_once("\"}"))
            .map(|(t, _)| t.to_string())
            .ok_or_else(|| ToolError::InvalidArguments(arguments.clone()))?;
        Ok(CallResult {
            content: vec![ContentBlock::Text(TextContent {
                text: format!("legacy: {text}"),
                annotations: None,
            })],
            structured_content: None,
            is_error: false,
        })
    }
}

// The generated export glue is unsafe code (the workspace denies it elsewhere).
#[allow(unsafe_code)]
mod export {
    use super::{Legacy, bindings};
    bindings::export!(Legacy with_types_in bindings);
}
