//! `serve`'s second step: what is served. The plugins directory is listed at
//! once (a missing or unreadable one stops the server); then, in the
//! background, the directory is watched, its plugins load, and the policy's
//! sources are fetched and applied.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::Context as _;

use mcp_wasm_host::config::Config;
use mcp_wasm_host::runtime::{CacheError, CompileCache, DirWatcher, LoadError, Runtime};
use mcp_wasm_host::source::Fetcher;
use mcp_wasm_host::telemetry::health::Health;

use super::ServeArgs;
use super::fetch::{SourcesTurn, fetch_sources};
use super::setup::Setup;
use super::watch::{PolicyWatch, start_watcher};
use crate::cli::plugins_dir;
use crate::cli::shared::CacheArgs;

/// The watcher of the plugins directory and the policy file, once the
/// background load started it: it watches for as long as this is held.
pub(super) type Watching = Arc<Mutex<Option<DirWatcher>>>;

/// Lists the plugins directory and starts loading in the background.
///
/// A missing or unreadable directory stops the server at once; the
/// plugins themselves load in the background so that `initialize`,
/// `ping` and `tools/list` are answered promptly: tools/list lists the
/// plugins still compiling from their cached tool lists, and a call to
/// one waits for its load within the call's timeout.
pub(super) fn start(args: &ServeArgs, setup: &Setup) -> anyhow::Result<Watching> {
    let files = match Runtime::plugin_files(&args.plugins) {
        Ok(files) => files,
        Err(LoadError::Directory { source, .. }) => {
            anyhow::bail!(plugins_dir::unreadable(&args.plugins, &source))
        }
        Err(e) => {
            return Err(e)
                .with_context(|| format!("cannot load plugins from {}", args.plugins.display()));
        }
    };
    if files.is_empty() && setup.config.sources().is_empty() {
        tracing::warn!(
            "{}",
            plugins_dir::nothing_to_serve(&args.plugins, !args.no_watch)
        );
    }
    let reloads = tokio::sync::watch::Sender::new(0u64);
    let watching = Watching::default();
    let loading = Loading {
        runtime: setup.runtime.clone(),
        config: setup.config.clone(),
        fetcher: source_fetcher(&args.cache, &setup.config),
        files,
        dir: args.plugins.clone(),
        watch: (!args.no_watch).then(|| Watch {
            watching: watching.clone(),
            policy: PolicyWatch {
                max_memory: setup.max_memory,
                seen: setup.policy_seen.clone(),
                profiles: setup.profiles.clone(),
            },
        }),
        superseded: reloads.subscribe(),
        turn: (Arc::new(tokio::sync::Mutex::new(())), reloads),
        health: setup.health.clone(),
    };
    tokio::spawn(loading.run());
    Ok(watching)
}

/// The background load: what it loads, and what it tells.
struct Loading {
    runtime: Arc<Runtime>,
    config: Arc<Config>,
    fetcher: Option<Fetcher>,
    files: Vec<PathBuf>,
    dir: PathBuf,
    /// `None` under `--no-watch`.
    watch: Option<Watch>,
    /// Changes when a policy reload supersedes the start-up's sources.
    superseded: tokio::sync::watch::Receiver<u64>,
    turn: SourcesTurn,
    health: Health,
}

/// What the watcher needs, and where it is kept once started.
struct Watch {
    watching: Watching,
    policy: PolicyWatch,
}

