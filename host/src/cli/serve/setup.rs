//! `serve`'s first step: the engine settings, the policy file, the runtime
//! (observed by the metrics when they are served), the health state, and
//! the metrics listener.

use std::path::Path;
use std::sync::Arc;

use mcp_wasm_host::config::{Config, Profiles};
use mcp_wasm_host::runtime::store::Store;
use mcp_wasm_host::runtime::{EngineSettings, PolicySeen, Runtime};
use mcp_wasm_host::telemetry::{self, health::Health, metrics::Metrics};

use super::{ServeArgs, state};
use crate::cli::shared::{cached_runtime, load_config};

/// What the later steps serve from.
pub(super) struct Setup {
    /// The policy file as read at start.
    pub(super) config: Arc<Config>,
    /// Its profiles, replaced when it is reloaded.
    pub(super) profiles: Profiles,
    pub(super) runtime: Arc<Runtime>,
    /// Counted only when served (`--http` or `--metrics`).
    pub(super) metrics: Option<Arc<Metrics>>,
    pub(super) health: Health,
    /// The engine's per-instance memory ceiling, for reading the policy
    /// file again.
    pub(super) max_memory: u64,
    /// The policy file as it was before it was read.
    pub(super) policy_seen: Option<PolicySeen>,
    /// The Redis store the replicas share, when `[server] store` names
    /// one: the rate limits and the tasks live there.
    pub(super) shared: Option<Store>,
}

/// Reads the policy file, builds the runtime (optimizing its cache in the
/// background), and serves the metrics on their own address if asked.
pub(super) async fn setup(args: &ServeArgs) -> anyhow::Result<Setup> {
    let settings = EngineSettings {
        max_instances: args.max_instances,
        quick: args.quick_compile.into(),
        ..EngineSettings::default()
    };
    let max_memory = settings.max_memory_bytes as u64;
    // The policy file as it is before it is read: the watcher, once it
    // starts, reads it again if it was written since (a write in between is
    // read twice, never missed).
    let config_file = args.config_file();
    let policy_seen =
        PolicySeen::of(config_file.unwrap_or(Path::new(mcp_wasm_host::config::DEFAULT_FILE)));
    let config = Arc::new(load_config(config_file, max_memory)?);
    // Metrics cost a little on every call: counted only when served.
    let metrics = (args.http.http.is_some() || args.telemetry.metrics_addr.is_some())
        .then(|| Arc::new(Metrics::new()));
    let health = Health::new();
    let (store, shared) = state::open(&config, args.state_dir.as_deref())?;
    let mut runtime = cached_runtime(settings, config.clone(), &args.cache)?.with_store(store);
    if let Some(shared) = &shared {
        runtime = runtime.with_shared_limits(shared.clone());
    }
    if let Some(metrics) = &metrics {
        runtime = runtime.with_observer(metrics.clone());
    }
    let runtime = Arc::new(runtime);
    tokio::spawn({
        let runtime = runtime.clone();
        async move { runtime.optimize_in_background().await }
    });
    if let (Some(addr), Some(metrics)) = (args.telemetry.metrics_addr, &metrics) {
        let routes = metrics.routes().merge(health.routes());
        let local =
            telemetry::spawn_listener(addr, args.telemetry.metrics_allow_remote, routes).await?;
        tracing::info!(
            "metrics served at http://{local}{}",
            telemetry::metrics::PATH
        );
    }
    Ok(Setup {
        profiles: Profiles::new(config.profiles().clone()),
        config,
        runtime,
        metrics,
        health,
        max_memory,
        policy_seen,
        shared,
    })
}
