//! Who owns each HTTP session and how many there may be. A session is
//! bound at `initialize` to its owner: the OAuth subject of the token that
//! opened it (with `[server.oauth]`), and the client's IP address (which
//! is counted, not checked: a client's address may change). Every
//! later request that names the session (`Mcp-Session-Id`), whatever its
//! HTTP verb (POST, GET, DELETE) or JSON-RPC method, must come from that
//! subject; any other gets the same `404` as an unknown session, so a
//! session ID is of no use without its owner's token. The count of sessions
//! is bounded server-wide (`server.max_sessions`), per subject and per
//! address; a refused `initialize` gets `503` (the server is full) or `429`
//! (this subject or address holds its share) with a JSON-RPC error naming
//! the key. A session leaves the count when it is closed (`DELETE`), ends
//! or expires (`server.session_idle_timeout`).
//!
//! [`Sessions`] wraps rmcp's session manager, which sees every session
//! open, start and close; [`guard`] is the axum layer in front of rmcp
//! that checks each request against the [`Registry`] they share.
//!
//! With a Redis store, sessions are shared by the replicas ([`shared`]):
//! a request for a session this replica does not hold, whose record the
//! store has and whose owner is the caller, goes on to rmcp, which takes
//! the session over; a request for a session whose record is gone (ended
//! on another replica) ends the local copy and gets `404`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::{Stream, StreamExt};
use rmcp::model::{
    ClientJsonRpcMessage, GetExtensions, JsonRpcMessage, RequestId, ServerJsonRpcMessage,
};
use rmcp::transport::streamable_http_server::session::{
    EventStore, EventStream, RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};
use serde::Deserialize;
use serde_json::json;

use super::upstream_gaps::jsonrpc;
use crate::config::SessionSettings;
use crate::runtime::{Principal, SessionDataKey};
use events::EventRef;

pub mod events;
pub mod shared;

pub use events::SharedEvents;
pub use shared::SharedSessions;

/// The header that names a session.
const SESSION_HEADER: &str = "mcp-session-id";

/// The JSON-RPC code of "no such session" (as the TypeScript SDK answers).
pub const SESSION_NOT_FOUND: i32 = -32001;

/// The JSON-RPC code of a refused `initialize`: the sessions are at a bound.
pub const TOO_MANY_SESSIONS: i32 = -32000;

/// The address a connection comes from, as the listener tells it (each
/// request carries it as `ConnectInfo<ClientAddr>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddr(pub SocketAddr);

/// Whom a session belongs to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Owner {
    /// The OAuth subject whose token opened it, with `[server.oauth]`.
    pub subject: Option<Arc<str>>,
    /// The client's IP address.
    pub address: Option<IpAddr>,
}

impl Owner {
    /// The owner a request with these HTTP extensions would give a session.
    fn of(extensions: &http::Extensions) -> Owner {
        Owner {
            subject: extensions.get::<Principal>().map(|p| p.subject.clone()),
            address: extensions
                .get::<ConnectInfo<ClientAddr>>()
                .map(|info| info.0.0.ip()),
        }
    }
}

/// The bound a refused session would have passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// `server.max_sessions`.
    Server,
    /// `server.max_sessions_per_subject`.
    Subject,
    /// `server.max_sessions_per_address`.
    Address,
}

impl Bound {
    /// The policy key that sets it.
    pub fn key(self) -> &'static str {
        match self {
            Bound::Server => "server.max_sessions",
            Bound::Subject => "server.max_sessions_per_subject",
            Bound::Address => "server.max_sessions_per_address",
        }
    }

    /// The HTTP status of a refusal: the server is full (`503`), or this
    /// caller holds its share (`429`).
    pub fn status(self) -> StatusCode {
        match self {
            Bound::Server => StatusCode::SERVICE_UNAVAILABLE,
            Bound::Subject | Bound::Address => StatusCode::TOO_MANY_REQUESTS,
        }
    }
}

