//! Multi round-trip requests (2026-07-28, SEP-2322): a guest's requests to
//! the client end the call with `InputRequiredResult`, and the client's
//! answers come back with the retried `tools/call`. The tool then runs again
//! from the start, and each of its requests is answered, by key, from the
//! answers the call has gathered so far (deterministic re-execution).
//!
//! The answers of earlier rounds travel in `requestState`, sealed with
//! rmcp's [`RequestStateCodec`] (HMAC-SHA256, with an expiry) and bound to
//! the tool, the plugin's digest and the arguments, so a state cannot be
//! forged, nor replayed into another call. Each answer is also bound to the
//! request it answers, so a run that asks something else under the same key
//! is asked again rather than given a stale answer. Nothing is kept on the
//! server: any replica with the same key can serve the next round.
#![allow(deprecated)] // rmcp marks sampling and roots deprecated (SEP-2577); clients still use them.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::ErrorData as McpError;
use rmcp::model::{
    ClientCapabilities, CreateMessageRequest, CreateMessageResult, ElicitRequest,
    ElicitRequestParams, ElicitResult, InputRequest, InputRequests, InputRequiredResult,
    InputResponses, JsonObject, ListRootsRequest, ListRootsResult, RequestStateCodec,
    RequestStateError, SealOptions, ServerRequest,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::notifications::Forwarder;
use super::requests;
use super::requests::{OutgoingError, check_capability};
use crate::runtime::{
    BoxFuture, CallEvents, ClientRequestError, ClientRequestKind, Elicitation, ElicitationRequest,
    LogLevel, Progress, RequestAt, Root, SampledMessage, SamplingRequest,
};

/// How long a `requestState` stays valid: the client must answer within it.
pub const STATE_TTL: Duration = Duration::from_secs(15 * 60);

/// The most bytes a sealed `requestState` may hold (the answers of every
/// round so far); a call that needs more ends with an error result.
pub const MAX_STATE_BYTES: usize = 1 << 20;

/// The shortest key `--request-state-key-*` accepts (rmcp's minimum).
const MIN_KEY_BYTES: usize = 32;

/// Why the state key could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum StateKeyError {
    /// The environment variable is not set.
    #[error("environment variable {0} (the request-state key) is not set")]
    MissingVar(String),
    /// The key file could not be read.
    #[error("cannot read the request-state key file {path}: {source}")]
    File {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The key is too short.
    #[error(
        "the request-state key from {from} has {len} bytes; use at least {MIN_KEY_BYTES} random bytes (e.g. `openssl rand -hex 32`)"
    )]
    TooShort {
        /// Where it came from.
        from: String,
        /// Its length.
        len: usize,
    },
    /// No random key could be made.
    #[error("cannot make a random request-state key: {0}")]
    Random(String),
}

/// Why a run that waits for the client cannot end with an
/// `InputRequiredResult`: the call ends with an error result saying so.
#[derive(Debug, thiserror::Error)]
pub enum InputRequiredError {
    /// The run waited for the client outside a 2026-07-28 call.
    #[error("the tool waited for the client outside a 2026-07-28 call")]
    NoRound,
    /// The run ended waiting, with no request open.
    #[error("the tool ended waiting for the client, but asked nothing")]
    NothingAsked,
    /// One round more than `--max-input-rounds` allows.
    #[error(
        "the tool asked the client for input in more than {0} rounds, the server's limit (`--max-input-rounds`)"
    )]
    TooManyRounds(u32),
    /// rmcp could not seal the state.
    #[error("cannot seal the request state: {0}")]
    Seal(#[source] RequestStateError),
    /// The sealed state is over [`MAX_STATE_BYTES`].
    #[error(
        "the client's answers so far take {0} bytes, over the {MAX_STATE_BYTES} bytes a request state may hold"
    )]
    StateTooLarge(usize),
}

