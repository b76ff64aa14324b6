//! Maps the runtime's types to rmcp's protocol types, and back for the
//! client's answers to sampling, elicitation and roots.

use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rmcp::model::{
    Annotations, CallToolResult, ClientCapabilities, ClientResult, ContentBlock, CustomRequest,
    ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema, Icon,
    MetaObject, Resource, ResourceContents, Role, ServerRequest, Tool, ToolAnnotations,
};
#[allow(deprecated)]
// rmcp marks sampling and roots deprecated (SEP-2577); clients still use them
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ListRootsResult, SamplingMessageContentBlock,
};
use rmcp::service::ServiceError;
use serde_json::json;

use crate::runtime::{
    Audience, ClientRequestError, ClientRequestKind, Content, ContentHints, Elicitation,
    ElicitationAction as RuntimeAction, ElicitationRequest, Icon as RuntimeIcon, IconTheme,
    IncludeContext, Receipt, ResourceBody, Root, SampledMessage, SamplingContent, SamplingRequest,
    SamplingRole, ToolInfo, ToolOutput,
};

/// A catalog entry as an MCP tool.
pub fn tool(info: &ToolInfo) -> Tool {
    let mut tool = Tool::new(
        info.name.clone(),
        info.description.clone(),
        Arc::new(info.input_schema.clone()),
    );
    if let Some(title) = &info.title {
        tool = tool.with_title(title.clone());
    }
    if let Some(schema) = &info.output_schema {
        tool = tool.with_raw_output_schema(Arc::new(schema.clone()));
    }
    let h = &info.hints;
    if h.title.is_some()
        || h.read_only.is_some()
        || h.destructive.is_some()
        || h.idempotent.is_some()
        || h.open_world.is_some()
    {
        let mut a = ToolAnnotations::new();
        a.title = h.title.clone();
        a.read_only_hint = h.read_only;
        a.destructive_hint = h.destructive;
        a.idempotent_hint = h.idempotent;
        a.open_world_hint = h.open_world;
        tool = tool.with_annotations(a);
    }
    if !info.icons.is_empty() {
        tool = tool.with_icons(info.icons.iter().map(icon).collect());
    }
    if let Some(view) = &info.view {
        tool = tool.with_meta(super::served::tool_view_meta(view));
    }
    tool
}

pub(crate) fn icon(i: &RuntimeIcon) -> Icon {
    let mut icon = Icon::new(i.src.clone());
    if let Some(m) = &i.mime_type {
        icon = icon.with_mime_type(m.clone());
    }
    if !i.sizes.is_empty() {
        icon = icon.with_sizes(i.sizes.clone());
    }
    if let Some(theme) = i.theme {
        icon = icon.with_theme(match theme {
            IconTheme::Light => rmcp::model::IconTheme::Light,
            IconTheme::Dark => rmcp::model::IconTheme::Dark,
        });
    }
    icon
}

pub(crate) fn annotations(hints: &Option<ContentHints>) -> Option<Annotations> {
    let h = hints.as_ref()?;
    let mut a = Annotations::default();
    if !h.audience.is_empty() {
        a.audience = Some(
            h.audience
                .iter()
                .map(|r| match r {
                    Audience::User => Role::User,
                    Audience::Assistant => Role::Assistant,
                })
                .collect(),
        );
    }
    // NaN is not a priority (and would be written as `null`).
    a.priority = h
        .priority
        .filter(|p| !p.is_nan())
        .map(|p| p.clamp(0.0, 1.0) as f32);
    a.last_modified = h.last_modified.clone();
    Some(a)
}

