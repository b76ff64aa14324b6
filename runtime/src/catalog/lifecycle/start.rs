//! Loading at start: the `*.wasm` files of a directory, listed first from
//! their cached tool lists ([`Preview`]), then loaded in parallel, each
//! loaded plugin's tool list remembered for the next start.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::*;

impl Runtime {
    /// The `*.wasm` files directly inside `dir`, sorted by name.
    pub fn plugin_files(dir: &Path) -> Result<Vec<PathBuf>, LoadError> {
        let entries = std::fs::read_dir(dir).map_err(|source| LoadError::Directory {
            path: dir.to_owned(),
            source,
        })?;
        let mut files: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "wasm") && p.is_file())
            .collect();
        files.sort();
        Ok(files)
    }

    /// Loads every `*.wasm` file in `dir` and replaces the catalog with what
    /// loaded. A file that fails is reported and left out; it never stops
    /// the others.
    #[tracing::instrument(skip(self), fields(dir = %dir.display()))]
    pub async fn load_dir(&self, dir: &Path) -> Result<LoadReport, LoadError> {
        let files = Self::plugin_files(dir)?;
        Ok(self.load_files(&files).await)
    }

    /// Loads the given files in parallel into the catalog: first the tools
    /// of those with a cached tool list (listed at once), then each plugin
    /// as its load ends, swapped in on its own (announced as a change).
    #[tracing::instrument(skip_all, fields(files = files.len()))]
    pub async fn load_files(&self, files: &[PathBuf]) -> LoadReport {
        let _swap = self.swap.lock().await;
        let previews = self.previews(files).await;
        let pending: Vec<Arc<PendingPlugin>> =
            previews.iter().filter_map(|p| p.pending.clone()).collect();
        tracing::debug!(cached = pending.len(), "listing the cached tool lists");
        self.swap_in(self.first_build(Vec::new(), pending.clone()).0);
        self.first
            .reached(FirstLists::Cached, *self.changes.borrow());
        // The plugins with no cached list: lists that wait for every plugin
        // wait for these alone.
        let mut unlisted = previews.iter().filter(|p| p.pending.is_none()).count();
        if unlisted == 0 {
            self.first
                .reached(FirstLists::EveryPlugin, *self.changes.borrow());
        }
        let mut tasks = tokio::task::JoinSet::new();
        for (index, path) in files.iter().enumerate() {
            let task = self.spawn_load_read(path, previews[index].hashed);
            tasks.spawn(async move { (index, task.await) });
        }
        let mut report = LoadReport::default();
        let mut plugins: Vec<Arc<Plugin>> = Vec::new();
        let mut pending = pending;
        while let Some(joined) = tasks.join_next().await {
            let Ok((index, result)) = joined else {
                report.cancelled += 1;
                continue;
            };
            let preview = &previews[index];
            match result {
                Ok(Ok(plugin)) => {
                    self.remember_list(&plugin, Some(preview)).await;
                    report.loaded.push(plugin.name.to_string());
                    plugins.push(Arc::new(plugin));
                }
                Ok(Err(e)) => {
                    self.observer.load_failed();
                    report.failed.push(e);
                }
                // Stopped by the runtime's shutdown: not a failure.
                Err(join) if join.is_cancelled() => report.cancelled += 1,
                Err(join) => {
                    self.observer.load_failed();
                    report.failed.push(LoadError::ListTools {
                        path: files[index].clone(),
                        reason: format!("the loader task failed: {join}"),
                    });
                }
            }
            pending.retain(|p| p.path != files[index]);
            let (catalog, skipped) = self.first_build(plugins.clone(), pending.clone());
            report.skipped_tools = skipped;
            self.swap_in(catalog);
            if let Some(done) = &preview.done {
                done.send_replace(true);
            }
            if preview.pending.is_none() {
                unlisted -= 1;
                if unlisted == 0 {
                    self.first
                        .reached(FirstLists::EveryPlugin, *self.changes.borrow());
                }
            }
        }
        if report.cancelled > 0 {
            return report;
        }
        self.first
            .reached(FirstLists::Loaded, *self.changes.borrow());
        report
    }

    /// For each of `files` (read and hashed on the blocking pool, in
    /// parallel; nothing is compiled): its cached tool list's key, and the
    /// plugin listed from that list if there is one.
    async fn previews(&self, files: &[PathBuf]) -> Vec<Preview> {
        let tasks: Vec<_> = files
            .iter()
            .map(|path| {
                let (lists, policies) = (self.lists.clone(), self.policies());
                let refused = self.claims().refusal(&plugin_name(path), path).is_some();
                let path = path.clone();
                tokio::task::spawn_blocking(move || match lists {
                    Some(lists) if !refused => Preview::of(&lists, &*policies, path),
                    _ => Preview::default(),
                })
            })
            .collect();
        let mut previews = Vec::with_capacity(tasks.len());
        for task in tasks {
            previews.push(task.await.unwrap_or_default());
        }
        previews
    }

    /// Stores the tool list of `plugin`, just loaded, in the tool-list
    /// cache, unless `preview` (what the first load found for its file)
    /// already holds that very list. Skipped if the file changed since.
    pub(super) async fn remember_list(&self, plugin: &Plugin, preview: Option<&Preview>) {
        let Some(lists) = self.lists.clone() else {
            return;
        };
        let list = tool_lists::of(plugin);
        if let Some(preview) = preview
            && preview.stamp.is_some()
            && preview.stamp == plugin.stamp
        {
            let Some(key) = preview.key else { return };
            if preview.pending.as_ref().is_some_and(|p| p.tools == list) {
                return;
            }
            let name = plugin.name.clone();
            let _ = tokio::task::spawn_blocking(move || lists.put(&key, &list, &name)).await;
            return;
        }
        let (path, policy, stamp, name) = (
            plugin.path.clone(),
            plugin.policy.clone(),
            plugin.stamp,
            plugin.name.clone(),
        );
        let _ = tokio::task::spawn_blocking(move || {
            let Some(hashed) = FileHash::of(&path) else {
                return;
            };
            if stamp.is_none() || hashed.stamp != stamp {
                return;
            }
            if let Some(key) = ToolLists::key(&hashed.file, &policy) {
                lists.put(&key, &list, &name);
            }
        })
        .await;
    }

    /// Loads `files` in parallel; the catalog is left alone.
    pub(super) async fn load_parallel(&self, files: &[PathBuf]) -> (LoadReport, Vec<Arc<Plugin>>) {
        let tasks: Vec<_> = files.iter().map(|path| self.spawn_load(path)).collect();
        let mut report = LoadReport::default();
        let mut plugins = Vec::new();
        for (task, path) in tasks.into_iter().zip(files) {
            match task.await {
                Ok(Ok(p)) => {
                    report.loaded.push(p.name.to_string());
                    plugins.push(Arc::new(p));
                }
                Ok(Err(e)) => report.failed.push(e),
                Err(join) if join.is_cancelled() => report.cancelled += 1,
                Err(join) => report.failed.push(LoadError::ListTools {
                    path: path.clone(),
                    reason: format!("the loader task failed: {join}"),
                }),
            }
        }
        for _ in &report.failed {
            self.observer.load_failed();
        }
        (report, plugins)
    }
}