/// Why a client's answer (from `requestState`, the retried call or a
/// task's `tasks/update`) cannot be read as what the guest asked for.
#[derive(Debug, thiserror::Error)]
pub(super) enum ReadError {
    /// It does not have the shape of the request's result.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// It has the shape, but cannot be passed to the guest.
    #[error(transparent)]
    Answer(#[from] requests::AnswerError),
}

/// The key that signs `requestState`, and the limits of the flow. Replicas
/// behind one load balancer must share the key; without one, each server
/// makes its own at start (a state then only works on the server that made
/// it, until it restarts).
pub struct Rounds {
    codec: RequestStateCodec,
    /// Where the key came from, for the log.
    from: String,
    /// The most rounds one call may take.
    pub max_rounds: u32,
}

impl std::fmt::Debug for Rounds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rounds")
            .field("key_from", &self.from)
            .field("max_rounds", &self.max_rounds)
            .finish_non_exhaustive()
    }
}

impl Rounds {
    /// Signs with `key`, at least 32 bytes, used as given.
    pub fn with_key(
        key: &[u8],
        from: impl Into<String>,
        max_rounds: u32,
    ) -> Result<Rounds, StateKeyError> {
        let from = from.into();
        if key.len() < MIN_KEY_BYTES {
            return Err(StateKeyError::TooShort {
                from,
                len: key.len(),
            });
        }
        let codec = RequestStateCodec::try_new(key.to_vec())
            .map_err(|e| StateKeyError::Random(format!("rmcp refused the key: {e}")))?;
        Ok(Rounds {
            codec,
            from,
            max_rounds,
        })
    }

    /// Signs with the key in environment variable `var`.
    pub fn from_env(var: &str, max_rounds: u32) -> Result<Rounds, StateKeyError> {
        let value = std::env::var(var).map_err(|_| StateKeyError::MissingVar(var.into()))?;
        Rounds::with_key(
            value.as_bytes(),
            format!("environment variable {var}"),
            max_rounds,
        )
    }

    /// Signs with the key in `path`.
    pub fn from_file(path: &Path, max_rounds: u32) -> Result<Rounds, StateKeyError> {
        let value = std::fs::read(path).map_err(|source| StateKeyError::File {
            path: path.into(),
            source,
        })?;
        Rounds::with_key(
            value.trim_ascii(),
            format!("file {}", path.display()),
            max_rounds,
        )
    }

    /// Signs with a random key made now (32 bytes, any of which may look
    /// like whitespace: they are used as they are).
    pub fn random(max_rounds: u32) -> Result<Rounds, StateKeyError> {
        let mut key = [0u8; MIN_KEY_BYTES];
        getrandom::fill(&mut key).map_err(|e| StateKeyError::Random(e.to_string()))?;
        Rounds::with_key(&key, "a random key made at start", max_rounds)
    }

    /// Where the key came from (never the key).
    pub fn key_source(&self) -> &str {
        &self.from
    }

    /// The first step of a `tools/call` at 2026-07-28: opens the client's
    /// `requestState` (if any) and adds the answers it sent now. A state that
    /// fails its check is a JSON-RPC `-32602` error, as SEP-2322 asks.
    pub fn begin(
        self: &Arc<Self>,
        binding: Binding<'_>,
        request_state: Option<&str>,
        responses: Option<InputResponses>,
        capabilities: Option<ClientCapabilities>,
        forwarder: Arc<Forwarder>,
    ) -> Result<Round, McpError> {
        let bound = binding.bytes();
        let state = match request_state {
            None => State::default(),
            Some(sealed) => self
                .codec
                .open_json_with::<State>(sealed, &bound)
                .map_err(state_error)?,
        };
        let mut answered = state.answered;
        let had_state = request_state.is_some();
        for (key, response) in responses.unwrap_or_default() {
            match state.pending.get(&key) {
                // The answer to a request of the last round.
                Some(request) => {
                    answered.insert(
                        key,
                        Answered {
                            request: Some(request.clone()),
                            response,
                        },
                    );
                }
                // Without a state the client answers before being asked
                // (the key is all it has); with one, it answers something
                // that was not asked: ignored, as SEP-2322 says.
                None if !had_state => {
                    answered.insert(
                        key,
                        Answered {
                            request: None,
                            response,
                        },
                    );
                }
                None => {}
            }
        }
        Ok(Round {
            rounds: self.clone(),
            bound,
            round: state.round,
            answered,
            capabilities,
            forwarder,
            asked: Mutex::default(),
        })
    }
}

