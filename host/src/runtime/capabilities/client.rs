//! Requests to the MCP client (sampling and elicitation): the `client`
//! section of a plugin's policy, which grants each kind (nothing by
//! default), and the WIT `client` host functions, which check the grant,
//! log the request and hand it to the call's [`CallEvents`].

use std::sync::Arc;

use serde::Deserialize;
use serde::de::MapAccess;
use serde_json::{Value, json};
use wasmtime::component::{HasSelf, Linker};

use super::super::bindings::link_earlier;
use super::super::bindings::mcp_wasm_host::plugin::{client as wit, types};
use super::super::events::{
    CallEvents, ClientRequestError, ClientRequestKind, Elicitation, ElicitationAction,
    ElicitationRequest, IncludeContext, ModelPreferences, SampledMessage, SamplingContent,
    SamplingMessage, SamplingRequest, SamplingRole,
};
use super::{CallCtx, Capability, CapsView, KeyProblem, ResolveCtx};

/// `[plugins.NAME.client]` as written: which requests the plugin may send
/// to the MCP client. Both default to false.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientSpec {
    #[serde(default)]
    sampling: bool,
    #[serde(default)]
    elicitation: bool,
}

/// The `client` section of a plugin's policy: which requests it may send
/// to the client. Deny by default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClientPolicy {
    /// `sampling/createMessage` is allowed.
    pub sampling: bool,
    /// `elicitation/create` is allowed.
    pub elicitation: bool,
}

impl ClientPolicy {
    /// Whether requests of `kind` are allowed.
    pub fn allows(&self, kind: ClientRequestKind) -> bool {
        match kind {
            ClientRequestKind::Sampling => self.sampling,
            ClientRequestKind::Elicitation => self.elicitation,
        }
    }

    /// Tells a denied guest's user how `kind` is granted: the key in
    /// `section` (e.g. `plugins.text`) of `config_file`.
    pub fn hint(kind: ClientRequestKind, section: &str, config_file: &str) -> String {
        format!(
            "the policy does not allow this plugin to ask the client for {kind}; to grant it set `{kind} = true` in `[{section}.client]` (in {config_file})"
        )
    }
}

impl Capability for ClientPolicy {
    const NAME: &'static str = "client";
    const KEYS: &'static [&'static str] = &["client"];
    /// `None` when the section has no `client` table (an empty one is
    /// `Some`, and is refused in `[defaults]`).
    type Spec = Option<ClientSpec>;
    type State = ClientState;

    fn parse_key<'de, A: MapAccess<'de>>(
        spec: &mut Self::Spec,
        _key: &str,
        map: &mut A,
    ) -> Result<(), A::Error> {
        *spec = Some(map.next_value()?);
        Ok(())
    }

    fn resolve(
        _defaults: &Self::Spec,
        spec: Option<&Self::Spec>,
        _ctx: &ResolveCtx<'_>,
    ) -> Result<Self, KeyProblem> {
        let client = spec.copied().flatten().unwrap_or_default();
        Ok(ClientPolicy {
            sampling: client.sampling,
            elicitation: client.elicitation,
        })
    }

    fn state(&self, call: &CallCtx<'_>) -> ClientState {
        ClientState {
            policy: *self,
            plugin: call.plugin.clone(),
            tool: call.tool.clone(),
            events: call.events.clone(),
            section: call.section.clone(),
            config_file: call.config_file.clone(),
        }
    }

    fn link<T: CapsView>(linker: &mut Linker<T>) -> wasmtime::Result<()> {
        let state: fn(&mut T) -> &mut ClientState = |s| &mut s.caps().client;
        wit::add_to_linker::<T, HasSelf<ClientState>>(linker, state)?;
        // 0.1.x plugins import `client@0.1.1`: the same functions serve them.
        link_earlier(linker, "client", |older| {
            wit::add_to_linker_instance::<T, HasSelf<ClientState>>(older, state)
        })
    }

    fn inspect_json(&self) -> Vec<(&'static str, Value)> {
        vec![(
            "client",
            json!({
                "sampling": self.sampling,
                "elicitation": self.elicitation,
            }),
        )]
    }

    fn inspect_lines(&self) -> Vec<(&'static str, String)> {
        let asks: Vec<&str> = [
            (self.sampling, "sampling"),
            (self.elicitation, "elicitation"),
        ]
        .into_iter()
        .filter_map(|(granted, kind)| granted.then_some(kind))
        .collect();
        let asks = if asks.is_empty() {
            "none".to_string()
        } else {
            asks.join(", ")
        };
        vec![("client", asks)]
    }
}

