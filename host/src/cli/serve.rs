//! `serve`: load the plugins, watch them, and serve their tools over stdio
//! or Streamable HTTP until stopped.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;

use mcp_wasm_host::config::{Config, ServedBounds, TaskSettings};
use mcp_wasm_host::mcp::oauth::OAuth;
use mcp_wasm_host::mcp::protocol::DEFAULT_LIST_TTL;
use mcp_wasm_host::mcp::transport::http;
use mcp_wasm_host::mcp::transport::stdio;
use mcp_wasm_host::mcp::{McpServer, ServerOptions};
use mcp_wasm_host::runtime::{
    CacheError, CompileCache, DirWatcher, EngineSettings, LoadError, PolicyFile, PolicyReloadError,
    PolicySeen, PolicySource, PolicyUpdate, Runtime, SourceFetch, SourcesUpdate, WatchOptions,
    watch,
};
use mcp_wasm_host::source::Fetcher;
use mcp_wasm_host::telemetry::{self, health::Health, metrics::Metrics};

use super::shared::{CacheArgs, cached_runtime, load_config};

mod args;

pub use args::ServeArgs;

/// Serves until stdin closes (stdio) or a stop signal (HTTP).
pub(super) async fn run(args: ServeArgs) -> anyhow::Result<()> {
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
    let mut runtime = cached_runtime(settings, config.clone(), &args.cache)?;
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
    // A missing or unreadable directory stops the server at once; the
    // plugins themselves load in the background so that `initialize`,
    // `ping` and `tools/list` are answered promptly: tools/list lists the
    // plugins still compiling from their cached tool lists, and a call to
    // one waits for its load within the call's timeout.
    let files = match Runtime::plugin_files(&args.plugins) {
        Ok(files) => files,
        Err(LoadError::Directory { source, .. }) => {
            anyhow::bail!(super::plugins_dir::unreadable(&args.plugins, &source))
        }
        Err(e) => {
            return Err(e)
                .with_context(|| format!("cannot load plugins from {}", args.plugins.display()));
        }
    };
    if files.is_empty() && config.sources().is_empty() {
        tracing::warn!(
            "{}",
            super::plugins_dir::nothing_to_serve(&args.plugins, !args.no_watch)
        );
    }
    let fetcher = source_fetcher(&args.cache, &config);
    // Held while the start-up's sources are fetched and applied, so a
    // policy reload's fetch never interleaves with it; a valid policy
    // reload bumps `reloads`, which abandons the start-up's fetch.
    let sources_lock = Arc::new(tokio::sync::Mutex::new(()));
    let reloads = tokio::sync::watch::Sender::new(0u64);
    let watcher = Arc::new(std::sync::Mutex::new(None));
    {
        let (runtime, config, watcher) = (runtime.clone(), config.clone(), watcher.clone());
        let health = health.clone();
        let (dir, no_watch) = (args.plugins.clone(), args.no_watch);
        let mut superseded = reloads.subscribe();
        tokio::spawn(async move {
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
            if !no_watch {
                let started = start_watcher(
                    &runtime,
                    &dir,
                    &config,
                    max_memory,
                    fetcher.clone(),
                    (sources_lock.clone(), reloads),
                    policy_seen,
                );
                *watcher
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = started;
            }
            let report = runtime.load_files(&files).await;
            if report.cancelled > 0 {
                // The server is shutting down (its client left): the loads
                // it stopped are not failures, and nothing more is done.
                tracing::info!(
                    plugins = report.loaded.len(),
                    stopped = report.cancelled,
                    "shutting down while plugins were loading"
                );
                return;
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
            let mut loaded = report.names();
            // Then the sources, in the background of what is served: each
            // appears (with list_changed) once fetched and checked. A policy
            // reload meanwhile supersedes them (it fetches its own).
            let sources = config.sources().len();
            if let Some(fetcher) = fetcher.as_ref().filter(|_| sources > 0) {
                tracing::info!(sources, "fetching plugin sources");
                let fetched = tokio::select! {
                    update = fetch_sources(fetcher, &config, &runtime) => Some(update),
                    // Without a watcher the sender is gone: never superseded.
                    Ok(()) = superseded.changed() => None,
                };
                match fetched {
                    Some(update) if *superseded.borrow() == 0 => {
                        loaded.extend(runtime.apply_sources(&update).await.names());
                    }
                    _ => tracing::info!(
                        "the policy file was reloaded while its plugin sources were fetched at start: that fetch is abandoned for the new policy's"
                    ),
                }
            }
            drop(sources_guard);
            for section in config.unused_sections(&loaded) {
                tracing::warn!(
                    "{}: [plugins.{section}] matches no plugin (no file of that name in the plugins directory, and no `source`)",
                    config.path().display()
                );
            }
        });
    }
    let rounds = args.rounds.rounds()?;
    tracing::info!(
        key = rounds.key_source(),
        "2026-07-28 request state is signed"
    );
    let server = McpServer::new(
        runtime,
        ServerOptions {
            page_size: args.page_size as usize,
            list_ttl: config.list_ttl().unwrap_or(DEFAULT_LIST_TTL),
            tasks: config.task_options(TaskSettings::default()),
            served: config.served_bounds(ServedBounds::default()),
            lists_after: args.wait_for_load.lists_after(),
        },
        rounds,
    );
    let oauth = config.oauth();
    let Some(addr) = args.http.http else {
        if oauth.is_some() {
            tracing::warn!(
                "[server.oauth] applies to the HTTP transport only; stdio serves every tool to its one client"
            );
        }
        stdio::serve(server).await?;
        return Ok(());
    };
    let mut options = args.http.options(addr)?;
    options.session_limits = config.session_options();
    let drain = mcp_wasm_host::mcp::transport::drain::Drain::new();
    options.drain = Some(drain.clone());
    if let Some(metrics) = &metrics {
        if !options.stateless {
            options.sessions = Some(metrics.session_count());
        }
        if args.telemetry.metrics_addr.is_none() {
            options.routes = Some(metrics.routes());
            options.public_routes = Some(health.routes());
        }
    }
    if let Some(token) = &options.auth {
        tracing::info!(from = token.source(), "HTTP requests need the bearer token");
    }
    if let Some(settings) = oauth {
        if options.auth.is_some() {
            anyhow::bail!(
                "{}: [server.oauth] and --auth-token-env/--auth-token-file both set how HTTP requests authenticate; use one",
                config.path().display()
            );
        }
        if settings.scopes_supported.is_empty() {
            tracing::warn!(
                "[server.oauth] is set but no plugin has `scopes`: every access token is refused with 403; set `scopes` in [defaults] or [plugins.NAME]"
            );
        }
        tracing::info!(
            issuer = settings.issuer,
            audience = settings.audience,
            "HTTP requests need an access token of the issuer"
        );
        options.oauth = Some(Arc::new(OAuth::new(settings)));
    }
    let (stateless, also_stdio) = (options.stateless, args.http.stdio);
    let listener = http::bind(options).await?;
    let (stop_accepting, end_sessions) = (
        tokio_util::sync::CancellationToken::new(),
        tokio_util::sync::CancellationToken::new(),
    );
    let http_server = tokio::spawn(listener_task(
        listener,
        server.session(),
        (stop_accepting.clone(), end_sessions.clone()),
        stateless,
    ));
    if also_stdio {
        tokio::select! {
            served = stdio::serve(server) => served?,
            () = shutdown_signal() => {}
        }
    } else {
        shutdown_signal().await;
    }
    // Not ready first, then no new connections; the requests in flight
    // finish (within the bound) before the sessions end.
    health.set_draining();
    stop_accepting.cancel();
    let bound = std::time::Duration::from_secs(args.telemetry.shutdown_timeout);
    tracing::info!(
        in_flight = drain.in_flight(),
        "shutting down: not accepting connections; waiting up to {} s for the requests in flight",
        bound.as_secs()
    );
    if tokio::time::timeout(bound, drain.idle()).await.is_err() {
        tracing::warn!(
            in_flight = drain.in_flight(),
            "requests still in flight after {} s; exiting anyway",
            bound.as_secs()
        );
    }
    end_sessions.cancel();
    // Open SSE streams end with the sessions; don't wait on a stuck client.
    match tokio::time::timeout(std::time::Duration::from_secs(5), http_server).await {
        Ok(Ok(result)) => result?,
        Ok(Err(join)) => return Err(join.into()),
        Err(_) => tracing::warn!("HTTP connections still open after 5 s; exiting anyway"),
    }
    Ok(())
}

async fn listener_task(
    listener: http::HttpListener,
    server: McpServer,
    (stop_accepting, end_sessions): (
        tokio_util::sync::CancellationToken,
        tokio_util::sync::CancellationToken,
    ),
    stateless: bool,
) -> Result<(), http::HttpError> {
    tracing::info!(
        mode = if stateless { "stateless" } else { "sessions" },
        "listening on {}",
        listener.url()
    );
    listener
        .serve_draining(server, stop_accepting, end_sessions)
        .await
}

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::warn!("cannot listen for Ctrl-C: {e}");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                tracing::warn!("cannot listen for SIGTERM: {e}");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}