/// A session that may not be opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "Too many sessions: {holder} already holds {limit}, the limit set by `{key}` in the policy file; end a session with an HTTP DELETE, or wait for an idle one to expire (`server.session_idle_timeout`, {idle})",
    holder = match self.bound {
        Bound::Server => "this server",
        Bound::Subject => "the subject of this access token",
        Bound::Address => "this client address",
    },
    key = self.bound.key(),
    idle = humantime_serde::re::humantime::format_duration(*idle),
)]
pub struct Refusal {
    /// The bound reached.
    pub bound: Bound,
    /// Its value.
    pub limit: usize,
    /// The idle timeout, after which an idle session frees its slot.
    pub idle: Duration,
}

impl Refusal {
    /// The HTTP answer: the status of the bound, `Retry-After` (by then
    /// every session idle now has expired), and the JSON-RPC error.
    fn response(&self, id: Option<RequestId>) -> Response {
        tracing::warn!(
            key = self.bound.key(),
            limit = self.limit,
            "refused a new session: {}",
            self
        );
        let body = json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {
                "code": TOO_MANY_SESSIONS,
                "message": self.to_string(),
                "data": { "policy_key": self.bound.key(), "limit": self.limit },
            },
        });
        let mut response = json_response(self.bound.status(), &body);
        let retry = self.idle.as_secs_f64().ceil().max(1.0).to_string();
        if let Ok(value) = HeaderValue::from_str(&retry) {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        response
    }
}

/// What a request naming a session may do with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// The session is the caller's.
    Granted,
    /// No such session (or one not yet handed out).
    Unknown,
    /// The session belongs to another subject (named here, for the log).
    Foreign(Option<Arc<str>>),
}

/// A session's place in the registry.
#[derive(Debug)]
enum Slot {
    /// Created, its `initialize` not yet seen: nobody has its ID yet.
    Opening,
    /// Bound to its owner.
    Owned(Owner),
}

#[derive(Debug, Default)]
struct Tables {
    sessions: HashMap<Arc<str>, Slot>,
    owned: usize,
    subjects: HashMap<Arc<str>, usize>,
    addresses: HashMap<IpAddr, usize>,
}

impl Tables {
    fn check(&self, limits: &SessionSettings, owner: &Owner) -> Result<(), Refusal> {
        let refuse = |bound, limit| Refusal {
            bound,
            limit,
            idle: limits.idle_timeout,
        };
        if self.owned >= limits.max_sessions {
            return Err(refuse(Bound::Server, limits.max_sessions));
        }
        let held = |n: Option<&usize>, limit: usize| limit > 0 && n.copied().unwrap_or(0) >= limit;
        if let Some(subject) = &owner.subject
            && held(self.subjects.get(subject), limits.max_per_subject)
        {
            return Err(refuse(Bound::Subject, limits.max_per_subject));
        }
        if let Some(address) = &owner.address
            && held(self.addresses.get(address), limits.max_per_address)
        {
            return Err(refuse(Bound::Address, limits.max_per_address));
        }
        Ok(())
    }
}

fn decrement<K: std::hash::Hash + Eq>(counts: &mut HashMap<K, usize>, key: &K) {
    if let Some(n) = counts.get_mut(key) {
        *n -= 1;
        if *n == 0 {
            counts.remove(key);
        }
    }
}

/// The open sessions and their owners, under the bounds of
/// [`SessionSettings`].
#[derive(Debug)]
pub struct Registry {
    limits: SessionSettings,
    state: Mutex<Tables>,
}

