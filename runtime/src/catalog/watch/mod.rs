//! Watching the plugins directory (and the policy file) and reloading what
//! changed, off the request path.
//!
//! File system events come from `notify`, debounced by
//! `notify-debouncer-mini` ([`WatchOptions::debounce`]). A changed path is
//! then left to settle: its size and modification time must be the same in
//! two looks [`WatchOptions::settle`] apart, with no event in between, before
//! anything reads it, so a file still being copied is never loaded half
//! written. [`Runtime::reload_file`] checks once more that the file did not
//! change while it was loaded. A `*.wasm` file that appeared or changed is
//! loaded and swapped in ([`Runtime::reload_file`]); one that is gone is
//! removed ([`Runtime::remove_file`]). A changed policy file is read again
//! with [`PolicyFile::load`]; if it is valid every plugin is loaded again
//! under it, and if not the old policy stays. Failures are logged (one line
//! naming the file and the reason) and the previous version keeps serving.
//!
//! The plugins a policy fetches ([`PolicyUpdate::sources`]) are fetched on
//! their own task, so the watcher keeps handling the plugins directory
//! meanwhile; the result is swapped in ([`Runtime::apply_sources`]) when it
//! is ready. A newer policy supersedes a fetch still running: that fetch is
//! aborted and only the newest policy's result is ever applied.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use notify::RecursiveMode;
use notify_debouncer_mini::{DebounceEventResult, Debouncer, new_debouncer};
use tokio::sync::mpsc;

use crate::call::events::BoxFuture;
use crate::catalog::claims::NameClaims;
use crate::catalog::fetched::SourcesUpdate;
use crate::catalog::lifecycle::ReloadOutcome;
use crate::load::stamp::FileStamp;
use crate::policy::PolicySource;
use crate::runtime::Runtime;

/// The fetch of a policy's plugin sources, run on its own task.
pub type SourceFetch = BoxFuture<'static, SourcesUpdate>;

/// What reading the policy file again gives.
pub struct PolicyUpdate {
    /// The new policies.
    pub policies: PolicySource,
    /// The plugin names the policy's sources take while they are fetched.
    pub claims: NameClaims,
    /// The fetch of the policy's sources, if it names any.
    pub sources: Option<SourceFetch>,
}

impl std::fmt::Debug for PolicyUpdate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PolicyUpdate")
            .field("claims", &self.claims)
            .field("sources", &self.sources.is_some())
            .finish_non_exhaustive()
    }
}

impl PolicyUpdate {
    /// Just new policies: no claims, nothing to fetch.
    pub fn policies(policies: PolicySource) -> Self {
        PolicyUpdate {
            policies,
            claims: NameClaims::default(),
            sources: None,
        }
    }
}

/// The policy file as read: its stamp and a digest of its bytes. Both, as
/// the stamp alone misses a rewrite of the same length within one tick of
/// the file system's clock, and the bytes alone miss a `touch`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicySeen {
    stamp: FileStamp,
    digest: [u8; 32],
}

impl PolicySeen {
    /// The file at `path` now, or `None` if it cannot be read.
    pub fn of(path: &Path) -> Option<PolicySeen> {
        use sha2::Digest;
        let stamp = FileStamp::of(path)?;
        let bytes = std::fs::read(path).ok()?;
        Some(PolicySeen {
            stamp,
            digest: sha2::Sha256::digest(&bytes).into(),
        })
    }
}

