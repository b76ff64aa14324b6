//! The rmcp server handler: what the server declares at `initialize`, and
//! each request's dispatch to the module that answers it. `tools/list` with
//! pages is answered here, `tools/call` in [`super::tool_call`] (with the
//! failure mapping each protocol revision requires), what plugins serve
//! besides tools in [`super::resources_prompts`], tasks from [`super::tasks`], and
//! subscriptions here with [`super::subscriptions`]. Every initialized
//! session hears `notifications/tools/list_changed` when the runtime's
//! catalog changes.
//!
//! rmcp runs each request in a task of its own whose future holds the
//! handler's, sized for the largest of them, and moves it as the task is
//! made (and, without sessions, serves each POST in a new service whose task
//! is moved the same way). The handlers that do more than answer at once
//! therefore run their work boxed: a request moves a few hundred bytes, not
//! the kilobytes of a tool call's state (`tests::every_request_method_moves_a_small_future`).

use std::sync::Arc;

#[allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); clients still use it
use rmcp::model::SetLevelRequestParams;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, GetTaskParams, GetTaskResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig, SubscriptionFilter, UpdateTaskParams,
};
use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse,
};
#[allow(deprecated)]
// resources/subscribe is legacy-only in rmcp (2026-07-28 has subscriptions/listen)
use rmcp::model::{SubscribeRequestParams, UnsubscribeRequestParams};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

use super::list_changed::ListsChanged;
use super::revision::{implementation, server_info_meta, tools_have_icons};
use super::server::McpServer;
use super::shared_state::session_link;
use super::subscriptions::{Watched, changed_uris, refresh};
use super::{convert, cursor};
use crate::runtime::Generations;

