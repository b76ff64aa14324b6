//! `serve`: load the plugins, watch them, and serve their tools over stdio
//! or Streamable HTTP until stopped.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;

use mcp_wasm_host::config::{Config, ServedBounds, TaskSettings};
use mcp_wasm_host::mcp::oauth::OAuth;
use mcp_wasm_host::mcp::oauth::bearer::BearerToken;
use mcp_wasm_host::mcp::protocol::{DEFAULT_LIST_TTL, Rounds, StateKeyError};
use mcp_wasm_host::mcp::transport::http::{self, HttpOptions};
use mcp_wasm_host::mcp::transport::stdio;
use mcp_wasm_host::mcp::{McpServer, ServerOptions};
use mcp_wasm_host::runtime::{
    CacheError, CompileCache, DirWatcher, EngineSettings, FirstLists, LoadError, PolicyFile,
    PolicyReloadError, PolicySeen, PolicySource, PolicyUpdate, QuickCompile, Runtime, SourceFetch,
    SourcesUpdate, WatchOptions, watch,
};
use mcp_wasm_host::source::Fetcher;
use mcp_wasm_host::telemetry::{self, health::Health, metrics::Metrics};

use super::shared::{CacheArgs, cached_runtime, load_config, parse_http_addr};

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The directory of plugin components.
    #[arg(long, default_value = "plugins", env = "MCP_WASM_HOST_PLUGINS")]
    plugins: PathBuf,
    /// The policy file. Without it (or with an empty value, as a client
    /// passes an unset setting), `./mcp-wasm-host.toml` is used if it exists,
    /// and the built-in defaults (no capabilities) otherwise.
    #[arg(long, env = "MCP_WASM_HOST_CONFIG", value_parser = path_or_empty)]
    config: Option<PathBuf>,
    #[command(flatten)]
    cache: CacheArgs,
    /// The most tools one `tools/list` page holds.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    page_size: u32,
    /// How many calls may run at once across all plugins (instances kept in
    /// the pooling allocator).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    max_instances: u32,
    /// Do not watch the plugins directory and the policy file: the plugins
    /// loaded at start are served until the server exits.
    #[arg(long)]
    no_watch: bool,
    /// How long `tools/list` (and the other lists) wait for the first
    /// load: `uncached` (the default) waits only for the plugins with no
    /// cached tool list, so a warm start answers at once (many clients list
    /// once and ignore `list_changed`); `true` waits until every plugin has
    /// loaded or failed; `false` answers at once: plugins still compiling
    /// are listed from their cached tool lists, or appear with
    /// `list_changed` when they are ready.
    #[arg(
        long,
        env = "MCP_WASM_HOST_WAIT_FOR_LOAD",
        value_enum,
        ignore_case = true,
        num_args = 0..=1,
        default_value_t = WaitForLoad::Uncached,
        default_missing_value = "true",
        require_equals = true
    )]
    wait_for_load: WaitForLoad,
    /// Which plugins new to the compile cache are compiled by Winch first
    /// (several times faster than Cranelift, its code about half as fast),
    /// served at once, and replaced by Cranelift's code compiled in the
    /// background: `large` (the default: components of 4 MiB or more, such
    /// as Python, JavaScript and Go interpreters), `always` or `never`.
    #[arg(
        long,
        env = "MCP_WASM_HOST_QUICK_COMPILE",
        value_enum,
        ignore_case = true,
        default_value_t = QuickCompileArg::Large
    )]
    quick_compile: QuickCompileArg,
    #[command(flatten)]
    rounds: RoundsArgs,
    #[command(flatten)]
    http: HttpArgs,
    #[command(flatten)]
    pub telemetry: TelemetryArgs,
}

/// What `--wait-for-load` says lists wait for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum WaitForLoad {
    /// Every plugin loaded or failed.
    #[value(name = "true", aliases = ["1", "yes", "on"])]
    All,
    /// The plugins with no cached tool list loaded or failed.
    Uncached,
    /// Nothing: the cached tool lists are listed at once.
    #[value(name = "false", aliases = ["0", "no", "off"])]
    Nothing,
}