impl Loading {
    async fn run(self) {
        let Loading {
            runtime,
            config,
            fetcher,
            files,
            dir,
            watch,
            mut superseded,
            turn: (sources_lock, reloads),
            health,
        } = self;
        let sources_guard = sources_lock.clone().lock_owned().await;
        // The sources' names are claimed before anything loads, so no
        // file of the directory stands in for one while it is fetched;
        // the fetches themselves wait until what is here is served.
        if let Some(fetcher) = &fetcher {
            runtime.set_claims(mcp_wasm_host::source::pending_claims(
                fetcher,
                &config.sources(),
                |_| Default::default(),
            ));
        }
        // Watch first, so no change made while loading is missed; the
        // runtime serializes reloads with this load.
        if let Some(Watch { watching, policy }) = watch {
            let started = start_watcher(
                &runtime,
                &dir,
                &config,
                fetcher.clone(),
                (sources_lock.clone(), reloads),
                policy,
            );
            *watching
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = started;
        }
        let Some(mut loaded) = load_directory(&runtime, &files, &dir, &health).await else {
            return;
        };
        if let Some(fetcher) = &fetcher {
            loaded.extend(fetch_at_start(fetcher, &config, &runtime, &mut superseded).await);
        }
        drop(sources_guard);
        for section in config.unused_sections(&loaded) {
            tracing::warn!(
                "{}: [plugins.{section}] matches no plugin (no file of that name in the plugins directory, and no `source`)",
                config.path().display()
            );
        }
        for line in config.profile_report(&runtime.catalog()) {
            tracing::warn!("{}: {line}", config.path().display());
        }
    }
}

/// Loads the directory's `files`, and logs what loaded; `None` when the
/// server is shutting down meanwhile. Else the plugins' names, for the
/// sections that match none.
async fn load_directory(
    runtime: &Runtime,
    files: &[PathBuf],
    dir: &Path,
    health: &Health,
) -> Option<Vec<String>> {
    let report = runtime.load_files(files).await;
    if report.cancelled > 0 {
        // The server is shutting down (its client left): the loads
        // it stopped are not failures, and nothing more is done.
        tracing::info!(
            plugins = report.loaded.len(),
            stopped = report.cancelled,
            "shutting down while plugins were loading"
        );
        return None;
    }
    health.set_loaded();
    for failure in &report.failed {
        tracing::error!("skipped plugin: {failure}");
    }
    for skipped in &report.skipped_tools {
        tracing::warn!("{skipped}");
    }
    tracing::info!(
        plugins = report.loaded.len(),
        failed = report.failed.len(),
        tools = runtime.catalog().tools().len(),
        dir = %dir.display(),
        "plugins loaded"
    );
    Some(report.names())
}

/// Then the sources, in the background of what is served: each appears
/// (with list_changed) once fetched and checked. A policy reload meanwhile
/// supersedes them (it fetches its own). The names of the plugins applied.
async fn fetch_at_start(
    fetcher: &Fetcher,
    config: &Config,
    runtime: &Runtime,
    superseded: &mut tokio::sync::watch::Receiver<u64>,
) -> Vec<String> {
    let sources = config.sources().len();
    if sources == 0 {
        return Vec::new();
    }
    tracing::info!(sources, "fetching plugin sources");
    let fetched = tokio::select! {
        update = fetch_sources(fetcher, config, runtime) => Some(update),
        // Without a watcher the sender is gone: never superseded.
        Ok(()) = superseded.changed() => None,
    };
    match fetched {
        Some(update) if *superseded.borrow() == 0 => runtime.apply_sources(&update).await.names(),
        _ => {
            tracing::info!(
                "the policy file was reloaded while its plugin sources were fetched at start: that fetch is abandoned for the new policy's"
            );
            Vec::new()
        }
    }
}

/// Where fetched plugins are kept: the cache directory (`--no-cache` turns
/// off only the compile cache). `None` (with a warning) when there is none
/// and the policy names sources.
fn source_fetcher(args: &CacheArgs, config: &Config) -> Option<Fetcher> {
    let dir = args.cache_dir.clone().or_else(CompileCache::default_dir);
    match dir {
        Some(dir) => Some(
            Fetcher::new(&dir, config.plain_http_registries())
                .with_timeouts(config.fetch_timeouts()),
        ),
        None => {
            if !config.sources().is_empty() {
                tracing::warn!(
                    "{}; plugins with a `source` cannot be fetched",
                    CacheError::NoDefaultDir
                );
            }
            None
        }
    }
}