/// One content block.
pub fn content(block: &Content) -> ContentBlock {
    match block {
        Content::Text { text, hints } => with(ContentBlock::text(text.clone()), hints),
        Content::Image {
            data,
            mime_type,
            hints,
        } => with(
            ContentBlock::image(STANDARD.encode(data), mime_type.clone()),
            hints,
        ),
        Content::Audio {
            data,
            mime_type,
            hints,
        } => with(
            ContentBlock::audio(STANDARD.encode(data), mime_type.clone()),
            hints,
        ),
        Content::Resource {
            uri,
            mime_type,
            body,
            hints,
        } => {
            let mut contents = match body {
                ResourceBody::Text(t) => ResourceContents::text(t.clone(), uri.clone()),
                ResourceBody::Blob(b) => ResourceContents::blob(STANDARD.encode(b), uri.clone()),
            };
            if let Some(m) = mime_type {
                contents = contents.with_mime_type(m.clone());
            }
            with(ContentBlock::resource(contents), hints)
        }
        Content::ResourceLink {
            uri,
            name,
            title,
            description,
            mime_type,
            size,
            hints,
        } => {
            let mut r = Resource::new(uri.clone(), name.clone());
            if let Some(t) = title {
                r = r.with_title(t.clone());
            }
            if let Some(d) = description {
                r = r.with_description(d.clone());
            }
            if let Some(m) = mime_type {
                r = r.with_mime_type(m.clone());
            }
            if let Some(s) = size {
                r = r.with_size(*s);
            }
            with(ContentBlock::resource_link(r), hints)
        }
    }
}

fn with(block: ContentBlock, hints: &Option<ContentHints>) -> ContentBlock {
    let Some(a) = annotations(hints) else {
        return block;
    };
    match block {
        ContentBlock::Text(c) => ContentBlock::Text(c.with_annotations(a)),
        ContentBlock::Image(c) => ContentBlock::Image(c.with_annotations(a)),
        ContentBlock::Audio(c) => ContentBlock::Audio(c.with_annotations(a)),
        ContentBlock::Resource(c) => ContentBlock::Resource(c.with_annotations(a)),
        ContentBlock::ResourceLink(c) => ContentBlock::ResourceLink(c.with_annotations(a)),
        other => other,
    }
}

/// A successful call's output as a `tools/call` result.
pub fn output(out: &ToolOutput) -> CallToolResult {
    let content = out.content.iter().map(content).collect();
    let mut result = if out.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    result.structured_content = out.structured.clone();
    result
}

