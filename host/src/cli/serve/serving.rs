//! `serve`'s third step: the MCP server, over stdio alone, or over
//! Streamable HTTP (its sessions, a bearer token or OAuth, the metrics and
//! health routes) and, under `--stdio`, stdio beside it.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use mcp_wasm_host::config::{Config, ServedBounds, TaskSettings};
use mcp_wasm_host::mcp::oauth::OAuth;
use mcp_wasm_host::mcp::protocol::DEFAULT_LIST_TTL;
use mcp_wasm_host::mcp::transport::drain::Drain;
use mcp_wasm_host::mcp::transport::http;
use mcp_wasm_host::mcp::transport::stdio;
use mcp_wasm_host::mcp::{McpServer, ServerOptions};

use super::ServeArgs;
use super::setup::Setup;

/// The MCP server over `runtime`, with the signed request state of
/// 2026-07-28 input rounds.
pub(super) fn mcp_server(args: &ServeArgs, setup: &Setup) -> anyhow::Result<McpServer> {
    let (config, runtime) = (&setup.config, setup.runtime.clone());
    let rounds = args.rounds.rounds()?;
    tracing::info!(
        key = rounds.key_source(),
        "2026-07-28 request state is signed"
    );
    Ok(McpServer::new(
        runtime,
        ServerOptions {
            page_size: args.page_size as usize,
            list_ttl: config.list_ttl().unwrap_or(DEFAULT_LIST_TTL),
            tasks: config.task_options(TaskSettings::default()),
            served: config.served_bounds(ServedBounds::default()),
            lists_after: args.wait_for_load.lists_after(),
            task_store: setup.shared.clone(),
            profiles: setup.profiles.clone(),
        },
        rounds,
    ))
}

/// `server` bound to `--profile`'s profile, if given: stdio's one client,
/// and `/mcp` under `--http`, are served only what it admits. An unknown
/// name stops the server, naming it and the profiles there are.
pub(super) fn bind_profile(
    args: &ServeArgs,
    setup: &Setup,
    server: McpServer,
) -> anyhow::Result<McpServer> {
    let Some(name) = &args.profile else {
        return Ok(server);
    };
    let bound = server
        .bound_to(name)
        .map_err(|e| anyhow::anyhow!("--profile: {e} (in {})", setup.config.path().display()))?;
    tracing::info!(profile = %name, "the default endpoint serves the profile's tools only");
    Ok(bound)
}

/// Serves `server` on stdin/stdout until stdin closes, the one transport.
pub(super) async fn stdio_only(server: McpServer, config: &Config) -> anyhow::Result<()> {
    if config.oauth().is_some() {
        tracing::warn!(
            "[server.oauth] applies to the HTTP transport only; stdio serves every tool to its one client"
        );
    }
    stdio::serve(server).await?;
    Ok(())
}

/// The HTTP listener, serving on a task of its own, and what stops it.
pub(super) struct Listening {
    /// The listener's task; it ends once its sessions have ended.
    pub(super) task: tokio::task::JoinHandle<Result<(), http::HttpError>>,
    /// Stops accepting connections.
    pub(super) stop_accepting: CancellationToken,
    /// Ends the sessions (and their open SSE streams).
    pub(super) end_sessions: CancellationToken,
    /// The requests in flight.
    pub(super) drain: Drain,
}

/// Binds `addr` and serves `server`'s sessions on it, with the options
/// the flags and the policy file's `[server]` ask for.
pub(super) async fn http(
    args: &ServeArgs,
    setup: &Setup,
    addr: SocketAddr,
    server: &McpServer,
) -> anyhow::Result<Listening> {
    let config = &setup.config;
    let mut options = args.http.options(addr)?;
    options.session_limits = config.session_options();
    if !options.stateless {
        options.session_store = setup.shared.clone();
    }
    let drain = Drain::new();
    options.drain = Some(drain.clone());
    if let Some(metrics) = &setup.metrics {
        if !options.stateless {
            options.sessions = Some(metrics.session_count());
        }
        if args.telemetry.metrics_addr.is_none() {
            options.routes = Some(metrics.routes());
            options.public_routes = Some(setup.health.routes());
        }
    }
    if let Some(token) = &options.auth {
        tracing::info!(from = token.source(), "HTTP requests need the bearer token");
    }
    if let Some(settings) = config.oauth() {
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
    let stateless = options.stateless;
    let listener = http::bind(options).await?;
    let (stop_accepting, end_sessions) = (CancellationToken::new(), CancellationToken::new());
    let task = tokio::spawn(listener_task(
        listener,
        server.session(),
        (stop_accepting.clone(), end_sessions.clone()),
        stateless,
    ));
    Ok(Listening {
        task,
        stop_accepting,
        end_sessions,
        drain,
    })
}

async fn listener_task(
    listener: http::HttpListener,
    server: McpServer,
    (stop_accepting, end_sessions): (CancellationToken, CancellationToken),
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
