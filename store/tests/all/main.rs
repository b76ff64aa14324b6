//! The store's integration tests: the conformance suite (`suite.rs`) run
//! against the embedded store and a real redis-server, the namespace
//! encoding's properties, and what only one backend has (a file that
//! survives reopening; a server that goes away and comes back).

#![allow(clippy::unwrap_used)]

mod embedded_backend;
mod layering;
mod namespaces;
mod redis_backend;
mod server;
mod suite;

/// One test per backend for each case of the suite, with the same
/// assertions.
macro_rules! conformance {
    ($($case:ident),* $(,)?) => {
        mod on_embedded {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    let dir = tempfile::tempdir().unwrap();
                    let store = mcp_wasm_host_store::Store::embedded(dir.path()).await.unwrap();
                    crate::suite::$case(&store).await;
                }
            )*
        }
        mod on_redis {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    let Some(server) = crate::server::Server::start().await else {
                        return;
                    };
                    crate::suite::$case(&server.store()).await;
                }
            )*
        }
    };
}

conformance!(
    values,
    expiry,
    listing,
    counters,
    concurrent_increments,
    compare_and_swap,
    compare_and_swap_races,
    batches,
    window,
    sizes,
    isolation,
    publish_subscribe,
    key_limits,
);
