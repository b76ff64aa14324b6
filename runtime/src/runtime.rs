//! [`Runtime`]: what an embedder builds, loads plugins into and calls. This
//! file holds the struct, its construction and its plain accessors; the
//! rest of its methods live with the stage they belong to:
//!
//! | methods | file |
//! |---|---|
//! | `new`, `with_cache`, `with_store`, `with_observer`, `catalog`, `policies`, `set_policies`, `set_claims`, `subscribe_changes`, `ready_instances`, `wait_until_loaded`, `wait_until_listed`, `wait_for_lists` | here |
//! | `plugin_files`, `load_dir`, `load_files` (the first load) | `catalog/lifecycle/start.rs` |
//! | `reload_file`, `remove_file`, `reload_files`, `swap_in` | `catalog/lifecycle/mod.rs` |
//! | `apply_sources`, `claimed_files` (plugins fetched from sources) | `catalog/fetched.rs` |
//! | `wait_for_tool` (a call waiting for its plugin to load) | `catalog/awaiting.rs` |
//! | `optimize_in_background` (Winch's code replaced by Cranelift's) | `catalog/optimize.rs` |
//! | `inspect` (one file looked at, not served) | `load/inspection.rs` |
//! | `call`, `call_as` (a tool call admitted and run) | `serve/tools.rs`, through `serve/admission.rs` |
//! | `read_resource`, `resource_plugin`, `get_prompt`, `complete` | `serve/optional_exports.rs`, through `serve/admission.rs` |

use std::sync::{Arc, PoisonError, RwLock};

use tokio::sync::{Mutex, watch as channel};

use crate::cache::CompileCache;
use crate::cache::tool_lists::ToolLists;
use crate::call::offload::Lane;
use crate::call::warm::IdlePool;
use crate::catalog::claims::NameClaims;
use crate::catalog::first_load::{FirstLists, FirstLoad};
use crate::catalog::{Catalog, Generations};
use crate::load::concurrent::AsyncTier;
use crate::load::engine::{self, EngineError, EngineSettings};
use crate::load::plugin::Loader;
use crate::load::quick::{OptimizeQueue, QuickTier};
use crate::observe::{NoObserver, Observer};
use crate::policy::PolicySource;

/// Errors creating a runtime.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// The engine could not be built.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The host functions could not be linked.
    #[error("cannot set up the host functions: {0}")]
    Linker(String),
}

/// Loads plugins and runs their tools.
pub struct Runtime {
    /// What loading a plugin takes: the engine, the compile cache, the
    /// host functions and the pool of idle instances.
    pub(crate) loader: Loader,
    policies: RwLock<PolicySource>,
    pub(crate) catalog: RwLock<Arc<Catalog>>,
    /// Serializes every change of the catalog (a read, a load, a swap).
    pub(crate) swap: Mutex<()>,
    /// Bumped whenever the catalog's lists or plugin versions change.
    pub(crate) changes: channel::Sender<Generations>,
    /// How far the first load (of a directory or files) has got. Once it
    /// has listed what it can from the cached tool lists, before anything
    /// compiles, every change of the catalog is announced.
    pub(crate) first: FirstLoad,
    /// The cached tool lists (beside the compile cache; none without one).
    pub(crate) lists: Option<ToolLists>,
    /// Who counts what the runtime does.
    pub(crate) observer: Arc<dyn Observer>,
    /// Plugin names only some paths may serve.
    claims: RwLock<NameClaims>,
    /// The blocking-pool share of matching long URIs against many
    /// resource templates (see [`Runtime::resource_plugin`]).
    pub(crate) matching: Lane,
    /// The plugins compiled quickly, waiting for Cranelift's code.
    pub(crate) optimize: OptimizeQueue,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime").finish_non_exhaustive()
    }
}

