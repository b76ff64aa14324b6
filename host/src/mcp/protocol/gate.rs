//! Per-caller access on the MCP side: the connection's profile and the
//! profiles bound to the caller's OAuth subject or scopes (all of which
//! must admit what is asked for), and the
//! [`Principal`] the OAuth layer put in a request's HTTP extensions (rmcp
//! hands the request's `http::request::Parts` to the handler), checked
//! against the scopes each plugin's policy asks for. Lists leave out what
//! the caller may not use. A call, read or prompt of what the profile
//! leaves out gets the very error of a name nothing serves; of what the
//! caller's scopes do not grant, a refusal naming the scope that would. A
//! request without a profile and without a principal (stdio, or HTTP
//! without OAuth) sees everything.

use std::sync::Arc;

use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::json;

use super::server::McpServer;
use crate::config::Profile;
use crate::runtime::{
    Catalog, Denied, Plugin, Policy, Principal, SessionDataKey, ToolInfo, ToolRoute,
};

/// What one request's caller may use.
#[derive(Debug, Clone)]
pub(super) struct Gate {
    principal: Option<Principal>,
    /// The profiles as they are now that the request must pass, every one
    /// of them: the connection's (its `/mcp/NAME` path or `--profile`) and
    /// those bound to the caller's OAuth subject or scopes. None: the whole
    /// catalog.
    profiles: Vec<Arc<Profile>>,
}

impl McpServer {
    /// The gate of the request in `context`. The HTTP layer has already
    /// bound the session to the subject of its `initialize` and refused any
    /// request of another subject ([`crate::mcp::transport::http_sessions`]); this binds the
    /// caller (the audit log's subject) and checks again.
    pub(super) fn gate(&self, context: &RequestContext<RoleServer>) -> Result<Gate, McpError> {
        let parts = context.extensions.get::<http::request::Parts>();
        if let Some(key) = parts.and_then(|parts| parts.extensions.get::<SessionDataKey>()) {
            // A session the replicas share: its data has this key on each.
            self.caller.share_session(key);
        }
        let principal = parts
            .and_then(|parts| parts.extensions.get::<Principal>())
            .cloned();
        if let Some(principal) = &principal
            && let Err(bound) = self.caller.bind_subject(&principal.subject)
        {
            tracing::warn!(
                subject = &*principal.subject,
                session_subject = &*bound,
                "refused a request: the session belongs to another subject"
            );
            return Err(McpError::invalid_request(
                "this session was opened with a token of another subject; start a new session",
                None,
            ));
        }
        self.subscriptions.audience().meet(principal.as_ref());
        let mut profiles: Vec<Arc<Profile>> = self.profile().into_iter().collect();
        if let Some(principal) = &principal {
            profiles.extend(self.options.profiles.bound_for(principal));
        }
        Ok(Gate {
            principal,
            profiles,
        })
    }
}

impl Gate {
    /// The caller, if the OAuth layer named one.
    pub(super) fn principal(&self) -> Option<&Principal> {
        self.principal.as_ref()
    }

    /// Whether the connection's profile admits the tool `info`, which its
    /// plugin calls `own`.
    pub(super) fn admits_tool(&self, info: &ToolInfo, own: &str) -> bool {
        self.profiles
            .iter()
            .all(|p| p.admits_tool(&info.plugin, &info.name, own, &info.hints))
    }

    /// Whether the connection's profile leaves out the tool clients call
    /// `name`, loaded or listed from the cache (a name nothing serves is
    /// not hidden: it is unknown).
    pub(super) fn hides_tool(&self, catalog: &Catalog, name: &str) -> bool {
        if let Some((info, target)) = catalog.get(name) {
            return !self.admits_tool(info, &target.tool().name);
        }
        catalog.pending(name).is_some_and(|(plugin, tool)| {
            !self
                .profiles
                .iter()
                .all(|p| p.admits_tool(&plugin.name, name, &tool.name, &tool.hints))
        })
    }

    /// Whether the connection's profile admits the resource or template
    /// `uri` of `plugin`.
    pub(super) fn admits_resource(&self, plugin: &Plugin, uri: &str) -> bool {
        self.profiles
            .iter()
            .all(|p| p.admits_resource(&plugin.name, uri))
    }

    /// Whether the connection's profile admits the prompt `name` of
    /// `plugin`.
    pub(super) fn admits_prompt(&self, plugin: &Plugin, name: &str) -> bool {
        self.profiles
            .iter()
            .all(|p| p.admits_prompt(&plugin.name, name))
    }

    /// Whether the caller may see and call the tool at `target`.
    pub(super) fn tool(&self, target: &ToolRoute) -> Result<(), Denied> {
        match &self.principal {
            None => Ok(()),
            Some(p) => {
                let policy = &target.plugin.policy;
                policy
                    .access
                    .allows_tool(p, &policy.section, &target.tool().name)
            }
        }
    }

    /// Whether the caller may use what `plugin` serves besides tools.
    pub(super) fn plugin(&self, plugin: &Arc<Plugin>) -> Result<(), Denied> {
        match &self.principal {
            None => Ok(()),
            Some(p) => plugin
                .policy
                .access
                .allows_plugin(p, &plugin.policy.section),
        }
    }

    /// Whether the caller may see the tool at `target`.
    pub(super) fn sees_tool(&self, target: &ToolRoute) -> bool {
        self.tool(target).is_ok()
    }

    /// Whether the caller may see the tool `tool` (its plugin's own name
    /// for it) of a plugin still loading under `policy`.
    pub(super) fn sees_pending(&self, policy: &Policy, tool: &str) -> bool {
        self.principal
            .as_ref()
            .is_none_or(|p| policy.access.allows_tool(p, &policy.section, tool).is_ok())
    }

    /// Whether the caller may see what `plugin` serves besides tools.
    pub(super) fn sees(&self, plugin: &Arc<Plugin>) -> bool {
        self.plugin(plugin).is_ok()
    }

    /// The error for a request of `what` (e.g. `tool "divide"`) the caller
    /// may not make: `-32602`, as for something unknown, naming the scope
    /// that would grant it and its policy key.
    pub(super) fn refusal(&self, what: &str, denied: &Denied) -> McpError {
        let subject = self.principal.as_ref().map_or("", |p| &p.subject);
        tracing::info!(
            target: "audit",
            subject,
            what,
            outcome = "insufficient_scope",
            needed = ?denied.needed,
            "refused"
        );
        McpError::invalid_params(
            format!("{what} is not available to this caller: {denied}"),
            Some(json!({
                "error": "insufficient_scope",
                "scopes": denied.needed,
                "policy_key": denied.key,
            })),
        )
    }
}
