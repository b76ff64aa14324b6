//! A call's requests to the client (`sampling/createMessage`,
//! `elicitation/create`, `roots/list`): whether the client declared the
//! capability each needs, and the mapping of the runtime's requests to MCP
//! and of the client's answers back. The notification forwarder
//! ([`super::notifications`]), the 2026-07-28 rounds ([`super::rounds`])
//! and tasks send them through this module.

#![allow(deprecated)] // rmcp marks sampling and roots deprecated (SEP-2577); clients still use them.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rmcp::model::{
    ClientCapabilities, ClientResult, CreateMessageRequestParams, CreateMessageResult,
    CustomRequest, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationSchema, ListRootsResult, Role, SamplingMessageContentBlock, ServerRequest,
};
use rmcp::service::ServiceError;
use serde_json::json;

use crate::runtime::{
    ClientRequestError, ClientRequestKind, Elicitation, ElicitationAction as RuntimeAction,
    ElicitationRequest, IncludeContext, Root, SampledMessage, SamplingContent, SamplingRequest,
    SamplingRole,
};

/// Whether the client declared the capability a request of `kind` needs,
/// or the guest's "not supported" error saying what is missing.
pub fn check_capability(
    capabilities: Option<&ClientCapabilities>,
    kind: ClientRequestKind,
) -> Result<(), ClientRequestError> {
    let Some(capabilities) = capabilities else {
        return Err(ClientRequestError::Unsupported(format!(
            "the client declared no capabilities (it made no initialize handshake), so it cannot be sent {kind} requests"
        )));
    };
    let declared = match kind {
        ClientRequestKind::Sampling => capabilities.sampling.is_some(),
        // Form mode: an empty `elicitation` object means form mode only.
        ClientRequestKind::Elicitation => capabilities
            .elicitation
            .as_ref()
            .is_some_and(|e| e.form.is_some() || e.url.is_none()),
        ClientRequestKind::Roots => capabilities.roots.is_some(),
    };
    if declared {
        Ok(())
    } else if kind == ClientRequestKind::Elicitation && capabilities.elicitation.is_some() {
        Err(ClientRequestError::Unsupported(
            "the client declared the elicitation capability for URL mode only, not form mode"
                .into(),
        ))
    } else {
        Err(ClientRequestError::Unsupported(format!(
            "the client did not declare the {kind} capability"
        )))
    }
}

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

/// Why a guest's request cannot be sent to the client as MCP.
#[derive(Debug, thiserror::Error)]
pub enum OutgoingError {
    /// The sampling request does not make valid `sampling/createMessage`
    /// params.
    #[error("the sampling request is invalid: {0}")]
    Sampling(#[source] serde_json::Error),
    /// The requested schema is not one an MCP elicitation allows.
    #[error("the requested schema is not one MCP elicitation allows: {0}")]
    ElicitationSchema(#[source] serde_json::Error),
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
pub fn sampling_params(
    request: &SamplingRequest,
) -> Result<CreateMessageRequestParams, OutgoingError> {
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
    serde_json::from_value(params).map_err(OutgoingError::Sampling)
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
    fn requests_need_the_declared_capability() {
        let caps = |v: serde_json::Value| serde_json::from_value::<ClientCapabilities>(v).unwrap();
        let sampling = ClientRequestKind::Sampling;
        let elicitation = ClientRequestKind::Elicitation;
        let both = caps(serde_json::json!({"sampling": {}, "elicitation": {}}));
        assert!(check_capability(Some(&both), sampling).is_ok());
        assert!(check_capability(Some(&both), elicitation).is_ok());
        let form = caps(serde_json::json!({"elicitation": {"form": {}, "url": {}}}));
        assert!(check_capability(Some(&form), elicitation).is_ok());
        let message = |c: Option<&ClientCapabilities>, kind| match check_capability(c, kind) {
            Err(ClientRequestError::Unsupported(m)) => m,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            message(Some(&form), sampling),
            "the client did not declare the sampling capability"
        );
        let url = caps(serde_json::json!({"elicitation": {"url": {}}}));
        assert!(message(Some(&url), elicitation).contains("URL mode only"));
        assert!(message(None, sampling).contains("no initialize handshake"));
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
