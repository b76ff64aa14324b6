//! Requests to the MCP client: sampling, elicitation and roots, one at a
//! time or several at once ([`request_inputs`]).

use std::fmt;

use crate::Role;

/// One content block of a sampling message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessageContent {
    /// Plain text.
    Text(String),
    /// An image.
    Image {
        /// The raw bytes (the host base64-encodes them).
        data: Vec<u8>,
        /// The MIME type, e.g. `image/png`.
        mime_type: String,
    },
    /// An audio clip.
    Audio {
        /// The raw bytes (the host base64-encodes them).
        data: Vec<u8>,
        /// The MIME type, e.g. `audio/wav`.
        mime_type: String,
    },
}

impl MessageContent {
    /// The text of a [`MessageContent::Text`] block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            MessageContent::Text(t) => Some(t),
            _ => None,
        }
    }
}

/// One message of the conversation sent for sampling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// Who speaks.
    pub role: Role,
    /// The content blocks, in order (clients older than MCP 2025-11-25
    /// accept exactly one).
    pub content: Vec<MessageContent>,
}

impl Message {
    /// A user message of one text block.
    pub fn user(text: impl Into<String>) -> Self {
        Message {
            role: Role::User,
            content: vec![MessageContent::Text(text.into())],
        }
    }

    /// An assistant message of one text block.
    pub fn assistant(text: impl Into<String>) -> Self {
        Message {
            role: Role::Assistant,
            content: vec![MessageContent::Text(text.into())],
        }
    }
}

/// Which MCP context the client should add to the prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IncludeContext {
    /// None.
    None,
    /// Context from this server.
    ThisServer,
    /// Context from every server the client is connected to.
    AllServers,
}

/// A `sampling/createMessage` request, built step by step and sent with
/// [`CreateMessage::send`] (or [`create_message`]).
///
/// ```no_run
/// use mcp_wasm_sdk::client::CreateMessage;
///
/// # fn main() -> Result<(), mcp_wasm_sdk::client::ClientError> {
/// let answer = CreateMessage::new(200)
///     .system_prompt("Answer in one sentence.")
///     .user("What is WebAssembly?")
///     .model_hint("claude")
///     .temperature(0.2)
///     .send()?;
/// println!("{} (from {})", answer.text(), answer.model);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CreateMessage {
    /// The conversation so far; the model answers the last message.
    pub messages: Vec<Message>,
    /// A system prompt the client may use.
    pub system_prompt: Option<String>,
    /// The most tokens the model may generate.
    pub max_tokens: u32,
    /// The sampling temperature.
    pub temperature: Option<f64>,
    /// Sequences that stop generation.
    pub stop_sequences: Vec<String>,
    /// Model names or families to prefer, in order.
    pub model_hints: Vec<String>,
    /// How much to prefer a cheap model (0 to 1).
    pub cost_priority: Option<f64>,
    /// How much to prefer a fast model (0 to 1).
    pub speed_priority: Option<f64>,
    /// How much to prefer a capable model (0 to 1).
    pub intelligence_priority: Option<f64>,
    /// Which MCP context to include.
    pub include_context: Option<IncludeContext>,
}

impl CreateMessage {
    /// An empty request that lets the model generate up to `max_tokens`.
    pub fn new(max_tokens: u32) -> Self {
        CreateMessage {
            messages: Vec::new(),
            system_prompt: None,
            max_tokens,
            temperature: None,
            stop_sequences: Vec::new(),
            model_hints: Vec::new(),
            cost_priority: None,
            speed_priority: None,
            intelligence_priority: None,
            include_context: None,
        }
    }

    /// Appends a user message of one text block.
    pub fn user(self, text: impl Into<String>) -> Self {
        self.message(Message::user(text))
    }

    /// Appends an assistant message of one text block.
    pub fn assistant(self, text: impl Into<String>) -> Self {
        self.message(Message::assistant(text))
    }

    /// Appends a message.
    pub fn message(mut self, message: Message) -> Self {
        self.messages.push(message);
        self
    }

    /// Sets the system prompt.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Sets the temperature.
    pub fn temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Adds a stop sequence.
    pub fn stop_sequence(mut self, stop: impl Into<String>) -> Self {
        self.stop_sequences.push(stop.into());
        self
    }

    /// Adds a model name or family to prefer (the first added is preferred
    /// most).
    pub fn model_hint(mut self, name: impl Into<String>) -> Self {
        self.model_hints.push(name.into());
        self
    }

