//! `/healthz` and `/readyz`: alive while the process answers; ready once
//! the first load of the plugins has finished, and not ready again from the
//! moment a shutdown begins (so a load balancer stops sending new requests
//! while the calls in flight finish).

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use axum::Router;
use axum::http::StatusCode;
use axum::routing::get;

/// The liveness path.
pub const HEALTHZ: &str = "/healthz";
/// The readiness path.
pub const READYZ: &str = "/readyz";

const LOADING: u8 = 0;
const READY: u8 = 1;
const DRAINING: u8 = 2;

/// The server's readiness, shared by the loader, the shutdown path and the
/// endpoints.
#[derive(Debug, Clone, Default)]
pub struct Health(Arc<AtomicU8>);

impl Health {
    /// A server still loading its plugins.
    pub fn new() -> Health {
        Health::default()
    }

    /// The first load has finished (unless a shutdown already began).
    pub fn set_loaded(&self) {
        let _ = self
            .0
            .compare_exchange(LOADING, READY, Ordering::SeqCst, Ordering::SeqCst);
    }

    /// A shutdown began: not ready from now on.
    pub fn set_draining(&self) {
        self.0.store(DRAINING, Ordering::SeqCst);
    }

    /// The readiness answer: its status and body.
    fn readiness(&self) -> (StatusCode, &'static str) {
        match self.0.load(Ordering::SeqCst) {
            READY => (StatusCode::OK, "ready\n"),
            DRAINING => (StatusCode::SERVICE_UNAVAILABLE, "draining\n"),
            _ => (StatusCode::SERVICE_UNAVAILABLE, "loading\n"),
        }
    }

    /// `/healthz` and `/readyz`.
    pub fn routes(&self) -> Router {
        let health = self.clone();
        Router::new()
            .route(HEALTHZ, get(|| async { "ok\n" }))
            .route(
                READYZ,
                get(move || {
                    let health = health.clone();
                    async move { health.readiness() }
                }),
            )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ready_after_the_load_and_never_again_once_draining() {
        let h = Health::new();
        assert_eq!(h.readiness().0, StatusCode::SERVICE_UNAVAILABLE);
        h.set_loaded();
        assert_eq!(h.readiness().0, StatusCode::OK);
        h.set_draining();
        assert_eq!(
            h.readiness(),
            (StatusCode::SERVICE_UNAVAILABLE, "draining\n")
        );
        h.set_loaded();
        assert_eq!(h.readiness().0, StatusCode::SERVICE_UNAVAILABLE);
    }
}
