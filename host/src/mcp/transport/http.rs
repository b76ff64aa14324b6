//! The Streamable HTTP transport: rmcp's `StreamableHttpService` at `/mcp`
//! (and at `/mcp/NAME` for each profile: [`super::profile_paths`]) on axum, with `Host` and `Origin` validation against DNS rebinding and
//! cross-site requests, optional bearer-token authentication, sessions
//! (`Mcp-Session-Id`) or a stateless mode for replicas behind a load
//! balancer, `TCP_NODELAY` on every accepted connection, and the checks of
//! [`super::http_body`]: a JSON-RPC error for every POST body that is not a
//! message rmcp handles, one request per id in flight in a session, and
//! `404` for a `DELETE` of an unknown session. Sessions are bound to their
//! owner and bounded in number by [`super::http_sessions`]. With
//! `[server.oauth]` it is an OAuth 2.1 resource server instead (see
//! [`crate::mcp::oauth`]). Routes from
//! outside MCP (metrics, health checks) may be served next to `/mcp`, and a
//! graceful shutdown stops accepting connections before it ends the
//! sessions.
//!
//! Without `TCP_NODELAY`, Nagle's algorithm and delayed ACKs stall most
//! small responses by about 40 ms, which caps a client at a few dozen calls
//! per second.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::accept::DrainingListener;
use super::drain::{self, Drain};
use super::http_body::{self, BodyBudget, BodyCheck, InFlight};
use super::http_sessions::{self, ClientAddr, Registry, Sessions, SharedEvents, SharedSessions};
use super::profile_paths;
use super::upstream_gaps::jsonrpc;
use crate::config::SessionSettings;
use crate::mcp::oauth::bearer::{self, BearerToken};
use crate::mcp::oauth::{self, OAuth};
use crate::mcp::protocol::McpServer;
use crate::runtime::store::Store;
use crate::telemetry::metrics::SessionCount;

/// The path of the MCP endpoint.
pub const PATH: &str = "/mcp";

/// A `--allowed-host` or `--allowed-origin` value that turns the check off.
pub const ANY: &str = "*";

/// Host names a loopback server answers to (any port).
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Browser origins a loopback server accepts (any port), such as the MCP
/// Inspector's web UI. Requests without an `Origin` header (every
/// non-browser client) are not affected.
const LOOPBACK_ORIGINS: [&str; 3] = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

/// How the HTTP transport listens and whom it lets in.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// The address to listen on; port 0 picks a free port.
    pub addr: SocketAddr,
    /// Listening on a non-loopback address is refused unless this is set.
    pub allow_remote: bool,
    /// The bearer token every request must carry, if any.
    pub auth: Option<BearerToken>,
    /// The OAuth resource server whose access tokens every request must
    /// carry, if any (`[server.oauth]`).
    pub oauth: Option<Arc<OAuth>>,
    /// Serve every request on its own, with no `Mcp-Session-Id`, so that
    /// replicas behind a load balancer need no shared state.
    pub stateless: bool,
    /// More `Host` values to accept (names or `host:port`), besides the
    /// loopback names and the listening address; `*` accepts any.
    pub allowed_hosts: Vec<String>,
    /// More browser origins to accept (`scheme://host[:port|:*]`), besides
    /// loopback pages; `*` accepts any.
    pub allowed_origins: Vec<String>,
    /// More routes served next to `/mcp` (metrics), behind the same bearer
    /// token.
    pub routes: Option<Router>,
    /// More routes served next to `/mcp` without the bearer token (health
    /// checks).
    pub public_routes: Option<Router>,
    /// Counts the requests in flight, for a graceful shutdown.
    pub drain: Option<Drain>,
    /// Told how to count the open sessions (not in stateless mode).
    pub sessions: Option<SessionCount>,
    /// How many sessions may be open and how long an idle one lives
    /// (`[server]`'s session keys).
    pub session_limits: SessionSettings,
    /// The Redis store the replicas share, if any: sessions are recorded
    /// there, so that any replica serves any session.
    pub session_store: Option<Store>,
}

impl HttpOptions {
    /// Options for listening on `addr`, with everything else at its default:
    /// loopback only, no token, sessions on. Bodies are limited to
    /// [`jsonrpc::MAX_MESSAGE_BYTES`], as stdio lines are.
    pub fn new(addr: SocketAddr) -> HttpOptions {
        HttpOptions {
            addr,
            allow_remote: false,
            auth: None,
            oauth: None,
            stateless: false,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            routes: None,
            public_routes: None,
            drain: None,
            sessions: None,
            session_limits: SessionSettings::default(),
            session_store: None,
        }
    }

    /// The `Host` values accepted: none (any) if `*` was given.
    fn hosts(&self) -> Vec<String> {
        if self.allowed_hosts.iter().any(|h| h == ANY) {
            return Vec::new();
        }
        let mut hosts: Vec<String> = LOOPBACK_HOSTS.iter().map(|h| h.to_string()).collect();
        if !self.addr.ip().is_unspecified() && !self.addr.ip().is_loopback() {
            hosts.push(self.addr.ip().to_string());
        }
        hosts.extend(self.allowed_hosts.iter().cloned());
        hosts
    }

