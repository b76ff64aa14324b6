//! The HTTP boundary in front of rmcp: every POST body is checked with
//! [`jsonrpc::check`], as every stdio line is, and a body that is not a
//! message rmcp handles as what it is gets `400 Bad Request` with the
//! JSON-RPC error (`413` above [`jsonrpc::MAX_MESSAGE_BYTES`], naming the id
//! when it is in the first bytes); rmcp alone would answer most of these with
//! `415` and plain text, or `-32601` for a known method with bad params. A
//! notification that cannot be read gets `400` too, with an error without
//! an id, as the transport's rules allow.
//! With sessions, a request whose `id` is already in flight in its session
//! gets `409 Conflict` (rmcp would leave one of the two streams open
//! forever), one past the session's 256 requests in flight gets `429` with
//! `-32000` (as over stdio; `ping` is always served), and a `DELETE` for an
//! unknown session gets `404`, as rmcp answers `GET` and `POST` for one.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;

use crate::runtime::RoundedNumbers;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use rmcp::model::{JsonRpcMessage, RequestId};
use rmcp::transport::streamable_http_server::session::SessionManager;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::upstream_gaps::jsonrpc::{self, INVALID_REQUEST, PARSE_ERROR, Rejection};

/// The header that names a session.
const SESSION_HEADER: &str = "mcp-session-id";

/// The request ids in flight, per session: at most
/// [`stdio::MAX_IN_FLIGHT`](super::upstream_gaps::stdio::MAX_IN_FLIGHT) in one session, as
/// over stdio (a body's share of the budget returns once it is parsed, so
/// the budget no longer bounds the requests a session keeps waiting).
#[derive(Debug, Default, Clone)]
pub struct InFlight(Arc<Mutex<Claims>>);

/// The ids held, and how many each session holds.
#[derive(Debug, Default)]
struct Claims {
    ids: HashSet<(String, RequestId)>,
    per_session: HashMap<String, usize>,
}

/// Why an id cannot be held.
#[derive(Debug, PartialEq, Eq)]
enum Unclaimed {
    /// The session has a request with this id in flight.
    InUse,
    /// The session has the most requests in flight it may.
    TooMany,
}

/// A request id held in flight until dropped.
#[derive(Debug)]
struct Claim {
    in_flight: InFlight,
    key: (String, RequestId),
    /// Whether it counts toward the session's bound (`ping` does not).
    counted: bool,
}

impl InFlight {
    /// Holds `id` in `session` until the claim is dropped, or says why not:
    /// it is already held, or the session holds the most it may (`capped`:
    /// `ping` is always served, as over stdio).
    fn claim(&self, session: &str, id: &RequestId, capped: bool) -> Result<Claim, Unclaimed> {
        let key = (session.to_string(), id.clone());
        let mut claims = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if claims.ids.contains(&key) {
            return Err(Unclaimed::InUse);
        }
        if capped {
            let held = claims.per_session.entry(key.0.clone()).or_default();
            if *held >= super::upstream_gaps::stdio::MAX_IN_FLIGHT {
                return Err(Unclaimed::TooMany);
            }
            *held += 1;
        }
        claims.ids.insert(key.clone());
        Ok(Claim {
            in_flight: self.clone(),
            key,
            counted: capped,
        })
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        let mut claims = self
            .in_flight
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        claims.ids.remove(&self.key);
        if !self.counted {
            return;
        }
        if let Some(held) = claims.per_session.get_mut(&self.key.0) {
            *held -= 1;
            if *held == 0 {
                claims.per_session.remove(&self.key.0);
            }
        }
    }
}

/// The bytes of request bodies the server holds at once, across all
/// connections. A body is read only as far as the budget allows (the rest
/// waits in the connection, so the client is slowed, not refused), and its
/// share is returned as soon as its bytes have been parsed (when rmcp drops
/// them, or at the latest when the response starts), whatever the response
/// does after: a `subscriptions/listen` stream open for hours holds none of
/// it. So many clients sending large bodies at once cannot make the host
/// hold more than this.
pub const BODY_BUDGET_BYTES: usize = 256 << 20;

/// The budget's unit: one permit per KiB.
const BUDGET_UNIT: usize = 1 << 10;

/// What is left of [`BODY_BUDGET_BYTES`].
#[derive(Debug, Clone)]
pub struct BodyBudget(Arc<Semaphore>);

impl Default for BodyBudget {
    fn default() -> Self {
        BodyBudget::with_bytes(BODY_BUDGET_BYTES)
    }
}

