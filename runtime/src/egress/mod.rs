//! Stage `egress`: the last stage of a call. What `call` produced reaches
//! the client through here, each field listed by `outbound`.
//!
//! The one boundary where what a guest produces leaves for the client. A
//! call's results (a tool's or a task's output, a resource's contents, a
//! prompt, a completion) pass through [`result`] as the call settles, and
//! what the guest sends while it runs (progress, sampling and elicitation
//! requests) through the [`CallEvents`] that [`events`] wraps around the
//! transport's. Both hand the product to the plugin's capabilities
//! ([`Grants::outbound`]: the secrets capability redacts), and both cost
//! nothing when no capability rewrites anything: no wrapper, no walk.
//!
//! What a plugin lists at load (tools, resources, templates, prompts: its
//! catalog, as tools/list, resources/list, resources/templates/list,
//! prompts/list and `inspect` show it) crosses here too, once, where the
//! plugin loads: [`identities`] leaves out an entry whose name or URI holds
//! a secret (rewritten, it would name nothing), before the host checks or
//! logs any of it, and [`catalog`] rewrites every other field.

pub(crate) mod outbound;

use std::sync::Arc;

use crate::call::events::{
    BoxFuture, CallEvents, ClientRequestError, ClientRequestKind, Elicitation, ElicitationRequest,
    LogLevel, Progress, RequestAt, Root, SampledMessage, SamplingRequest,
};
use crate::capabilities::Grants;
use crate::definitions::served::{Listing, Served};
use crate::definitions::tool::PluginTool;
use crate::egress::outbound::Outbound;
use crate::load::bindings::types as wit;

/// Rewrites a call's result with the plugin's outbound capabilities.
pub(crate) fn result<R: Outbound>(grants: &Grants, value: &mut R) {
    if grants.rewrites_outbound() {
        grants.outbound(value);
    }
}

/// Whether a capability would rewrite `identity` (a name or URI): the
/// secrets capability, when it holds one of the plugin's secrets.
fn rewritten(grants: &Grants, identity: &str) -> bool {
    let mut copy = identity.to_owned();
    grants.outbound(&mut copy);
    copy != identity
}

/// Leaves out of a plugin's lists, as the guest gave them, every tool,
/// view, resource, template and prompt whose identity (a tool's, view's
/// or prompt's name, a prompt argument's name, a URI or URI template)
/// holds a secret, with a warning that names the plugin, the kind of entry
/// and its position in the plugin's list, never the value. Runs before the
/// lists are checked, so no refusal quotes such a name either.
pub(crate) fn identities(
    grants: &Grants,
    plugin: &str,
    tools: &mut Vec<wit::ToolDefinition>,
    listing: &mut Listing,
) {
    if !grants.rewrites_outbound() {
        return;
    }
    fn keep<T>(plugin: &str, kind: &str, list: &mut Vec<T>, holds: impl Fn(&T) -> bool) {
        let mut position = 0;
        list.retain(|entry| {
            position += 1;
            let left_out = holds(entry);
            if left_out {
                tracing::warn!(
                    plugin,
                    kind,
                    position,
                    "left out of the plugin's lists: its name or URI holds one of the plugin's secrets (as itself or encoded); the value is not logged"
                );
            }
            !left_out
        });
    }
    let holds = |s: &str| rewritten(grants, s);
    keep(plugin, "tool", tools, |t| holds(&t.name));
    keep(plugin, "view", &mut listing.views, |v| {
        holds(&v.tool) || holds(&v.resource_uri)
    });
    keep(plugin, "resource", &mut listing.resources, |r| {
        holds(&r.uri)
    });
    keep(plugin, "resource template", &mut listing.templates, |t| {
        holds(&t.uri_template)
    });
    keep(plugin, "prompt", &mut listing.prompts, |p| {
        holds(&p.name) || p.arguments.iter().any(|a| holds(&a.name))
    });
}

/// Rewrites every field of a plugin's checked lists that the client
/// receives (see [`identities`] for the names and URIs).
pub(crate) fn catalog(grants: &Grants, tools: &mut [PluginTool], served: &mut Served) {
    if grants.rewrites_outbound() {
        for tool in tools {
            grants.outbound(tool);
        }
        grants.outbound(served);
    }
}

/// The events a call's guest sends through: `events` itself when no
/// capability rewrites what leaves, else `events` behind the boundary.
pub(crate) fn events(grants: &Arc<Grants>, events: Arc<dyn CallEvents>) -> Arc<dyn CallEvents> {
    if !grants.rewrites_outbound() {
        return events;
    }
    Arc::new(Boundary {
        grants: grants.clone(),
        inner: events,
    })
}

/// A transport's events behind the plugin's outbound capabilities.
struct Boundary {
    grants: Arc<Grants>,
    inner: Arc<dyn CallEvents>,
}

impl CallEvents for Boundary {
    /// Passed on as it is: the logging capability redacted it already, for
    /// the server log it also goes to.
    fn log(&self, plugin: &str, tool: &str, level: LogLevel, message: &str) {
        self.inner.log(plugin, tool, level, message);
    }

    fn progress(&self, plugin: &str, tool: &str, mut progress: Progress) {
        self.grants.outbound(&mut progress);
        self.inner.progress(plugin, tool, progress);
    }

    fn create_message(
        &self,
        at: RequestAt<'_>,
        mut request: SamplingRequest,
    ) -> BoxFuture<'_, Result<SampledMessage, ClientRequestError>> {
        self.grants.outbound(&mut request);
        let key = self.key(&at);
        self.inner
            .create_message(RequestAt { key: &key, ..at }, request)
    }

    fn elicit(
        &self,
        at: RequestAt<'_>,
        mut request: ElicitationRequest,
    ) -> BoxFuture<'_, Result<Elicitation, ClientRequestError>> {
        self.grants.outbound(&mut request);
        let key = self.key(&at);
        self.inner.elicit(RequestAt { key: &key, ..at }, request)
    }

    fn client_supports(&self, kind: ClientRequestKind) -> Result<(), ClientRequestError> {
        self.inner.client_supports(kind)
    }

    fn list_roots(
        &self,
        at: RequestAt<'_>,
    ) -> BoxFuture<'_, Result<Vec<Root>, ClientRequestError>> {
        let key = self.key(&at);
        self.inner.list_roots(RequestAt { key: &key, ..at })
    }
}

impl Boundary {
    /// The request's key, rewritten: a guest may choose it, and a
    /// multi-round-trip request carries it to the client.
    fn key(&self, at: &RequestAt<'_>) -> String {
        let mut key = at.key.to_string();
        self.grants.outbound(&mut key);
        key
    }
}

#[cfg(test)]
mod tests;
