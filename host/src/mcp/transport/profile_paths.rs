//! One MCP endpoint per profile: `/mcp/NAME` serves sessions bound to the
//! policy file's `[profiles.NAME]` (see
//! [`McpServer::bound_to`](crate::mcp::protocol::McpServer::bound_to)),
//! beside `/mcp`. The name is looked up on each request, as profiles come
//! and go with policy reloads: a name the policy file does not define now
//! is `404 Not Found`, like any other unknown path. Every endpoint shares
//! `/mcp`'s session manager and the guards layered on it, so a session is
//! served the profile of the path whose `initialize` opened it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use axum::Router;
use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::mcp::protocol::McpServer;

/// The endpoints of the profiles, each made when first asked for.
struct Endpoints<M> {
    server: McpServer,
    stateless: bool,
    sessions: Arc<M>,
    config: StreamableHttpServerConfig,
    made: Mutex<HashMap<String, StreamableHttpService<McpServer, M>>>,
}

impl<M: SessionManager> Endpoints<M> {
    /// The endpoint of the profile `name`, if the policy file defines it.
    fn endpoint(&self, name: &str) -> Option<StreamableHttpService<McpServer, M>> {
        let bound = self.server.bound_to(name).ok()?;
        let mut made = self.made.lock().unwrap_or_else(PoisonError::into_inner);
        let stateless = self.stateless;
        let service = made.entry(name.to_string()).or_insert_with(|| {
            StreamableHttpService::new(
                move || {
                    Ok(if stateless {
                        bound.sessionless()
                    } else {
                        bound.session()
                    })
                },
                self.sessions.clone(),
                self.config.clone(),
            )
        });
        Some(service.clone())
    }
}

/// The route `{path}/{profile}` (`path` is `/mcp`) for `server`'s
/// profiles, sharing `sessions`.
pub(super) fn route<M: SessionManager>(
    path: &str,
    server: McpServer,
    stateless: bool,
    sessions: Arc<M>,
    config: StreamableHttpServerConfig,
) -> Router {
    let endpoints = Arc::new(Endpoints {
        server,
        stateless,
        sessions,
        config,
        made: Mutex::default(),
    });
    Router::new()
        .route(
            &format!("{path}/{{profile}}"),
            axum::routing::any(serve::<M>),
        )
        .with_state(endpoints)
}

async fn serve<M: SessionManager>(
    State(endpoints): State<Arc<Endpoints<M>>>,
    Path(profile): Path<String>,
    request: Request,
) -> Response {
    match endpoints.endpoint(&profile) {
        Some(service) => service.handle(request).await.into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}
