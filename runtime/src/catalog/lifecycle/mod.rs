//! The catalog's lifecycle: loading a directory or a list of files (in
//! `start`), reloading and removing one file, reloading them all under new
//! policies, and swapping each new catalog in atomically while calls
//! already running finish on the one they started with.

use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError};

use tokio::sync::watch as channel;

use crate::cache::tool_lists::{self, ToolLists};
use crate::catalog::first_load::FirstLists;
use crate::catalog::pending::PendingPlugin;
use crate::catalog::{Catalog, SkippedEntry};
use crate::error::LoadError;
use crate::load::file_hash::FileHash;
use crate::load::plugin::{Plugin, plugin_name};
use crate::load::stamp::FileStamp;
use crate::policy::Policies;
use crate::runtime::Runtime;

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

impl Runtime {
    /// A catalog of `plugins` (and of `pending`, from their cached lists)
    /// to replace the current one: clashing tool names follow the
    /// policies' `tool_clash`, and whoever kept a name keeps it.
    pub(crate) fn rebuild(
        &self,
        plugins: Vec<Arc<Plugin>>,
        pending: Vec<Arc<PendingPlugin>>,
    ) -> (Catalog, Vec<SkippedEntry>) {
        let clash = self.policies().tool_clash();
        let before = self.catalog();
        Catalog::build_with(plugins, pending, clash, Some(&before))
    }

    /// [`Runtime::rebuild`] for the first load, whose plugins end in any
    /// order: a clashing name goes to the file that sorts first, not to
    /// whichever plugin happened to load first.
    pub(crate) fn first_build(
        &self,
        plugins: Vec<Arc<Plugin>>,
        pending: Vec<Arc<PendingPlugin>>,
    ) -> (Catalog, Vec<SkippedEntry>) {
        Catalog::build_with(plugins, pending, self.policies().tool_clash(), None)
    }

    /// Makes `catalog` the current one and, if it differs from the previous
    /// one, tells the subscribers. Returns whether its tools differed. The
    /// plugins it brings in compiled quickly are queued for Cranelift's code.
    pub(crate) fn swap_in(&self, catalog: Catalog) -> bool {
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
            crate::catalog::pending::test_hold(&plugin_name(&path)).await;
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
        let (catalog, skipped_tools) = self.rebuild(plugins, Vec::new());
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
        let (catalog, _) = self.rebuild(plugins, Vec::new());
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
        let (catalog, skipped) = self.rebuild(plugins, Vec::new());
        report.skipped_tools = skipped;
        self.swap_in(catalog);
        self.observer.reloaded(report.failed.is_empty());
        report
    }
}
