//! What a running call reports while it runs (log lines and progress) and
//! what it asks the client for (sampling, elicitation and roots).
//!
//! The runtime always writes these to the server log; a transport may also
//! forward them to the client by passing its own [`CallEvents`]. The request
//! and answer types here are the runtime's own, in MCP's shape but free of
//! any protocol library.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

/// Severity of a guest's log message (the eight syslog levels MCP uses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detailed debugging information.
    Debug,
    /// Normal operation.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        })
    }
}

/// One progress report from a guest. The runtime only passes on reports whose
/// `progress` is greater than the previous one of the same call.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// How far the call has got.
    pub progress: f64,
    /// The value `progress` reaches when the call is done, if known.
    pub total: Option<f64>,
    /// What is happening now.
    pub message: Option<String>,
}

/// Who speaks in a sampling message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SamplingRole {
    /// The human user.
    User,
    /// The model.
    Assistant,
}

/// One content block of a sampling message.
#[derive(Debug, Clone, PartialEq)]
pub enum SamplingContent {
    /// Plain text.
    Text(String),
    /// An image: raw bytes and MIME type.
    Image {
        /// The raw bytes.
        data: Vec<u8>,
        /// The MIME type, e.g. `image/png`.
        mime_type: String,
    },
    /// An audio clip: raw bytes and MIME type.
    Audio {
        /// The raw bytes.
        data: Vec<u8>,
        /// The MIME type, e.g. `audio/wav`.
        mime_type: String,
    },
}

/// One message of a sampling conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingMessage {
    /// Who speaks.
    pub role: SamplingRole,
    /// The content blocks, in order.
    pub content: Vec<SamplingContent>,
}

/// How the client should choose a model (priorities from 0 to 1).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelPreferences {
    /// Model names or families to prefer, in order.
    pub hints: Vec<String>,
    /// How much to prefer a cheap model.
    pub cost_priority: Option<f64>,
    /// How much to prefer a fast model.
    pub speed_priority: Option<f64>,
    /// How much to prefer a capable model.
    pub intelligence_priority: Option<f64>,
}

/// Which MCP context the client should add to a sampling prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IncludeContext {
    /// None.
    None,
    /// Context from this server.
    ThisServer,
    /// Context from every server the client is connected to.
    AllServers,
}

/// A request for the client's model to produce a message.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingRequest {
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// A system prompt the client may use.
    pub system_prompt: Option<String>,
    /// The most tokens the model may generate.
    pub max_tokens: u32,
    /// The sampling temperature.
    pub temperature: Option<f64>,
    /// Sequences that stop generation.
    pub stop_sequences: Vec<String>,
    /// Preferences for the choice of model.
    pub model_preferences: Option<ModelPreferences>,
    /// Which MCP context to include.
    pub include_context: Option<IncludeContext>,
}

/// The message the client's model produced.
#[derive(Debug, Clone, PartialEq)]
pub struct SampledMessage {
    /// Who speaks; normally the assistant.
    pub role: SamplingRole,
    /// The content blocks, in order.
    pub content: Vec<SamplingContent>,
    /// The model that produced it.
    pub model: String,
    /// Why generation stopped, if the client said.
    pub stop_reason: Option<String>,
}

/// A request for the client's user to fill in a form.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationRequest {
    /// What is asked and why.
    pub message: String,
    /// The JSON Schema of the answer, as the guest gave it.
    pub requested_schema: serde_json::Value,
}

/// What the user did with an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElicitationAction {
    /// Submitted the form.
    Accept,
    /// Refused to answer.
    Decline,
    /// Dismissed the request.
    Cancel,
}

/// The client's answer to an elicitation.
#[derive(Debug, Clone, PartialEq)]
pub struct Elicitation {
    /// What the user did.
    pub action: ElicitationAction,
    /// The submitted values, when accepted.
    pub content: Option<serde_json::Value>,
}

/// A root the client exposes: a directory or file the user made available.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// Its `file://` URI.
    pub uri: String,
    /// A human-readable name, if the client gave one.
    pub name: Option<String>,
}

/// Which request to the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientRequestKind {
    /// `sampling/createMessage`.
    Sampling,
    /// `elicitation/create`.
    Elicitation,
    /// `roots/list`.
    Roots,
}

