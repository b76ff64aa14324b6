//! The runtime and its catalog's lifecycle: loading a directory or a list
//! of files, reloading and removing one file, reloading them all under new
//! policies, and swapping each new catalog in atomically while calls
//! already running finish on the one they started with.

use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use tokio::sync::{Mutex, watch as channel};

use super::cache::CompileCache;
use super::catalog::{Catalog, Generations, SkippedEntry};
use super::claims::NameClaims;
use super::concurrent::AsyncTier;
use super::engine::{self, EngineError, EngineSettings};
use super::error::LoadError;
use super::file_hash::FileHash;
use super::first_load::{FirstLists, FirstLoad};
use super::observe::{NoObserver, Observer};
use super::pending::PendingPlugin;
use super::plugin::{Loader, Plugin, plugin_name};
use super::policy::Policies;
use super::policy::PolicySource;
use super::quick::{OptimizeQueue, QuickTier};
use super::stamp::FileStamp;
use super::tool_lists::{self, ToolLists};
use super::warm::IdlePool;

mod start;

/// What loading a directory did.
#[derive(Debug, Default)]
pub struct LoadReport {
    /// Plugins that loaded, by name.
    pub loaded: Vec<String>,
    /// Files that did not load, and why.
    pub failed: Vec<LoadError>,
    /// Tools, resources, templates and prompts left out of the catalog by
    /// the naming rule, and why.
    pub skipped_tools: Vec<SkippedEntry>,
    /// Loads stopped before they ended because the server is shutting
    /// down: not failures.
    pub cancelled: usize,
}

impl LoadReport {
    /// The plugin names a policy section can match: those loaded and those
    /// whose file failed to load (a section for a plugin that failed is no
    /// typo).
    pub fn names(&self) -> Vec<String> {
        let failed = self.failed.iter().map(|e| plugin_name(e.path()));
        self.loaded.iter().cloned().chain(failed).collect()
    }

    /// Why the file `path` did not load, if it did not.
    pub fn failure(&self, path: &Path) -> Option<&LoadError> {
        self.failed.iter().find(|e| e.path() == path)
    }

    /// What the catalog left out of the plugin `plugin`.
    pub fn skipped_of<'a>(&'a self, plugin: &'a str) -> impl Iterator<Item = &'a SkippedEntry> {
        self.skipped_tools
            .iter()
            .filter(move |s| &*s.plugin == plugin)
    }
}

