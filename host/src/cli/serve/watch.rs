//! `serve`'s watcher: the plugins directory and the policy file, reloaded
//! when they change; a new policy fetches its own sources and replaces the
//! profiles.

use std::path::Path;
use std::sync::Arc;

use mcp_wasm_host::config::{Config, Profiles};
use mcp_wasm_host::runtime::{
    DirWatcher, PolicyFile, PolicyReloadError, PolicySeen, PolicySource, PolicyUpdate, Runtime,
    SourceFetch, WatchOptions, watch,
};
use mcp_wasm_host::source::Fetcher;

use super::fetch::{SourcesTurn, fetch_sources, served_sources};

/// What reading the policy file again needs, and what it updates besides
/// the runtime.
pub(super) struct PolicyWatch {
    /// The engine's per-instance memory ceiling.
    pub(super) max_memory: u64,
    /// The policy file as it was before it was first read.
    pub(super) seen: Option<PolicySeen>,
    /// The profiles served: a valid new policy replaces them.
    pub(super) profiles: Profiles,
}

/// Watches the plugins directory, and the policy file if there is one, and
/// reloads what changes. A watcher that cannot start is logged; the server
/// then serves what it loaded at start.
pub(super) fn start_watcher(
    runtime: &Arc<Runtime>,
    dir: &Path,
    config: &Config,
    fetcher: Option<Fetcher>,
    (sources_lock, reloads): SourcesTurn,
    PolicyWatch {
        max_memory,
        seen: policy_seen,
        profiles,
    }: PolicyWatch,
) -> Option<DirWatcher> {
    let mut options = WatchOptions::new(dir);
    if !config.is_builtin() {
        let weak = Arc::downgrade(runtime);
        options.policy = Some(PolicyFile {
            path: config.path().to_owned(),
            seen: policy_seen,
            load: Box::new(move |path| {
                let (weak, fetcher, profiles) = (weak.clone(), fetcher.clone(), profiles.clone());
                let (sources_lock, reloads) = (sources_lock.clone(), reloads.clone());
                Box::pin(async move {
                    let config = Arc::new(
                        Config::load(&path, max_memory)
                            .map_err(|e| PolicyReloadError::Invalid(e.into()))?,
                    );
                    let Some(runtime) = weak.upgrade() else {
                        return Err(PolicyReloadError::ShuttingDown);
                    };
                    // Connections bound to a profile see its new version
                    // from their next request on.
                    profiles.replace(config.profiles().clone());
                    // The start-up's fetch, if it still runs, is abandoned.
                    reloads.send_modify(|n| *n += 1);
                    let Some(fetcher) = fetcher else {
                        return Ok(PolicyUpdate::policies(config as PolicySource));
                    };
                    // Until fetched, a source keeps the version served.
                    let served = served_sources(&fetcher, &runtime);
                    let claims =
                        mcp_wasm_host::source::pending_claims(&fetcher, &config.sources(), served);
                    let fetches = !config.sources().is_empty();
                    let sources = {
                        let config = config.clone();
                        Box::pin(async move {
                            // After the start-up's fetch, if it still runs.
                            let _sources = sources_lock.lock().await;
                            match weak.upgrade() {
                                Some(runtime) => fetch_sources(&fetcher, &config, &runtime).await,
                                None => Default::default(),
                            }
                        }) as SourceFetch
                    };
                    Ok(PolicyUpdate {
                        policies: config as PolicySource,
                        claims,
                        // No source: the claims alone drop fetched plugins.
                        sources: fetches.then_some(sources),
                    })
                })
            }),
        });
    }
    match watch(runtime.clone(), options) {
        Ok(watcher) => Some(watcher),
        Err(e) => {
            tracing::error!("not watching for plugin changes: {e}");
            None
        }
    }
}
