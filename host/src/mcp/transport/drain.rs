//! Counts the HTTP requests in flight, responses included, so that a
//! shutdown can stop accepting connections and then wait for the calls
//! already made to answer before it ends the sessions.
//!
//! A request counts from its arrival until its response body is dropped:
//! when it was sent in full, or the client went away. A `GET` (a session's
//! event stream, open until the session ends) does not count.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;
use futures::StreamExt as _;
use tokio::sync::Notify;

/// The requests in flight.
#[derive(Debug, Clone, Default)]
pub struct Drain(Arc<Shared>);

#[derive(Debug, Default)]
struct Shared {
    in_flight: AtomicUsize,
    idle: Notify,
}

/// One request in flight, until dropped.
struct InFlight(Arc<Shared>);

impl Drop for InFlight {
    fn drop(&mut self) {
        if self.0.in_flight.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

impl Drain {
    /// Nothing in flight yet.
    pub fn new() -> Drain {
        Drain::default()
    }

    /// How many requests are in flight.
    pub fn in_flight(&self) -> usize {
        self.0.in_flight.load(Ordering::SeqCst)
    }

    /// Resolves once no request is in flight.
    pub async fn idle(&self) {
        loop {
            let idle = self.0.idle.notified();
            tokio::pin!(idle);
            idle.as_mut().enable();
            if self.in_flight() == 0 {
                return;
            }
            idle.await;
        }
    }

    fn enter(&self) -> InFlight {
        self.0.in_flight.fetch_add(1, Ordering::SeqCst);
        InFlight(self.0.clone())
    }
}

/// The middleware: counts every request but a `GET` until its response
/// body is dropped.
pub async fn track(State(drain): State<Drain>, request: Request, next: Next) -> Response {
    if request.method() == Method::GET {
        return next.run(request).await;
    }
    let guard = drain.enter();
    let response = next.run(request).await;
    let (parts, body) = response.into_parts();
    let body = body.into_data_stream().map(move |chunk| {
        let _held = &guard;
        chunk
    });
    Response::from_parts(parts, Body::from_stream(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn idle_waits_for_the_last_request() {
        let drain = Drain::new();
        drain.idle().await;
        let (first, second) = (drain.enter(), drain.enter());
        let waiter = tokio::spawn({
            let drain = drain.clone();
            async move { drain.idle().await }
        });
        drop(first);
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished(), "one request is still in flight");
        drop(second);
        waiter.await.unwrap();
        assert_eq!(drain.in_flight(), 0);
    }
}
