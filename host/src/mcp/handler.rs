//! The rmcp server handler: `tools/list` with pages and `tools/call` with the
//! failure mapping each protocol revision requires, and
//! `notifications/tools/list_changed` to every initialized session when the
//! runtime's catalog changes. A call's guest log messages and progress
//! reports reach the client as notifications (see [`super::events`]), and
//! `notifications/cancelled` stops a running call.

use std::sync::Arc;

#[allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); clients still use it
use rmcp::model::SetLevelRequestParams;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::json;

use super::events::{Forwarder, SessionLevel};
use super::notify::PeerRegistry;
use super::{convert, cursor};
use crate::runtime::{CallError, Caller, Runtime};

/// How the server presents its tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerOptions {
    /// The most tools one `tools/list` page holds.
    pub page_size: usize,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions { page_size: 50 }
    }
}

/// Serves a [`Runtime`]'s tools over MCP. Cheap to clone: every session of a
/// transport shares the runtime. The logging level is shared by the clones;
/// [`McpServer::session`] makes a server for a new session, with its own.
#[derive(Debug, Clone)]
pub struct McpServer {
    runtime: Arc<Runtime>,
    options: ServerOptions,
    peers: PeerRegistry,
    level: SessionLevel,
    /// This session's client, for its per-client rate limits.
    caller: Arc<Caller>,
}

impl McpServer {
    /// A server for `runtime`.
    pub fn new(runtime: Arc<Runtime>, options: ServerOptions) -> Self {
        McpServer {
            runtime,
            options,
            peers: PeerRegistry::default(),
            level: SessionLevel::default(),
            caller: Arc::default(),
        }
    }

    /// A server for one more session: the same runtime, options and
    /// registry of sessions to notify, and its own logging level and client
    /// (for per-client rate limits).
    pub fn session(&self) -> McpServer {
        McpServer {
            level: SessionLevel::default(),
            caller: Arc::default(),
            ..self.clone()
        }
    }

    /// The sessions told about tool list changes.
    pub fn peers(&self) -> &PeerRegistry {
        &self.peers
    }
}

/// From revision 2025-11-25 on, arguments that break the input schema are a
/// tool result with `isError: true` (SEP-1303), so the model can correct
/// them; earlier revisions answer with JSON-RPC error -32602.
fn schema_errors_are_results(version: Option<&ProtocolVersion>) -> bool {
    from_2025_11_25(version)
}

/// The session speaks revision 2025-11-25 or later (or did not say).
fn from_2025_11_25(version: Option<&ProtocolVersion>) -> bool {
    version.is_none_or(|v| v.as_str() >= ProtocolVersion::V_2025_11_25.as_str())
}

/// Tools have `icons` from revision 2025-11-25 on (SEP-973); earlier
/// revisions' schemas have no such field, so their clients get none.
fn tools_have_icons(version: Option<&ProtocolVersion>) -> bool {
    from_2025_11_25(version)
}