    /// Sets how much to prefer a cheap model (0 to 1).
    pub fn cost_priority(mut self, priority: f64) -> Self {
        self.cost_priority = Some(priority);
        self
    }

    /// Sets how much to prefer a fast model (0 to 1).
    pub fn speed_priority(mut self, priority: f64) -> Self {
        self.speed_priority = Some(priority);
        self
    }

    /// Sets how much to prefer a capable model (0 to 1).
    pub fn intelligence_priority(mut self, priority: f64) -> Self {
        self.intelligence_priority = Some(priority);
        self
    }

    /// Sets which MCP context the client should include.
    pub fn include_context(mut self, include: IncludeContext) -> Self {
        self.include_context = Some(include);
        self
    }

    /// Sends the request and waits for the client's answer.
    pub fn send(self) -> Result<SampledMessage, ClientError> {
        imp::create_message(self)
    }
}

/// The message the client's model produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampledMessage {
    /// Who speaks; normally [`Role::Assistant`].
    pub role: Role,
    /// The content blocks, in order.
    pub content: Vec<MessageContent>,
    /// The model that produced it.
    pub model: String,
    /// Why generation stopped (`endTurn`, `stopSequence`, `maxTokens`, …),
    /// if the client said.
    pub stop_reason: Option<String>,
}

impl SampledMessage {
    /// The text blocks, joined with newlines.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(MessageContent::as_text)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Sends a `sampling/createMessage` request to the client and waits for the
/// answer. The plugin's policy must grant it (`sampling = true` in
/// `[plugins.NAME.client]`) and the client must have declared the
/// `sampling` capability. The wait counts against the call's timeout.
///
/// ```no_run
/// use mcp_wasm_sdk::client::{self, CreateMessage};
///
/// # fn main() -> Result<(), client::ClientError> {
/// let reply = client::create_message(CreateMessage::new(100).user("Say hello"))?;
/// assert!(!reply.text().is_empty());
/// # Ok(())
/// # }
/// ```
pub fn create_message(request: CreateMessage) -> Result<SampledMessage, ClientError> {
    request.send()
}

/// What the user did with an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElicitAction {
    /// Submitted the form: [`Elicitation::content`] holds the answers.
    Accept,
    /// Refused to answer.
    Decline,
    /// Dismissed the request without choosing.
    Cancel,
}

impl fmt::Display for ElicitAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ElicitAction::Accept => "accept",
            ElicitAction::Decline => "decline",
            ElicitAction::Cancel => "cancel",
        })
    }
}

/// The client's answer to an elicitation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Elicitation {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted values, a JSON object as a string, when the user
    /// accepted.
    pub content: Option<String>,
}

impl Elicitation {
    /// The submitted values as JSON (`None` unless accepted).
    pub fn content_json(&self) -> Option<serde_json::Value> {
        self.content
            .as_deref()
            .and_then(|c| serde_json::from_str(c).ok())
    }

    /// The submitted values deserialized into `T` (`Ok(None)` unless
    /// accepted).
    pub fn content_as<T: serde::de::DeserializeOwned>(&self) -> Result<Option<T>, ClientError> {
        self.content
            .as_deref()
            .map(serde_json::from_str)
            .transpose()
            .map_err(|e| {
                ClientError::Failed(format!("the client's answer does not deserialize: {e}"))
            })
    }
}

/// Asks the client's user for input (`elicitation/create`, form mode) and
/// waits for the answer. `schema_json` is the requested schema, a JSON
/// object schema whose properties are primitive (strings, numbers,
/// integers, booleans, enums, arrays of enum strings), as MCP allows; the
/// host sends it as given. The plugin's policy must grant it
/// (`elicitation = true` in `[plugins.NAME.client]`) and the client must
/// have declared the `elicitation` capability. The wait counts against the
/// call's timeout.
///
/// ```no_run
/// use mcp_wasm_sdk::client::{self, ElicitAction};
///
/// # fn main() -> Result<(), client::ClientError> {
/// let answer = client::elicit(
///     "Which account should I use?",
///     r#"{"type":"object","properties":{"account":{"type":"string"}},"required":["account"]}"#,
/// )?;
/// if answer.action == ElicitAction::Accept {
///     let account = answer.content_json().unwrap()["account"].clone();
///     # let _ = account;
/// }
/// # Ok(())
/// # }
/// ```
pub fn elicit(message: &str, schema_json: &str) -> Result<Elicitation, ClientError> {
    imp::elicit(message, schema_json)
}