/// Why a state was refused, as the JSON-RPC error the client gets.
fn state_error(error: RequestStateError) -> McpError {
    let why = match error {
        RequestStateError::Expired => format!(
            "requestState has expired (it is valid for {} minutes); call the tool again without it",
            STATE_TTL.as_secs() / 60
        ),
        _ => "requestState failed its integrity check: it was changed, made by another server, or belongs to another call (tool, arguments or plugin version); call the tool again without it".to_string(),
    };
    McpError::invalid_params(why, None)
}

/// What a `requestState` is bound to: the call it belongs to.
#[derive(Debug, Clone, Copy)]
pub struct Binding<'a> {
    /// The tool's name.
    pub tool: &'a str,
    /// The digest of the plugin file serving it (empty for an unknown tool).
    pub plugin_digest: &'a str,
    /// The call's arguments.
    pub arguments: Option<&'a JsonObject>,
}

impl Binding<'_> {
    /// The associated data the state is sealed with.
    fn bytes(&self) -> Vec<u8> {
        let arguments = self
            .arguments
            .map(|a| canonical_json(&Value::Object(a.clone())))
            .unwrap_or_default();
        let arguments = Sha256::digest(arguments);
        let mut bound = b"mcp-wasm-host requestState 1\n".to_vec();
        for part in [
            self.tool.as_bytes(),
            self.plugin_digest.as_bytes(),
            arguments.as_slice(),
        ] {
            bound.extend_from_slice(&(part.len() as u64).to_be_bytes());
            bound.extend_from_slice(part);
        }
        bound
    }
}

/// `value` as JSON with every object's keys sorted, so the same arguments
/// bind the same way whatever order a client writes them in.
fn canonical_json(value: &Value) -> Vec<u8> {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let ordered: BTreeMap<&String, Value> =
                    map.iter().map(|(k, v)| (k, sorted(v))).collect();
                Value::Object(ordered.into_iter().map(|(k, v)| (k.clone(), v)).collect())
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    serde_json::to_vec(&sorted(value)).unwrap_or_default()
}

/// What `requestState` carries (signed, not encrypted: only what the client
/// itself sent, and digests of the host's requests).
#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    /// How many rounds the call has taken.
    round: u32,
    /// The answers so far, by key.
    answered: BTreeMap<String, Answered>,
    /// The requests of the last round, by key: the digest of each.
    pending: BTreeMap<String, String>,
}

/// One answer and the request it answers.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Answered {
    /// The digest of the request; `None` for an answer the client sent
    /// before it was asked, which answers whatever request has its key.
    request: Option<String>,
    /// The client's answer, as it sent it.
    response: Value,
}

/// One run of a tool at 2026-07-28: answers its requests from what the
/// client has answered, and gathers the ones still open.
pub struct Round {
    rounds: Arc<Rounds>,
    bound: Vec<u8>,
    round: u32,
    answered: BTreeMap<String, Answered>,
    capabilities: Option<ClientCapabilities>,
    forwarder: Arc<Forwarder>,
    asked: Mutex<Asked>,
}

/// What this run asked.
#[derive(Default)]
struct Asked {
    /// Requests without an answer yet: the request and its digest.
    open: BTreeMap<String, (InputRequest, String)>,
    /// Answers this run used (carried to the next round).
    used: BTreeMap<String, Answered>,
}

