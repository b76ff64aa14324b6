//! Test plugin built against WIT `mcp-wasm-host:plugin@0.1.2`, the last 0.1
//! version: it imports `client@0.1.2` and exports `tools@0.1.2`, and must
//! keep working in a host that speaks 0.2.0. Its one tool requires the
//! `roots` capability, then asks the client's user and the client's roots
//! at once (`request-inputs`), and returns what came back.

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
        path: "../../../wit/history/plugin@0.1.2.wit",
        world: "plugin",
    });
}

use bindings::exports::mcp_wasm_host::plugin::tools::Guest;
use bindings::mcp_wasm_host::plugin::client::{
    self, ElicitRequest, InputRequest, InputResponse, KeyedRequest, RequestKind,
};
use bindings::mcp_wasm_host::plugin::types::{
    CallResult, ContentBlock, TextContent, ToolAnnotations, ToolDefinition, ToolError,
};

struct Legacy;

impl Guest for Legacy {
    fn list_tools() -> Vec<ToolDefinition> {
        vec![ToolDefinition {
            name: "legacy_batch".into(),
            title: None,
            description: "Asks the client's user and its roots at once, from a plugin built \
                          against WIT 0.1.2."
                .into(),
            input_schema: r#"{"type":"object","additionalProperties":false}"#.into(),
            output_schema: None,
            annotations: ToolAnnotations {
                title: None,
                read_only_hint: Some(true),
                destructive_hint: None,
                idempotent_hint: None,
                open_world_hint: None,
            },
        }]
    }

    fn call_tool(name: String, _arguments: String) -> Result<CallResult, ToolError> {
        if name != "legacy_batch" {
            return Err(ToolError::UnknownTool(name));
        }
        client::require(&[RequestKind::Roots]);
        let answers = client::request_inputs(&[
            KeyedRequest {
                key: "who".into(),
                request: InputRequest::Elicit(ElicitRequest {
                    message: "Who are you?".into(),
                    requested_schema:
                        r#"{"type":"object","properties":{"name":{"type":"string"}}}"#.into(),
                }),
            },
            KeyedRequest {
                key: "where".into(),
                request: InputRequest::ListRoots,
            },
        ]);
        let lines: Vec<String> = answers
            .into_iter()
            .map(|answer| match answer {
                Ok(InputResponse::Elicit(e)) => format!("elicit {}", e.content.unwrap_or_default()),
                Ok(InputResponse::ListRoots(roots)) => {
                    let uris: Vec<String> = roots.into_iter().map(|r| r.uri).collect();
                    format!("roots {}", uris.join(","))
                }
                Ok(InputResponse::CreateMessage(m)) => format!("model {}", m.model),
                Err(e) => format!("error {e:?}"),
            })
            .collect();
        Ok(CallResult {
            content: vec![ContentBlock::Text(TextContent {
                text: lines.join("\n"),
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