/// A failure the model should read, as a result with `isError: true`.
pub fn error_result(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

/// The `_meta` key of a call's receipt: a prefix this project owns (the
/// spec reserves those whose second label is `modelcontextprotocol` or
/// `mcp`).
pub const RECEIPT_KEY: &str = "mcp-wasm-host/receipt";

/// `result` with the call's receipt, if it has one, in its `_meta`.
pub fn with_receipt(mut result: CallToolResult, receipt: Option<&Receipt>) -> CallToolResult {
    receipt_meta(&mut result.meta, receipt);
    result
}

/// Adds `receipt` (if any) to a result's `_meta`, under [`RECEIPT_KEY`].
pub fn receipt_meta(meta: &mut Option<MetaObject>, receipt: Option<&Receipt>) {
    let Some(r) = receipt else {
        return;
    };
    let record = json!({
        "plugin": &*r.plugin,
        "sha256": r.digest.to_string(),
        "tool": r.tool,
        "outcome": r.outcome,
        "fuelUsed": r.fuel_used,
        "peakMemoryBytes": r.peak_memory,
        "wallTimeMs": r.wall_time_ms(),
    });
    meta.get_or_insert_with(MetaObject::default)
        .0
        .insert(RECEIPT_KEY.into(), record);
}

// --- requests to the client: sampling and elicitation ----------------------

/// Why an answer from the client cannot be passed to the guest.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AnswerError {
    /// The client's sampling answer holds a block the guest cannot receive.
    #[error("the client's sampling answer holds a `{0}` block, which a plugin cannot receive")]
    UnexpectedContent(&'static str),
    /// Binary content that is not base64.
    #[error("the client's sampling answer holds {0} data that is not valid base64: {1}")]
    Base64(&'static str, String),
    /// The answer does not have the shape of the request's result.
    #[error("the client's answer is not a valid {0} result: {1}")]
    Shape(&'static str, String),
}

fn mcp_role(role: SamplingRole) -> &'static str {
    match role {
        SamplingRole::User => "user",
        SamplingRole::Assistant => "assistant",
    }
}

fn sampling_block(content: &SamplingContent) -> serde_json::Value {
    match content {
        SamplingContent::Text(text) => json!({"type": "text", "text": text}),
        SamplingContent::Image { data, mime_type } => {
            json!({"type": "image", "data": STANDARD.encode(data), "mimeType": mime_type})
        }
        SamplingContent::Audio { data, mime_type } => {
            json!({"type": "audio", "data": STANDARD.encode(data), "mimeType": mime_type})
        }
    }
}

/// A guest's sampling request as `sampling/createMessage` params. A message
/// of one block sends it as a single content object (what every revision
/// accepts); several blocks go as an array (2025-11-25 and later).
#[allow(deprecated)] // rmcp marks sampling deprecated (SEP-2577); clients still use it
pub fn sampling_params(request: &SamplingRequest) -> Result<CreateMessageRequestParams, String> {
    let messages: Vec<serde_json::Value> = request
        .messages
        .iter()
        .map(|m| {
            let content = match m.content.as_slice() {
                [one] => sampling_block(one),
                many => many.iter().map(sampling_block).collect(),
            };
            json!({"role": mcp_role(m.role), "content": content})
        })
        .collect();
    let mut params = json!({"messages": messages, "maxTokens": request.max_tokens});
    let fields = params.as_object_mut().expect("built as an object");
    if let Some(s) = &request.system_prompt {
        fields.insert("systemPrompt".into(), json!(s));
    }
    if let Some(t) = request.temperature {
        fields.insert("temperature".into(), json!(t));
    }
    if !request.stop_sequences.is_empty() {
        fields.insert("stopSequences".into(), json!(request.stop_sequences));
    }
    if let Some(p) = &request.model_preferences {
        let mut prefs = serde_json::Map::new();
        if !p.hints.is_empty() {
            let hints: Vec<_> = p.hints.iter().map(|h| json!({"name": h})).collect();
            prefs.insert("hints".into(), json!(hints));
        }
        for (key, value) in [
            ("costPriority", p.cost_priority),
            ("speedPriority", p.speed_priority),
            ("intelligencePriority", p.intelligence_priority),
        ] {
            if let Some(v) = value {
                prefs.insert(key.into(), json!(v));
            }
        }
        fields.insert("modelPreferences".into(), prefs.into());
    }
    if let Some(c) = request.include_context {
        let c = match c {
            IncludeContext::None => "none",
            IncludeContext::ThisServer => "thisServer",
            IncludeContext::AllServers => "allServers",
        };
        fields.insert("includeContext".into(), json!(c));
    }
    serde_json::from_value(params).map_err(|e| format!("the sampling request is invalid: {e}"))
}

fn decode(kind: &'static str, data: &str) -> Result<Vec<u8>, AnswerError> {
    STANDARD
        .decode(data)
        .map_err(|e| AnswerError::Base64(kind, e.to_string()))
}

/// The client's `sampling/createMessage` answer in the runtime's types.
#[allow(deprecated)] // rmcp marks sampling deprecated (SEP-2577); clients still use it
pub fn sampled_message(result: CreateMessageResult) -> Result<SampledMessage, AnswerError> {
    let content = result
        .message
        .content
        .into_vec()
        .into_iter()
        .map(|block| match block {
            SamplingMessageContentBlock::Text(t) => Ok(SamplingContent::Text(t.text)),
            SamplingMessageContentBlock::Image(i) => Ok(SamplingContent::Image {
                data: decode("image", &i.data)?,
                mime_type: i.mime_type,
            }),
            SamplingMessageContentBlock::Audio(a) => Ok(SamplingContent::Audio {
                data: decode("audio", &a.data)?,
                mime_type: a.mime_type,
            }),
            SamplingMessageContentBlock::ToolUse(_) => {
                Err(AnswerError::UnexpectedContent("tool_use"))
            }
            SamplingMessageContentBlock::ToolResult(_) => {
                Err(AnswerError::UnexpectedContent("tool_result"))
            }
            _ => Err(AnswerError::UnexpectedContent("unknown")),
        })
        .collect::<Result<_, _>>()?;
    Ok(SampledMessage {
        role: match result.message.role {
            Role::User => SamplingRole::User,
            _ => SamplingRole::Assistant,
        },
        content,
        model: result.model,
        stop_reason: result.stop_reason,
    })
}

/// A guest's elicitation as an `elicitation/create` request (form mode),
/// with the requested schema exactly as the guest gave it. rmcp types the
/// schema strictly and drops keywords it does not model (for example
/// `pattern`), so the typed request is used only when the schema survives
/// rmcp's type unchanged; otherwise the same params go out as raw JSON.
pub fn elicitation_request(request: &ElicitationRequest) -> ServerRequest {
    let typed = serde_json::from_value::<ElicitationSchema>(request.requested_schema.clone())
        .ok()
        .filter(|schema| {
            serde_json::to_value(schema).ok().as_ref() == Some(&request.requested_schema)
        });
    match typed {
        Some(requested_schema) => ServerRequest::ElicitRequest(ElicitRequest::new(
            ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: request.message.clone(),
                requested_schema,
            },
        )),
        None => ServerRequest::CustomRequest(CustomRequest::new(
            "elicitation/create",
            Some(json!({
                "mode": "form",
                "message": request.message,
                "requestedSchema": request.requested_schema,
            })),
        )),
    }
}

/// The client's `elicitation/create` answer in the runtime's types.
pub fn elicitation(result: ClientResult) -> Result<Elicitation, AnswerError> {
    let result = match result {
        ClientResult::ElicitResult(r) => r,
        other => serde_json::to_value(&other)
            .and_then(serde_json::from_value::<ElicitResult>)
            .map_err(|e| AnswerError::Shape("elicitation", e.to_string()))?,
    };
    Ok(elicit_result(result))
}

/// An `elicitation/create` result in the runtime's types.
pub fn elicit_result(result: ElicitResult) -> Elicitation {
    Elicitation {
        action: match result.action {
            ElicitationAction::Accept => RuntimeAction::Accept,
            ElicitationAction::Decline => RuntimeAction::Decline,
            _ => RuntimeAction::Cancel,
        },
        content: result.content,
    }
}

/// The client capabilities requests of `kinds` need.
pub fn capabilities(kinds: &[ClientRequestKind]) -> ClientCapabilities {
    let mut caps = serde_json::Map::new();
    for kind in kinds {
        caps.insert(kind.to_string(), json!({}));
    }
    serde_json::from_value(caps.into()).unwrap_or_default()
}

/// A `roots/list` result in the runtime's types.
#[allow(deprecated)] // rmcp marks roots deprecated (SEP-2577); clients still use them
pub fn roots(result: ListRootsResult) -> Vec<Root> {
    result
        .roots
        .into_iter()
        .map(|r| Root {
            uri: r.uri,
            name: r.name,
        })
        .collect()
}

/// A failed request to the client, for the guest.
pub fn request_error(error: ServiceError) -> ClientRequestError {
    match error {
        ServiceError::McpError(e) => ClientRequestError::Rejected {
            code: i64::from(e.code.0),
            message: e.message.into_owned(),
            data: e.data,
        },
        ServiceError::TransportClosed => {
            ClientRequestError::Failed("the connection to the client closed".into())
        }
        other => ClientRequestError::Failed(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_priority_is_clamped_into_zero_to_one_and_nan_is_left_out() {
        let priority = |p: f64| {
            let hints = Some(ContentHints {
                priority: Some(p),
                ..ContentHints::default()
            });
            annotations(&hints).and_then(|a| a.priority)
        };
        assert_eq!(priority(0.5), Some(0.5));
        assert_eq!(priority(7.0), Some(1.0));
        assert_eq!(priority(f64::NEG_INFINITY), Some(0.0));
        assert_eq!(priority(f64::NAN), None);
    }
    use crate::runtime::{ModelPreferences, SamplingMessage};

    #[test]
    #[allow(deprecated)]
    fn sampling_requests_have_the_mcp_shape() {
        let request = SamplingRequest {
            messages: vec![
                SamplingMessage {
                    role: SamplingRole::User,
                    content: vec![SamplingContent::Text("hi".into())],
                },
                SamplingMessage {
                    role: SamplingRole::Assistant,
                    content: vec![
                        SamplingContent::Text("a".into()),
                        SamplingContent::Audio {
                            data: vec![0xff],
                            mime_type: "audio/wav".into(),
                        },
                    ],
                },
            ],
            system_prompt: Some("sys".into()),
            max_tokens: 100,
            temperature: Some(0.5),
            stop_sequences: vec!["END".into()],
            model_preferences: Some(ModelPreferences {
                hints: vec!["claude".into()],
                speed_priority: Some(0.25),
                ..ModelPreferences::default()
            }),
            include_context: Some(IncludeContext::ThisServer),
        };
        let params = serde_json::to_value(sampling_params(&request).unwrap()).unwrap();
        assert_eq!(
            params,
            json!({
                "messages": [
                    {"role": "user", "content": {"type": "text", "text": "hi"}},
                    {"role": "assistant", "content": [
                        {"type": "text", "text": "a"},
                        {"type": "audio", "data": "/w==", "mimeType": "audio/wav"}
                    ]}
                ],
                "systemPrompt": "sys",
                "maxTokens": 100,
                "temperature": 0.5,
                "stopSequences": ["END"],
                "modelPreferences": {"hints": [{"name": "claude"}], "speedPriority": 0.25},
                "includeContext": "thisServer"
            })
        );
    }

    #[test]
    #[allow(deprecated)]
    fn sampling_answers_are_decoded_or_refused() {
        let answer: CreateMessageResult = serde_json::from_value(json!({
            "role": "assistant", "model": "m", "stopReason": "maxTokens",
            "content": [{"type": "text", "text": "t"}, {"type": "image", "data": "AQI=", "mimeType": "image/png"}]
        }))
        .unwrap();
        let m = sampled_message(answer).unwrap();
        assert_eq!(m.role, SamplingRole::Assistant);
        assert_eq!(m.stop_reason.as_deref(), Some("maxTokens"));
        assert_eq!(
            m.content,
            [
                SamplingContent::Text("t".into()),
                SamplingContent::Image {
                    data: vec![1, 2],
                    mime_type: "image/png".into()
                }
            ]
        );
        let bad: CreateMessageResult = serde_json::from_value(json!({
            "role": "assistant", "model": "m",
            "content": {"type": "image", "data": "!!", "mimeType": "image/png"}
        }))
        .unwrap();
        assert!(matches!(
            sampled_message(bad),
            Err(AnswerError::Base64("image", _))
        ));
    }

    fn wire(request: &ServerRequest) -> serde_json::Value {
        serde_json::to_value(request).unwrap()
    }

    #[test]
    fn elicitation_schemas_go_out_unchanged_typed_or_not() {
        // The conformance suite's SEP-1330 schema survives rmcp's typed
        // schema, `enumNames` included; `pattern` does not, so that request
        // goes out as raw JSON.
        let enums = json!({"type": "object", "properties": {
            "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]},
            "titled": {"type": "string", "oneOf": [{"const": "a", "title": "A"}], "default": "a"},
            "multi": {"type": "array", "minItems": 1, "items": {"anyOf": [{"const": "x", "title": "X"}]}}
        }, "required": []});
        let pattern =
            json!({"type": "object", "properties": {"c": {"type": "string", "pattern": "^a"}}});
        for (schema, typed) in [(enums, true), (pattern, false)] {
            let request = elicitation_request(&ElicitationRequest {
                message: "m".into(),
                requested_schema: schema.clone(),
            });
            assert_eq!(
                matches!(request, ServerRequest::ElicitRequest(_)),
                typed,
                "{schema}"
            );
            let sent = wire(&request);
            assert_eq!(sent["method"], "elicitation/create");
            assert_eq!(sent["params"]["requestedSchema"], schema);
            assert_eq!(sent["params"]["message"], "m");
            assert_eq!(sent["params"]["mode"], "form");
        }
    }

    #[test]
    fn elicitation_answers_and_client_errors_map_back() {
        let answer: ClientResult =
            serde_json::from_value(json!({"action": "accept", "content": {"n": 1}})).unwrap();
        let e = elicitation(answer).unwrap();
        assert_eq!(e.action, RuntimeAction::Accept);
        assert_eq!(e.content, Some(json!({"n": 1})));
        let error = request_error(ServiceError::McpError(rmcp::ErrorData::new(
            rmcp::model::ErrorCode(-1),
            "no",
            Some(json!({"x": 1})),
        )));
        assert_eq!(
            error,
            ClientRequestError::Rejected {
                code: -1,
                message: "no".into(),
                data: Some(json!({"x": 1}))
            }
        );
        assert!(matches!(
            request_error(ServiceError::TransportClosed),
            ClientRequestError::Failed(m) if m.contains("closed")
        ));
    }
}