/// A policy's fetch still running; dropping it aborts the fetch.
struct PendingFetch {
    /// Which policy reload started it.
    generation: u64,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for PendingFetch {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Why the policy file was not read again.
#[derive(Debug, thiserror::Error)]
pub enum PolicyReloadError {
    /// The file cannot be read, or is invalid.
    #[error(transparent)]
    Invalid(Box<dyn std::error::Error + Send + Sync>),
    /// The server is stopping; there is nothing to apply the policy to.
    #[error("the server is shutting down")]
    ShuttingDown,
}

/// Reads the policy file again (and fetches what it names).
pub type PolicyLoader = Box<
    dyn Fn(PathBuf) -> BoxFuture<'static, Result<PolicyUpdate, PolicyReloadError>> + Send + Sync,
>;

/// A policy file to watch, and how to read it.
pub struct PolicyFile {
    /// The file.
    pub path: PathBuf,
    /// Reads and validates it; the error says why it is invalid.
    pub load: PolicyLoader,
    /// The file as it was just before the policies served were read from
    /// it: if it differs when the watcher starts, it was written since
    /// (before any event could be seen) and is read again at once.
    pub seen: Option<PolicySeen>,
}

impl PolicyFile {
    /// Whether the file differs from what was read at start ([`Self::seen`]).
    fn changed(&self) -> bool {
        PolicySeen::of(&self.path) != self.seen
    }
}

impl std::fmt::Debug for PolicyFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PolicyFile")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// What to watch.
#[derive(Debug)]
pub struct WatchOptions {
    /// The plugins directory, spelled as it was given to
    /// [`Runtime::load_dir`].
    pub dir: PathBuf,
    /// The policy file, if the server has one.
    pub policy: Option<PolicyFile>,
    /// How long a path must be quiet before its events are reported.
    pub debounce: Duration,
    /// The time between the two looks at a file that must agree before it
    /// is read.
    pub settle: Duration,
}

impl WatchOptions {
    /// Watch `dir` with the default timings (250 ms debounce, 200 ms
    /// settle) and no policy file.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        WatchOptions {
            dir: dir.into(),
            policy: None,
            debounce: Duration::from_millis(250),
            settle: Duration::from_millis(200),
        }
    }
}

/// Errors starting a watcher.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// The directory (or the policy file's directory) cannot be watched.
    #[error("cannot watch {}: {source}", path.display())]
    Watch {
        /// What was to be watched.
        path: PathBuf,
        /// notify's explanation.
        source: notify::Error,
    },
    /// The watcher could not start.
    #[error("cannot start the file watcher: {0}")]
    Start(#[from] notify::Error),
}

/// A running watcher. Dropping it stops watching.
pub struct DirWatcher {
    _debouncer: Debouncer<notify::RecommendedWatcher>,
    task: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for DirWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirWatcher").finish_non_exhaustive()
    }
}

impl Drop for DirWatcher {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Starts watching `options.dir` (and the policy file) and reloading
/// `runtime`'s plugins as they change. Must be called within a tokio
/// runtime.
pub fn watch(runtime: Arc<Runtime>, options: WatchOptions) -> Result<DirWatcher, WatchError> {
    let (tx, rx) = mpsc::unbounded_channel();
    let (fetched_tx, fetched_rx) = mpsc::unbounded_channel();
    let mut debouncer = new_debouncer(options.debounce, move |result: DebounceEventResult| {
        // A send fails only once the watcher task is gone.
        let _ = tx.send(result);
    })?;
    let dir_key = canonical(&options.dir);
    let mut watched = vec![dir_key.clone()];
    debouncer
        .watcher()
        .watch(&options.dir, RecursiveMode::NonRecursive)
        .map_err(|source| WatchError::Watch {
            path: options.dir.clone(),
            source,
        })?;
    let mut policy_key = None;
    if let Some(file) = &options.policy {
        let parent = parent_of(&file.path);
        let key = canonical(&parent);
        if !watched.contains(&key) {
            debouncer
                .watcher()
                .watch(&parent, RecursiveMode::NonRecursive)
                .map_err(|source| WatchError::Watch {
                    path: parent.clone(),
                    source,
                })?;
            watched.push(key.clone());
        }
        if let Some(name) = file.path.file_name() {
            policy_key = Some((key, name.to_owned()));
        }
    }
    let task = tokio::spawn(
        Watch {
            runtime,
            classifier: Classifier {
                dir: options.dir,
                dir_key,
                policy: policy_key,
            },
            policy_seen: options.policy.as_ref().and_then(|f| f.seen.clone()),
            policy_pending: options.policy.as_ref().is_some_and(PolicyFile::changed),
            policy: options.policy,
            settle: options.settle,
            pending: BTreeSet::new(),
            generation: 0,
            fetch: None,
            fetched: fetched_tx,
        }
        .run(rx, fetched_rx),
    );
    tracing::info!(dir = %watched[0].display(), "watching the plugins directory");
    Ok(DirWatcher {
        _debouncer: debouncer,
        task,
    })
}

/// The directory a file is in (`.` for a bare file name).
fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// `path` made absolute and free of symlinks, or as it is if that fails.
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
}

/// The link a Kubernetes ConfigMap or Secret volume swaps to replace all of
/// its files at once: the policy file there is a link through it, so the
/// file itself never changes and only this link does.
const KUBERNETES_DATA_LINK: &str = "..data";

/// Which changed paths matter: plugin files and the policy file.
struct Classifier {
    /// The plugins directory as given.
    dir: PathBuf,
    /// The plugins directory, canonical.
    dir_key: PathBuf,
    /// The policy file's directory (canonical) and file name.
    policy: Option<(PathBuf, std::ffi::OsString)>,
}