/// A root the client exposes (`roots/list`): a directory or file the user
/// made available.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// Its `file://` URI.
    pub uri: String,
    /// A human-readable name, if the client gave one.
    pub name: Option<String>,
}

/// Asks the client for its roots (`roots/list`). The plugin's policy must
/// grant it (`roots = true` in `[plugins.NAME.client]`) and the client must
/// have declared the `roots` capability.
pub fn list_roots() -> Result<Vec<Root>, ClientError> {
    imp::list_roots()
}

/// A kind of request to the client, for [`require`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestKind {
    /// Sampling: [`create_message`].
    Sampling,
    /// Elicitation: [`elicit`].
    Elicitation,
    /// Roots: [`list_roots`].
    Roots,
}

/// Ends the call unless the client declared the capability of every kind in
/// `kinds`: the client then gets MCP's "missing required client capability"
/// error naming them (`-32021` at 2026-07-28, an `isError` result before).
/// Call it first in a tool that cannot work without these requests; it
/// returns only if the client supports them all.
pub fn require(kinds: &[RequestKind]) {
    imp::require(kinds)
}

/// One request of [`request_inputs`].
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// `sampling/createMessage`, as [`create_message`].
    CreateMessage(CreateMessage),
    /// `elicitation/create`, as [`elicit`].
    Elicit {
        /// What is asked and why.
        message: String,
        /// The requested schema, as JSON.
        schema_json: String,
    },
    /// `roots/list`, as [`list_roots`].
    ListRoots,
}

impl Input {
    /// An elicitation.
    pub fn elicit(message: impl Into<String>, schema_json: impl Into<String>) -> Self {
        Input::Elicit {
            message: message.into(),
            schema_json: schema_json.into(),
        }
    }
}

/// The answer to one request of [`request_inputs`], of the request's kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// The answer to [`Input::CreateMessage`].
    Message(SampledMessage),
    /// The answer to [`Input::Elicit`].
    Elicitation(Elicitation),
    /// The answer to [`Input::ListRoots`].
    Roots(Vec<Root>),
}

/// Sends several requests to the client at once and returns their answers
/// in the same order. Each has a key: 1 to 64 characters of
/// `A-Z a-z 0-9 _ . -`, unique within the call, and the same each time the
/// tool runs. At MCP 2026-07-28 the requests reach the client together, in
/// one `InputRequiredResult` under these keys, and the tool runs again from
/// the start with the answers; at earlier revisions they are sent one after
/// another. Each is checked against the policy on its own.
///
/// ```no_run
/// use mcp_wasm_sdk::client::{self, Answer, CreateMessage, Input};
///
/// let answers = client::request_inputs(vec![
///     ("name".into(), Input::elicit("Your name?", r#"{"type":"object","properties":{"name":{"type":"string"}}}"#)),
///     ("greeting".into(), Input::CreateMessage(CreateMessage::new(50).user("Greet me"))),
/// ]);
/// for answer in answers {
///     if let Ok(Answer::Message(m)) = answer {
///         # let _ = m;
///     }
/// }
/// ```
pub fn request_inputs(requests: Vec<(String, Input)>) -> Vec<Result<Answer, ClientError>> {
    imp::request_inputs(requests)
}

/// Why a request to the client got no answer.
///
/// It implements [`std::error::Error`], so `?` in a tool handler turns it
/// into a [`ToolError::Failed`](crate::ToolError::Failed) with the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientError {
    /// The client does not support the request (it did not declare the
    /// capability, or the session cannot carry requests to the client).
    Unsupported(String),
    /// The plugin's policy does not allow the request; the message names the
    /// key that grants it.
    Denied(String),
    /// The client answered with a JSON-RPC error.
    Rejected {
        /// The JSON-RPC error code.
        code: i64,
        /// The client's message.
        message: String,
        /// The error's `data` as JSON, if any.
        data: Option<String>,
    },
    /// The request was not sent or its answer could not be read.
    Failed(String),
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Unsupported(m) | ClientError::Denied(m) | ClientError::Failed(m) => {
                f.write_str(m)
            }
            ClientError::Rejected { code, message, .. } => {
                write!(f, "the client answered with error {code}: {message}")
            }
        }
    }
}