impl Registry {
    /// An empty registry under `limits`.
    pub fn new(limits: SessionSettings) -> Registry {
        Registry {
            limits,
            state: Mutex::default(),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, Tables> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The sessions open now (opening ones included).
    pub fn len(&self) -> usize {
        self.state().sessions.len()
    }

    /// Whether no session is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether a session for `owner` would be refused now.
    pub fn check(&self, owner: &Owner) -> Result<(), Refusal> {
        self.state().check(&self.limits, owner)
    }

    /// A session was created; it has no owner until [`Registry::claim`].
    pub fn opened(&self, id: &str) {
        self.state().sessions.insert(id.into(), Slot::Opening);
    }

    /// Binds the session `id` to `owner` at its `initialize`, if the bounds
    /// allow one more session for `owner`; else the session must be closed.
    /// A session closed meanwhile stays closed.
    pub fn claim(&self, id: &str, owner: Owner) -> Result<(), Refusal> {
        let mut state = self.state();
        if !matches!(state.sessions.get(id), Some(Slot::Opening)) {
            return Ok(());
        }
        state.check(&self.limits, &owner)?;
        state.owned += 1;
        if let Some(subject) = &owner.subject {
            *state.subjects.entry(subject.clone()).or_default() += 1;
        }
        if let Some(address) = owner.address {
            *state.addresses.entry(address).or_default() += 1;
        }
        state.sessions.insert(id.into(), Slot::Owned(owner));
        Ok(())
    }

    /// The session `id` is closed: its slot is free. Says whether it was
    /// open.
    pub fn closed(&self, id: &str) -> bool {
        let mut state = self.state();
        let Some(slot) = state.sessions.remove(id) else {
            return false;
        };
        if let Slot::Owned(owner) = slot {
            state.owned -= 1;
            if let Some(subject) = &owner.subject {
                decrement(&mut state.subjects, subject);
            }
            if let Some(address) = &owner.address {
                decrement(&mut state.addresses, address);
            }
        }
        if state.sessions.is_empty() {
            // Give the tables' memory back once the last session is gone.
            *state = Tables::default();
        }
        true
    }

    /// The OAuth subject that owns session `id`, if it is owned by one.
    pub fn subject_of(&self, id: &str) -> Option<Arc<str>> {
        match self.state().sessions.get(id) {
            Some(Slot::Owned(owner)) => owner.subject.clone(),
            _ => None,
        }
    }

    /// What a request of `subject` (`None` without OAuth) may do with the
    /// session `id`.
    pub fn access(&self, id: &str, subject: Option<&Arc<str>>) -> Access {
        match self.state().sessions.get(id) {
            None | Some(Slot::Opening) => Access::Unknown,
            Some(Slot::Owned(owner)) if owner.subject.as_ref() == subject => Access::Granted,
            Some(Slot::Owned(owner)) => Access::Foreign(owner.subject.clone()),
        }
    }
}

/// The refusal of an `initialize` that the session manager made (two
/// `initialize` requests raced for the last slot), for [`guard`] to answer
/// with.
#[derive(Debug, Clone, Default)]
struct Verdict(Arc<OnceLock<(Refusal, RequestId)>>);

/// rmcp's session manager `M`, telling the [`Registry`] of every session
/// it opens and closes, and binding each to its owner at `initialize`.
#[derive(Debug)]
pub struct Sessions<M> {
    inner: M,
    registry: Arc<Registry>,
    shared: Option<Arc<SharedSessions>>,
    events: Option<Arc<SharedEvents>>,
}

impl<M> Sessions<M> {
    /// `inner`, reporting to `registry`.
    pub fn new(inner: M, registry: Arc<Registry>) -> Sessions<M> {
        Sessions {
            inner,
            registry,
            shared: None,
            events: None,
        }
    }

    /// The same, with sessions shared by the replicas through `shared`,
    /// and their `GET` streams' events logged in `events` (which `inner`
    /// stores its events in).
    pub fn sharing(
        mut self,
        shared: Arc<SharedSessions>,
        events: Arc<SharedEvents>,
    ) -> Sessions<M> {
        self.shared = Some(shared);
        self.events = Some(events);
        self
    }

    /// With shared sessions, this replica holds session `id`'s `GET`
    /// stream from now on and logs its events ([`events`]); a store that
    /// fails leaves the stream served, its events unlogged here.
    async fn hold(&self, id: &str) {
        if let Some(events) = &self.events
            && let Err(e) = events.hold(id).await
        {
            tracing::warn!(error = %e, "cannot note in the shared store that this replica holds a session's GET stream");
        }
    }

    /// The registry of this replica's sessions.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }
}

/// Why the session manager failed.
#[derive(Debug, thiserror::Error)]
pub enum SessionsError<E: std::error::Error> {
    /// rmcp's session manager failed.
    #[error(transparent)]
    Inner(E),
    /// The session's `initialize` was refused: a bound was reached.
    #[error(transparent)]
    Refused(Refusal),
    /// A `Last-Event-ID` of another session's stream.
    #[error("the Last-Event-ID names an event of another session")]
    ForeignEvent,
    /// The shared event log could not be read.
    #[error("the shared event log of the session failed: {0}")]
    Store(crate::runtime::store::StoreError),
}

impl<M: SessionManager> SessionManager for Sessions<M> {
    type Error = SessionsError<M::Error>;
    type Transport = M::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, transport) = self
            .inner
            .create_session()
            .await
            .map_err(SessionsError::Inner)?;
        self.registry.opened(&id);
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        let (owner, verdict) = match &message {
            JsonRpcMessage::Request(request) => {
                let parts = request.request.extensions().get::<http::request::Parts>();
                let owner = parts.map(|p| Owner::of(&p.extensions)).unwrap_or_default();
                let verdict = parts
                    .and_then(|p| p.extensions.get::<Verdict>())
                    .map(|v| (v.clone(), request.id.clone()));
                (owner, verdict)
            }
            _ => (Owner::default(), None),
        };
        if let Err(refusal) = self.registry.claim(id, owner) {
            if let Some((verdict, request_id)) = verdict {
                let _ = verdict.0.set((refusal.clone(), request_id));
            }
            self.close_session(id).await?;
            return Err(SessionsError::Refused(refusal));
        }
        self.inner
            .initialize_session(id, message)
            .await
            .map_err(SessionsError::Inner)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner
            .has_session(id)
            .await
            .map_err(SessionsError::Inner)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        if let Some(shared) = &self.shared {
            // Only this replica's copy ends here: a DELETE also removes the
            // record (rmcp calls the session store), and an idle copy
            // leaves the session to the others.
            shared.forget(id);
        }
        if self.registry.closed(id) {
            tracing::info!(open = self.registry.len(), "HTTP session ended");
            crate::memory::release_soon();
        }
        self.inner
            .close_session(id)
            .await
            .map_err(SessionsError::Inner)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner
            .create_stream(id, message)
            .await
            .map_err(SessionsError::Inner)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.inner
            .accept_message(id, message)
            .await
            .map_err(SessionsError::Inner)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.hold(id).await;
        self.inner
            .create_standalone_stream(id)
            .await
            .map_err(SessionsError::Inner)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        if let Some(events) = &self.events
            && let Some(EventRef::Shared { session, seq }) = EventRef::parse(&last_event_id)
        {
            // The session's `GET` stream, maybe last held by another
            // replica: what it missed from the shared log, then its events
            // from here on. This replica logs its changes from now on, and
            // listens before it reads the log, so that a change logged
            // meanwhile is in one or the other: one in both (its sequence
            // number at most the last replayed) is sent once.
            if session != shared::hash(id) {
                return Err(SessionsError::ForeignEvent);
            }
            self.hold(id).await;
            let live = self
                .inner
                .create_standalone_stream(id)
                .await
                .map_err(SessionsError::Inner)?;
            let missed = events
                .replay(&session, seq)
                .await
                .map_err(SessionsError::Store)?;
            let replayed = missed
                .last()
                .and_then(|event| event.event_id.as_deref())
                .and_then(EventRef::parse);
            let live = live.filter(move |event| {
                let again = match (
                    &replayed,
                    event.event_id.as_deref().and_then(EventRef::parse),
                ) {
                    (
                        Some(EventRef::Shared { seq: last, .. }),
                        Some(EventRef::Shared { seq, .. }),
                    ) => seq <= *last,
                    _ => false,
                };
                std::future::ready(!again)
            });
            let stream: EventStream = Box::pin(futures::stream::iter(missed).chain(live));
            return Ok(stream);
        }
        let stream = self
            .inner
            .resume(id, last_event_id)
            .await
            .map_err(SessionsError::Inner)?;
        let stream: EventStream = Box::pin(stream);
        Ok(stream)
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        let outcome = self
            .inner
            .restore_session(id.clone())
            .await
            .map_err(SessionsError::Inner)?;
        if let RestoreOutcome::Restored(_) = &outcome {
            // Its replayed `initialize` claims it for the caller, whom the
            // guard found to be the record's owner.
            self.registry.opened(&id);
            tracing::info!(
                open = self.registry.len(),
                "took over an HTTP session from the shared store"
            );
        }
        Ok(outcome)
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.inner.event_store()
    }
}

