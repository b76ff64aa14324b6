//! `serve`'s state store: the one `[server] store` names, handed to the
//! runtime. The embedded file is opened when a plugin first uses a bucket
//! (a server whose plugins never do leaves the state directory alone, and
//! two servers of one user do not contend for the file until both use it);
//! a Redis store connects on first use and reconnects by itself. A Redis
//! store also counts the rate limits, so that replicas share them; without
//! one they count in this process, as a single server needs no round trip.

use std::path::Path;

use mcp_wasm_host::config::{Config, StoreChoice, default_state_dir};
use mcp_wasm_host::runtime::StateStore;
use mcp_wasm_host::runtime::store::Store;

/// The state store of the server that `config` and `--state-dir` describe,
/// and the store its rate limits count in when the replicas share one.
pub(super) fn open(
    config: &Config,
    state_dir: Option<&Path>,
) -> anyhow::Result<(StateStore, Option<Store>)> {
    match config.store()? {
        StoreChoice::Redis(redis, timeout) => {
            let mut store = Store::redis(redis)?;
            if let Some(timeout) = timeout {
                store = store.with_timeout(timeout);
            }
            tracing::info!(
                store = %store.name(),
                "state store; the rate limits count there, shared by the replicas"
            );
            Ok((StateStore::new(store.clone()), Some(store)))
        }
        StoreChoice::Embedded => {
            let dir = state_dir.map(Path::to_path_buf).or_else(default_state_dir);
            let Some(dir) = dir else {
                tracing::warn!(
                    "no state directory (neither --state-dir, $XDG_STATE_HOME nor $HOME is set): plugins' buckets are unavailable"
                );
                return Ok((StateStore::default(), None));
            };
            let store = StateStore::on_first_use(move || {
                let dir = dir.clone();
                async move {
                    let store = Store::embedded(&dir).await.map_err(|e| e.to_string())?;
                    tracing::info!(store = %store.name(), "state store opened");
                    Ok(store)
                }
            });
            Ok((store, None))
        }
    }
}
