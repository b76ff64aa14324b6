//! Unit tests of `mcp::transport::http_body`.
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
    use super::super::upstream_gaps::stdio::MAX_IN_FLIGHT;
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
    let body = |tx: &mut Option<futures::channel::mpsc::Sender<Result<Bytes, std::io::Error>>>| {
        let (sender, receiver) = futures::channel::mpsc::channel(8);
        *tx = Some(sender);
        let stream = http_body_util::StreamBody::new(
            receiver.map(|chunk: Result<Bytes, std::io::Error>| chunk.map(http_body::Frame::data)),
        );
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