/// The top of a JSON-RPC message: its method and id.
#[derive(Debug, Default, Deserialize)]
struct Head<'a> {
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default)]
    id: Option<RequestId>,
}

/// The method and, for a request, the id of the POST body of `request`,
/// which is put back.
async fn head(request: Request) -> (Request, Option<String>, Option<RequestId>) {
    let (parts, body) = request.into_parts();
    // The body was read and bounded by the POST check in front.
    let bytes = axum::body::to_bytes(body, jsonrpc::MAX_MESSAGE_BYTES)
        .await
        .unwrap_or_default();
    let head: Head = serde_json::from_slice(&bytes).unwrap_or_default();
    // Only a request's id is answered; a response's names the server's.
    let id = head.id.filter(|_| head.method.is_some());
    let method = head.method.map(Cow::into_owned);
    (Request::from_parts(parts, Body::from(bytes)), method, id)
}

fn json_response(status: StatusCode, body: &serde_json::Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// The answer to a request naming a session that is not the caller's, or
/// none at all: `404`, as the transport asks for an unknown session, so
/// that the client starts a new one.
fn not_found(id: Option<RequestId>) -> Response {
    json_response(
        StatusCode::NOT_FOUND,
        &json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {
                "code": SESSION_NOT_FOUND,
                "message": "Session not found: no open session has this Mcp-Session-Id for this caller; start a new session with initialize",
            },
        }),
    )
}

