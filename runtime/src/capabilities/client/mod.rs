//! Requests to the MCP client (sampling, elicitation and roots): the
//! `client` section of a plugin's policy, which grants each kind (nothing by
//! default), and the WIT `client` host functions, which name each request
//! with a key, check the grant, log the request and hand it to the call's
//! [`CallEvents`]. A request the client answers in a later round
//! ([`ClientRequestError::Deferred`]) ends the call with [`InputDeferred`].

use std::collections::HashSet;
use std::sync::Arc;

use serde::Deserialize;
use serde::de::MapAccess;
use serde_json::{Value, json};
use wasmtime::component::{HasSelf, Linker};

use super::super::error::FailureCause;
use super::{
    CallCtx, CallHooks, Capability, CapsView, KeyProblem, Others, Redaction, Report, ResolveCtx,
};
use crate::call::events::{
    CallEvents, ClientRequestError, ClientRequestKind, ElicitationRequest, RequestAt,
    SamplingContent, SamplingRequest,
};
use crate::load::bindings::link_earlier;
use crate::load::bindings::mcp_wasm_host::plugin::client as wit;

mod convert;

use convert::{
    elicit_result, elicitation_request, request_error, root, sampled_message, sampling_request,
    unexpected, wit_kind,
};

/// `[plugins.NAME.client]` as written: which requests the plugin may send
/// to the MCP client. All default to false.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientSpec {
    #[serde(default)]
    sampling: bool,
    #[serde(default)]
    elicitation: bool,
    #[serde(default)]
    roots: bool,
}

/// The `client` section of a plugin's policy: which requests it may send
/// to the client. Deny by default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClientPolicy {
    /// `sampling/createMessage` is allowed.
    pub sampling: bool,
    /// `elicitation/create` is allowed.
    pub elicitation: bool,
    /// `roots/list` is allowed (it tells the plugin which paths the user
    /// has opened).
    pub roots: bool,
}