impl std::error::Error for ClientError {}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::*;
    use crate::__private::bindings::mcp_wasm_host::plugin::{client as wit, types};

    fn role(role: Role) -> types::Role {
        match role {
            Role::User => types::Role::User,
            Role::Assistant => types::Role::Assistant,
        }
    }

    fn content(c: MessageContent) -> wit::SamplingContent {
        match c {
            MessageContent::Text(t) => wit::SamplingContent::Text(t),
            MessageContent::Image { data, mime_type } => {
                wit::SamplingContent::Image(wit::Media { data, mime_type })
            }
            MessageContent::Audio { data, mime_type } => {
                wit::SamplingContent::Audio(wit::Media { data, mime_type })
            }
        }
    }

    fn from_wit(c: wit::SamplingContent) -> MessageContent {
        match c {
            wit::SamplingContent::Text(t) => MessageContent::Text(t),
            wit::SamplingContent::Image(m) => MessageContent::Image {
                data: m.data,
                mime_type: m.mime_type,
            },
            wit::SamplingContent::Audio(m) => MessageContent::Audio {
                data: m.data,
                mime_type: m.mime_type,
            },
        }
    }

    fn error(e: wit::RequestError) -> ClientError {
        match e {
            wit::RequestError::Unsupported(m) => ClientError::Unsupported(m),
            wit::RequestError::Denied(m) => ClientError::Denied(m),
            wit::RequestError::Rejected(r) => ClientError::Rejected {
                code: r.code,
                message: r.message,
                data: r.data,
            },
            wit::RequestError::Failed(m) => ClientError::Failed(m),
        }
    }

    fn message_request(r: CreateMessage) -> wit::CreateMessageRequest {
        let prefs = !r.model_hints.is_empty()
            || r.cost_priority.is_some()
            || r.speed_priority.is_some()
            || r.intelligence_priority.is_some();
        wit::CreateMessageRequest {
            messages: r
                .messages
                .into_iter()
                .map(|m| wit::SamplingMessage {
                    role: role(m.role),
                    content: m.content.into_iter().map(content).collect(),
                })
                .collect(),
            system_prompt: r.system_prompt,
            max_tokens: r.max_tokens,
            temperature: r.temperature,
            stop_sequences: r.stop_sequences,
            model_preferences: prefs.then_some(wit::ModelPreferences {
                hints: r.model_hints,
                cost_priority: r.cost_priority,
                speed_priority: r.speed_priority,
                intelligence_priority: r.intelligence_priority,
            }),
            include_context: r.include_context.map(|c| match c {
                IncludeContext::None => wit::IncludeContext::None,
                IncludeContext::ThisServer => wit::IncludeContext::ThisServer,
                IncludeContext::AllServers => wit::IncludeContext::AllServers,
            }),
        }
    }

    fn sampled(m: wit::SampledMessage) -> SampledMessage {
        SampledMessage {
            role: match m.role {
                types::Role::User => Role::User,
                types::Role::Assistant => Role::Assistant,
            },
            content: m.content.into_iter().map(from_wit).collect(),
            model: m.model,
            stop_reason: m.stop_reason,
        }
    }

    fn elicitation(r: wit::ElicitResult) -> Elicitation {
        Elicitation {
            action: match r.action {
                wit::ElicitAction::Accept => ElicitAction::Accept,
                wit::ElicitAction::Decline => ElicitAction::Decline,
                wit::ElicitAction::Cancel => ElicitAction::Cancel,
            },
            content: r.content,
        }
    }

    fn roots(roots: Vec<wit::Root>) -> Vec<Root> {
        roots
            .into_iter()
            .map(|r| Root {
                uri: r.uri,
                name: r.name,
            })
            .collect()
    }

    pub(super) fn create_message(r: CreateMessage) -> Result<SampledMessage, ClientError> {
        wit::create_message(&message_request(r))
            .map(sampled)
            .map_err(error)
    }

    pub(super) fn elicit(message: &str, schema: &str) -> Result<Elicitation, ClientError> {
        wit::elicit(message, schema).map(elicitation).map_err(error)
    }

    pub(super) fn list_roots() -> Result<Vec<Root>, ClientError> {
        wit::list_roots().map(roots).map_err(error)
    }

    pub(super) fn require(kinds: &[RequestKind]) {
        let kinds: Vec<wit::RequestKind> = kinds
            .iter()
            .map(|k| match k {
                RequestKind::Sampling => wit::RequestKind::Sampling,
                RequestKind::Elicitation => wit::RequestKind::Elicitation,
                RequestKind::Roots => wit::RequestKind::Roots,
            })
            .collect();
        wit::require(&kinds)
    }

    pub(super) fn request_inputs(
        requests: Vec<(String, Input)>,
    ) -> Vec<Result<Answer, ClientError>> {
        let requests: Vec<wit::KeyedRequest> = requests
            .into_iter()
            .map(|(key, input)| wit::KeyedRequest {
                key,
                request: match input {
                    Input::CreateMessage(r) => wit::InputRequest::CreateMessage(message_request(r)),
                    Input::Elicit {
                        message,
                        schema_json,
                    } => wit::InputRequest::Elicit(wit::ElicitRequest {
                        message,
                        requested_schema: schema_json,
                    }),
                    Input::ListRoots => wit::InputRequest::ListRoots,
                },
            })
            .collect();
        wit::request_inputs(&requests)
            .into_iter()
            .map(|answer| {
                answer
                    .map(|a| match a {
                        wit::InputResponse::CreateMessage(m) => Answer::Message(sampled(m)),
                        wit::InputResponse::Elicit(e) => Answer::Elicitation(elicitation(e)),
                        wit::InputResponse::ListRoots(r) => Answer::Roots(roots(r)),
                    })
                    .map_err(error)
            })
            .collect()
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::*;

    const NATIVE: &str =
        "requests to the client need mcp-wasm-host; this is a native build (a unit test?)";

    pub(super) fn create_message(_: CreateMessage) -> Result<SampledMessage, ClientError> {
        Err(ClientError::Unsupported(NATIVE.into()))
    }

    pub(super) fn elicit(_: &str, _: &str) -> Result<Elicitation, ClientError> {
        Err(ClientError::Unsupported(NATIVE.into()))
    }

    pub(super) fn list_roots() -> Result<Vec<Root>, ClientError> {
        Err(ClientError::Unsupported(NATIVE.into()))
    }

    /// Outside the host there is no client, so nothing is required of it.
    pub(super) fn require(_: &[RequestKind]) {}

    pub(super) fn request_inputs(
        requests: Vec<(String, Input)>,
    ) -> Vec<Result<Answer, ClientError>> {
        requests
            .iter()
            .map(|_| Err(ClientError::Unsupported(NATIVE.into())))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builder_collects_the_request() {
        let r = CreateMessage::new(100)
            .system_prompt("s")
            .user("q")
            .assistant("a")
            .stop_sequence("END")
            .model_hint("claude")
            .temperature(0.3);
        assert_eq!(r.max_tokens, 100);
        assert_eq!(r.messages, [Message::user("q"), Message::assistant("a")]);
        assert_eq!(r.stop_sequences, ["END"]);
        assert_eq!(r.model_hints, ["claude"]);
        assert_eq!(r.temperature, Some(0.3));
    }

    #[test]
    fn outside_the_host_requests_are_unsupported() {
        assert!(matches!(
            create_message(CreateMessage::new(1).user("x")),
            Err(ClientError::Unsupported(_))
        ));
        assert!(matches!(
            elicit("m", "{}"),
            Err(ClientError::Unsupported(_))
        ));
    }

    #[test]
    fn answers_read_as_text_and_json() {
        let m = SampledMessage {
            role: Role::Assistant,
            content: vec![
                MessageContent::Text("a".into()),
                MessageContent::Image {
                    data: vec![],
                    mime_type: "image/png".into(),
                },
                MessageContent::Text("b".into()),
            ],
            model: "m".into(),
            stop_reason: None,
        };
        assert_eq!(m.text(), "a\nb");
        let e = Elicitation {
            action: ElicitAction::Accept,
            content: Some(r#"{"n":1}"#.into()),
        };
        assert_eq!(e.content_json(), Some(serde_json::json!({"n": 1})));
        #[derive(serde::Deserialize, PartialEq, Debug)]
        struct N {
            n: u8,
        }
        assert_eq!(e.content_as::<N>().unwrap(), Some(N { n: 1 }));
        let rejected = ClientError::Rejected {
            code: -1,
            message: "no".into(),
            data: None,
        };
        assert_eq!(
            rejected.to_string(),
            "the client answered with error -1: no"
        );
    }
}
