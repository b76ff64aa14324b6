//! Test plugin: tools that ask the MCP client for sampling and elicitation
//! and report exactly what came back (or which error), so the tests can see
//! both directions of the round trip.

use mcp_wasm_sdk::client::{self, ClientError, CreateMessage, MessageContent};
use mcp_wasm_sdk::prelude::*;

/// Arguments of `sample`.
#[derive(Deserialize, JsonSchema)]
struct SampleArgs {
    /// The user message.
    prompt: String,
    /// The most tokens to generate.
    max_tokens: u32,
    /// An optional system prompt.
    system_prompt: Option<String>,
    /// An optional model hint.
    model_hint: Option<String>,
    /// Whether to add an image block (bytes 1, 2, 3 as `image/png`) to the
    /// user message.
    #[serde(default)]
    with_image: bool,
}

/// Arguments of `elicit`.
#[derive(Deserialize, JsonSchema)]
struct ElicitArgs {
    /// What to ask.
    message: String,
    /// The requested schema, passed on as given.
    schema: serde_json::Value,
}

/// A request error as the tool's error text: its kind, then its message.
fn failure(e: ClientError) -> ToolError {
    let kind = match &e {
        ClientError::Unsupported(_) => "unsupported",
        ClientError::Denied(_) => "denied",
        ClientError::Rejected { .. } => "rejected",
        ClientError::Failed(_) => "failed",
    };
    ToolError::failed(format!("{kind}: {e}"))
}

struct Asker;

impl Plugin for Asker {
    fn router() -> Router {
        Router::new()
            .tool(
                ToolDef::new("sample", "Asks the client's model to answer a prompt."),
                |args: SampleArgs| -> ToolResult {
                    let mut request = CreateMessage::new(args.max_tokens);
                    let mut message = client::Message::user(args.prompt);
                    if args.with_image {
                        message.content.push(MessageContent::Image {
                            data: vec![1, 2, 3],
                            mime_type: "image/png".into(),
                        });
                    }
                    request = request.message(message);
                    if let Some(s) = args.system_prompt {
                        request = request.system_prompt(s);
                    }
                    if let Some(h) = args.model_hint {
                        request = request.model_hint(h);
                    }
                    let answer = request.send().map_err(failure)?;
                    let images: Vec<_> = answer
                        .content
                        .iter()
                        .filter_map(|c| match c {
                            MessageContent::Image { data, mime_type } => {
                                Some(serde_json::json!({"bytes": data, "mimeType": mime_type}))
                            }
                            _ => None,
                        })
                        .collect();
                    Ok(Output::json(&serde_json::json!({
                        "text": answer.text(),
                        "images": images,
                        "model": answer.model,
                        "stopReason": answer.stop_reason,
                        "role": format!("{:?}", answer.role),
                    })))
                },
            )
            .tool(
                ToolDef::new("elicit", "Asks the client's user to fill in a form."),
                |args: ElicitArgs| -> ToolResult {
                    let answer =
                        client::elicit(&args.message, &args.schema.to_string()).map_err(failure)?;
                    Ok(Output::json(&serde_json::json!({
                        "action": answer.action.to_string(),
                        "content": answer.content_json(),
                    })))
                },
            )
    }
}

mcp_wasm_sdk::export_plugin!(Asker);
