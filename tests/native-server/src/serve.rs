//! The command line and the two transports: rmcp's stdio transport, or its
//! Streamable HTTP service at `/mcp` on axum (sessions, or stateless).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::serve::ListenerExt as _;
use rmcp::ServiceExt as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;

use crate::NativeServer;

/// The path of the MCP endpoint, as in `mcp-wasm-host`.
pub const PATH: &str = "/mcp";

/// Serve the `hash` tool over MCP: on stdin/stdout, or over Streamable HTTP
/// with `--http`.
#[derive(Debug, Clone, clap::Parser)]
#[command(name = "native-mcp-server", version, about)]
pub struct Options {
    /// Serve Streamable HTTP on this address instead of stdio (port 0 picks
    /// a free port); the URL is printed on stderr as `listening on URL`.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,
    /// With `--http`: no sessions, every request served on its own (as
    /// `mcp-wasm-host serve --stateless`).
    #[arg(long, requires = "http")]
    pub stateless: bool,
}

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The async runtime could not start.
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    /// The stdio handshake failed.
    #[error("the MCP session did not start: {0}")]
    Initialize(Box<rmcp::service::ServerInitializeError>),
    /// The stdio session's task failed.
    #[error("the MCP session failed: {0}")]
    Session(#[from] tokio::task::JoinError),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The HTTP server failed.
    #[error("the HTTP server failed: {0}")]
    Http(std::io::Error),
}

/// Serves until stdin ends (stdio) or the process is stopped (HTTP), on a
/// multi-threaded tokio runtime, as `mcp-wasm-host` does.
pub fn run(options: Options) -> Result<(), ServeError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?
        .block_on(async {
            match options.http {
                None => serve_stdio().await,
                Some(addr) => serve_http(addr, options.stateless).await,
            }
        })
}

async fn serve_stdio() -> Result<(), ServeError> {
    NativeServer
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| ServeError::Initialize(Box::new(e)))?
        .waiting()
        .await?;
    Ok(())
}

async fn serve_http(addr: SocketAddr, stateless: bool) -> Result<(), ServeError> {
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind { addr, source })?;
    let local = listener
        .local_addr()
        .map_err(|source| ServeError::Bind { addr, source })?;
    let config = StreamableHttpServerConfig::default();
    let router = if stateless {
        // The host's stateless settings: plain JSON responses, no SSE.
        let config = config
            .with_legacy_session_mode(false)
            .with_json_response(true)
            .with_sse_retry(None);
        let sessions = Arc::new(NeverSessionManager::default());
        Router::new().route_service(
            PATH,
            StreamableHttpService::new(|| Ok(NativeServer), sessions, config),
        )
    } else {
        let sessions = Arc::new(LocalSessionManager::default());
        Router::new().route_service(
            PATH,
            StreamableHttpService::new(|| Ok(NativeServer), sessions, config),
        )
    };
    eprintln!("listening on http://{local}{PATH}");
    let listener = listener.tap_io(|tcp| {
        // Best effort, as in the host: a socket without it still works.
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router)
        .await
        .map_err(ServeError::Http)
}