fn session_id(headers: &HeaderMap) -> Option<&str> {
    headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok())
}

/// The answer when the shared session store failed: `503`, naming the
/// store (the client may retry; its session is not lost).
fn store_failed(store: &str, error: &dyn std::fmt::Display) -> Response {
    tracing::warn!(%error, "the shared session store failed");
    json_response(
        StatusCode::SERVICE_UNAVAILABLE,
        &json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {
                "code": -32603,
                "message": format!("the replicas' shared session store ({store}) failed, so this session cannot be checked now; retry shortly: {error}"),
            },
        }),
    )
}

/// What the shared store says of a request for session `id`, which this
/// replica holds (`held`) or not: `Ok(true)` to serve it, `Ok(false)` for
/// `404`, `Err` for an answer already made.
async fn check_shared<M: SessionManager>(
    sessions: &Sessions<M>,
    shared: &SharedSessions,
    method: &Method,
    owner: Owner,
    id: &str,
    subject: Option<&Arc<str>>,
    held: bool,
) -> Result<bool, Response> {
    if held {
        return match shared.renew(id).await {
            Ok(true) => Ok(true),
            Ok(false) => {
                tracing::info!(
                    "an HTTP session ended on another replica (or expired): dropped here"
                );
                let _ = sessions.close_session(&SessionId::from(id)).await;
                Ok(false)
            }
            Err(e) => Err(store_failed(&shared.store_name(), &e)),
        };
    }
    let record = match shared.record(id).await {
        Ok(Some(record)) => record,
        Ok(None) => return Ok(false),
        Err(e) => return Err(store_failed(&shared.store_name(), &e)),
    };
    if !record.owned_by(subject.map(|s| &**s)) {
        tracing::warn!(
            subject = subject.map_or("", |s| &**s),
            %method,
            "refused a request in a shared session of another subject"
        );
        return Ok(false);
    }
    if method == Method::DELETE {
        // Not held here: end it everywhere, here.
        return match shared.end(id).await {
            Ok(_) => {
                tracing::info!("HTTP session ended (held by another replica)");
                Err(StatusCode::ACCEPTED.into_response())
            }
            Err(e) => Err(store_failed(&shared.store_name(), &e)),
        };
    }
    // rmcp takes the session over, claiming a slot for its owner here.
    if let Err(refusal) = sessions.registry.check(&owner) {
        return Err(refusal.response(None));
    }
    Ok(true)
}