impl WaitForLoad {
    fn lists_after(self) -> FirstLists {
        match self {
            WaitForLoad::All => FirstLists::Loaded,
            WaitForLoad::Uncached => FirstLists::EveryPlugin,
            WaitForLoad::Nothing => FirstLists::Cached,
        }
    }
}

/// What `--quick-compile` says is compiled by Winch first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum QuickCompileArg {
    /// Components of 4 MiB or more.
    Large,
    /// Every component.
    Always,
    /// None: Cranelift compiles every plugin before it serves.
    Never,
}

impl From<QuickCompileArg> for QuickCompile {
    fn from(arg: QuickCompileArg) -> Self {
        match arg {
            QuickCompileArg::Large => QuickCompile::Large,
            QuickCompileArg::Always => QuickCompile::Always,
            QuickCompileArg::Never => QuickCompile::Never,
        }
    }
}

/// Metrics, health checks and shutdown.
#[derive(Debug, clap::Args)]
pub struct TelemetryArgs {
    /// Serve `/metrics`, `/healthz` and `/readyz` on their own listener at
    /// ADDR (`IP:PORT`, `localhost:PORT` or `PORT`), without the bearer
    /// token, in stdio mode too. Without it, `--http` serves them next to
    /// `/mcp`. The URL is logged as `metrics served at URL`.
    #[arg(long, value_name = "ADDR", value_parser = parse_http_addr)]
    metrics_addr: Option<std::net::SocketAddr>,
    /// Allow `--metrics-addr` on an address other than loopback (the
    /// endpoint has no authentication).
    #[arg(long, requires = "metrics_addr")]
    metrics_allow_remote: bool,
    /// On SIGTERM or Ctrl-C, how many seconds the HTTP requests in flight
    /// may take to finish (no new connections are accepted and `/readyz`
    /// answers 503 meanwhile) before the server exits anyway.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    shutdown_timeout: u64,
    /// Export traces over OTLP/HTTP (protobuf) to this collector, e.g.
    /// `http://127.0.0.1:4318` (`/v1/traces` is added). Without it, the
    /// standard `OTEL_EXPORTER_OTLP_ENDPOINT` and
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` variables turn the export on;
    /// with neither, no traces are made.
    #[arg(long, value_name = "URL")]
    pub otlp_endpoint: Option<String>,
}

/// The 2026-07-28 multi round-trip requests (a guest's requests to the
/// client, answered in the next round of the call).
#[derive(Debug, clap::Args)]
pub struct RoundsArgs {
    /// Sign `requestState` with the key in this environment variable (at
    /// least 32 bytes). Replicas behind one load balancer must share it;
    /// without it each server makes a random key at start.
    #[arg(long, value_name = "VAR", conflicts_with = "request_state_key_file")]
    request_state_key_env: Option<String>,
    /// As `--request-state-key-env`, with the key read from this file.
    #[arg(long, value_name = "FILE")]
    request_state_key_file: Option<PathBuf>,
    /// The most rounds one tool call may take: each round runs the tool
    /// again from the start with the client's answers so far.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=100))]
    max_input_rounds: u32,
}

impl RoundsArgs {
    /// The key and limits, with the key loaded.
    fn rounds(&self) -> Result<Rounds, StateKeyError> {
        let max = self.max_input_rounds;
        match (&self.request_state_key_env, &self.request_state_key_file) {
            (Some(var), _) => Rounds::from_env(var, max),
            (None, Some(file)) => Rounds::from_file(file, max),
            (None, None) => Rounds::random(max),
        }
    }
}

/// The Streamable HTTP transport.
#[derive(Debug, clap::Args)]
pub struct HttpArgs {
    /// Serve MCP over Streamable HTTP at `http://ADDR/mcp` instead of stdio.
    /// ADDR is `IP:PORT`, `localhost:PORT` or just `PORT` (on 127.0.0.1);
    /// port 0 picks a free port. The URL is logged as `listening on URL`.
    #[arg(long, value_name = "ADDR", value_parser = parse_http_addr)]
    http: Option<std::net::SocketAddr>,
    /// With `--http`: serve stdin/stdout as well; the server then exits when
    /// stdin closes.
    #[arg(long, requires = "http")]
    stdio: bool,
    /// Allow `--http` on an address other than loopback. Set a bearer token
    /// too: without one, anyone who can reach the port can call every tool.
    #[arg(long, requires = "http")]
    http_allow_remote: bool,
    /// Require `Authorization: Bearer <token>` on every HTTP request, with
    /// the token read from this environment variable.
    #[arg(
        long,
        value_name = "VAR",
        requires = "http",
        conflicts_with = "auth_token_file"
    )]
    auth_token_env: Option<String>,
    /// As `--auth-token-env`, with the token read from this file.
    #[arg(long, value_name = "FILE", requires = "http")]
    auth_token_file: Option<PathBuf>,
    /// Accept this `Host` header value too (a name or `name:port`; may be
    /// repeated). Loopback names and the listening IP are always accepted;
    /// `*` accepts any host (no DNS-rebinding protection).
    #[arg(long = "allowed-host", value_name = "HOST", requires = "http")]
    allowed_hosts: Vec<String>,
    /// Accept requests from web pages of this origin too
    /// (`https://app.example.com`, `http://host:*`; may be repeated). Pages
    /// on loopback are always accepted; `*` accepts any origin.
    #[arg(long = "allowed-origin", value_name = "ORIGIN", requires = "http")]
    allowed_origins: Vec<String>,
    /// Serve each HTTP request on its own, without `Mcp-Session-Id`
    /// sessions, so several replicas can run behind a load balancer. Before
    /// 2026-07-28, server-to-client requests (sampling, elicitation, roots)
    /// and `logging/setLevel` need a session and are not available; at
    /// 2026-07-28 a guest's requests reach the client in rounds (give the
    /// replicas one `--request-state-key-env`).
    #[arg(long, requires = "http")]
    stateless: bool,
}