impl std::fmt::Debug for Round {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Round")
            .field("round", &self.round)
            .field("answered", &self.answered.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Round {
    fn asked(&self) -> std::sync::MutexGuard<'_, Asked> {
        self.asked.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The answer to `request` under `key` if the client has given one that
    /// fits it; otherwise the request is kept for the client and the call
    /// ends ([`ClientRequestError::Deferred`]).
    fn answer<T>(
        &self,
        kind: ClientRequestKind,
        key: &str,
        request: Result<InputRequest, OutgoingError>,
        read: impl FnOnce(Value) -> Result<T, ReadError>,
    ) -> Result<T, ClientRequestError> {
        check_capability(self.capabilities.as_ref(), kind)?;
        let request = request.map_err(|e| ClientRequestError::Failed(e.to_string()))?;
        let digest = request_digest(&request);
        if let Some(answer) = self.answered.get(key)
            && answer.request.as_ref().is_none_or(|d| *d == digest)
        {
            match read(answer.response.clone()) {
                Ok(value) => {
                    self.asked().used.insert(key.to_string(), answer.clone());
                    return Ok(value);
                }
                Err(problem) => {
                    tracing::info!(key, %problem, "the client's answer does not fit the request; asking again");
                }
            }
        }
        self.asked().open.insert(key.to_string(), (request, digest));
        Err(ClientRequestError::Deferred)
    }

    /// The result that ends this run: the open requests and the sealed
    /// state for the next round; or, past the round limit or the state's
    /// size limit, why the call cannot go on.
    pub fn input_required(&self) -> Result<InputRequiredResult, InputRequiredError> {
        let asked = self.asked();
        if asked.open.is_empty() {
            return Err(InputRequiredError::NothingAsked);
        }
        let round = self.round + 1;
        if round > self.rounds.max_rounds {
            return Err(InputRequiredError::TooManyRounds(self.rounds.max_rounds));
        }
        let state = State {
            round,
            answered: asked.used.clone(),
            pending: asked
                .open
                .iter()
                .map(|(k, (_, digest))| (k.clone(), digest.clone()))
                .collect(),
        };
        let sealed = self
            .rounds
            .codec
            .seal_json_with(
                &state,
                &SealOptions::new()
                    .associated_data(&self.bound)
                    .ttl(STATE_TTL),
            )
            .map_err(InputRequiredError::Seal)?;
        if sealed.len() > MAX_STATE_BYTES {
            return Err(InputRequiredError::StateTooLarge(sealed.len()));
        }
        let requests: InputRequests = asked
            .open
            .iter()
            .map(|(k, (request, _))| (k.clone(), request.clone()))
            .collect();
        Ok(InputRequiredResult::new(Some(requests), Some(sealed)))
    }
}

/// The SHA-256 of a request's JSON, hex.
fn request_digest(request: &InputRequest) -> String {
    let json = serde_json::to_value(request)
        .map(|v| canonical_json(&v))
        .unwrap_or_default();
    hex::encode(Sha256::digest(json))
}

/// A guest's elicitation as an input request. rmcp types the schema
/// strictly; a schema it cannot type at all cannot be sent.
pub(super) fn elicitation_input(
    request: &ElicitationRequest,
) -> Result<InputRequest, OutgoingError> {
    match requests::elicitation_request(request) {
        ServerRequest::ElicitRequest(r) => Ok(InputRequest::Elicitation(r)),
        other => {
            let params = serde_json::to_value(&other)
                .ok()
                .and_then(|v| v.get("params").cloned())
                .unwrap_or_default();
            serde_json::from_value::<ElicitRequestParams>(params)
                .map(|p| InputRequest::Elicitation(ElicitRequest::new(p)))
                .map_err(OutgoingError::ElicitationSchema)
        }
    }
}

/// A guest's sampling request as an input request.
pub(super) fn sampling_input(request: &SamplingRequest) -> Result<InputRequest, OutgoingError> {
    requests::sampling_params(request)
        .map(|params| InputRequest::CreateMessage(CreateMessageRequest::new(params)))
}

/// The client's answer to a sampling request.
pub(super) fn read_sampled(value: Value) -> Result<SampledMessage, ReadError> {
    let result: CreateMessageResult = serde_json::from_value(value)?;
    Ok(requests::sampled_message(result)?)
}

/// The client's answer to an elicitation.
pub(super) fn read_elicited(value: Value) -> Result<Elicitation, ReadError> {
    let result: ElicitResult = serde_json::from_value(value)?;
    Ok(requests::elicit_result(result))
}

/// The client's answer to a roots request.
pub(super) fn read_roots(value: Value) -> Result<Vec<Root>, ReadError> {
    let result: ListRootsResult = serde_json::from_value(value)?;
    Ok(requests::roots(result))
}

impl CallEvents for Round {
    fn log(&self, plugin: &str, tool: &str, level: LogLevel, message: &str) {
        self.forwarder.log(plugin, tool, level, message);
    }

    fn progress(&self, plugin: &str, tool: &str, progress: Progress) {
        self.forwarder.progress(plugin, tool, progress);
    }

    fn client_supports(&self, kind: ClientRequestKind) -> Result<(), ClientRequestError> {
        check_capability(self.capabilities.as_ref(), kind)
    }

    fn create_message(
        &self,
        at: RequestAt<'_>,
        request: SamplingRequest,
    ) -> BoxFuture<'_, Result<SampledMessage, ClientRequestError>> {
        let answer = self.answer(
            ClientRequestKind::Sampling,
            at.key,
            sampling_input(&request),
            read_sampled,
        );
        Box::pin(std::future::ready(answer))
    }

    fn elicit(
        &self,
        at: RequestAt<'_>,
        request: ElicitationRequest,
    ) -> BoxFuture<'_, Result<Elicitation, ClientRequestError>> {
        let answer = self.answer(
            ClientRequestKind::Elicitation,
            at.key,
            elicitation_input(&request),
            read_elicited,
        );
        Box::pin(std::future::ready(answer))
    }