impl BodyBudget {
    /// A budget of `bytes` (rounded down to whole KiB).
    pub fn with_bytes(bytes: usize) -> Self {
        BodyBudget(Arc::new(Semaphore::new(bytes / BUDGET_UNIT)))
    }

    /// Takes the share of `len` more bytes into `held`, waiting for it.
    async fn take(&self, len: usize, held: &mut Option<OwnedSemaphorePermit>) {
        let units = u32::try_from(len.div_ceil(BUDGET_UNIT)).unwrap_or(u32::MAX);
        // The semaphore is never closed.
        if let Ok(permit) = self.0.clone().acquire_many_owned(units).await {
            match held {
                Some(held) => held.merge(permit),
                None => *held = Some(permit),
            }
        }
    }
}

/// What the POST check needs to know.
#[derive(Debug, Clone)]
pub struct BodyCheck {
    /// The ids in flight per session; `None` without sessions (stateless),
    /// where every POST has its own channel and a reused id harms nothing.
    pub in_flight: Option<InFlight>,
    /// The memory all bodies being handled may hold.
    pub budget: BodyBudget,
}

/// The axum middleware for POST: checks the body and passes a good one on
/// unchanged; holds a request's id in flight until its response body ends
/// or is dropped.
pub async fn check_post_body(
    State(check): State<BodyCheck>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let (mut parts, body) = request.into_parts();
    let (bytes, share) = match read_bounded(body, jsonrpc::MAX_MESSAGE_BYTES, &check.budget).await {
        Ok(read) => read,
        Err(BodyRead::TooLong(prefix)) => {
            let rejection = Rejection::too_long(&prefix, jsonrpc::MAX_MESSAGE_BYTES);
            tracing::warn!(
                limit = jsonrpc::MAX_MESSAGE_BYTES,
                "refused an HTTP request body over the limit"
            );
            return json_rpc_error(StatusCode::PAYLOAD_TOO_LARGE, &rejection);
        }
        Err(BodyRead::Failed(error)) => {
            tracing::warn!(%error, "cannot read an HTTP request body");
            let rejection = Rejection::new(
                PARSE_ERROR,
                format!("Parse error: the body could not be read ({error})"),
                None,
            );
            return json_rpc_error(StatusCode::BAD_REQUEST, &rejection);
        }
    };
    let message = match jsonrpc::check(&bytes) {
        Ok(message) => message,
        Err(rejection) => {
            tracing::warn!(code = rejection.code, "{}", rejection.message);
            // 2026-07-28 (SEP-2575): a method the revision lacks is 404.
            let status = if rejection.not_found {
                StatusCode::NOT_FOUND
            } else {
                StatusCode::BAD_REQUEST
            };
            return json_rpc_error(status, &rejection);
        }
    };
    let claim = match (&check.in_flight, &message, session_id(&parts.headers)) {
        (Some(in_flight), JsonRpcMessage::Request(r), Some(session)) => {
            let capped = !matches!(r.request, rmcp::model::ClientRequest::PingRequest(_));
            match in_flight.claim(session, &r.id, capped) {
                Ok(claim) => Some(claim),
                Err(Unclaimed::TooMany) => {
                    let rejection = Rejection::new(
                        super::upstream_gaps::stdio::TOO_MANY_IN_FLIGHT,
                        format!(
                            "too many requests in flight: {} of this session are waiting for their responses; wait for some before sending more",
                            super::upstream_gaps::stdio::MAX_IN_FLIGHT
                        ),
                        Some(r.id.clone()),
                    );
                    tracing::warn!("{}", rejection.message);
                    return json_rpc_error(StatusCode::TOO_MANY_REQUESTS, &rejection);
                }
                Err(Unclaimed::InUse) => {
                    let rejection = Rejection::new(
                        INVALID_REQUEST,
                        format!(
                            "Invalid Request: the id {} is in use by a request of this session that is still in flight",
                            r.id
                        ),
                        Some(r.id.clone()),
                    );
                    tracing::warn!("{}", rejection.message);
                    return json_rpc_error(StatusCode::CONFLICT, &rejection);
                }
            }
        }
        _ => None,
    };
    // rmcp reads the body again; what only the text showed goes with it.
    if let JsonRpcMessage::Request(r) = &message
        && let rmcp::model::ClientRequest::CallToolRequest(call) = &r.request
        && let Some(numbers) = call.extensions.get::<RoundedNumbers>()
    {
        parts.extensions.insert(numbers.clone());
    }
    drop(message);
    // A large body leaves its parsed copies behind in the allocator once
    // its response ends: give them back then.
    let release = (bytes.len() >= LARGE_BODY_BYTES).then_some(ReleaseMemory);
    let share = Share(Arc::new(Mutex::new(share)));
    let body = Body::from(Bytes::from_owner(Parsed {
        bytes,
        share: share.clone(),
    }));
    let response = next.run(Request::from_parts(parts, body)).await;
    // The body has been parsed by now: its share goes back, whatever the
    // response does after.
    share.release();
    match (claim, release) {
        (None, None) => response,
        (claim, release) => response.map(|body| release_at_end(body, (claim, release))),
    }
}