    /// The origins accepted, or `None` to accept any.
    fn origins(&self) -> Option<Vec<String>> {
        if self.allowed_origins.iter().any(|o| o == ANY) {
            return None;
        }
        let mut origins: Vec<String> = LOOPBACK_ORIGINS.iter().map(|o| o.to_string()).collect();
        origins.extend(self.allowed_origins.iter().cloned());
        Some(origins)
    }

    fn rmcp_config(&self, shutdown: &CancellationToken) -> StreamableHttpServerConfig {
        let mut config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(self.hosts())
            .with_max_request_body_bytes(jsonrpc::MAX_MESSAGE_BYTES)
            .with_cancellation_token(shutdown.child_token());
        config = match self.origins() {
            Some(origins) => config
                .with_allowed_origins(origins)
                .enforce_origin_validation(),
            None => config.disable_allowed_origins(),
        };
        if self.stateless {
            config = config
                .with_legacy_session_mode(false)
                .with_json_response(true)
                .with_sse_retry(None);
        }
        config
    }
}

/// Why the HTTP transport could not run.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// A non-loopback address without the flag that allows it.
    #[error(
        "refusing to listen on {0}: it is not a loopback address, so other machines could connect; pass --http-allow-remote to allow that (and set a bearer token with --auth-token-env or --auth-token-file)"
    )]
    NotLoopback(SocketAddr),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The server stopped with an I/O error.
    #[error("the HTTP server failed: {0}")]
    Serve(std::io::Error),
}

/// A bound HTTP listener, ready to serve.
#[derive(Debug)]
pub struct HttpListener {
    listener: TcpListener,
    local: SocketAddr,
    options: HttpOptions,
}

/// Binds the listening socket, checking first that a non-loopback address
/// was explicitly allowed.
pub async fn bind(options: HttpOptions) -> Result<HttpListener, HttpError> {
    let addr = options.addr;
    if !addr.ip().is_loopback() {
        if !options.allow_remote {
            return Err(HttpError::NotLoopback(addr));
        }
        if options.auth.is_none() && options.oauth.is_none() {
            tracing::warn!(
                %addr,
                "serving MCP on a non-loopback address without authentication: anyone who can reach it can call every tool; set --auth-token-env or --auth-token-file"
            );
        }
    }
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|source| HttpError::Bind { addr, source })?;
    let local = listener
        .local_addr()
        .map_err(|source| HttpError::Bind { addr, source })?;
    Ok(HttpListener {
        listener,
        local,
        options,
    })
}