impl fmt::Display for ClientRequestKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ClientRequestKind::Sampling => "sampling",
            ClientRequestKind::Elicitation => "elicitation",
            ClientRequestKind::Roots => "roots",
        })
    }
}

/// Why a request to the client got no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientRequestError {
    /// The client (or the transport) does not support the request.
    #[error("{0}")]
    Unsupported(String),
    /// The plugin's policy does not allow the request.
    #[error("{0}")]
    Denied(String),
    /// The client answered with a JSON-RPC error.
    #[error("the client answered with error {code}: {message}")]
    Rejected {
        /// The JSON-RPC error code.
        code: i64,
        /// The client's message.
        message: String,
        /// The error's `data`, if any.
        data: Option<serde_json::Value>,
    },
    /// The request could not be sent or its answer not read.
    #[error("{0}")]
    Failed(String),
    /// The request goes to the client with the call's result, and its
    /// answer comes with the next request for the same call (2026-07-28's
    /// multi round-trip requests): the call must end now, and runs again
    /// from the start once the client has answered.
    #[error("the client answers this request in the next round of the call")]
    Deferred,
}

/// A boxed future, as the object-safe [`CallEvents`] returns them.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Receives what a call reports while it runs, and carries its requests to
/// the client. `log` and `progress` must be cheap and must not block: they
/// are called from inside the guest's execution. The requests are awaited
/// by the guest's host call; dropping their future (the call timed out or
/// was cancelled) must abandon the request.
pub trait CallEvents: Send + Sync {
    /// A log message from the guest.
    fn log(&self, plugin: &str, tool: &str, level: LogLevel, message: &str);
    /// A progress report from the guest.
    fn progress(&self, plugin: &str, tool: &str, progress: Progress);
    /// Asks the client's model for a message. `key` names the request
    /// within this run of the tool (unique, and the same in every run that
    /// makes the same requests). By default the transport cannot carry
    /// requests to the client.
    fn create_message(
        &self,
        _at: RequestAt<'_>,
        _request: SamplingRequest,
    ) -> BoxFuture<'_, Result<SampledMessage, ClientRequestError>> {
        Box::pin(async { Err(unsupported(ClientRequestKind::Sampling)) })
    }
    /// Asks the client's user for input. By default the transport cannot
    /// carry requests to the client.
    fn elicit(
        &self,
        _at: RequestAt<'_>,
        _request: ElicitationRequest,
    ) -> BoxFuture<'_, Result<Elicitation, ClientRequestError>> {
        Box::pin(async { Err(unsupported(ClientRequestKind::Elicitation)) })
    }
    /// Whether the client declared the capability requests of `kind` need;
    /// the guest's "not supported" error saying what is missing if not. By
    /// default the transport cannot carry requests to the client.
    fn client_supports(&self, kind: ClientRequestKind) -> Result<(), ClientRequestError> {
        Err(unsupported(kind))
    }
    /// Asks the client for its roots. By default the transport cannot carry
    /// requests to the client.
    fn list_roots(
        &self,
        _at: RequestAt<'_>,
    ) -> BoxFuture<'_, Result<Vec<Root>, ClientRequestError>> {
        Box::pin(async { Err(unsupported(ClientRequestKind::Roots)) })
    }
}

/// Where a request to the client comes from: the plugin, the tool, and the
/// key that names the request within this run of the tool.
#[derive(Debug, Clone, Copy)]
pub struct RequestAt<'a> {
    /// The plugin.
    pub plugin: &'a str,
    /// The tool.
    pub tool: &'a str,
    /// The request's key: unique within the run, chosen by the guest or
    /// counted by the host.
    pub key: &'a str,
}

fn unsupported(kind: ClientRequestKind) -> ClientRequestError {
    ClientRequestError::Unsupported(format!(
        "this call has no client to send {kind} requests to"
    ))
}

/// Forwards nothing: the runtime's own tracing output is all there is, and
/// requests to the client are unsupported.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoEvents;

impl CallEvents for NoEvents {
    fn log(&self, _: &str, _: &str, _: LogLevel, _: &str) {}
    fn progress(&self, _: &str, _: &str, _: Progress) {}
}
