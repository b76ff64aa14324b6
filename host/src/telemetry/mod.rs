//! What the server tells its operators besides the audit log: Prometheus
//! [`metrics`] fed by the runtime's [`crate::runtime::Observer`] seam, the
//! [`health`] endpoints a load balancer or orchestrator polls (both plain
//! axum routes, served next to the MCP endpoint or on their own listener,
//! `--metrics-addr`), and OpenTelemetry [`trace`]s exported over OTLP.

pub mod health;
pub mod metrics;
pub mod trace;

use std::net::SocketAddr;

use axum::Router;

/// Why the metrics listener could not run.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// A non-loopback address without the flag that allows it.
    #[error(
        "refusing to serve metrics on {0}: it is not a loopback address and the endpoint has no authentication; pass --metrics-allow-remote to allow that"
    )]
    NotLoopback(SocketAddr),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
}

/// Binds `addr` and serves `routes` there on a task of its own until the
/// process exits; returns the address bound (with the port the kernel
/// picked for 0).
pub async fn spawn_listener(
    addr: SocketAddr,
    allow_remote: bool,
    routes: Router,
) -> Result<SocketAddr, TelemetryError> {
    if !addr.ip().is_loopback() && !allow_remote {
        return Err(TelemetryError::NotLoopback(addr));
    }
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| TelemetryError::Bind { addr, source })?;
    let local = listener
        .local_addr()
        .map_err(|source| TelemetryError::Bind { addr, source })?;
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, routes).await {
            tracing::error!("the metrics listener failed: {e}");
        }
    });
    Ok(local)
}
