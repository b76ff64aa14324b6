//! The `mcp-wasm-host` command line.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use clap::{Parser, Subcommand, ValueEnum};
use mcp_wasm_host::cli::new::NewArgs;
use mcp_wasm_host::config::SignatureKeys;
use mcp_wasm_host::config::{self, Config, ConfigError, TaskSettings};
use mcp_wasm_host::inspect::{Report, SourceInfo};
use mcp_wasm_host::mcp::auth::BearerToken;
use mcp_wasm_host::mcp::handler::DEFAULT_LIST_TTL;
use mcp_wasm_host::mcp::http::{self, HttpOptions};
use mcp_wasm_host::mcp::oauth::OAuth;
use mcp_wasm_host::mcp::rounds::{Rounds, StateKeyError};
use mcp_wasm_host::mcp::{McpServer, ServerOptions, stdio};
use mcp_wasm_host::runtime::{
    CacheError, CompileCache, DirWatcher, EngineSettings, Plugin, Policies, Policy, PolicyError,
    PolicyFile, PolicyReloadError, PolicySource, PolicyUpdate, Runtime, Sha256Digest, WatchOptions,
    watch,
};
use mcp_wasm_host::source::oci::Registry;
use mcp_wasm_host::source::signature::{self, PrivateKey};
use mcp_wasm_host::source::{Fetcher, OciRef, SourceRef};
use mcp_wasm_host::telemetry::{self, health::Health, metrics::Metrics, trace::Tracing};
use tracing_subscriber::EnvFilter;

/// Serve MCP tools from sandboxed WebAssembly components.
#[derive(Debug, Parser)]
#[command(name = "mcp-wasm-host", version, about)]
struct Cli {
    /// Log filter for stderr (tracing's `RUST_LOG` syntax, e.g. `info` or
    /// `mcp_wasm_host=debug,guest=info`; default `info` for `serve`, `warn`
    /// for `inspect`). `RUST_LOG` overrides it.
    #[arg(long, global = true)]
    log: Option<String>,
    /// Log line format on stderr.
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Load every `*.wasm` component in the plugins directory and serve its
    /// tools over MCP on stdin/stdout, or over Streamable HTTP with `--http`.
    Serve(Box<ServeArgs>),
    /// Report on one plugin file: the WIT world it targets, its tools with
    /// their schemas, the WASI interfaces it imports, and the policy it would
    /// run under. Exits with 1 if the file would not load.
    Inspect(InspectArgs),
    /// Load every `*.wasm` component in a directory the way `serve` does,
    /// print one line per file (`ok` with its tool count, or `FAIL` and why,
    /// name collisions included), and exit with 1 if any fails.
    Check(CheckArgs),
    /// Write a new plugin project in NAME/ (or DIR/NAME/): a tool, its
    /// build, a test that calls it through the host, and a README that says
    /// how to build, test and serve it. The project uses the SDK of an
    /// mcp-wasm-host checkout (`--sdk`). Exits with 66 when there is no SDK
    /// checkout, 73 when the directory is not empty, 74 when writing fails.
    New(NewArgs),
    /// Fetch a plugin from an OCI registry (`oci://REGISTRY/REPO:TAG` or
    /// `oci://REGISTRY/REPO@sha256:HEX`) or a URL (with `--sha256`),
    /// check its digests (and its signature with `--key`), and write it to
    /// DIR/NAME.wasm.
    Pull(PullArgs),
    /// Publish a component to an OCI registry in the wasm artifact layout
    /// (config `application/vnd.wasm.config.v0+json`, one `application/wasm`
    /// layer) and print its manifest digest.
    Push(PushArgs),
    /// Sign the manifest a reference resolves to with a P-256 private key
    /// (PKCS#8 PEM) and push the signature as cosign does (`sha256-HEX.sig`).
    Sign(SignArgs),
    /// Write a new P-256 key pair for `sign`: PREFIX.key (PKCS#8 PEM, mode
    /// 0600) and PREFIX.pub (SPKI PEM, as cosign.pub, for `signature_keys`).
    Keygen(KeygenArgs),
}