impl Runtime {
    /// A runtime with no plugins, whose plugins get their policies from
    /// `policies`.
    pub fn new(settings: &EngineSettings, policies: PolicySource) -> Result<Self, RuntimeError> {
        let engine = engine::build(settings)?;
        let linker =
            engine::host_linker(&engine).map_err(|e| RuntimeError::Linker(format!("{e:#}")))?;
        let idle = IdlePool::new(IdlePool::capacity_for(settings.max_instances));
        let mut loader = Loader::new(engine, linker, idle, AsyncTier::new(settings));
        loader.set_quick(QuickTier::new(settings));
        Ok(Runtime {
            loader,
            optimize: OptimizeQueue::default(),
            policies: RwLock::new(policies),
            catalog: RwLock::new(Arc::new(Catalog::default())),
            swap: Mutex::new(()),
            changes: channel::Sender::new(Generations::default()),
            first: FirstLoad::default(),
            lists: None,
            observer: Arc::new(NoObserver),
            claims: RwLock::new(NameClaims::default()),
            matching: Lane::default(),
        })
    }

    /// Keeps compiled components in `cache` (none: compile every time).
    pub fn with_cache(mut self, cache: Option<CompileCache>) -> Self {
        self.lists = cache.as_ref().map(|c| ToolLists::new(c.dir()));
        self.loader.set_cache(cache);
        self
    }

    /// Keeps the plugins' `wasi:keyvalue` buckets in `store` (without one,
    /// every bucket is unavailable).
    pub fn with_store(mut self, store: crate::state::StateStore) -> Self {
        self.loader.set_store(store);
        self
    }

    /// Counts the plugins' rate limits (`rate_limit`, and
    /// `client_rate_limit` for callers with an OAuth subject) in `store`,
    /// which the replicas of a cluster share, instead of in this process.
    /// Call it before the first load.
    pub fn with_shared_limits(mut self, store: mcp_wasm_host_store::Store) -> Self {
        self.loader
            .set_counting(crate::serve::rate::Counting::shared(store));
        self
    }

    /// Reports every call's end, the calls waiting and running, and the
    /// loads and reloads of plugins to `observer` (by default nobody).
    pub fn with_observer(mut self, observer: Arc<dyn Observer>) -> Self {
        self.observer = observer;
        self
    }

    /// The ready instances (fresh, never used, made ahead of a call) of
    /// the plugin that serves `tool` now; 0 for a tool no plugin serves.
    pub fn ready_instances(&self, tool: &str) -> usize {
        self.catalog()
            .get(tool)
            .map_or(0, |(_, target)| target.plugin.idle.ready())
    }

    /// The current catalog. It stays valid, whatever is loaded later.
    pub fn catalog(&self) -> Arc<Catalog> {
        self.catalog
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The policies plugins load under.
    pub fn policies(&self) -> PolicySource {
        self.policies
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Replaces the policies; plugins loaded from now on get theirs from
    /// `policies` (loaded ones keep the policy they were loaded with).
    pub fn set_policies(&self, policies: PolicySource) {
        *self
            .policies
            .write()
            .unwrap_or_else(PoisonError::into_inner) = policies;
    }

    /// Replaces the claimed plugin names: from now on a file whose plugin
    /// takes a claimed name loads only from a path its claim lists, and a
    /// reload drops the plugins the claims no longer keep.
    pub fn set_claims(&self, claims: NameClaims) {
        *self.claims.write().unwrap_or_else(PoisonError::into_inner) = claims;
    }

    pub(crate) fn claims(&self) -> NameClaims {
        self.claims
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// A receiver that sees new counters each time the catalog changes: its
    /// tools, resources or prompts, or the versions of its plugins (see
    /// [`Generations`]); several changes may coalesce into one.
    pub fn subscribe_changes(&self) -> channel::Receiver<Generations> {
        self.changes.subscribe()
    }

    /// Waits until the first load is done: every plugin loaded or failed.
    pub async fn wait_until_loaded(&self) {
        self.first.wait(FirstLists::Loaded).await;
    }

    /// Waits until the first load has listed the plugins it found cached
    /// tool lists for (it reads and hashes the files, and compiles
    /// nothing): from then on what has loaded and what is listed from the
    /// cache can be listed; the rest appears with `list_changed`.
    pub async fn wait_until_listed(&self) {
        self.first.wait(FirstLists::Cached).await;
    }

    /// Waits until the first load has reached `point`, and returns the
    /// generations of the catalog then: changes after them are the ones a
    /// client answered from then on has not seen.
    pub async fn wait_for_lists(&self, point: FirstLists) -> Generations {
        self.first.wait(point).await
    }
}