/// A body's share of the budget, returned by whoever is first: the parsed
/// body's bytes being dropped, or the response starting.
#[derive(Debug, Clone)]
struct Share(Arc<Mutex<Option<OwnedSemaphorePermit>>>);

impl Share {
    fn release(&self) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take();
    }
}

/// A checked body handed to rmcp: its bytes, and their share of the
/// budget, returned when rmcp drops them after parsing.
struct Parsed {
    bytes: Vec<u8>,
    share: Share,
}

impl AsRef<[u8]> for Parsed {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Drop for Parsed {
    fn drop(&mut self) {
        self.share.release();
    }
}

/// A body at least this large asks for memory to be given back
/// ([`crate::memory::release_soon`]) once its response has ended.
const LARGE_BODY_BYTES: usize = 1 << 20;

/// Asks for freed memory to be given back when dropped.
struct ReleaseMemory;

impl Drop for ReleaseMemory {
    fn drop(&mut self) {
        crate::memory::release_soon();
    }
}

/// `body`, holding `claim` (the request's id in flight) until its last byte
/// has been read (before the client can see the end) or until it is dropped
/// unfinished.
fn release_at_end<C: Send + 'static>(body: Body, claim: C) -> Body {
    let mut claim = Some(claim);
    let end = futures::stream::poll_fn(move |_| {
        claim.take();
        Poll::Ready(None)
    });
    Body::from_stream(body.into_data_stream().chain(end))
}

/// The axum middleware for `DELETE` with sessions: an unknown session gets
/// `404`, as rmcp answers `GET` and `POST`; rmcp alone answers `202`.
pub async fn check_delete_session<M: SessionManager>(
    State(sessions): State<Arc<M>>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() == Method::DELETE
        && let Some(session) = session_id(request.headers())
        && !sessions
            .has_session(&session.to_string().into())
            .await
            .unwrap_or(true)
    {
        tracing::info!("DELETE for an unknown session");
        return (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response();
    }
    next.run(request).await
}

fn session_id(headers: &HeaderMap) -> Option<&str> {
    headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok())
}

/// Why a body was not read whole.
#[derive(Debug)]
enum BodyRead {
    /// Longer than the limit; the first bytes, to find the id in.
    TooLong(Vec<u8>),
    /// The connection failed.
    Failed(axum::Error),
}

/// Reads `body` whole if it has at most `limit` bytes, taking each kept
/// chunk's share of `budget` before reading on; returns the bytes and their
/// share. A longer body is read to its end without being kept, but for its
/// first bytes, so that the client can read the answer instead of a
/// connection reset.
async fn read_bounded(
    body: Body,
    limit: usize,
    budget: &BodyBudget,
) -> Result<(Vec<u8>, Option<OwnedSemaphorePermit>), BodyRead> {
    // A body that declares its length (`Content-Length`) takes its whole
    // share at once: bodies that each took part of theirs chunk by chunk
    // could fill the budget between them and all wait for more, for ever.
    let declared = http_body::Body::size_hint(&body)
        .exact()
        .and_then(|n| usize::try_from(n).ok())
        .filter(|&n| n <= limit);
    let mut stream = body.into_data_stream();
    let mut data = Vec::new();
    let mut share = None;
    let mut paid = 0;
    if let Some(len) = declared {
        budget.take(len, &mut share).await;
        paid = len;
    }
    let mut too_long = false;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(BodyRead::Failed)?;
        if !too_long && data.len() + chunk.len() > limit {
            too_long = true;
            data.truncate(jsonrpc::ID_PREFIX_BYTES);
        }
        let keep = if too_long {
            jsonrpc::ID_PREFIX_BYTES
                .saturating_sub(data.len())
                .min(chunk.len())
        } else {
            chunk.len()
        };
        let held = data.len() + keep;
        if held > paid {
            budget.take(held - paid, &mut share).await;
            paid = held;
        }
        data.extend_from_slice(&chunk[..keep]);
    }
    if too_long {
        Err(BodyRead::TooLong(data))
    } else {
        Ok((data, share))
    }
}

fn json_rpc_error(status: StatusCode, rejection: &Rejection) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        rejection.to_json().to_string(),
    )
        .into_response()
}

#[cfg(test)]
mod tests;