/// Watches the plugins directory, and the policy file if there is one, and
/// reloads what changes. A watcher that cannot start is logged; the server
/// then serves what it loaded at start.
fn start_watcher(
    runtime: &Arc<Runtime>,
    dir: &Path,
    config: &Config,
    max_memory: u64,
    fetcher: Option<Fetcher>,
    (sources_lock, reloads): (Arc<tokio::sync::Mutex<()>>, tokio::sync::watch::Sender<u64>),
    policy_seen: Option<PolicySeen>,
) -> Option<DirWatcher> {
    let mut options = WatchOptions::new(dir);
    if !config.is_builtin() {
        let weak = Arc::downgrade(runtime);
        options.policy = Some(PolicyFile {
            path: config.path().to_owned(),
            seen: policy_seen,
            load: Box::new(move |path| {
                let (weak, fetcher) = (weak.clone(), fetcher.clone());
                let (sources_lock, reloads) = (sources_lock.clone(), reloads.clone());
                Box::pin(async move {
                    let config = Arc::new(
                        Config::load(&path, max_memory)
                            .map_err(|e| PolicyReloadError::Invalid(e.into()))?,
                    );
                    let Some(runtime) = weak.upgrade() else {
                        return Err(PolicyReloadError::ShuttingDown);
                    };
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

/// For each sourced plugin name, the fetched files `runtime` serves it
/// from now (what a source that is still fetching, or fails, keeps).
fn served_sources(
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
async fn fetch_sources(fetcher: &Fetcher, config: &Config, runtime: &Runtime) -> SourcesUpdate {
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

#[cfg(test)]
mod tests;
