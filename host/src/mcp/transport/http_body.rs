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

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use rmcp::model::{JsonRpcMessage, RequestId};
use rmcp::transport::streamable_http_server::session::SessionManager;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::jsonrpc::{self, INVALID_REQUEST, PARSE_ERROR, Rejection};

/// The header that names a session.
const SESSION_HEADER: &str = "mcp-session-id";

/// The request ids in flight, per session: at most
/// [`stdio::MAX_IN_FLIGHT`](super::stdio::MAX_IN_FLIGHT) in one session, as
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
            if *held >= super::stdio::MAX_IN_FLIGHT {
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
    let (parts, body) = request.into_parts();
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
                        super::stdio::TOO_MANY_IN_FLIGHT,
                        format!(
                            "too many requests in flight: {} of this session are waiting for their responses; wait for some before sending more",
                            super::stdio::MAX_IN_FLIGHT
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
mod tests {
    use super::*;

    #[test]
    fn an_id_is_held_once_per_session_until_its_claim_is_dropped() {
        let in_flight = InFlight::default();
        let one = RequestId::Number(1);
        let claim = in_flight.claim("s1", &one, true).unwrap();
        assert_eq!(
            in_flight.claim("s1", &one, true).unwrap_err(),
            Unclaimed::InUse
        );
        let other_session = in_flight.claim("s2", &one, true).unwrap();
        let other_id = in_flight
            .claim("s1", &RequestId::String("1".into()), true)
            .unwrap();
        drop(claim);
        assert!(in_flight.claim("s1", &one, true).is_ok());
        drop((other_session, other_id));
        let claims = in_flight.0.lock().unwrap();
        assert!(claims.ids.is_empty() && claims.per_session.is_empty());
    }

    #[test]
    fn a_session_holds_at_most_the_stdio_bound_of_requests_in_flight() {
        use super::super::stdio::MAX_IN_FLIGHT;
        let in_flight = InFlight::default();
        let mut held: Vec<Claim> = (0..MAX_IN_FLIGHT as i64)
            .map(|i| in_flight.claim("s1", &RequestId::Number(i), true).unwrap())
            .collect();
        let next = RequestId::Number(MAX_IN_FLIGHT as i64);
        assert_eq!(
            in_flight.claim("s1", &next, true).unwrap_err(),
            Unclaimed::TooMany
        );
        // `ping` is always served.
        let _ping = in_flight
            .claim("s1", &RequestId::Number(-1), false)
            .unwrap();
        // Another session is not affected; one answer makes room.
        let _other = in_flight.claim("s2", &next, true).unwrap();
        held.pop();
        let _again = in_flight.claim("s1", &next, true).unwrap();
    }

    #[tokio::test]
    async fn a_body_over_the_limit_keeps_only_its_start() {
        let body = Body::from(vec![b'x'; 100]);
        let budget = BodyBudget::default();
        match read_bounded(body, 99, &budget).await {
            Err(BodyRead::TooLong(prefix)) => {
                assert_eq!(prefix.len(), 100.min(jsonrpc::ID_PREFIX_BYTES))
            }
            other => panic!("{other:?}"),
        }
        let (whole, _share) = read_bounded(Body::from(vec![b'x'; 99]), 99, &budget)
            .await
            .unwrap();
        assert_eq!(whole.len(), 99);
    }

    #[tokio::test]
    async fn bodies_wait_for_their_share_of_the_budget_until_earlier_responses_end() {
        let budget = BodyBudget::with_bytes(4 * BUDGET_UNIT);
        let read = |len: usize| read_bounded(Body::from(vec![b'x'; len]), 1 << 20, &budget);
        let (first, first_share) = read(3 * BUDGET_UNIT).await.unwrap();
        assert_eq!(first.len(), 3 * BUDGET_UNIT);
        assert_eq!(budget.0.available_permits(), 1);
        let mut second = std::pin::pin!(read(2 * BUDGET_UNIT));
        // It cannot finish while the first body holds its share.
        assert!(futures::poll!(second.as_mut()).is_pending());
        tokio::task::yield_now().await;
        assert!(futures::poll!(second.as_mut()).is_pending());
        drop(first_share);
        let (second, _share) = second.await.unwrap();
        assert_eq!(second.len(), 2 * BUDGET_UNIT);
    }

    /// A server whose only route parses the body and answers with a
    /// stream that never ends, as a `subscriptions/listen` does, behind
    /// [`check_post_body`] with `budget`; its URL.
    async fn endless_streams(budget: BodyBudget) -> String {
        let route = axum::routing::post(|body: Bytes| async move {
            let _parsed: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
            drop(body);
            Body::from_stream(futures::stream::pending::<Result<Bytes, std::io::Error>>())
        });
        let check = BodyCheck {
            in_flight: None,
            budget,
        };
        let app = axum::Router::new()
            .route("/", route)
            .layer(axum::middleware::from_fn_with_state(check, check_post_body));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        url
    }

    /// Posts `body` over a new connection and returns it once the
    /// response's head has arrived, the response still open.
    async fn post_until_head(url: &str, body: &str) -> (tokio::net::TcpStream, String) {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let authority = url.trim_start_matches("http://").trim_end_matches('/');
        let mut stream = tokio::net::TcpStream::connect(authority).await.unwrap();
        let head = format!(
            "POST / HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(body.as_bytes()).await.unwrap();
        let mut received = Vec::new();
        while !received.windows(4).any(|w| w == b"\r\n\r\n") {
            let mut buf = [0u8; 1024];
            let n = stream.read(&mut buf).await.unwrap();
            assert!(n > 0, "the connection closed");
            received.extend_from_slice(&buf[..n]);
        }
        (stream, String::from_utf8_lossy(&received).into_owned())
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_bodys_share_returns_once_it_is_parsed_while_its_response_stays_open() {
        let budget = BodyBudget::with_bytes(100 * BUDGET_UNIT);
        let url = endless_streams(budget.clone()).await;
        // Each body takes most of the budget; the streams stay open.
        let pad = " ".repeat(90 * BUDGET_UNIT);
        let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping"{pad}}}"#);
        let mut open = Vec::new();
        for _ in 0..3 {
            // The head arrives once the body was read, within the budget;
            // the one before still holds its response open.
            let (stream, head) = tokio::time::timeout(
                std::time::Duration::from_secs(60),
                post_until_head(&url, &body),
            )
            .await
            .expect("the body still waits for the budget");
            assert!(head.starts_with("HTTP/1.1 200"), "{head}");
            assert_eq!(budget.0.available_permits(), 100, "the share came back");
            open.push(stream);
        }
        drop(open);
    }

    #[tokio::test]
    async fn bodies_of_declared_length_take_their_whole_share_before_reading() {
        // Two bodies of 3 KiB in a budget of 4 KiB, each arriving in 1 KiB
        // chunks: taken chunk by chunk, both could hold 2 KiB and wait for
        // ever; whole, one waits before it holds any.
        let budget = BodyBudget::with_bytes(4 * BUDGET_UNIT);
        let body =
            |tx: &mut Option<futures::channel::mpsc::Sender<Result<Bytes, std::io::Error>>>| {
                let (sender, receiver) = futures::channel::mpsc::channel(8);
                *tx = Some(sender);
                let stream =
                    http_body_util::StreamBody::new(receiver.map(
                        |chunk: Result<Bytes, std::io::Error>| chunk.map(http_body::Frame::data),
                    ));
                // Declares its length as a Content-Length body does.
                Body::new(Sized3k(stream))
            };
        let (mut a_tx, mut b_tx) = (None, None);
        let mut a = std::pin::pin!(read_bounded(body(&mut a_tx), 1 << 20, &budget));
        let mut b = std::pin::pin!(read_bounded(body(&mut b_tx), 1 << 20, &budget));
        assert!(futures::poll!(a.as_mut()).is_pending());
        assert!(futures::poll!(b.as_mut()).is_pending());
        // The first took its whole share; the second waits in the
        // semaphore's fair queue, which sets the rest aside for it.
        assert_eq!(budget.0.available_permits(), 0);
        let (mut a_tx, mut b_tx) = (a_tx.unwrap(), b_tx.unwrap());
        for _ in 0..3 {
            a_tx.try_send(Ok(Bytes::from(vec![b'x'; BUDGET_UNIT])))
                .unwrap();
            b_tx.try_send(Ok(Bytes::from(vec![b'y'; BUDGET_UNIT])))
                .unwrap();
        }
        drop((a_tx, b_tx));
        let (first, share) = a.await.unwrap();
        assert_eq!(first.len(), 3 * BUDGET_UNIT);
        drop(share);
        let (second, _share) = b.await.unwrap();
        assert_eq!(second.len(), 3 * BUDGET_UNIT);
    }

    /// A body stream that declares 3 KiB, as `Content-Length: 3072` does.
    struct Sized3k<S>(S);

    impl<S: http_body::Body + Unpin> http_body::Body for Sized3k<S> {
        type Data = S::Data;
        type Error = S::Error;
        fn poll_frame(
            mut self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
        ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
            std::pin::Pin::new(&mut self.0).poll_frame(cx)
        }
        fn size_hint(&self) -> http_body::SizeHint {
            http_body::SizeHint::with_exact(3 * BUDGET_UNIT as u64)
        }
    }

    #[test]
    fn error_bodies_are_json_rpc_errors() {
        let rejection = jsonrpc::check(b"[]").unwrap_err();
        let response = json_rpc_error(StatusCode::BAD_REQUEST, &rejection);
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        assert_eq!(response.headers()[header::CONTENT_TYPE], "application/json");
    }
}