impl Classifier {
    /// Adds the plugin files (`dir/name.wasm`) of a batch of debounced
    /// events to `files`; returns whether the policy file is among them.
    fn note(&self, batch: DebounceEventResult, files: &mut BTreeSet<PathBuf>) -> bool {
        let events = match batch {
            Ok(events) => events,
            Err(e) => {
                tracing::warn!("file watcher error: {e}");
                return false;
            }
        };
        let mut policy = false;
        for event in events {
            let Some(name) = event.path.file_name() else {
                continue;
            };
            let parent = canonical(&parent_of(&event.path));
            if let Some((key, file)) = &self.policy
                && *key == parent
                && (file == name || name == KUBERNETES_DATA_LINK)
            {
                policy = true;
                continue;
            }
            if parent == self.dir_key && Path::new(name).extension().is_some_and(|e| e == "wasm") {
                files.insert(self.dir.join(name));
            }
        }
        policy
    }
}

/// The watcher task's state.
struct Watch {
    runtime: Arc<Runtime>,
    classifier: Classifier,
    policy: Option<PolicyFile>,
    settle: Duration,
    /// Plugin files that changed and are not handled yet.
    pending: BTreeSet<PathBuf>,
    /// The policy file changed and is not handled yet.
    policy_pending: bool,
    /// The policy file as it was last read.
    policy_seen: Option<PolicySeen>,
    /// How many valid policies were read again.
    generation: u64,
    /// The newest policy's fetch, while it runs.
    fetch: Option<PendingFetch>,
    /// Where a finished fetch sends its result, with its generation.
    fetched: mpsc::UnboundedSender<(u64, SourcesUpdate)>,
}

impl Watch {
    async fn run(
        mut self,
        mut events: mpsc::UnboundedReceiver<DebounceEventResult>,
        mut fetched: mpsc::UnboundedReceiver<(u64, SourcesUpdate)>,
    ) {
        loop {
            while let Ok((generation, update)) = fetched.try_recv() {
                self.apply_fetched(generation, update).await;
            }
            if self.pending.is_empty() && !self.policy_pending {
                tokio::select! {
                    batch = events.recv() => match batch {
                        Some(batch) => self.note(batch),
                        None => return,
                    },
                    Some((generation, update)) = fetched.recv() => {
                        self.apply_fetched(generation, update).await;
                        continue;
                    }
                }
            }
            while let Ok(batch) = events.try_recv() {
                self.note(batch);
            }
            // Settle: two looks `settle` apart must agree, with no event for
            // the path in between.
            let first = self.stamps();
            tokio::time::sleep(self.settle).await;
            let mut touched = BTreeSet::new();
            let mut policy_touched = false;
            while let Ok(batch) = events.try_recv() {
                policy_touched |= self.classifier.note(batch, &mut touched);
            }
            let second = self.stamps();
            let settled: Vec<PathBuf> = first
                .into_iter()
                .zip(second)
                .filter(|((path, a), (_, b))| a == b && !touched.contains(path))
                .map(|((path, _), _)| path)
                .collect();
            let policy_path = self.policy.as_ref().map(|f| f.path.clone());
            let policy_settled = self.policy_pending
                && !policy_touched
                && policy_path.as_ref().is_some_and(|p| settled.contains(p));
            self.pending.extend(touched);
            self.policy_pending |= policy_touched;

            if policy_settled {
                self.policy_pending = false;
                self.reload_policy().await;
            }
            for path in settled {
                if Some(&path) == policy_path.as_ref() || !self.pending.remove(&path) {
                    continue;
                }
                if self.handle(&path).await {
                    self.pending.insert(path);
                }
            }
        }
    }

    fn note(&mut self, batch: DebounceEventResult) {
        self.policy_pending |= self.classifier.note(batch, &mut self.pending);
    }

    /// The stamps of every pending path, the policy file's included.
    fn stamps(&self) -> Vec<(PathBuf, Option<FileStamp>)> {
        let policy = self
            .policy
            .as_ref()
            .filter(|_| self.policy_pending)
            .map(|f| f.path.clone());
        self.pending
            .iter()
            .cloned()
            .chain(policy)
            .map(|p| {
                let stamp = FileStamp::of(&p);
                (p, stamp)
            })
            .collect()
    }