/// The axum layer in front of rmcp with sessions: a request naming a
/// session goes on only if the session is its caller's (any verb, any
/// method); a POST that would open a session is refused when a bound is
/// reached. With a shared store, a session another replica opened is
/// served once the store says it is the caller's.
pub async fn guard<M: SessionManager>(
    State(sessions): State<Arc<Sessions<M>>>,
    request: Request,
    next: Next,
) -> Response {
    let registry = &sessions.registry;
    if let Some(id) = session_id(request.headers()).map(str::to_owned) {
        let subject = request
            .extensions()
            .get::<Principal>()
            .map(|p| p.subject.clone());
        let access = registry.access(&id, subject.as_ref());
        let go_on = match (&access, &sessions.shared) {
            (Access::Granted, None) => true,
            (Access::Granted | Access::Unknown, Some(shared)) => {
                let held = access == Access::Granted;
                let (method, owner) = (request.method().clone(), Owner::of(request.extensions()));
                let checked = check_shared(
                    &sessions,
                    shared,
                    &method,
                    owner,
                    &id,
                    subject.as_ref(),
                    held,
                );
                match checked.await {
                    Ok(go_on) => go_on,
                    Err(response) => return response,
                }
            }
            (Access::Unknown, None) => {
                tracing::info!(method = %request.method(), "a request for an unknown session");
                false
            }
            (Access::Foreign(owner), _) => {
                tracing::warn!(
                    subject = subject.as_deref().unwrap_or(""),
                    session_subject = owner.as_deref().unwrap_or(""),
                    method = %request.method(),
                    "refused a request in a session of another subject"
                );
                false
            }
        };
        if go_on {
            let mut request = request;
            if sessions.shared.is_some() {
                // Its `scope = "session"` data has the same key everywhere.
                request
                    .extensions_mut()
                    .insert(SessionDataKey::new(shared::data_key(&id)));
                if let Some(shared) = &sessions.shared {
                    // Its subscriptions and logging level, as every copy
                    // shares them.
                    request.extensions_mut().insert(shared.link(&id));
                }
            }
            return next.run(request).await;
        }
        let id = if request.method() == Method::POST {
            head(request).await.2
        } else {
            None
        };
        return not_found(id);
    }
    if request.method() != Method::POST {
        if sessions.shared.is_some() && request.headers().contains_key("last-event-id") {
            // Shared logs are read in their session only.
            return not_found(None);
        }
        return next.run(request).await;
    }
    let mut request = request;
    if let Err(refusal) = registry.check(&Owner::of(request.extensions())) {
        // Full: only an `initialize` would open a session (a 2026-07-28
        // request is served without one).
        let (back, method, id) = head(request).await;
        if method.as_deref() == Some("initialize")
            && let Some(id) = id
        {
            return refusal.response(Some(id));
        }
        request = back;
    }
    let verdict = Verdict::default();
    request.extensions_mut().insert(verdict.clone());
    let response = next.run(request).await;
    match verdict.0.get() {
        Some((refusal, id)) => refusal.response(Some(id.clone())),
        None => response,
    }
}

#[cfg(test)]
mod tests;