/// What the first load found for one file before compiling it.
#[derive(Debug, Default)]
pub(super) struct Preview {
    /// The key of its cached tool list (`None`: not cacheable).
    key: Option<crate::cache::Sha256Digest>,
    /// The file's stamp when it was hashed.
    stamp: Option<FileStamp>,
    /// The plugin listed from its cached tool list, if there was one.
    pending: Option<Arc<PendingPlugin>>,
    /// Ends `pending`'s wait.
    done: Option<channel::Sender<bool>>,
    /// The file's digest and stamp, for its load.
    hashed: Option<FileHash>,
}

impl Preview {
    /// Reads and hashes the file at `path` and looks its list up. Anything
    /// that fails leaves the plugin to be listed once it has loaded.
    fn of(lists: &ToolLists, policies: &dyn Policies, path: PathBuf) -> Preview {
        let name = plugin_name(&path);
        let Ok(policy) = policies.policy_for(&name) else {
            return Preview::default();
        };
        let Some(hashed) = FileHash::of(&path) else {
            return Preview::default();
        };
        // A pinned file is previewed only when its remembered SHA-256 is
        // the pinned one (one with another digest will be refused).
        if let Some(pin) = policy.sha256
            && crate::cache::file_digests::get(lists.dir(), &hashed.file, &name) != Some(pin)
        {
            return Preview::default();
        }
        let Some(key) = ToolLists::key(&hashed.file, &policy) else {
            return Preview::default();
        };
        let mut preview = Preview {
            key: Some(key),
            stamp: hashed.stamp,
            hashed: Some(hashed),
            ..Preview::default()
        };
        if let Some(tools) = lists.get(&key, &name) {
            let (done, waiting) = channel::channel(false);
            preview.pending = Some(Arc::new(PendingPlugin {
                name: name.into(),
                path,
                policy: Arc::new(policy),
                tools,
                done: waiting,
            }));
            preview.done = Some(done);
        }
        preview
    }
}
