//! The policy's sources, fetched and applied: at start (`sources`) and on
//! every policy reload (`watch`), one at a time.

use std::path::PathBuf;
use std::sync::Arc;

use mcp_wasm_host::config::Config;
use mcp_wasm_host::runtime::{Runtime, SourcesUpdate};
use mcp_wasm_host::source::Fetcher;

/// Held while the start-up's sources are fetched and applied, so a policy
/// reload's fetch never interleaves with it; a valid policy reload bumps
/// the counter, which abandons the start-up's fetch.
pub(super) type SourcesTurn = (Arc<tokio::sync::Mutex<()>>, tokio::sync::watch::Sender<u64>);

/// For each sourced plugin name, the fetched files `runtime` serves it
/// from now (what a source that is still fetching, or fails, keeps).
pub(super) fn served_sources(
    fetcher: &Fetcher,
    runtime: &Runtime,
) -> impl Fn(&str) -> std::collections::BTreeSet<PathBuf> + use<> {
    let catalog = runtime.catalog();
    let managed = fetcher.store().plugins_dir();
    move |name| {
        catalog
            .plugins()
            .iter()
            .filter(|p| &*p.name == name && p.path.starts_with(&managed))
            .map(|p| p.path.clone())
            .collect()
    }
}

/// Fetches the policy's sources, logging each failure (a failed source
/// keeps the version already served, if any); what comes back is applied
/// with [`Runtime::apply_sources`], at start and on every policy reload.
pub(super) async fn fetch_sources(
    fetcher: &Fetcher,
    config: &Config,
    runtime: &Runtime,
) -> SourcesUpdate {
    let resolution = mcp_wasm_host::source::resolve_all(
        fetcher,
        &config.sources(),
        served_sources(fetcher, runtime),
    )
    .await;
    for (name, e) in &resolution.failed {
        tracing::error!(
            "skipped plugin {name}: `plugins.{name}.source` in {}: {e}; the version already served, if any, keeps serving",
            config.path().display()
        );
    }
    SourcesUpdate {
        files: resolution.files(),
        origins: resolution
            .sourced
            .iter()
            .map(|s| {
                let origin = format!("plugin {} (source {})", s.name, s.fetched.source);
                (s.file.clone(), origin)
            })
            .collect(),
        failed: resolution.failed.len(),
        claims: resolution.claims,
    }
}