#[derive(Debug, clap::Args)]
struct PullArgs {
    /// `oci://REGISTRY/REPO:TAG`, `oci://REGISTRY/REPO@sha256:HEX`, or an
    /// `https://` URL.
    reference: String,
    /// The directory to write NAME.wasm into.
    #[arg(long, default_value = "plugins")]
    dir: PathBuf,
    /// The plugin name (the file's stem); default: the repository's last
    /// path segment, or the URL's file stem.
    #[arg(long)]
    name: Option<String>,
    /// The component's SHA-256 (required for a URL).
    #[arg(long, value_name = "HEX")]
    sha256: Option<String>,
    /// Require a signature that verifies with this public key (PEM SPKI,
    /// as cosign.pub; may be repeated: one of them must verify).
    #[arg(long = "key", value_name = "FILE")]
    keys: Vec<PathBuf>,
    /// Reach this registry (`host` or `host:port`) over plain HTTP too
    /// (loopback registries always are; may be repeated).
    #[arg(long = "plain-http", value_name = "REGISTRY")]
    plain_http: Vec<String>,
    #[command(flatten)]
    cache: CacheArgs,
}

#[derive(Debug, clap::Args)]
struct PushArgs {
    /// The component (`*.wasm`).
    file: PathBuf,
    /// `oci://REGISTRY/REPO:TAG`.
    reference: String,
    /// Reach this registry over plain HTTP too (as for `pull`).
    #[arg(long = "plain-http", value_name = "REGISTRY")]
    plain_http: Vec<String>,
}

#[derive(Debug, clap::Args)]
struct SignArgs {
    /// The private key (unencrypted PKCS#8 PEM, as `keygen` writes).
    #[arg(long, value_name = "FILE")]
    key: PathBuf,
    /// `oci://REGISTRY/REPO:TAG` or `oci://REGISTRY/REPO@sha256:HEX`.
    reference: String,
    /// Reach this registry over plain HTTP too (as for `pull`).
    #[arg(long = "plain-http", value_name = "REGISTRY")]
    plain_http: Vec<String>,
}

#[derive(Debug, clap::Args)]
struct KeygenArgs {
    /// Write PREFIX.key and PREFIX.pub (neither may exist).
    #[arg(long, default_value = "cosign", value_name = "PREFIX")]
    out: PathBuf,
}

/// Where compiled plugins are cached between runs.
#[derive(Debug, clap::Args)]
struct CacheArgs {
    /// The compile cache directory (default: `$XDG_CACHE_HOME/mcp-wasm-host`
    /// or `~/.cache/mcp-wasm-host`). Created with mode 0700; one that
    /// belongs to another user or that others may write to is not used.
    #[arg(long, env = "MCP_WASM_HOST_CACHE_DIR", value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Compile every plugin at start, reading and writing no cache.
    #[arg(long)]
    no_cache: bool,
}

#[derive(Debug, clap::Args)]
struct CheckArgs {
    /// The directory of plugin components.
    dir: PathBuf,
    /// The policy file, as for `serve`. Without it, `./mcp-wasm-host.toml`
    /// is used if it exists, and the built-in defaults otherwise.
    #[arg(long, env = "MCP_WASM_HOST_CONFIG")]
    config: Option<PathBuf>,
    #[command(flatten)]
    cache: CacheArgs,
}

#[derive(Debug, clap::Args)]
struct InspectArgs {
    /// The plugin component (`*.wasm`), or a source to fetch it from
    /// (`oci://REGISTRY/REPO:TAG`, `oci://…@sha256:HEX`, `https://…`): the
    /// report then shows the digest the reference resolved to. A source the
    /// policy file names is inspected under that section's name and
    /// signature keys.
    file: PathBuf,
    /// Reach this registry over plain HTTP too (as for `pull`).
    #[arg(long = "plain-http", value_name = "REGISTRY")]
    plain_http: Vec<String>,
    /// The policy file, as for `serve`. Without it, `./mcp-wasm-host.toml`
    /// is used if it exists, and the built-in defaults otherwise.
    #[arg(long, env = "MCP_WASM_HOST_CONFIG")]
    config: Option<PathBuf>,
    /// Print one JSON object instead of the human-readable report.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    cache: CacheArgs,
}

#[derive(Debug, clap::Args)]
struct ServeArgs {
    /// The directory of plugin components.
    #[arg(long, default_value = "plugins", env = "MCP_WASM_HOST_PLUGINS")]
    plugins: PathBuf,
    /// The policy file. Without it, `./mcp-wasm-host.toml` is used if it
    /// exists, and the built-in defaults (no capabilities) otherwise.
    #[arg(long, env = "MCP_WASM_HOST_CONFIG")]
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
    #[command(flatten)]
    rounds: RoundsArgs,
    #[command(flatten)]
    http: HttpArgs,
    #[command(flatten)]
    telemetry: TelemetryArgs,
}