impl ServerHandler for McpServer {
    #[allow(deprecated)] // the logging capability (SEP-2577)
    fn get_info(&self) -> ServerConfig {
        // Resources, prompts and completions are always declared, even with
        // no plugin serving any, so that clients and caches get a real answer
        // rather than "method not found", and a plugin added later is seen.
        let mut info = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_logging()
                .enable_resources()
                .enable_resources_list_changed()
                .enable_resources_subscribe()
                .enable_prompts()
                .enable_prompts_list_changed()
                .enable_completions()
                .enable_tasks()
                .build(),
        );
        info.server_info = implementation();
        info.instructions = Some(
            "Tools, resources and prompts served from sandboxed WebAssembly plugins. A failing tool answers with isError and a message that says why."
                .into(),
        );
        info
    }

    /// The handshake is complete: from now on the session hears about tool
    /// list changes.
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if let Some(link) = session_link(&context.extensions) {
            // A session the replicas share: its subscriptions and level
            // may be set through any of them.
            if let Some(level) = link.snapshot.as_ref().and_then(|s| s.level) {
                self.level.set(level);
            }
            self.subscriptions.link(
                link.store,
                &self.runtime,
                &self.notices,
                context.peer.clone(),
            );
        }
        // The OAuth caller whose subject or scopes may bind the session to
        // profiles (the session belongs to this subject from now on).
        let principal = context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<crate::runtime::Principal>())
            .cloned();
        self.subscriptions.audience().meet(principal.as_ref());
        self.peers
            .register(context.peer, self.bound.clone(), principal);
        // A reload that changes a profile tells the sessions bound to it.
        self.peers
            .forward_profiles(&self.options.profiles, Arc::downgrade(&self.runtime));
        // Lists wait for the first load to get as far as the options say,
        // so no list a session gets can be older than the catalog then: the
        // changes after that point are announced, none before it. Each list
        // counts from its own point: resources and prompts may wait longer
        // than tools, and a change before they are answered is none to them.
        let (runtime, peers) = (self.runtime.clone(), self.peers.clone());
        let notices = self.notices.clone();
        // A single server tells a session bound to profiles only the
        // changes they show; replicas hear of changes another replica
        // applied before their own catalog has them, so they tell all.
        let views = self
            .options
            .task_store
            .is_none()
            .then(|| (Arc::downgrade(&self.runtime), self.options.profiles.clone()));
        let (tools_after, others_after) = (self.options.lists_after, self.other_lists_after());
        tokio::spawn(async move {
            let tools = runtime.wait_for_lists(tools_after).await;
            let others = runtime.wait_for_lists(others_after).await;
            let since = notices.since(Generations {
                tools: tools.tools,
                ..others
            });
            peers.forward(&notices.subscribe(), since, views);
        });
        tracing::debug!("client initialized; it will be told when the tool list changes");
    }

    /// `logging/setLevel`: guest log messages at `level` and above reach
    /// this session (`info` and above until the client sets a level).
    #[allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577)
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        tracing::debug!(level = ?request.level, "client set the logging level");
        self.level.set(request.level);
        let shared = session_link(&context.extensions).map(|link| link.store);
        if let Some(store) = shared.as_ref().or(self.subscriptions.shared()) {
            let level = request.level;
            let edit = move |state: &mut crate::mcp::protocol::SharedState| {
                state.level = Some(level);
            };
            store
                .update(&edit)
                .await
                .map_err(|e| super::shared_state::store_failed(&e))?;
        }
        Ok(())
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let icons = tools_have_icons(context.protocol_version().as_ref());
        self.lists_ready().await;
        let after = request
            .and_then(|r| r.cursor)
            .map(|c| cursor::decode(&c))
            .transpose()
            .map_err(|e| McpError::invalid_params(e.to_string(), None))?;
        let gate = self.gate(&context)?;
        let catalog = self.runtime.catalog();
        // Only the tools this caller may use, before paging, so that
        // cursors stay stable for it.
        let visible: Vec<&crate::runtime::ToolInfo> = catalog
            .tools()
            .iter()
            .filter(|t| match catalog.get(&t.name) {
                Some((_, target)) => {
                    gate.admits_tool(t, &target.tool().name) && gate.sees_tool(target)
                }
                None => catalog.pending(&t.name).is_some_and(|(plugin, tool)| {
                    gate.admits_tool(t, &tool.name) && gate.sees_pending(&plugin.policy, &tool.name)
                }),
            })
            .collect();
        let names: Vec<&str> = visible.iter().map(|t| t.name.as_str()).collect();
        let (range, more) = cursor::page(&names, after.as_deref(), self.options.page_size);
        let mut result = ListToolsResult::with_all_items(
            visible[range.clone()]
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
        self.list_hints(
            &context,
            &mut result.ttl_ms,
            &mut result.cache_scope,
            &mut result.meta,
        );
        Ok(result)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Box::pin(self.list_resources_page(request, &context)).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Box::pin(self.list_templates_page(request, &context)).await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        Box::pin(self.list_prompts_page(request, &context)).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        Box::pin(self.get(request, context)).await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        Box::pin(self.complete_argument(request, &context)).await
    }

    /// `resources/subscribe` (up to 2025-11-25): the session hears
    /// `notifications/resources/updated` when the plugin serving the URI is
    /// reloaded, replaced or removed.
    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        // Notes the caller before the URI is judged (rmcp may handle the
        // handshake's `initialized` after this request).
        self.gate(&context)?;
        let shared = session_link(&context.extensions).map(|link| link.store);
        self.subscriptions
            .subscribe(
                &self.runtime,
                &self.notices,
                context.peer.clone(),
                &request.uri,
                shared,
            )
            .await
            .map_err(Into::into)
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let shared = session_link(&context.extensions).map(|link| link.store);
        self.subscriptions
            .unsubscribe(&request.uri, shared)
            .await
            .map_err(Into::into)
    }

    /// The tool as `tools/list` shows it (none if the connection's profile
    /// leaves it out), so that rmcp checks a 2026-07-28
    /// request's `Mcp-Param-*` headers against the properties its input
    /// schema annotates with `x-mcp-header` (SEP-2243).
    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        let catalog = self.runtime.catalog();
        let (info, target) = catalog.get(name)?;
        let profile = self.profile();
        let own = &target.tool().name;
        profile
            .is_none_or(|p| p.admits_tool(&info.plugin, &info.name, own, &info.hints))
            .then(|| convert::tool(info))
    }

    /// `resources/read`: routed to the plugin that serves the URI (an
    /// unknown URI is `-32602` with the URI at 2026-07-28, `-32002` before;
    /// rmcp picks the code).
    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        Box::pin(self.read(request, context)).await
    }

    /// `subscriptions/listen` (2026-07-28): list changes of tools,
    /// resources and prompts, and updates of the resources it names.
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let mut accepted = SubscriptionFilter::new();
        accepted.tools_list_changed = requested.tools_list_changed.filter(|wanted| *wanted);
        accepted.resources_list_changed = requested.resources_list_changed.filter(|wanted| *wanted);
        accepted.prompts_list_changed = requested.prompts_list_changed.filter(|wanted| *wanted);
        // A list over the bounds is accepted as none; `listen` then ends
        // the stream with the error naming the bound.
        accepted.resource_subscriptions = requested.resource_subscriptions.as_ref().map(|uris| {
            let bounds = &self.options.served;
            let within = uris.len() <= bounds.max_subscriptions
                && uris.iter().all(|u| bounds.check_uri(u).is_ok());
            if within { uris.clone() } else { Vec::new() }
        });
        Some(accepted)
    }

    /// Sends the `list_changed` notifications the subscription accepted,
    /// and `notifications/resources/updated` for its resources, each time
    /// the catalog changes, until the client ends it.
    async fn listen(&self, subscription: SubscriptionContext) -> Result<(), McpError> {
        let _open = self.watch.open_stream()?;
        let meta = serde_json::to_vec(&subscription.request_context().meta).map_or(0, |m| m.len());
        if meta > super::subscriptions::MAX_LISTEN_META_BYTES {
            return Err(super::subscriptions::Refused::MetaTooLarge {
                len: meta,
                max: super::subscriptions::MAX_LISTEN_META_BYTES,
            }
            .into());
        }
        let requested = subscription.requested().resource_subscriptions.as_deref();
        for uri in requested.unwrap_or_default() {
            self.options.served.check_uri(uri)?;
        }
        // The stream's caller: its updates are told only while in view.
        let gate = self.gate(subscription.request_context())?;
        let audience = self.audience();
        audience.meet(gate.principal());
        let mut changes = self.notices.subscribe();
        let mut seen = *changes.borrow_and_update();
        // On a single server, the catalog the stream's lists are judged
        // from (replicas hear of changes before their catalog has them).
        let mut last = self
            .options
            .task_store
            .is_none()
            .then(|| self.runtime.catalog());
        let mut cursor = self.notices.cursor();
        let (tools, resources, prompts) = {
            let a = subscription.accepted();
            (
                a.tools_list_changed,
                a.resources_list_changed,
                a.prompts_list_changed,
            )
        };
        let watched = Watched::with_all(
            self.watch.clone(),
            "a listen stream",
            requested.unwrap_or_default(),
        )?;
        let watched = Arc::new(std::sync::Mutex::new(watched));
        // Who serves each URI now: later changes are measured from here.
        refresh(&watched, &self.runtime).await;
        let catalog = self.runtime.catalog();
        for uri in requested.unwrap_or_default() {
            audience.hears(&catalog, uri);
        }
        drop(catalog);
        let wanted = |flag: Option<bool>| flag == Some(true);
        loop {
            tokio::select! {
                () = subscription.cancelled() => return Ok(()),
                changed = changes.changed() => {
                    if changed.is_err() {
                        return Ok(());
                    }
                    let now = *changes.borrow_and_update();
                    let mut lists = ListsChanged::between(&seen, &now);
                    seen = now;
                    if let Some(old) = &last {
                        let new = self.runtime.catalog();
                        let shown = audience.shown(lists, (old, &new));
                        if shown != lists {
                            tracing::info!(
                                changed = ?lists,
                                ?shown,
                                "lists changed; not telling a listen stream what its profiles do not show"
                            );
                        }
                        lists = shown;
                        last = Some(new);
                    }
                    let sink = subscription.sink();
                    let mut sent = Ok(());
                    if lists.tools && wanted(tools) {
                        sent = sent.and(sink.notify_tool_list_changed().await);
                    }
                    if lists.resources && wanted(resources) {
                        sent = sent.and(sink.notify_resource_list_changed().await);
                    }
                    if lists.prompts && wanted(prompts) {
                        sent = sent.and(sink.notify_prompt_list_changed().await);
                    }
                    let updated = changed_uris(&watched, &self.runtime, &self.notices, &mut cursor).await;
                    let updated: Vec<String> = {
                        let catalog = self.runtime.catalog();
                        updated.into_iter().filter(|u| audience.hears(&catalog, u)).collect()
                    };
                    for uri in updated {
                        sent = sent.and(sink.notify_resource_updated(uri).await);
                    }
                    if let Err(error) = sent {
                        tracing::debug!(%error, "the subscription closed");
                        return Ok(());
                    }
                }
            }
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        Box::pin(self.tools_call(request, context)).await
    }

    /// `tasks/get`: the task's state, with its open requests or its result.
    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        let task = Box::pin(self.tasks.get(&request.task_id)).await?;
        let mut result = GetTaskResult::new(task);
        server_info_meta(&mut result.meta);
        Ok(result)
    }

    /// `tasks/update`: the client's answers to a task's open requests.
    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Box::pin(self.tasks.update(&request.task_id, request.input_responses)).await
    }

    /// `tasks/cancel`: stops the task's guest at once.
    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Box::pin(self.tasks.cancel(&request.task_id)).await
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::ClientRequest;
    use rmcp::service::Service;

    use super::*;

    /// The size of the future `f` returns, from its type alone.
    fn future_size<A, B, C, F: Future>(_: impl FnOnce(A, B, C) -> F) -> usize {
        size_of::<F>()
    }

    type Server = &'static McpServer;
    type Context = RequestContext<RoleServer>;

    /// Each request method's future stays small: a handler that awaits
    /// more than a few fields boxes its work (this module's doc). Before
    /// the boxes `tools/call`'s was 4.7 KiB in a release build.
    #[test]
    fn every_request_method_moves_a_small_future() {
        /// `(method, size of the handler's future)`.
        macro_rules! sizes {
            ($($method:literal: $handler:ident($params:ty)),* $(,)?) => {
                [$((
                    $method,
                    future_size(|s: Server, r: $params, c: Context| s.$handler(r, c)),
                )),*]
            };
        }
        #[allow(deprecated)]
        let sizes = sizes![
            "logging/setLevel": set_level(SetLevelRequestParams),
            "tools/list": list_tools(Option<PaginatedRequestParams>),
            "resources/list": list_resources(Option<PaginatedRequestParams>),
            "resources/templates/list": list_resource_templates(Option<PaginatedRequestParams>),
            "prompts/list": list_prompts(Option<PaginatedRequestParams>),
            "prompts/get": get_prompt(GetPromptRequestParams),
            "completion/complete": complete(CompleteRequestParams),
            "resources/subscribe": subscribe(SubscribeRequestParams),
            "resources/unsubscribe": unsubscribe(UnsubscribeRequestParams),
            "resources/read": read_resource(ReadResourceRequestParams),
            "tools/call": call_tool(CallToolRequestParams),
            "tasks/get": get_task(GetTaskParams),
            "tasks/update": update_task(UpdateTaskParams),
            "tasks/cancel": cancel_task(CancelTaskParams),
        ];
        let large: Vec<_> = sizes.iter().filter(|(_, size)| *size > 1024).collect();
        assert!(large.is_empty(), "box these handlers' work: {large:?}");
        // What rmcp moves into each request's task: its own dispatch
        // (4,104 bytes in a debug build with rmcp 3.11) around the largest of
        // the above.
        let request = future_size(|s: Server, r: ClientRequest, c: Context| {
            Service::<RoleServer>::handle_request(s, r, c)
        });
        assert!(
            request <= 6 * 1024,
            "rmcp's per-request future is {request} bytes"
        );
    }
}