impl HttpListener {
    /// The address actually bound (with the port the kernel picked for 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// The MCP endpoint's URL, e.g. `http://127.0.0.1:8080/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{PATH}", self.local)
    }

    /// Serves `server` until `shutdown` is cancelled. Every session gets its
    /// own [`McpServer::session`], so each has its own logging level.
    pub async fn serve(
        self,
        server: McpServer,
        shutdown: CancellationToken,
    ) -> Result<(), HttpError> {
        self.serve_draining(server, shutdown.clone(), shutdown)
            .await
    }

    /// Serves `server` until `stop_accepting` is cancelled, then stops
    /// accepting connections and lets the open ones finish their requests;
    /// `end_sessions` ends the sessions (and their event streams), after
    /// which this returns. A graceful shutdown cancels the first, waits for
    /// [`HttpOptions::drain`] to be idle, then cancels the second.
    pub async fn serve_draining(
        self,
        server: McpServer,
        stop_accepting: CancellationToken,
        end_sessions: CancellationToken,
    ) -> Result<(), HttpError> {
        let shutdown = end_sessions;
        let mut config = self.options.rmcp_config(&shutdown);
        let stateless = self.options.stateless;
        let (router, check) = if stateless {
            let check = BodyCheck {
                in_flight: None,
                budget: BodyBudget::default(),
            };
            let sessions = Arc::new(NeverSessionManager::default());
            (router(server, stateless, sessions, config), check)
        } else {
            let limits = self.options.session_limits;
            let mut local = LocalSessionManager::default();
            local.session_config.keep_alive = Some(limits.idle_timeout);
            let registry = Arc::new(Registry::new(limits));
            if let Some(count) = &self.options.sessions {
                let registry = registry.clone();
                count.count_with(move || Some(registry.len()));
            }
            let mut shared = None;
            if let Some(store) = &self.options.session_store {
                let sessions = Arc::new(SharedSessions::new(
                    store.clone(),
                    limits.idle_timeout,
                    registry.clone(),
                ));
                let events = Arc::new(SharedEvents::new(store.clone(), limits.idle_timeout));
                tracing::info!(
                    store = %store.name(),
                    "HTTP sessions and their GET streams' events are recorded in the shared state store; any replica serves any session"
                );
                config.session_store = Some(sessions.clone());
                local = local.with_event_store(events.clone());
                shared = Some((sessions, events));
            }
            let mut sessions = Sessions::new(local, registry.clone());
            if let Some((shared, events)) = shared {
                sessions = sessions.sharing(shared, events);
            }
            let sessions = Arc::new(sessions);
            let check = BodyCheck {
                in_flight: Some(InFlight::default()),
                budget: BodyBudget::default(),
            };
            let router = router(server, stateless, sessions.clone(), config)
                .layer(axum::middleware::from_fn_with_state(
                    sessions.clone(),
                    http_body::check_delete_session::<Sessions<LocalSessionManager>>,
                ))
                .layer(axum::middleware::from_fn_with_state(
                    sessions,
                    http_sessions::guard::<LocalSessionManager>,
                ));
            (router, check)
        };
        let router = router.layer(axum::middleware::from_fn_with_state(
            check,
            http_body::check_post_body,
        ));
        let router = match self.options.drain.clone() {
            Some(drain) => router.layer(axum::middleware::from_fn_with_state(drain, drain::track)),
            None => router,
        };
        let router = match self.options.routes.clone() {
            Some(routes) => router.merge(routes),
            None => router,
        };
        let router = match &self.options.auth {
            Some(token) => router.layer(axum::middleware::from_fn_with_state(
                token.clone(),
                bearer::require_bearer,
            )),
            None => router,
        };
        // The metadata is public: its routes join after the token layers.
        let router = match &self.options.oauth {
            Some(oauth) => router
                .layer(axum::middleware::from_fn_with_state(
                    oauth.clone(),
                    oauth::require_token,
                ))
                .merge(oauth.routes(PATH)),
            None => router,
        };
        // So are the health checks, which a load balancer's probes call
        // without credentials.
        let router = match self.options.public_routes.clone() {
            Some(routes) => router.merge(routes),
            None => router,
        };
        // Once `stop_accepting` is cancelled, the listener accepts what the
        // kernel already queued, then closes; the server shuts down once
        // those connections have been read from (see [`super::accept`]).
        let (listener, drain) = DrainingListener::new(self.listener, stop_accepting);
        // The client's address goes into each request, for
        // `max_sessions_per_address`.
        let service = router.into_make_service_with_connect_info::<ClientAddr>();
        axum::serve(listener, service)
            .with_graceful_shutdown(drain.finished())
            .await
            .map_err(HttpError::Serve)
    }
}

impl axum::extract::connect_info::Connected<axum::serve::IncomingStream<'_, DrainingListener>>
    for ClientAddr
{
    fn connect_info(stream: axum::serve::IncomingStream<'_, DrainingListener>) -> Self {
        ClientAddr(*stream.remote_addr())
    }
}

/// `/mcp`, and `/mcp/NAME` for each profile ([`super::profile_paths`]),
/// all served from `sessions`. Without sessions each request is a client of
/// its own, which no instance is kept for (`reuse_instances = "session"`).
fn router<M: SessionManager>(
    server: McpServer,
    stateless: bool,
    sessions: Arc<M>,
    config: StreamableHttpServerConfig,
) -> Router {
    let profiles = profile_paths::route(
        PATH,
        server.clone(),
        stateless,
        sessions.clone(),
        config.clone(),
    );
    let factory = move || {
        Ok(if stateless {
            server.sessionless()
        } else {
            server.session()
        })
    };
    Router::new()
        .route_service(PATH, StreamableHttpService::new(factory, sessions, config))
        .merge(profiles)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(addr: &str) -> HttpOptions {
        HttpOptions::new(addr.parse().unwrap())
    }

    #[test]
    fn loopback_names_and_pages_are_allowed_by_default() {
        let o = options("127.0.0.1:0");
        assert_eq!(o.hosts(), ["localhost", "127.0.0.1", "::1"]);
        assert_eq!(o.origins().unwrap().len(), 3);
    }

    #[test]
    fn a_remote_address_adds_itself_and_the_flags_add_more() {
        let mut o = options("192.0.2.7:8080");
        o.allowed_hosts = vec!["mcp.example.com".into()];
        o.allowed_origins = vec!["https://app.example.com".into()];
        assert!(o.hosts().contains(&"192.0.2.7".to_string()));
        assert!(o.hosts().contains(&"mcp.example.com".to_string()));
        assert!(
            o.origins()
                .unwrap()
                .contains(&"https://app.example.com".to_string())
        );
        o.allowed_hosts.push("*".into());
        o.allowed_origins.push("*".into());
        assert!(o.hosts().is_empty(), "an empty list accepts any host");
        assert!(o.origins().is_none());
    }

    #[tokio::test]
    async fn a_non_loopback_address_needs_the_flag() {
        let err = bind(options("0.0.0.0:0")).await.unwrap_err();
        assert!(matches!(err, HttpError::NotLoopback(_)), "{err}");
        assert!(err.to_string().contains("--http-allow-remote"));
    }
}