impl ClientPolicy {
    /// Whether requests of `kind` are allowed.
    pub fn allows(&self, kind: ClientRequestKind) -> bool {
        match kind {
            ClientRequestKind::Sampling => self.sampling,
            ClientRequestKind::Elicitation => self.elicitation,
            ClientRequestKind::Roots => self.roots,
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
        _others: &Others<'_>,
    ) -> Result<Self, KeyProblem> {
        let client = spec.copied().flatten().unwrap_or_default();
        Ok(ClientPolicy {
            sampling: client.sampling,
            elicitation: client.elicitation,
            roots: client.roots,
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
            asked: 0,
            keys: HashSet::new(),
            budget: call.limits.max_result_bytes,
            spent: 0,
        }
    }

    fn link<T: CapsView>(linker: &mut Linker<T>) -> wasmtime::Result<()> {
        let state: fn(&mut T) -> &mut ClientState = |s| s.caps().get_mut::<Self>();
        wit::add_to_linker::<T, HasSelf<ClientState>>(linker, state)?;
        // 0.1.x plugins import `client@0.1.x`: the same functions serve them.
        link_earlier(linker, "client", |older| {
            wit::add_to_linker_instance::<T, HasSelf<ClientState>>(older, state)
        })
    }
}

/// Requests to the client are the guest's own: nothing to redact (the
/// secrets capability redacts them on their way out).
impl Redaction for ClientPolicy {}

impl Report for ClientPolicy {
    fn inspect_json(&self) -> Vec<(&'static str, Value)> {
        // Every field, so that a new one cannot be left out unnoticed.
        let ClientPolicy {
            sampling,
            elicitation,
            roots,
        } = self;
        vec![(
            "client",
            json!({
                "sampling": sampling,
                "elicitation": elicitation,
                "roots": roots,
            }),
        )]
    }

    fn inspect_lines(&self) -> Vec<(&'static str, String)> {
        let ClientPolicy {
            sampling,
            elicitation,
            roots,
        } = *self;
        let asks: Vec<&str> = [
            (sampling, "sampling"),
            (elicitation, "elicitation"),
            (roots, "roots"),
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

impl CallHooks for ClientState {
    /// The traps its host functions end a call with.
    fn failure_cause(error: &wasmtime::Error) -> Option<FailureCause> {
        if error.downcast_ref::<InputDeferred>().is_some() {
            return Some(FailureCause::InputDeferred);
        }
        error
            .downcast_ref::<MissingCapabilities>()
            .map(|missing| FailureCause::MissingClientCapability(missing.0.clone()))
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
    /// How many requests this run of the tool has made, for the keys the
    /// host chooses.
    asked: u32,
    /// The keys used so far in this run.
    keys: HashSet<String>,
    /// The bytes the run's requests may take in all (`max_result_size`:
    /// at 2026-07-28 they travel to the client in the call's result).
    budget: u64,
    /// The bytes its requests have taken so far.
    spent: u64,
}

/// The trap that ends a call whose request to the client is answered in a
/// later round (see [`ClientRequestError::Deferred`]); the call's outcome
/// is then [`super::super::FailureCause::InputDeferred`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the tool waits for the client's answers, which come with the next round of the call")]
pub struct InputDeferred;

/// The trap that ends a call whose guest requires requests the client did
/// not declare the capability for (the WIT `client.require`); the call's
/// outcome is then [`super::super::FailureCause::MissingClientCapability`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the client did not declare the capabilities the tool requires")]
pub struct MissingCapabilities(pub Vec<ClientRequestKind>);

/// The longest key a guest may give a request.
const MAX_KEY_LEN: usize = 64;

/// Why a guest's request to the client is not sent: the guest gets it as
/// its request's `failed` error.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RequestProblem {
    /// A sampling request without messages.
    #[error("a sampling request needs at least one message")]
    NoMessages,
    /// A sampling message without content (its index).
    #[error("sampling message {0} has no content")]
    EmptyMessage(usize),
    /// An elicitation schema that is not JSON.
    #[error("the requested schema is not valid JSON: {0}")]
    SchemaNotJson(#[source] serde_json::Error),
    /// An elicitation schema that is JSON, but not an object.
    #[error("the requested schema must be a JSON object")]
    SchemaNotObject,
    /// A key the guest gave that is not of the allowed form.
    #[error("request key {0:?} is not 1 to {MAX_KEY_LEN} characters of A-Z a-z 0-9 _ . -")]
    BadKey(String),
    /// A key used twice in one run.
    #[error("request key {0:?} was already used in this call; give each request its own key")]
    KeyUsed(String),
    /// The request would take the run's requests over their budget.
    #[error(
        "this request would bring the call's requests to the client to {total} bytes, over its limit of {budget} bytes (`max_result_size` in [{section}], {config_file})"
    )]
    OverBudget {
        /// The bytes with this request.
        total: u64,
        /// The run's budget.
        budget: u64,
        /// The policy section that sets it.
        section: Arc<str>,
        /// The policy file.
        config_file: Arc<str>,
    },
}

/// Whether `key` is 1 to 64 characters of `A-Z a-z 0-9 _ . -`.
fn valid_key(key: &str) -> bool {
    (1..=MAX_KEY_LEN).contains(&key.len())
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// A request of the guest's, checked and in the runtime's types.
enum Ask {
    Sampling(SamplingRequest),
    Elicitation(ElicitationRequest),
    Roots,
}

impl Ask {
    /// About how many bytes the request takes on the wire: the text and
    /// media the guest controls.
    fn size(&self) -> u64 {
        let bytes = match self {
            Ask::Sampling(r) => {
                let content: usize = r
                    .messages
                    .iter()
                    .flat_map(|m| &m.content)
                    .map(|c| match c {
                        SamplingContent::Text(t) => t.len(),
                        // Base64 on the wire.
                        SamplingContent::Image { data, mime_type }
                        | SamplingContent::Audio { data, mime_type } => {
                            data.len().div_ceil(3) * 4 + mime_type.len()
                        }
                    })
                    .sum();
                content
                    + r.system_prompt.as_ref().map_or(0, String::len)
                    + r.stop_sequences.iter().map(String::len).sum::<usize>()
            }
            Ask::Elicitation(r) => r.message.len() + r.requested_schema.to_string().len(),
            Ask::Roots => 0,
        };
        bytes as u64
    }

    fn kind(&self) -> ClientRequestKind {
        match self {
            Ask::Sampling(_) => ClientRequestKind::Sampling,
            Ask::Elicitation(_) => ClientRequestKind::Elicitation,
            Ask::Roots => ClientRequestKind::Roots,
        }
    }
}

/// The guest's request in the runtime's types, or why it cannot be sent.
fn ask(request: wit::InputRequest) -> Result<Ask, RequestProblem> {
    Ok(match request {
        wit::InputRequest::CreateMessage(r) => Ask::Sampling(sampling_request(r)?),
        wit::InputRequest::Elicit(r) => {
            Ask::Elicitation(elicitation_request(r.message, &r.requested_schema)?)
        }
        wit::InputRequest::ListRoots => Ask::Roots,
    })
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

impl ClientState {
    /// The key of a request: the guest's, checked for form and repeats, or
    /// the host's `KIND-N`.
    fn key(
        &mut self,
        kind: ClientRequestKind,
        given: Option<String>,
    ) -> Result<String, RequestProblem> {
        self.asked += 1;
        let key = match given {
            Some(key) if !valid_key(&key) => return Err(RequestProblem::BadKey(key)),
            Some(key) => key,
            None => format!("{kind}-{}", self.asked),
        };
        if !self.keys.insert(key.clone()) {
            return Err(RequestProblem::KeyUsed(key));
        }
        Ok(key)
    }

    /// Counts `ask` against the run's budget for requests to the client; why
    /// not if it does not fit.
    fn charge(&mut self, ask: &Ask) -> Result<(), RequestProblem> {
        let size = ask.size();
        if self.spent.saturating_add(size) > self.budget {
            return Err(RequestProblem::OverBudget {
                total: self.spent.saturating_add(size),
                budget: self.budget,
                section: self.section.clone(),
                config_file: self.config_file.clone(),
            });
        }
        self.spent += size;
        Ok(())
    }

    /// Checks the policy for `kind`; the guest's "denied" error if it is not
    /// granted.
    fn check_grant(&self, kind: ClientRequestKind) -> Result<(), ClientRequestError> {
        if self.policy.allows(kind) {
            return Ok(());
        }
        let (plugin, tool) = (&*self.plugin, &*self.tool);
        tracing::warn!(plugin, tool, %kind, "denied a request to the client (not granted by the policy)");
        Err(ClientRequestError::Denied(format!(
            "plugin {plugin:?} may not ask the client for {kind}: {}",
            ClientPolicy::hint(kind, &self.section, &self.config_file)
        )))
    }

    /// Sends one checked request through the call's events and logs how it
    /// ended.
    async fn send(&self, key: &str, ask: Ask) -> Result<wit::InputResponse, ClientRequestError> {
        let kind = ask.kind();
        self.check_grant(kind)?;
        let (plugin, tool) = (&*self.plugin, &*self.tool);
        tracing::info!(plugin, tool, %kind, key, "asking the client");
        let at = RequestAt { plugin, tool, key };
        let outcome =
            match ask {
                Ask::Sampling(r) => self
                    .events
                    .create_message(at, r)
                    .await
                    .map(|m| wit::InputResponse::CreateMessage(sampled_message(m))),
                Ask::Elicitation(r) => self
                    .events
                    .elicit(at, r)
                    .await
                    .map(|a| wit::InputResponse::Elicit(elicit_result(a))),
                Ask::Roots => self.events.list_roots(at).await.map(|roots| {
                    wit::InputResponse::ListRoots(roots.into_iter().map(root).collect())
                }),
            };
        match &outcome {
            Ok(_) => tracing::info!(plugin, tool, %kind, key, "the client answered"),
            Err(ClientRequestError::Deferred) => {
                tracing::info!(plugin, tool, %kind, key, "the client answers in the next round")
            }
            Err(error) => {
                tracing::info!(plugin, tool, %kind, key, %error, "the request to the client failed")
            }
        }
        outcome
    }

    /// Runs the guest's requests: each is keyed and checked in order, then
    /// all are sent at once, so that the client has all of them open
    /// together (several keys pending in a task, one batch of server
    /// requests). If any is answered in a later round, the call ends (a
    /// trap) once all of them have been handed over.
    async fn requests(
        &mut self,
        requests: Vec<(
            Option<String>,
            Result<Ask, RequestProblem>,
            ClientRequestKind,
        )>,
    ) -> wasmtime::Result<Vec<Result<wit::InputResponse, wit::RequestError>>> {
        let mut checked = Vec::with_capacity(requests.len());
        for (given, ask, kind) in requests {
            checked.push(match (self.key(kind, given), ask) {
                (Err(problem), _) | (_, Err(problem)) => {
                    Err(ClientRequestError::Failed(problem.to_string()))
                }
                (Ok(key), Ok(ask)) => match self.charge(&ask) {
                    Err(problem) => Err(ClientRequestError::Failed(problem.to_string())),
                    Ok(()) => Ok((key, ask)),
                },
            });
        }
        let this = &*self;
        let sent = futures::future::join_all(checked.into_iter().map(|c| async move {
            match c {
                Ok((key, ask)) => this.send(&key, ask).await,
                Err(e) => Err(e),
            }
        }))
        .await;
        let mut answers = Vec::with_capacity(sent.len());
        let mut deferred = false;
        for answer in sent {
            deferred |= matches!(answer, Err(ClientRequestError::Deferred));
            answers.push(answer.map_err(request_error));
        }
        if deferred {
            return Err(wasmtime::Error::new(InputDeferred));
        }
        Ok(answers)
    }

    /// One request with a key the host chooses.
    async fn one(
        &mut self,
        kind: ClientRequestKind,
        ask: Result<Ask, RequestProblem>,
    ) -> wasmtime::Result<Result<wit::InputResponse, wit::RequestError>> {
        let mut answers = self.requests(vec![(None, ask, kind)]).await?;
        Ok(answers.pop().expect("one answer per request"))
    }
}

impl wit::Host for ClientState {
    async fn require(&mut self, kinds: Vec<wit::RequestKind>) -> wasmtime::Result<()> {
        let mut missing = Vec::new();
        for kind in kinds {
            let kind = match kind {
                wit::RequestKind::Sampling => ClientRequestKind::Sampling,
                wit::RequestKind::Elicitation => ClientRequestKind::Elicitation,
                wit::RequestKind::Roots => ClientRequestKind::Roots,
            };
            if self.events.client_supports(kind).is_err() && !missing.contains(&kind) {
                missing.push(kind);
            }
        }
        if missing.is_empty() {
            return Ok(());
        }
        let (plugin, tool) = (&*self.plugin, &*self.tool);
        tracing::info!(
            plugin,
            tool,
            ?missing,
            "the client lacks capabilities the tool requires"
        );
        Err(wasmtime::Error::new(MissingCapabilities(missing)))
    }

    async fn create_message(
        &mut self,
        request: wit::CreateMessageRequest,
    ) -> wasmtime::Result<Result<wit::SampledMessage, wit::RequestError>> {
        let ask = sampling_request(request).map(Ask::Sampling);
        Ok(match self.one(ClientRequestKind::Sampling, ask).await? {
            Ok(wit::InputResponse::CreateMessage(m)) => Ok(m),
            Ok(other) => unexpected(other),
            Err(e) => Err(e),
        })
    }

    async fn elicit(
        &mut self,
        message: String,
        requested_schema: String,
    ) -> wasmtime::Result<Result<wit::ElicitResult, wit::RequestError>> {
        let ask = elicitation_request(message, &requested_schema).map(Ask::Elicitation);
        Ok(match self.one(ClientRequestKind::Elicitation, ask).await? {
            Ok(wit::InputResponse::Elicit(a)) => Ok(a),
            Ok(other) => unexpected(other),
            Err(e) => Err(e),
        })
    }

    async fn list_roots(&mut self) -> wasmtime::Result<Result<Vec<wit::Root>, wit::RequestError>> {
        Ok(
            match self.one(ClientRequestKind::Roots, Ok(Ask::Roots)).await? {
                Ok(wit::InputResponse::ListRoots(roots)) => Ok(roots),
                Ok(other) => unexpected(other),
                Err(e) => Err(e),
            },
        )
    }

    async fn request_inputs(
        &mut self,
        requests: Vec<wit::KeyedRequest>,
    ) -> wasmtime::Result<Vec<Result<wit::InputResponse, wit::RequestError>>> {
        let requests = requests
            .into_iter()
            .map(|r| {
                let kind = wit_kind(&r.request);
                (Some(r.key), ask(r.request), kind)
            })
            .collect();
        self.requests(requests).await
    }
}

#[cfg(test)]
mod tests;
