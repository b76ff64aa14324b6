//! `serve`'s last step: on Ctrl-C or SIGTERM, HTTP stops being ready, then
//! stops accepting connections, and no new task is made; the requests in
//! flight and the tasks running here finish (within `--shutdown-timeout`)
//! before the sessions end and the process exits. With a shared store, a
//! task still running at the deadline is recorded `failed`, saying the
//! replica shut down, for the other replicas to read.

use std::time::Duration;

use mcp_wasm_host::mcp::protocol::tasks::{HandOver, Tasks};
use mcp_wasm_host::telemetry::health::Health;
use tokio::time::Instant;

use super::serving::Listening;

/// Drains the HTTP listener and hands `tasks` over: not ready first, then
/// no new connections or tasks; the requests in flight and the running
/// tasks finish (within `bound`) before the sessions end.
pub(super) async fn drain(
    listening: Listening,
    health: &Health,
    bound: Duration,
    tasks: &Tasks,
) -> anyhow::Result<()> {
    let Listening {
        task,
        stop_accepting,
        end_sessions,
        drain,
    } = listening;
    health.set_draining();
    stop_accepting.cancel();
    tasks.close();
    let deadline = Instant::now() + bound;
    tracing::info!(
        in_flight = drain.in_flight(),
        "shutting down: not accepting connections or making tasks; waiting up to {} s for the requests in flight and the tasks running here",
        bound.as_secs()
    );
    let http = async {
        if tokio::time::timeout_at(deadline, drain.idle())
            .await
            .is_err()
        {
            tracing::warn!(
                in_flight = drain.in_flight(),
                "requests still in flight after {} s; exiting anyway",
                bound.as_secs()
            );
        }
        end_sessions.cancel();
        // Open SSE streams end with the sessions; don't wait on a stuck client.
        match tokio::time::timeout(Duration::from_secs(5), task).await {
            Ok(Ok(result)) => result.map_err(anyhow::Error::from),
            Ok(Err(join)) => Err(join.into()),
            Err(_) => {
                tracing::warn!("HTTP connections still open after 5 s; exiting anyway");
                Ok(())
            }
        }
    };
    let (served, over) = tokio::join!(http, tasks.hand_over(deadline, bound));
    log_hand_over(over, bound);
    served
}

/// Says what became of the tasks this replica ran.
fn log_hand_over(over: HandOver, bound: Duration) {
    if over.running == 0 {
        return;
    }
    if over.dropped > 0 {
        tracing::warn!(
            tasks = over.dropped,
            "tasks end with the server: without a shared store no other server can read them"
        );
    } else if over.failed > 0 || over.unrecorded > 0 {
        tracing::warn!(
            running = over.running,
            failed = over.failed,
            unrecorded = over.unrecorded,
            "tasks still running after {} s were recorded failed, as their replica shut down (unrecorded ones read lost once their lease expires)",
            bound.as_secs()
        );
    } else {
        tracing::info!(
            tasks = over.running,
            "every task running here ended and was recorded in the shared store"
        );
    }
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