    fn list_roots(
        &self,
        at: RequestAt<'_>,
    ) -> BoxFuture<'_, Result<Vec<Root>, ClientRequestError>> {
        let answer = self.answer(
            ClientRequestKind::Roots,
            at.key,
            Ok(InputRequest::ListRoots(ListRootsRequest::default())),
            read_roots,
        );
        Box::pin(std::future::ready(answer))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_keys_are_used_whole_even_when_their_bytes_look_like_whitespace() {
        // Every byte a space: trimming would leave nothing.
        assert!(Rounds::with_key(&[b' '; 32], "test", 8).is_ok());
        for _ in 0..200 {
            assert!(Rounds::random(8).is_ok());
        }
    }

    #[test]
    fn a_short_key_is_refused_naming_where_it_came_from() {
        let e = Rounds::with_key(b"short", "environment variable K", 8).unwrap_err();
        let e = e.to_string();
        assert!(
            e.contains("environment variable K") && e.contains("32"),
            "{e}"
        );
        assert!(!e.contains("short"), "the key itself is never shown: {e}");
    }

    #[test]
    fn arguments_bind_by_value_whatever_their_key_order() {
        let a: JsonObject = serde_json::from_str(r#"{"a":1,"b":{"x":[1,2],"y":null}}"#).unwrap();
        let b: JsonObject = serde_json::from_str(r#"{"b":{"y":null,"x":[1,2]},"a":1}"#).unwrap();
        let c: JsonObject = serde_json::from_str(r#"{"a":1,"b":{"x":[2,1],"y":null}}"#).unwrap();
        let bind = |args: &JsonObject, tool: &str, digest: &str| {
            Binding {
                tool,
                plugin_digest: digest,
                arguments: Some(args),
            }
            .bytes()
        };
        assert_eq!(bind(&a, "t", "d"), bind(&b, "t", "d"));
        assert_ne!(bind(&a, "t", "d"), bind(&c, "t", "d"));
        assert_ne!(bind(&a, "t", "d"), bind(&a, "u", "d"));
        assert_ne!(bind(&a, "t", "d"), bind(&a, "t", "e"));
        // Lengths are part of the binding: "ab"+"c" is not "a"+"bc".
        assert_ne!(bind(&a, "ab", "c"), bind(&a, "a", "bc"));
    }
}