/// Metrics, health checks and shutdown.
#[derive(Debug, clap::Args)]
struct TelemetryArgs {
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
    otlp_endpoint: Option<String>,
}

/// The 2026-07-28 multi round-trip requests (a guest's requests to the
/// client, answered in the next round of the call).
#[derive(Debug, clap::Args)]
struct RoundsArgs {
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
struct HttpArgs {
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

/// `IP:PORT`, `localhost:PORT` or `PORT` (on 127.0.0.1).
fn parse_http_addr(value: &str) -> Result<std::net::SocketAddr, String> {
    use std::net::{Ipv4Addr, SocketAddr};
    if let Ok(port) = value.parse::<u16>() {
        return Ok(SocketAddr::from((Ipv4Addr::LOCALHOST, port)));
    }
    if let Some(port) = value.strip_prefix("localhost:") {
        let port = port
            .parse::<u16>()
            .map_err(|e| format!("invalid port {port:?}: {e}"))?;
        return Ok(SocketAddr::from((Ipv4Addr::LOCALHOST, port)));
    }
    value.parse().map_err(|_| {
        format!("expected IP:PORT (e.g. 127.0.0.1:8080 or [::1]:8080), localhost:PORT or PORT, not {value:?}")
    })
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

/// Starts the log output on stderr and, for `serve` with an OTLP endpoint,
/// the trace export (returned, to be shut down at exit).
fn init_logging(cli: &Cli) -> anyhow::Result<Option<Tracing>> {
    let default = match cli.command {
        Command::Serve(_) => "info",
        Command::Inspect(_)
        | Command::Check(_)
        | Command::New(_)
        | Command::Pull(_)
        | Command::Push(_)
        | Command::Sign(_)
        | Command::Keygen(_) => "warn",
    };
    let filter = match std::env::var("RUST_LOG") {
        Ok(v) if !v.is_empty() => EnvFilter::try_new(v),
        _ => EnvFilter::try_new(cli.log.as_deref().unwrap_or(default)),
    }
    .context("invalid log filter")?;
    let traces = match &cli.command {
        Command::Serve(args) => Tracing::from_config(args.telemetry.otlp_endpoint.as_deref())?,
        _ => None,
    };
    let Some(traces) = traces else {
        let builder = fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .with_ansi(false);
        match cli.log_format {
            LogFormat::Text => builder.init(),
            LogFormat::Json => builder.json().init(),
        }
        return Ok(None);
    };
    // The log filter applies to the log lines only: the trace layer has
    // its own (this crate's spans), so spans below the log level still
    // reach the traces.
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    use tracing_subscriber::{Layer as _, fmt};
    let lines = fmt::layer().with_writer(std::io::stderr).with_ansi(false);
    let lines = match cli.log_format {
        LogFormat::Text => lines.with_filter(filter).boxed(),
        LogFormat::Json => lines.json().with_filter(filter).boxed(),
    };
    tracing_subscriber::registry()
        .with(lines)
        .with(traces.layer())
        .init();
    Ok(Some(traces))
}

/// The policy file: `explicit`, else `./mcp-wasm-host.toml` if it exists,
/// else the built-in defaults.
fn load_config(explicit: Option<&Path>, max_memory: u64) -> Result<Config, ConfigError> {
    let default = Path::new(config::DEFAULT_FILE);
    match explicit {
        Some(path) => Config::load(path, max_memory),
        None if default.is_file() => Config::load(default, max_memory),
        None => Ok(Config::builtin(max_memory)),
    }
}

async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let settings = EngineSettings {
        max_instances: args.max_instances,
        ..EngineSettings::default()
    };
    let max_memory = settings.max_memory_bytes as u64;
    let config = Arc::new(load_config(args.config.as_deref(), max_memory)?);
    // Metrics cost a little on every call: counted only when served.
    let metrics = (args.http.http.is_some() || args.telemetry.metrics_addr.is_some())
        .then(|| Arc::new(Metrics::new()));
    let health = Health::new();
    let mut runtime = Runtime::new(&settings, config.clone())?.with_cache(open_cache(&args.cache));
    if let Some(metrics) = &metrics {
        runtime = runtime.with_observer(metrics.clone());
    }
    let runtime = Arc::new(runtime);
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
    // plugins themselves load in the background so that `initialize` is
    // answered promptly (tools/list and tools/call wait for the load).
    let files = Runtime::plugin_files(&args.plugins)
        .with_context(|| format!("cannot load plugins from {}", args.plugins.display()))?;
    let fetcher = source_fetcher(&args.cache, &config);
    let watcher = Arc::new(std::sync::Mutex::new(None));
    {
        let (runtime, config, watcher) = (runtime.clone(), config.clone(), watcher.clone());
        let health = health.clone();
        let (dir, no_watch) = (args.plugins.clone(), args.no_watch);
        tokio::spawn(async move {
            // The policy's sources are fetched (or taken from the cache)
            // before anything loads, so their names are claimed first.
            let resolution = resolve_sources(fetcher.as_ref(), &config, &runtime).await;
            let mut files = files;
            files.extend(resolution.files());
            // Watch first, so no change made while loading is missed; the
            // runtime serializes reloads with this load.
            if !no_watch {
                let started = start_watcher(
                    &runtime,
                    &dir,
                    &config,
                    max_memory,
                    fetcher,
                    resolution.files(),
                );
                *watcher
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = started;
            }
            let report = runtime.load_files(&files).await;
            health.set_loaded();
            for failure in &report.failed {
                match resolution.source_of(failure.path()) {
                    Some(s) => tracing::error!(
                        "skipped plugin {} (source {}): {failure}",
                        s.name,
                        s.fetched.source
                    ),
                    None => tracing::error!("skipped plugin: {failure}"),
                }
            }
            for skipped in &report.skipped_tools {
                tracing::warn!("{skipped}");
            }
            for section in config.unused_sections(&report.loaded) {
                tracing::warn!(
                    "{}: [plugins.{section}] matches no loaded plugin",
                    config.path().display()
                );
            }
            tracing::info!(
                plugins = report.loaded.len(),
                failed = report.failed.len(),
                tools = runtime.catalog().tools().len(),
                dir = %dir.display(),
                "plugins loaded"
            );
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
    let drain = mcp_wasm_host::mcp::drain::Drain::new();
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
    extra_files: Vec<PathBuf>,
) -> Option<DirWatcher> {
    let mut options = WatchOptions::new(dir);
    options.extra_files = extra_files;
    if !config.is_builtin() {
        let weak = Arc::downgrade(runtime);
        options.policy = Some(PolicyFile {
            path: config.path().to_owned(),
            load: Box::new(move |path| {
                let (weak, fetcher) = (weak.clone(), fetcher.clone());
                Box::pin(async move {
                    let config = Config::load(&path, max_memory)
                        .map_err(|e| PolicyReloadError::Invalid(e.into()))?;
                    let Some(runtime) = weak.upgrade() else {
                        return Err(PolicyReloadError::ShuttingDown);
                    };
                    let resolution = resolve_sources(fetcher.as_ref(), &config, &runtime).await;
                    Ok(PolicyUpdate {
                        extra_files: resolution.files(),
                        claims: resolution.claims,
                        policies: Arc::new(config) as PolicySource,
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
        Some(dir) => Some(Fetcher::new(&dir, config.plain_http_registries())),
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

/// Fetches the policy's sources and claims their names in `runtime`; logs
/// each failure. A failed source keeps the version already served, if any.
async fn resolve_sources(
    fetcher: Option<&Fetcher>,
    config: &Config,
    runtime: &Runtime,
) -> mcp_wasm_host::source::Resolution {
    let catalog = runtime.catalog();
    let Some(fetcher) = fetcher else {
        return Default::default();
    };
    let managed = fetcher.store().plugins_dir();
    let resolution = mcp_wasm_host::source::resolve_all(fetcher, config, |name| {
        catalog
            .plugins()
            .iter()
            .filter(|p| &*p.name == name && p.path.starts_with(&managed))
            .map(|p| p.path.clone())
            .collect()
    })
    .await;
    for (name, e) in &resolution.failed {
        tracing::error!(
            "skipped plugin {name}: `plugins.{name}.source` in {}: {e}",
            config.path().display()
        );
    }
    runtime.set_claims(resolution.claims.clone());
    resolution
}

/// The directory `pull` keeps its fetches in.
fn cache_dir(args: &CacheArgs) -> anyhow::Result<PathBuf> {
    args.cache_dir
        .clone()
        .or_else(CompileCache::default_dir)
        .ok_or_else(|| CacheError::NoDefaultDir.into())
}

fn parse_source(text: &str) -> anyhow::Result<SourceRef> {
    Ok(SourceRef::parse(text)?)
}

fn oci_ref(text: &str) -> anyhow::Result<OciRef> {
    match parse_source(text)? {
        SourceRef::Oci(r) => Ok(r),
        SourceRef::Https(_) => anyhow::bail!("{text}: push and sign need an oci:// reference"),
    }
}

/// `pull`: fetches, checks and writes DIR/NAME.wasm.
async fn pull(args: PullArgs) -> anyhow::Result<ExitCode> {
    let source = parse_source(&args.reference)?;
    let pinned = args
        .sha256
        .as_deref()
        .map(Sha256Digest::from_hex)
        .transpose()
        .map_err(|e| anyhow::anyhow!("--sha256: {e}"))?;
    if matches!(source, SourceRef::Https(_)) && pinned.is_none() {
        anyhow::bail!("{}: a URL needs --sha256 HEX", args.reference);
    }
    let name = match &args.name {
        Some(name) => name.clone(),
        None => default_name(&source),
    };
    let keys = (!args.keys.is_empty()).then(|| SignatureKeys {
        policy_key: "--key".into(),
        config_file: PathBuf::from("the command line"),
        paths: args.keys.clone(),
    });
    let fetcher = Fetcher::new(&cache_dir(&args.cache)?, &args.plain_http);
    let fetched = fetcher.fetch(&source, pinned, keys.as_ref()).await?;
    if let Some(pin) = pinned
        && pin != fetched.sha256
    {
        anyhow::bail!(
            "{}: digest mismatch: --sha256 is {pin}, the component's is {}",
            args.reference,
            fetched.sha256
        );
    }
    let bytes = fetcher
        .store()
        .blob(&fetched.sha256)
        .context("the fetched component vanished from the cache")?;
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("cannot create {}", args.dir.display()))?;
    let target = args.dir.join(format!("{name}.wasm"));
    let tmp = args.dir.join(format!(".{name}.wasm.part"));
    std::fs::write(&tmp, &bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, &target).with_context(|| format!("cannot write {}", target.display()))?;
    if fetched.offline {
        eprintln!(
            "warning: the registry cannot be reached; used the cached copy of {}",
            args.reference
        );
    }
    let digest = fetched
        .manifest_digest
        .map(|d| format!(" {d}"))
        .unwrap_or_default();
    let signed = fetched
        .signed_by
        .map(|k| format!(", signed by {}", k.display()))
        .unwrap_or_default();
    println!(
        "{}{digest} -> {} (sha256 {}{signed})",
        args.reference,
        target.display(),
        fetched.sha256
    );
    Ok(ExitCode::SUCCESS)
}

/// The plugin name a source gets by default.
fn default_name(source: &SourceRef) -> String {
    let last = match source {
        SourceRef::Oci(r) => r
            .repository
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_string(),
        SourceRef::Https(url) => url
            .split(['?', '#'])
            .next()
            .and_then(|u| u.rsplit('/').next())
            .unwrap_or_default()
            .trim_end_matches(".wasm")
            .to_string(),
    };
    if last.is_empty() {
        "plugin".into()
    } else {
        last
    }
}

/// `push`: publishes a component.
async fn push(args: PushArgs) -> anyhow::Result<ExitCode> {
    let r = oci_ref(&args.reference)?;
    anyhow::ensure!(
        r.tag.is_some() && r.digest.is_none(),
        "{}: push to a tag (oci://REGISTRY/REPO:TAG)",
        args.reference
    );
    let bytes = std::fs::read(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    anyhow::ensure!(
        bytes.len() >= 8 && &bytes[..4] == b"\0asm" && bytes[4..8] == [0x0d, 0x00, 0x01, 0x00],
        "{}: not a WebAssembly component",
        args.file.display()
    );
    let registry = Registry::for_ref(&r, &args.plain_http);
    let digest = registry.push_component(&r, &bytes).await?;
    println!("{} {digest}", args.reference);
    Ok(ExitCode::SUCCESS)
}

/// `sign`: signs what a reference resolves to and pushes the signature.
async fn sign(args: SignArgs) -> anyhow::Result<ExitCode> {
    let r = oci_ref(&args.reference)?;
    let key = PrivateKey::read(&args.key)?;
    let registry = Registry::for_ref(&r, &args.plain_http);
    let digest = match &r.digest {
        Some(d) => d.clone(),
        None => registry.resolve(&r).await?,
    };
    let payload = signature::payload(&r.repository_name(), &digest);
    let signed = key.sign(&payload);
    let tag = signature::signature_tag(&digest);
    registry.push_signature(&r, &tag, &payload, &signed).await?;
    println!(
        "{} {digest} signed ({}:{tag})",
        args.reference,
        r.repository_name()
    );
    Ok(ExitCode::SUCCESS)
}

/// `keygen`: writes a key pair.
fn keygen(args: &KeygenArgs) -> anyhow::Result<ExitCode> {
    let with = |ext: &str| {
        let mut path = args.out.clone().into_os_string();
        path.push(ext);
        PathBuf::from(path)
    };
    let (private, public) = (with(".key"), with(".pub"));
    PrivateKey::generate()?.write(&private, &public)?;
    println!(
        "private key {} (keep it secret), public key {}",
        private.display(),
        public.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Gives every plugin the same error: the policy file did not load.
#[derive(Debug)]
struct BrokenConfig(Arc<ConfigError>);

impl Policies for BrokenConfig {
    fn policy_for(&self, _plugin: &str) -> Result<Policy, PolicyError> {
        Err(PolicyError::File(self.0.clone()))
    }
}

/// Inspects one file and prints the report to stdout. A policy file that
/// does not load is reported like any other reason the plugin would not.
async fn inspect(args: InspectArgs) -> anyhow::Result<ExitCode> {
    let settings = EngineSettings {
        // One throwaway instance lists the tools.
        max_instances: 2,
        ..EngineSettings::default()
    };
    let mut loaded = None;
    let (policies, config_file): (PolicySource, Option<PathBuf>) =
        match load_config(args.config.as_deref(), settings.max_memory_bytes as u64) {
            Ok(config) => {
                let file = (!config.is_builtin()).then(|| config.path().to_owned());
                let config = Arc::new(config);
                loaded = Some(config.clone());
                (config, file)
            }
            Err(e) => (Arc::new(BrokenConfig(Arc::new(e))), None),
        };
    let text = args.file.to_string_lossy().into_owned();
    let mut file = args.file.clone();
    let mut source_info = None;
    if ["oci://", "https://", "http://"]
        .iter()
        .any(|p| text.starts_with(p))
    {
        let source = parse_source(&text)?;
        let section = loaded
            .as_ref()
            .and_then(|c| c.sources().into_iter().find(|s| s.source == source));
        let name = section
            .as_ref()
            .map_or_else(|| default_name(&source), |s| s.name.clone());
        let mut plain_http = args.plain_http.clone();
        if let Some(config) = &loaded {
            plain_http.extend(config.plain_http_registries().iter().cloned());
        }
        let fetcher = Fetcher::new(&cache_dir(&args.cache)?, &plain_http);
        let keys = section.as_ref().and_then(|s| s.keys.clone());
        let pinned = section.as_ref().and_then(|s| s.sha256);
        let fetched = fetcher.fetch(&source, pinned, keys.as_ref()).await?;
        file = fetcher.store().plugin_file(&fetched.sha256, &name)?;
        source_info = Some(SourceInfo {
            reference: text.clone(),
            digest: fetched.manifest_digest.clone(),
            signed_by: fetched.signed_by.map(|p| p.display().to_string()),
            offline: fetched.offline,
        });
    }
    let runtime = Runtime::new(&settings, policies)?.with_cache(open_cache(&args.cache));
    let inspection = runtime.inspect(&file).await;
    let mut report = Report::new(&inspection, config_file.as_deref());
    if let Some(info) = source_info {
        report = report.with_source(info);
    }
    report.write(args.json, &mut std::io::stdout().lock())?;
    Ok(ExitCode::from(report.exit_code()))
}

/// The compile cache the flags ask for, or `None` (with a warning when the
/// directory cannot be used: the server then compiles every plugin).
fn open_cache(args: &CacheArgs) -> Option<CompileCache> {
    if args.no_cache {
        return None;
    }
    let Some(dir) = args.cache_dir.clone().or_else(CompileCache::default_dir) else {
        tracing::warn!(
            "{}; running without a compile cache",
            CacheError::NoDefaultDir
        );
        return None;
    };
    match CompileCache::open(&dir) {
        Ok(cache) => {
            tracing::debug!(dir = %dir.display(), "compile cache");
            Some(cache)
        }
        Err(e) => {
            tracing::warn!("{e}; running without a compile cache");
            None
        }
    }
}

/// Loads every plugin in a directory as `serve` would and prints one line
/// per file; exits with 1 if any file would not load or would lose a tool.
async fn check(args: CheckArgs) -> anyhow::Result<ExitCode> {
    use std::io::Write as _;
    let settings = EngineSettings::default();
    let config = Arc::new(load_config(
        args.config.as_deref(),
        settings.max_memory_bytes as u64,
    )?);
    let runtime = Runtime::new(&settings, config.clone())?.with_cache(open_cache(&args.cache));
    let files = Runtime::plugin_files(&args.dir)?;
    let report = runtime.load_files(&files).await;
    let catalog = runtime.catalog();
    let mut out = std::io::stdout().lock();
    let mut failed = 0;
    for file in &files {
        let file_name = file
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let problem = if let Some(plugin) = catalog.plugins().iter().find(|p| &p.path == file) {
            let served = catalog
                .tools()
                .iter()
                .filter(|t| t.plugin == *plugin.name)
                .count();
            let mine = |p: &Arc<Plugin>| Arc::ptr_eq(p, plugin);
            let resources = catalog
                .resources()
                .iter()
                .filter(|r| mine(&r.plugin))
                .count();
            let templates = catalog
                .templates()
                .iter()
                .filter(|t| mine(&t.plugin))
                .count();
            let prompts = catalog.prompts().iter().filter(|p| mine(&p.plugin)).count();
            let all = &plugin.served;
            if served == plugin.tools.len()
                && resources == all.resources.len()
                && templates == all.templates.len()
                && prompts == all.prompts.len()
            {
                let plural =
                    |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
                let mut counts = vec![plural(served, "tool")];
                for (n, what) in [
                    (resources, "resource"),
                    (templates, "resource template"),
                    (prompts, "prompt"),
                    (all.views.len(), "view"),
                ] {
                    if n > 0 {
                        counts.push(plural(n, what));
                    }
                }
                writeln!(out, "ok   {file_name}  ({})", counts.join(", "))?;
                continue;
            }
            report
                .skipped_of(&plugin.name)
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        } else if let Some(e) = report.failure(file) {
            e.problem().to_string()
        } else {
            "did not load".to_string()
        };
        failed += 1;
        writeln!(out, "FAIL {file_name}: {problem}")?;
    }
    if files.is_empty() {
        writeln!(out, "no plugins (*.wasm files) in {}", args.dir.display())?;
    }
    for section in config.unused_sections(&report.loaded) {
        tracing::warn!(
            "{}: [plugins.{section}] matches no loaded plugin",
            config.path().display()
        );
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Writes a new project and says what it wrote, or why it wrote nothing.
fn new_project(args: &NewArgs) -> ExitCode {
    match mcp_wasm_host::cli::new::run(args) {
        Ok(created) => {
            print!("{created}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

fn main() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    let traces = init_logging(&cli)?;
    let runtime = || {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .context("cannot start the async runtime")
    };
    match cli.command {
        Command::Serve(args) => {
            let served = runtime()?.block_on(serve(*args));
            // What the spans of the last calls hold is exported before exit.
            if let Some(traces) = traces {
                traces.shutdown();
            }
            served.map(|()| ExitCode::SUCCESS)
        }
        Command::Inspect(args) => runtime()?.block_on(inspect(args)),
        Command::Check(args) => runtime()?.block_on(check(args)),
        Command::New(args) => Ok(new_project(&args)),
        Command::Pull(args) => runtime()?.block_on(pull(args)),
        Command::Push(args) => runtime()?.block_on(push(args)),
        Command::Sign(args) => runtime()?.block_on(sign(args)),
        Command::Keygen(args) => keygen(&args),
    }
}