/// From revision 2026-07-28 on there is no session-wide logging level: each
/// request opts in to log messages in its `_meta` (SEP-2575).
fn logging_is_per_request(version: Option<&ProtocolVersion>) -> bool {
    version.is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

impl ServerHandler for McpServer {
    #[allow(deprecated)] // the logging capability (SEP-2577)
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_logging()
                .build(),
        );
        info.server_info = Implementation::new("mcp-wasm-host", env!("CARGO_PKG_VERSION"))
            .with_title("mcp-wasm-host");
        info.instructions = Some(
            "Tools served from sandboxed WebAssembly plugins. A failing tool answers with isError and a message that says why."
                .into(),
        );
        info
    }

    /// The handshake is complete: from now on the session hears about tool
    /// list changes.
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.peers.register(context.peer);
        self.peers.forward(&self.runtime.subscribe_changes());
        tracing::debug!("client initialized; it will be told when the tool list changes");
    }

    /// `logging/setLevel`: guest log messages at `level` and above reach
    /// this session (`info` and above until the client sets a level).
    #[allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577)
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        tracing::debug!(level = ?request.level, "client set the logging level");
        self.level.set(request.level);
        Ok(())
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let icons = tools_have_icons(context.protocol_version().as_ref());
        self.runtime.wait_until_loaded().await;
        let after = request
            .and_then(|r| r.cursor)
            .map(|c| cursor::decode(&c))
            .transpose()
            .map_err(|e| McpError::invalid_params(e.to_string(), None))?;
        let catalog = self.runtime.catalog();
        let names: Vec<&str> = catalog.tools().iter().map(|t| t.name.as_str()).collect();
        let (range, more) = cursor::page(&names, after.as_deref(), self.options.page_size);
        let mut result = ListToolsResult::with_all_items(
            catalog.tools()[range.clone()]
                .iter()
                .map(|info| {
                    let mut tool = convert::tool(info);
                    if !icons {
                        tool.icons = None;
                    }
                    tool
                })
                .collect(),
        );
        if more {
            result.next_cursor = Some(cursor::encode(names[range.end - 1]));
        }
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.runtime.wait_until_loaded().await;
        let version = context.protocol_version();
        let level = if logging_is_per_request(version.as_ref()) {
            SessionLevel::for_request(context.meta.log_level())
        } else {
            self.level.clone()
        };
        let events = Forwarder::start(
            context.peer.clone(),
            context.meta.get_progress_token(),
            level,
        );
        // Dropping the runtime's call future stops the guest and frees its
        // instance; rmcp sends no response to a cancelled request.
        let called = tokio::select! {
            called = self.runtime.call(&request.name, request.arguments, &self.caller, events.clone()) => called,
            () = context.ct.cancelled() => {
                tracing::info!(tool = %request.name, "call cancelled");
                events.finish().await;
                // rmcp drops this: the request's id is no longer pending.
                return Ok(convert::error_result("the call was cancelled".into()).into());
            }
        };
        // Every notification of the call is queued before its response. Over
        // stdio and stateless HTTP they are all written before it; with HTTP
        // sessions rmcp sends progress on the call's stream but log messages
        // on the session's GET stream, which has no order with the response.
        events.finish().await;
        let result = match called.result {
            Ok(output) => convert::output(&output),
            Err(CallError::UnknownTool(name)) => {
                return Err(McpError::invalid_params(
                    format!("unknown tool {name:?}; tools/list shows the available tools"),
                    Some(json!({ "tool": name })),
                ));
            }
            Err(e @ CallError::InvalidArguments { .. }) => {
                if schema_errors_are_results(version.as_ref()) {
                    convert::error_result(e.to_string())
                } else {
                    let CallError::InvalidArguments { problems, .. } = &e else {
                        unreachable!("matched above")
                    };
                    let data = json!({ "problems": problems });
                    return Err(McpError::invalid_params(e.to_string(), Some(data)));
                }
            }
            Err(CallError::Failed(failure)) => convert::error_result(failure.to_string()),
        };
        Ok(convert::with_receipt(result, called.receipt.as_ref()).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revisions_map_schema_errors_as_the_spec_says() {
        for (v, as_result) in [
            (ProtocolVersion::V_2024_11_05, false),
            (ProtocolVersion::V_2025_03_26, false),
            (ProtocolVersion::V_2025_06_18, false),
            (ProtocolVersion::V_2025_11_25, true),
            (ProtocolVersion::V_2026_07_28, true),
        ] {
            assert_eq!(schema_errors_are_results(Some(&v)), as_result, "{v:?}");
        }
        assert!(schema_errors_are_results(None));
    }

    #[test]
    fn only_2026_07_28_asks_for_logs_per_request() {
        assert!(logging_is_per_request(Some(&ProtocolVersion::V_2026_07_28)));
        assert!(!logging_is_per_request(Some(
            &ProtocolVersion::V_2025_11_25
        )));
        assert!(!logging_is_per_request(None));
    }
}