impl HttpArgs {
    /// The transport options, with the bearer token loaded.
    fn options(&self, addr: std::net::SocketAddr) -> anyhow::Result<HttpOptions> {
        let auth = match (&self.auth_token_env, &self.auth_token_file) {
            (Some(var), _) => Some(BearerToken::from_env(var)?),
            (None, Some(file)) => Some(BearerToken::from_file(file)?),
            (None, None) => None,
        };
        let mut options = HttpOptions::new(addr);
        options.allow_remote = self.http_allow_remote;
        options.auth = auth;
        options.stateless = self.stateless;
        options.allowed_hosts = self.allowed_hosts.clone();
        options.allowed_origins = self.allowed_origins.clone();
        Ok(options)
    }
}

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

impl ServeArgs {
    /// The policy file given, if any: an empty `--config` gives none.
    fn config_file(&self) -> Option<&Path> {
        self.config.as_deref().filter(|p| !p.as_os_str().is_empty())
    }

    /// The log filter unless `--log` or `RUST_LOG` gives one: `info`. In
    /// stateless mode rmcp serves every request as a service of its own, and
    /// its `rmcp::service` lines (started, input ended, finished, with the
    /// client's whole `initialize` parameters) and span would come with every
    /// request: they are kept to warnings there.
    pub(super) fn default_log_filter(&self) -> &'static str {
        if self.http.stateless {
            "info,rmcp::service=warn"
        } else {
            "info"
        }
    }
}

/// `--config`'s value: a path, or empty for none (an MCP bundle passes an
/// unset optional setting as an empty string).
fn path_or_empty(value: &str) -> Result<PathBuf, std::convert::Infallible> {
    Ok(PathBuf::from(value))
}

#[cfg(test)]
mod tests;
