//! Test plugin: tools that ask the MCP client for sampling, elicitation and
//! roots, one at a time, twice in a row or several at once, and report
//! exactly what came back (or which error), so the tests can see both
//! directions of the round trip.

use mcp_wasm_sdk::client::{self, Answer, ClientError, CreateMessage, Input, MessageContent};
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

/// Arguments of `interview`.
#[derive(Deserialize, JsonSchema)]
struct InterviewArgs {
    /// The first question.
    first: String,
    /// The second question, asked after the first is answered.
    second: String,
}

/// Arguments of `batch`: requests sent at once, each `[key, kind]` with
/// kind `elicit`, `sample` or `roots`.
#[derive(Deserialize, JsonSchema)]
struct BatchArgs {
    /// The requests.
    requests: Vec<(String, String)>,
}

/// A form with one string field, `answer`.
const ANSWER_FORM: &str =
    r#"{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}"#;

/// An answer of `request_inputs` as JSON.
fn answer_json(answer: Result<Answer, ClientError>) -> serde_json::Value {
    match answer {
        Ok(Answer::Message(m)) => serde_json::json!({"text": m.text(), "model": m.model}),
        Ok(Answer::Elicitation(e)) => {
            serde_json::json!({"action": e.action.to_string(), "content": e.content_json()})
        }
        Ok(Answer::Roots(roots)) => serde_json::json!({
            "roots": roots.iter().map(|r| serde_json::json!({"uri": r.uri, "name": r.name})).collect::<Vec<_>>()
        }),
        Err(e) => serde_json::json!({"error": failure(e).to_string()}),
    }
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
            .tool(
                ToolDef::new(
                    "interview",
                    "Asks the client's user two questions, one after the other.",
                ),
                |args: InterviewArgs| -> ToolResult {
                    let first = client::elicit(&args.first, ANSWER_FORM).map_err(failure)?;
                    let second = client::elicit(&args.second, ANSWER_FORM).map_err(failure)?;
                    Ok(Output::json(&serde_json::json!({
                        "first": first.content_json(),
                        "second": second.content_json(),
                    })))
                },
            )
            .tool(
                ToolDef::new("roots", "Asks the client for its roots."),
                |_: NoArgs| -> ToolResult {
                    let roots = client::list_roots().map_err(failure)?;
                    Ok(Output::json(&answer_json(Ok(Answer::Roots(roots)))))
                },
            )
            .tool(
                ToolDef::new("batch", "Sends several requests to the client at once."),
                |args: BatchArgs| -> ToolResult {
                    let requests = args
                        .requests
                        .into_iter()
                        .map(|(key, kind)| {
                            let input = match kind.as_str() {
                                "sample" => Input::CreateMessage(CreateMessage::new(10).user(&key)),
                                "roots" => Input::ListRoots,
                                _ => Input::elicit(key.clone(), ANSWER_FORM),
                            };
                            (key, input)
                        })
                        .collect();
                    let answers: Vec<_> = client::request_inputs(requests)
                        .into_iter()
                        .map(answer_json)
                        .collect();
                    Ok(Output::json(&serde_json::json!({ "answers": answers })))
                },
            )
    }
}

mcp_wasm_sdk::export_plugin!(Asker);
