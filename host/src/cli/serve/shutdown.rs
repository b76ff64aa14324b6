//! `serve`'s last step: on Ctrl-C or SIGTERM, HTTP stops being ready, then
//! stops accepting connections; the requests in flight finish (within
//! `--shutdown-timeout`) before the sessions end.

use std::time::Duration;

use mcp_wasm_host::telemetry::health::Health;

use super::serving::Listening;

/// Drains the HTTP listener: not ready first, then no new connections;
/// the requests in flight finish (within `bound`) before the sessions end.
pub(super) async fn drain(
    listening: Listening,
    health: &Health,
    bound: Duration,
) -> anyhow::Result<()> {
    let Listening {
        task,
        stop_accepting,
        end_sessions,
        drain,
    } = listening;
    health.set_draining();
    stop_accepting.cancel();
    tracing::info!(
        in_flight = drain.in_flight(),
        "shutting down: not accepting connections; waiting up to {} s for the requests in flight",
        bound.as_secs()
    );
    if tokio::time::timeout(bound, drain.idle()).await.is_err() {
        tracing::warn!(
            in_flight = drain.in_flight(),
            "requests still in flight after {} s; exiting anyway",
            bound.as_secs()
        );
    }
    end_sessions.cancel();
    // Open SSE streams end with the sessions; don't wait on a stuck client.
    match tokio::time::timeout(Duration::from_secs(5), task).await {
        Ok(Ok(result)) => result?,
        Ok(Err(join)) => return Err(join.into()),
        Err(_) => tracing::warn!("HTTP connections still open after 5 s; exiting anyway"),
    }
    Ok(())
}

/// Resolves on Ctrl-C or SIGTERM.
pub(super) async fn signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::warn!("cannot listen for Ctrl-C: {e}");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                tracing::warn!("cannot listen for SIGTERM: {e}");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}
