//! Test plugin built against WIT `mcp-wasm-host:plugin@0.1.1`, the last
//! version before tools had icons: it imports `host@0.1.1` and
//! `client@0.1.1` and exports `tools@0.1.1`, and must keep loading in a host
//! that speaks 0.2.0. Its one tool asks the client's model (sampling) and
//! then its user (elicitation), and returns both answers.

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
        path: "../../../wit/history/plugin@0.1.1.wit",
        world: "plugin",
    });
}

use bindings::exports::mcp_wasm_host::plugin::tools::Guest;
use bindings::mcp_wasm_host::plugin::client::{
    self, CreateMessageRequest, ElicitAction, RequestError, SamplingContent, SamplingMessage,
};
use bindings::mcp_wasm_host::plugin::host;
use bindings::mcp_wasm_host::plugin::types::{
    CallResult, ContentBlock, LogLevel, Role, TextContent, ToolAnnotations, ToolDefinition,
    ToolError,
};

struct Legacy;

fn text(text: String) -> CallResult {
    CallResult {
        content: vec![ContentBlock::Text(TextContent {
            text,
            annotations: None,
        })],
        structured_content: None,
        is_error: false,
    }
}

fn failed(e: RequestError) -> ToolError {
    ToolError::Failed(match e {
        RequestError::Unsupported(m) => format!("unsupported: {m}"),
        RequestError::Denied(m) => format!("denied: {m}"),
        RequestError::Rejected(r) => format!("rejected: {} {}", r.code, r.message),
        RequestError::Failed(m) => format!("failed: {m}"),
    })
}

impl Guest for Legacy {
    fn list_tools() -> Vec<ToolDefinition> {
        vec![ToolDefinition {
            name: "legacy_ask".into(),
            title: None,
            description:
                "Asks the client's model, then its user, from a plugin built against WIT 0.1.1."
                    .into(),
            input_schema: r#"{"type":"object","additionalProperties":false}"#.into(),
            output_schema: None,
            annotations: ToolAnnotations {
                title: None,
                read_only_hint: Some(true),
                destructive_hint: None,
                idempotent_hint: None,
                open_world_hint: Some(false),
            },
        }]
    }

    fn call_tool(name: String, _arguments: String) -> Result<CallResult, ToolError> {
        if name != "legacy_ask" {
            return Err(ToolError::UnknownTool(name));
        }
        host::log(LogLevel::Info, "legacy 0.1.1 plugin called");
        let sampled = client::create_message(&CreateMessageRequest {
            messages: vec![SamplingMessage {
                role: Role::User,
                content: vec![SamplingContent::Text("Name a colour.".into())],
            }],
            system_prompt: None,
            max_tokens: 10,
            temperature: None,
            stop_sequences: vec![],
            model_preferences: None,
            include_context: None,
        })
        .map_err(failed)?;
        let said = sampled
            .content
            .iter()
            .filter_map(|c| match c {
                SamplingContent::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("");
        let elicited = client::elicit(
            "Your name?",
            r#"{"type":"object","properties":{"name":{"type":"string"}}}"#,
        )
        .map_err(failed)?;
        let action = match elicited.action {
            ElicitAction::Accept => "accept",
            ElicitAction::Decline => "decline",
            ElicitAction::Cancel => "cancel",
        };
        Ok(text(format!(
            "model {} said {said}; user did {action} with {}",
            sampled.model,
            elicited.content.unwrap_or_default()
        )))
    }
}

// The generated export glue is unsafe code (the workspace denies it elsewhere).
#[allow(unsafe_code)]
mod export {
    use super::{Legacy, bindings};
    bindings::export!(Legacy with_types_in bindings);
}