    /// Reloads or removes one settled plugin file. Returns `true` if it must
    /// be tried again (it changed while it was being loaded).
    #[tracing::instrument(skip(self, path), fields(file = %path.display()))]
    async fn handle(&self, path: &Path) -> bool {
        if FileStamp::of(path).is_none() {
            if let Some(plugin) = self.runtime.remove_file(path).await {
                tracing::info!(plugin, "plugin removed: its file is gone");
            }
            return false;
        }
        match self.runtime.reload_file(path).await {
            ReloadOutcome::Loaded {
                plugin,
                tools,
                replaced,
                list_changed,
                skipped_tools,
            } => {
                for skipped in skipped_tools {
                    tracing::warn!("{skipped}");
                }
                tracing::info!(plugin, tools, replaced, list_changed, "plugin reloaded");
                false
            }
            ReloadOutcome::Failed(e) => {
                tracing::warn!("reload failed, the previous version (if any) keeps serving: {e}");
                false
            }
            ReloadOutcome::Unchanged => {
                tracing::debug!("unchanged since it was loaded; nothing to do");
                false
            }
            ReloadOutcome::Unsettled => {
                tracing::debug!("changed while loading; waiting for it to settle");
                true
            }
        }
    }

    /// Reads the policy file again and, if it is valid, reloads every
    /// plugin under it, except those still settling (they follow), and
    /// starts fetching its sources in the background, superseding the
    /// previous policy's fetch if it still runs.
    #[tracing::instrument(skip(self))]
    async fn reload_policy(&mut self) {
        let Some(file) = &self.policy else {
            return;
        };
        // Reading the file is an event too: one that changed nothing (the
        // same stamp and the same bytes as the last one read) is not a new
        // policy, and must not supersede its fetch. A `touch` is one (it
        // asks for the sources to be fetched again).
        let seen = PolicySeen::of(&file.path);
        if seen.is_some() && seen == self.policy_seen {
            tracing::debug!("the policy file is unchanged since it was read; nothing to do");
            return;
        }
        self.policy_seen = seen;
        let update = match (file.load)(file.path.clone()).await {
            Ok(update) => update,
            Err(e) => {
                tracing::error!(
                    "{}: policy file not reloaded, the previous policy stays: {e}",
                    file.path.display()
                );
                return;
            }
        };
        let path = file.path.clone();
        self.generation += 1;
        if self.fetch.take().is_some() {
            tracing::info!(
                file = %path.display(),
                "the previous policy's plugin sources are still being fetched: that fetch is abandoned for the new policy's"
            );
        }
        self.runtime.set_policies(update.policies);
        self.runtime.set_claims(update.claims);
        // The fetched plugins the new policy still names are loaded again
        // under it now; new versions follow when the fetch is done.
        let fetched = self.runtime.claimed_files();
        match Runtime::plugin_files(&self.classifier.dir) {
            Ok(files) => {
                let files: Vec<PathBuf> = files
                    .into_iter()
                    .filter(|f| !self.pending.contains(f))
                    .chain(fetched)
                    .collect();
                let report = self.runtime.reload_files(&files).await;
                for failure in &report.failed {
                    tracing::warn!(
                        "reload after the policy change failed, the previous version (if any) keeps serving: {failure}"
                    );
                }
                for skipped in &report.skipped_tools {
                    tracing::warn!("{skipped}");
                }
                tracing::info!(
                    file = %path.display(),
                    plugins = report.loaded.len(),
                    failed = report.failed.len(),
                    fetching = update.sources.is_some(),
                    "policy file reloaded"
                );
            }
            Err(e) => {
                tracing::error!("cannot reload plugins after the policy changed: {e}");
            }
        }
        if let Some(fetch) = update.sources {
            let (generation, done) = (self.generation, self.fetched.clone());
            tracing::info!(file = %path.display(), "fetching plugin sources");
            self.fetch = Some(PendingFetch {
                generation,
                task: tokio::spawn(async move {
                    let update = fetch.await;
                    // Fails only once the watcher is gone.
                    let _ = done.send((generation, update));
                }),
            });
        }
    }

    /// Swaps a finished fetch's plugins in, if it is the newest policy's.
    async fn apply_fetched(&mut self, generation: u64, update: SourcesUpdate) {
        if self.fetch.as_ref().map(|f| f.generation) != Some(generation) {
            tracing::debug!(
                generation,
                "a superseded policy's fetch finished; not applied"
            );
            return;
        }
        self.fetch = None;
        self.runtime.apply_sources(&update).await;
    }
}

#[cfg(test)]
mod tests;