/// What the `client` host functions of one call need.
pub struct ClientState {
    policy: ClientPolicy,
    plugin: Arc<str>,
    tool: Arc<str>,
    events: Arc<dyn CallEvents>,
    /// The policy section and file, for the hint to a denied guest.
    section: Arc<str>,
    config_file: Arc<str>,
}

impl std::fmt::Debug for ClientState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientState")
            .field("policy", &self.policy)
            .field("plugin", &self.plugin)
            .field("tool", &self.tool)
            .finish_non_exhaustive()
    }
}

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
fn sampling_request(request: wit::CreateMessageRequest) -> Result<SamplingRequest, String> {
    if request.messages.is_empty() {
        return Err("a sampling request needs at least one message".into());
    }
    if let Some(i) = request.messages.iter().position(|m| m.content.is_empty()) {
        return Err(format!("sampling message {i} has no content"));
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

fn sampled_message(message: SampledMessage) -> wit::SampledMessage {
    wit::SampledMessage {
        role: message.role.into(),
        content: message.content.into_iter().map(Into::into).collect(),
        model: message.model,
        stop_reason: message.stop_reason,
    }
}

/// The guest's elicitation in the runtime's types, or why it cannot be sent.
fn elicitation_request(message: String, schema: &str) -> Result<ElicitationRequest, String> {
    let requested_schema: Value = serde_json::from_str(schema)
        .map_err(|e| format!("the requested schema is not valid JSON: {e}"))?;
    if !requested_schema.is_object() {
        return Err("the requested schema must be a JSON object".into());
    }
    Ok(ElicitationRequest {
        message,
        requested_schema,
    })
}

fn elicit_result(answer: Elicitation) -> wit::ElicitResult {
    wit::ElicitResult {
        action: match answer.action {
            ElicitationAction::Accept => wit::ElicitAction::Accept,
            ElicitationAction::Decline => wit::ElicitAction::Decline,
            ElicitationAction::Cancel => wit::ElicitAction::Cancel,
        },
        content: answer.content.map(|c| c.to_string()),
    }
}

fn request_error(error: ClientRequestError) -> wit::RequestError {
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
    }
}

impl ClientState {
    /// Checks the policy for `kind` and logs the request; the events to send
    /// it through, or the guest's "denied" error.
    fn client_request(
        &self,
        kind: ClientRequestKind,
    ) -> Result<Arc<dyn CallEvents>, wit::RequestError> {
        let (plugin, tool) = (&*self.plugin, &*self.tool);
        if !self.policy.allows(kind) {
            tracing::warn!(plugin, tool, %kind, "denied a request to the client (not granted by the policy)");
            return Err(wit::RequestError::Denied(format!(
                "plugin {plugin:?} may not ask the client for {kind}: {}",
                ClientPolicy::hint(kind, &self.section, &self.config_file)
            )));
        }
        tracing::info!(plugin, tool, %kind, "asking the client");
        Ok(self.events.clone())
    }

    /// Logs how a request to the client ended.
    fn client_outcome<T>(&self, kind: ClientRequestKind, outcome: &Result<T, ClientRequestError>) {
        let (plugin, tool) = (&*self.plugin, &*self.tool);
        match outcome {
            Ok(_) => tracing::info!(plugin, tool, %kind, "the client answered"),
            Err(error) => {
                tracing::info!(plugin, tool, %kind, %error, "the request to the client failed")
            }
        }
    }
}

impl wit::Host for ClientState {
    async fn create_message(
        &mut self,
        request: wit::CreateMessageRequest,
    ) -> Result<wit::SampledMessage, wit::RequestError> {
        let kind = ClientRequestKind::Sampling;
        let events = self.client_request(kind)?;
        let request = sampling_request(request).map_err(wit::RequestError::Failed)?;
        let outcome = events
            .create_message(&self.plugin, &self.tool, request)
            .await;
        self.client_outcome(kind, &outcome);
        outcome.map(sampled_message).map_err(request_error)
    }

    async fn elicit(
        &mut self,
        message: String,
        requested_schema: String,
    ) -> Result<wit::ElicitResult, wit::RequestError> {
        let kind = ClientRequestKind::Elicitation;
        let events = self.client_request(kind)?;
        let request =
            elicitation_request(message, &requested_schema).map_err(wit::RequestError::Failed)?;
        let outcome = events.elicit(&self.plugin, &self.tool, request).await;
        self.client_outcome(kind, &outcome);
        outcome.map(elicit_result).map_err(request_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_granted_by_default_and_the_hint_names_the_key() {
        let policy = ClientPolicy::default();
        assert!(!policy.allows(ClientRequestKind::Sampling));
        assert!(!policy.allows(ClientRequestKind::Elicitation));
        let both = ClientPolicy {
            sampling: true,
            elicitation: false,
        };
        assert!(both.allows(ClientRequestKind::Sampling));
        assert!(!both.allows(ClientRequestKind::Elicitation));
        let hint = ClientPolicy::hint(
            ClientRequestKind::Elicitation,
            "plugins.p",
            "mcp-wasm-host.toml",
        );
        assert!(
            hint.contains("`elicitation = true` in `[plugins.p.client]`")
                && hint.contains("mcp-wasm-host.toml"),
            "{hint}"
        );
    }

    #[test]
    fn guest_requests_are_checked_and_converted() {
        let request = wit::CreateMessageRequest {
            messages: vec![wit::SamplingMessage {
                role: types::Role::User,
                content: vec![
                    wit::SamplingContent::Text("hi".into()),
                    wit::SamplingContent::Image(wit::Media {
                        data: vec![1, 2],
                        mime_type: "image/png".into(),
                    }),
                ],
            }],
            system_prompt: Some("be brief".into()),
            max_tokens: 100,
            temperature: Some(0.5),
            stop_sequences: vec!["END".into()],
            model_preferences: Some(wit::ModelPreferences {
                hints: vec!["claude".into()],
                cost_priority: None,
                speed_priority: Some(0.2),
                intelligence_priority: None,
            }),
            include_context: Some(wit::IncludeContext::ThisServer),
        };
        let converted = sampling_request(request.clone()).unwrap();
        assert_eq!(converted.messages[0].role, SamplingRole::User);
        assert_eq!(
            converted.messages[0].content,
            [
                SamplingContent::Text("hi".into()),
                SamplingContent::Image {
                    data: vec![1, 2],
                    mime_type: "image/png".into()
                }
            ]
        );
        assert_eq!(converted.max_tokens, 100);
        assert_eq!(converted.include_context, Some(IncludeContext::ThisServer));
        assert_eq!(
            converted.model_preferences.unwrap().hints,
            ["claude".to_string()]
        );

        let mut empty = request.clone();
        empty.messages.clear();
        assert!(sampling_request(empty).is_err());
        let mut blank = request;
        blank.messages[0].content.clear();
        assert_eq!(
            sampling_request(blank).unwrap_err(),
            "sampling message 0 has no content"
        );

        assert!(elicitation_request("m".into(), "{not json").is_err());
        assert!(elicitation_request("m".into(), "[1]").is_err());
        let schema = r#"{"type":"object","properties":{"a":{"type":"string","enumNames":["A"]}}}"#;
        let ok = elicitation_request("m".into(), schema).unwrap();
        assert_eq!(
            ok.requested_schema,
            serde_json::from_str::<Value>(schema).unwrap()
        );
    }

    #[test]
    fn answers_and_errors_reach_the_guest_intact() {
        let answer = elicit_result(Elicitation {
            action: ElicitationAction::Accept,
            content: Some(serde_json::json!({"name": "Ada"})),
        });
        assert_eq!(answer.action, wit::ElicitAction::Accept);
        assert_eq!(answer.content.as_deref(), Some(r#"{"name":"Ada"}"#));
        let rejected = request_error(ClientRequestError::Rejected {
            code: -1,
            message: "user refused".into(),
            data: Some(serde_json::json!({"why": "no"})),
        });
        let wit::RequestError::Rejected(r) = rejected else {
            panic!("not a rejection")
        };
        assert_eq!(
            (r.code, r.message.as_str(), r.data.as_deref()),
            (-1, "user refused", Some(r#"{"why":"no"}"#))
        );
    }
}