/// What [`Runtime::reload_file`] did.
#[derive(Debug)]
pub enum ReloadOutcome {
    /// The file loaded and its plugin is now in the catalog.
    Loaded {
        /// The plugin's name.
        plugin: String,
        /// How many tools it has.
        tools: usize,
        /// Whether it replaced a version loaded from the same path.
        replaced: bool,
        /// Whether the list of tools clients see changed.
        list_changed: bool,
        /// Tools, resources, templates and prompts left out of the new
        /// catalog by the naming rule, and why.
        skipped_tools: Vec<SkippedEntry>,
    },
    /// The file did not load; the previous version (if any) keeps serving.
    Failed(LoadError),
    /// The file changed while it was being loaded (it is still being
    /// written): nothing was swapped in. Reload it once it has settled.
    Unsettled,
    /// The file has the size and modification time of the version already
    /// loaded (the event was a read, not a write): nothing was done.
    Unchanged,
}

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
    pub(super) loader: Loader,
    policies: RwLock<PolicySource>,
    catalog: RwLock<Arc<Catalog>>,
    /// Serializes every change of the catalog (a read, a load, a swap).
    pub(super) swap: Mutex<()>,
    /// Bumped whenever the catalog's lists or plugin versions change.
    changes: channel::Sender<Generations>,
    /// How far the first load (of a directory or files) has got. Once it
    /// has listed what it can from the cached tool lists, before anything
    /// compiles, every change of the catalog is announced.
    first: FirstLoad,
    /// The cached tool lists (beside the compile cache; none without one).
    lists: Option<ToolLists>,
    /// Who counts what the runtime does.
    pub(super) observer: Arc<dyn Observer>,
    /// Plugin names only some paths may serve.
    claims: RwLock<NameClaims>,
    /// The blocking-pool share of matching long URIs against many
    /// resource templates (see [`Runtime::resource_plugin`]).
    pub(super) matching: super::offload::Lane,
    /// The plugins compiled quickly, waiting for Cranelift's code.
    pub(super) optimize: OptimizeQueue,
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
            matching: super::offload::Lane::default(),
        })
    }

    /// Keeps compiled components in `cache` (none: compile every time).
    pub fn with_cache(mut self, cache: Option<CompileCache>) -> Self {
        self.lists = cache.as_ref().map(|c| ToolLists::new(c.dir()));
        self.loader.set_cache(cache);
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

    pub(super) fn claims(&self) -> NameClaims {
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

    /// Makes `catalog` the current one and, if it differs from the previous
    /// one, tells the subscribers. Returns whether its tools differed. The
    /// plugins it brings in compiled quickly are queued for Cranelift's code.
    pub(super) fn swap_in(&self, catalog: Catalog) -> bool {
        let new = Arc::new(catalog);
        let old = std::mem::replace(
            &mut *self.catalog.write().unwrap_or_else(PoisonError::into_inner),
            new.clone(),
        );
        for plugin in new.plugins() {
            if plugin.quick && !old.plugins().iter().any(|p| Arc::ptr_eq(p, plugin)) {
                self.optimize.push(&plugin.path);
            }
        }
        let tools_changed = old.tools() != new.tools();
        self.observer.plugins_loaded(new.plugins().len());
        // Before the first load has listed the cached lists nobody has seen
        // a list (tools/list waits for it), so filling the catalog with them
        // is not a change to announce; every change after it is.
        if self.first.has(FirstLists::Cached) {
            let current = *self.changes.borrow();
            if let Some(next) = current.after(&old, &new) {
                self.changes.send_replace(next);
            }
        }
        tools_changed
    }

    /// Loads the plugin at `path` on its own task (compiling on a blocking
    /// thread), under the current policies.
    fn spawn_load(&self, path: &Path) -> tokio::task::JoinHandle<Result<Plugin, LoadError>> {
        self.spawn_load_read(path, None)
    }

    /// [`Runtime::spawn_load`], from the file as `hashed` already (if it
    /// is given: its digest and stamp).
    fn spawn_load_read(
        &self,
        path: &Path,
        hashed: Option<FileHash>,
    ) -> tokio::task::JoinHandle<Result<Plugin, LoadError>> {
        let (loader, policies, path) = (self.loader.clone(), self.policies(), path.to_owned());
        if let Some(reason) = self.claims().refusal(&plugin_name(&path), &path) {
            return tokio::spawn(async move { Err(LoadError::NameTaken { path, reason }) });
        }
        tokio::spawn(async move {
            super::pending::test_hold(&plugin_name(&path)).await;
            loader.load(&*policies, &path, hashed).await
        })
    }

    /// Loads (or loads again) the plugin file at `path`, off the request
    /// path, and swaps a catalog with it in atomically: the plugin formerly
    /// loaded from the same path is replaced, every other one stays. Calls
    /// already running finish on the catalog they started with. If the file
    /// does not load, the previous version keeps serving; if it changed while
    /// it was read ([`ReloadOutcome::Unsettled`]), nothing is swapped.
    /// `path` must be spelled as it was when first loaded (as
    /// [`Runtime::load_dir`] joins it: `dir/name.wasm`).
    #[tracing::instrument(skip(self, path), fields(path = %path.display()))]
    pub async fn reload_file(&self, path: &Path) -> ReloadOutcome {
        let _swap = self.swap.lock().await;
        let before = FileStamp::of(path);
        if before.is_some()
            && self
                .catalog()
                .plugins()
                .iter()
                .any(|p| p.path == path && p.stamp == before)
        {
            return ReloadOutcome::Unchanged;
        }
        let loaded = match self.spawn_load(path).await {
            Ok(Ok(plugin)) => {
                self.remember_list(&plugin, None).await;
                Ok(plugin)
            }
            Ok(Err(e)) => Err(e),
            Err(join) => Err(LoadError::ListTools {
                path: path.to_owned(),
                reason: format!("the loader task failed: {join}"),
            }),
        };
        if before.is_none() || FileStamp::of(path) != before {
            return ReloadOutcome::Unsettled;
        }
        let plugin = match loaded {
            Ok(plugin) => plugin,
            Err(e) => {
                self.observer.load_failed();
                self.observer.reloaded(false);
                return ReloadOutcome::Failed(e);
            }
        };
        let (name, tools) = (plugin.name.to_string(), plugin.tools.len());
        let current = self.catalog();
        let mut plugins: Vec<_> = current.plugins().to_vec();
        let before_len = plugins.len();
        plugins.retain(|p| p.path != path);
        let replaced = plugins.len() != before_len;
        plugins.push(Arc::new(plugin));
        let (catalog, skipped_tools) = Catalog::build(plugins);
        let list_changed = self.swap_in(catalog);
        self.observer.reloaded(true);
        ReloadOutcome::Loaded {
            plugin: name,
            tools,
            replaced,
            list_changed,
            skipped_tools,
        }
    }

    /// Removes the plugin loaded from `path` (spelled as for
    /// [`Runtime::reload_file`]) and its tools. Returns its name, or `None`
    /// if no plugin was loaded from there. Running calls finish.
    #[tracing::instrument(skip(self, path), fields(path = %path.display()))]
    pub async fn remove_file(&self, path: &Path) -> Option<String> {
        let _swap = self.swap.lock().await;
        let current = self.catalog();
        let removed = current
            .plugins()
            .iter()
            .find(|p| p.path == path)?
            .name
            .to_string();
        let plugins = current
            .plugins()
            .iter()
            .filter(|p| p.path != path)
            .cloned()
            .collect();
        let (catalog, _) = Catalog::build(plugins);
        self.swap_in(catalog);
        Some(removed)
    }

    /// Loads `files` again in parallel (under the current policies, after
    /// [`Runtime::set_policies`]) and swaps in a catalog of what loaded. A
    /// file that fails keeps its previous version if one was loaded, and so
    /// does a plugin whose file is not in `files`, unless the claims
    /// ([`Runtime::set_claims`]) no longer keep it.
    #[tracing::instrument(skip(self, files), fields(files = files.len()))]
    pub async fn reload_files(&self, files: &[PathBuf]) -> LoadReport {
        let _swap = self.swap.lock().await;
        let current = self.catalog();
        let (mut report, mut plugins) = self.load_parallel(files).await;
        let loaded: Vec<PathBuf> = plugins.iter().map(|p| p.path.clone()).collect();
        let claims = self.claims();
        for old in current.plugins() {
            if !loaded.contains(&old.path) && claims.keeps(&old.name, &old.path) {
                plugins.push(old.clone());
            }
        }
        let (catalog, skipped) = Catalog::build(plugins);
        report.skipped_tools = skipped;
        self.swap_in(catalog);
        self.observer.reloaded(report.failed.is_empty());
        report
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
