//! The requests to the client and their answers, between the WIT's types
//! and the runtime's own ([`CallEvents`](crate::CallEvents) speaks the
//! runtime's): sampling, elicitation, roots and their errors.

use serde_json::Value;

use crate::call::events::{
    ClientRequestError, ClientRequestKind, Elicitation, ElicitationAction, ElicitationRequest,
    IncludeContext, ModelPreferences, Root, SampledMessage, SamplingContent, SamplingMessage,
    SamplingRequest, SamplingRole,
};
use crate::load::bindings::mcp_wasm_host::plugin::{client as wit, types};

use super::RequestProblem;

impl From<types::Role> for SamplingRole {
    fn from(role: types::Role) -> Self {
        match role {
            types::Role::User => SamplingRole::User,
            types::Role::Assistant => SamplingRole::Assistant,
        }
    }
}

impl From<SamplingRole> for types::Role {
    fn from(role: SamplingRole) -> Self {
        match role {
            SamplingRole::User => types::Role::User,
            SamplingRole::Assistant => types::Role::Assistant,
        }
    }
}

impl From<wit::SamplingContent> for SamplingContent {
    fn from(content: wit::SamplingContent) -> Self {
        match content {
            wit::SamplingContent::Text(text) => SamplingContent::Text(text),
            wit::SamplingContent::Image(m) => SamplingContent::Image {
                data: m.data,
                mime_type: m.mime_type,
            },
            wit::SamplingContent::Audio(m) => SamplingContent::Audio {
                data: m.data,
                mime_type: m.mime_type,
            },
        }
    }
}

impl From<SamplingContent> for wit::SamplingContent {
    fn from(content: SamplingContent) -> Self {
        match content {
            SamplingContent::Text(text) => wit::SamplingContent::Text(text),
            SamplingContent::Image { data, mime_type } => {
                wit::SamplingContent::Image(wit::Media { data, mime_type })
            }
            SamplingContent::Audio { data, mime_type } => {
                wit::SamplingContent::Audio(wit::Media { data, mime_type })
            }
        }
    }
}

/// The guest's request in the runtime's types, or why it cannot be sent.
pub(super) fn sampling_request(
    request: wit::CreateMessageRequest,
) -> Result<SamplingRequest, RequestProblem> {
    if request.messages.is_empty() {
        return Err(RequestProblem::NoMessages);
    }
    if let Some(i) = request.messages.iter().position(|m| m.content.is_empty()) {
        return Err(RequestProblem::EmptyMessage(i));
    }
    Ok(SamplingRequest {
        messages: request
            .messages
            .into_iter()
            .map(|m| SamplingMessage {
                role: m.role.into(),
                content: m.content.into_iter().map(Into::into).collect(),
            })
            .collect(),
        system_prompt: request.system_prompt,
        max_tokens: request.max_tokens,
        temperature: request.temperature,
        stop_sequences: request.stop_sequences,
        model_preferences: request.model_preferences.map(|p| ModelPreferences {
            hints: p.hints,
            cost_priority: p.cost_priority,
            speed_priority: p.speed_priority,
            intelligence_priority: p.intelligence_priority,
        }),
        include_context: request.include_context.map(|c| match c {
            wit::IncludeContext::None => IncludeContext::None,
            wit::IncludeContext::ThisServer => IncludeContext::ThisServer,
            wit::IncludeContext::AllServers => IncludeContext::AllServers,
        }),
    })
}

pub(super) fn sampled_message(message: SampledMessage) -> wit::SampledMessage {
    wit::SampledMessage {
        role: message.role.into(),
        content: message.content.into_iter().map(Into::into).collect(),
        model: message.model,
        stop_reason: message.stop_reason,
    }
}

/// The guest's elicitation in the runtime's types, or why it cannot be sent.
pub(super) fn elicitation_request(
    message: String,
    schema: &str,
) -> Result<ElicitationRequest, RequestProblem> {
    let requested_schema: Value =
        serde_json::from_str(schema).map_err(RequestProblem::SchemaNotJson)?;
    if !requested_schema.is_object() {
        return Err(RequestProblem::SchemaNotObject);
    }
    Ok(ElicitationRequest {
        message,
        requested_schema,
    })
}

pub(super) fn elicit_result(answer: Elicitation) -> wit::ElicitResult {
    wit::ElicitResult {
        action: match answer.action {
            ElicitationAction::Accept => wit::ElicitAction::Accept,
            ElicitationAction::Decline => wit::ElicitAction::Decline,
            ElicitationAction::Cancel => wit::ElicitAction::Cancel,
        },
        content: answer.content.map(|c| c.to_string()),
    }
}

pub(super) fn request_error(error: ClientRequestError) -> wit::RequestError {
    match error {
        ClientRequestError::Unsupported(m) => wit::RequestError::Unsupported(m),
        ClientRequestError::Denied(m) => wit::RequestError::Denied(m),
        ClientRequestError::Rejected {
            code,
            message,
            data,
        } => wit::RequestError::Rejected(wit::Rejection {
            code,
            message,
            data: data.map(|d| d.to_string()),
        }),
        ClientRequestError::Failed(m) => wit::RequestError::Failed(m),
        // Never reaches the guest: the call ends instead.
        ClientRequestError::Deferred => {
            wit::RequestError::Failed(ClientRequestError::Deferred.to_string())
        }
    }
}

/// The kind of a guest's request, even one that does not convert.
pub(super) fn wit_kind(request: &wit::InputRequest) -> ClientRequestKind {
    match request {
        wit::InputRequest::CreateMessage(_) => ClientRequestKind::Sampling,
        wit::InputRequest::Elicit(_) => ClientRequestKind::Elicitation,
        wit::InputRequest::ListRoots => ClientRequestKind::Roots,
    }
}

pub(super) fn root(root: Root) -> wit::Root {
    wit::Root {
        uri: root.uri,
        name: root.name,
    }
}

/// The answer to a request of one kind, which [`ClientState::send`] gives
/// in the variant of that kind.
pub(super) fn unexpected<T>(answer: wit::InputResponse) -> Result<T, wit::RequestError> {
    Err(wit::RequestError::Failed(format!(
        "the host paired a request with an answer of another kind: {answer:?}"
    )))
}
