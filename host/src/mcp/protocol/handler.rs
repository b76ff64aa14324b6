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
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities,
    CreateTaskResult, GetTaskParams, GetTaskResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
    SubscriptionFilter, UpdateTaskParams,
};
use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse,
};
#[allow(deprecated)]
// resources/subscribe is legacy-only in rmcp (2026-07-28 has subscriptions/listen)
use rmcp::model::{SubscribeRequestParams, UnsubscribeRequestParams};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::json;

use super::events::Forwarder;
use super::notify::ListsChanged;
use super::revision::{
    implementation, is_2026_07_28_or_later, schema_errors_are_results, server_info_meta,
    tools_have_icons,
};
use super::rounds::Round;
use super::server::{McpServer, Run};
use super::subscriptions::{Watched, refresh};
use super::task_run::TaskEvents;
use super::tasks::Finished;
use super::{convert, cursor};
use crate::runtime::{CallError, CallEvents, Called, FailureCause, RunAs, TaskSupport};

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
        self.peers.register(context.peer);
        // Lists wait for the first load to get as far as the options say,
        // so no list a session gets can be older than the catalog then: the
        // changes after that point are announced, none before it.
        let (runtime, peers) = (self.runtime.clone(), self.peers.clone());
        let point = self.options.lists_after;
        tokio::spawn(async move {
            let since = runtime.wait_for_lists(point).await;
            peers.forward(&runtime.subscribe_changes(), since);
        });
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
                Some((_, target)) => gate.sees_tool(target),
                None => catalog
                    .pending(&t.name)
                    .is_some_and(|(plugin, tool)| gate.sees_pending(&plugin.policy, &tool.name)),
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
        self.list_resources_page(request, &context).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        self.list_templates_page(request, &context).await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        self.list_prompts_page(request, &context).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        self.get(request, context).await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        self.complete_argument(request, &context).await
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
        self.subscriptions
            .subscribe(&self.runtime, context.peer.clone(), &request.uri)
            .await
            .map_err(Into::into)
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.subscriptions.unsubscribe(&request.uri);
        Ok(())
    }

    /// The tool as `tools/list` shows it, so that rmcp checks a 2026-07-28
    /// request's `Mcp-Param-*` headers against the properties its input
    /// schema annotates with `x-mcp-header` (SEP-2243).
    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        let catalog = self.runtime.catalog();
        catalog.get(name).map(|(info, _)| convert::tool(info))
    }

    /// `resources/read`: routed to the plugin that serves the URI (an
    /// unknown URI is `-32602` with the URI at 2026-07-28, `-32002` before;
    /// rmcp picks the code).
    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        self.read(request, context).await
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
        let mut changes = self.runtime.subscribe_changes();
        let mut seen = *changes.borrow_and_update();
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
        let wanted = |flag: Option<bool>| flag == Some(true);
        loop {
            tokio::select! {
                () = subscription.cancelled() => return Ok(()),
                changed = changes.changed() => {
                    if changed.is_err() {
                        return Ok(());
                    }
                    let now = *changes.borrow_and_update();
                    let lists = ListsChanged::between(&seen, &now);
                    seen = now;
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
                    for uri in refresh(&watched, &self.runtime).await {
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
        use tracing::Instrument as _;
        let span = call_span(&request, &context);
        self.call_tool_in(request, context, &span)
            .instrument(span.clone())
            .await
    }

    /// `tasks/get`: the task's state, with its open requests or its result.
    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        let mut result = GetTaskResult::new(self.tasks.get(&request.task_id)?);
        server_info_meta(&mut result.meta);
        Ok(result)
    }

    /// `tasks/update`: the client's answers to a task's open requests.
    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.tasks.update(&request.task_id, request.input_responses)
    }

    /// `tasks/cancel`: stops the task's guest at once.
    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.tasks.cancel(&request.task_id)
    }
}

/// How a `tools/call` runs.
enum Dispatch {
    /// As an ordinary call.
    Call,
    /// As a call that becomes a task, with this deadline.
    Task(std::time::Duration),
    /// Not at all: the tool runs only as a task, and cannot be one now.
    Refused(String),
}

/// The span of one `tools/call`: disabled unless traces are exported (it is
/// at `debug`, which the trace layer enables), so it costs nothing
/// otherwise. It continues the trace of the request's `traceparent`: from
/// `_meta` (2026-07-28), or else from the HTTP request's headers.
fn call_span(
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> tracing::Span {
    let span = tracing::debug_span!(
        "tools/call",
        otel.kind = "server",
        tool = %request.name,
        plugin = tracing::field::Empty,
        outcome = tracing::field::Empty,
    );
    if span.is_disabled() {
        return span;
    }
    let from_meta = request
        .meta
        .as_ref()
        .and_then(|m| m.get_traceparent().map(|p| (p, m.get_tracestate())))
        .or_else(|| {
            context
                .meta
                .get_traceparent()
                .map(|p| (p, context.meta.get_tracestate()))
        });
    let parts = context.extensions.get::<http::request::Parts>();
    let header = |name: &str| {
        parts
            .and_then(|p| p.headers.get(name))
            .and_then(|v| v.to_str().ok())
    };
    let parent = from_meta.or_else(|| header("traceparent").map(|p| (p, header("tracestate"))));
    if let Some((traceparent, tracestate)) = parent {
        crate::telemetry::trace::continue_trace(&span, traceparent, tracestate);
    }
    span
}

/// Records how a call ended on its span.
fn record(span: &tracing::Span, called: &Called) {
    if let Some(plugin) = &called.plugin {
        span.record("plugin", &**plugin);
    }
    span.record("outcome", called.outcome);
}

impl McpServer {
    /// `tools/call` within its span (see [`call_span`]), which learns the
    /// plugin and the outcome when the call ends. Its steps: admit the call
    /// (the tool is known, the caller may use it, and how it runs), set up
    /// where its events go, then run it as an ordinary call or as one that
    /// may become a task.
    async fn call_tool_in(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
        span: &tracing::Span,
    ) -> Result<CallToolResponse, McpError> {
        let version = context.protocol_version();
        let as_task = match self.admit(&request, &context).await? {
            Dispatch::Call => None,
            Dispatch::Task(timeout) => Some(timeout),
            Dispatch::Refused(why) => return Ok(refused(why, version.as_ref())),
        };
        let Run {
            events,
            forwarder,
            round,
        } = self.tool_run(&mut request, &context)?;
        let end = CallEnd {
            span,
            forwarder,
            version,
            round,
        };
        match as_task {
            None => self.call_now(request, &context, events, end).await,
            Some(timeout) => {
                self.call_maybe_as_task(request, &context, events, end, timeout)
                    .await
            }
        }
    }

    /// Admits a `tools/call`: the caller may call (`gate`), the lists are
    /// ready, the tool is known (or the refusal says why it is not yet),
    /// the caller's scopes grant it, and how it runs ([`Self::dispatch`]).
    async fn admit(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<Dispatch, McpError> {
        let gate = self.gate(context)?;
        self.lists_ready().await;
        if let Err(still) = self.runtime.wait_for_tool(&request.name).await {
            tracing::warn!("{still}");
            return Ok(Dispatch::Refused(still.to_string()));
        }
        if let Some((_, target)) = self.runtime.catalog().get(&request.name)
            && let Err(denied) = gate.tool(target)
        {
            return Err(gate.refusal(&format!("tool {:?}", request.name), &denied));
        }
        self.dispatch(&request.name, context)
    }

    /// Where the call's events go. At 2026-07-28 the guest's requests are
    /// answered from the client's inputResponses and requestState, or end
    /// the call to be asked.
    fn tool_run(
        &self,
        request: &mut CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<Run, McpError> {
        self.run_events(
            context,
            &request.name,
            || {
                self.runtime
                    .catalog()
                    .get(&request.name)
                    .map(|(_, target)| target.plugin.digest.to_string())
                    .unwrap_or_default()
            },
            request.arguments.as_ref(),
            request.request_state.as_deref(),
            request.input_responses.take(),
        )
    }

    /// An ordinary call, until it ends or the client cancels it. Dropping
    /// the runtime's call future stops the guest and frees its instance;
    /// rmcp sends no response to a cancelled request.
    async fn call_now(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        events: Arc<dyn CallEvents>,
        end: CallEnd<'_>,
    ) -> Result<CallToolResponse, McpError> {
        let called = tokio::select! {
            called = self.runtime.call(&request.name, request.arguments, &self.caller, events) => called,
            () = context.ct.cancelled() => {
                tracing::info!(tool = %request.name, "call cancelled");
                return Ok(end.cancelled().await);
            }
        };
        end.answer(called).await
    }

    /// A call that may become a task: it runs as one (under the task
    /// deadline) from the start, and answers directly if it ends, or asks
    /// the client, within the sync window; after it, it becomes a task
    /// ([`Self::go_on_as_task`]).
    async fn call_maybe_as_task(
        &self,
        mut request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        events: Arc<dyn CallEvents>,
        end: CallEnd<'_>,
        task_timeout: std::time::Duration,
    ) -> Result<CallToolResponse, McpError> {
        let task_events = Arc::new(TaskEvents::new(
            events,
            context.client_capabilities(),
            self.tasks.clone(),
        ));
        let mut run = {
            let (runtime, caller, events) = (
                self.runtime.clone(),
                self.caller.clone(),
                task_events.clone() as Arc<dyn CallEvents>,
            );
            let (name, arguments) = (request.name.clone(), request.arguments.take());
            Box::pin(async move {
                runtime
                    .call_as(&name, arguments, &caller, events, RunAs::Task)
                    .await
            })
        };
        let window = self.tasks.settings().sync_window;
        tokio::select! {
            biased;
            () = tokio::time::sleep(window) => {}
            called = &mut run => return end.answer(called).await,
            () = context.ct.cancelled() => {
                tracing::info!(tool = %request.name, "call cancelled");
                return Ok(end.cancelled().await);
            }
        }
        let task = match self.tasks.create(task_timeout) {
            Ok(task) => task,
            // The store filled up since the call began: it goes on as an
            // ordinary call (it already runs under the task deadline).
            Err(full) => {
                tracing::info!(tool = %request.name, %full, "the call stays an ordinary call");
                let called = tokio::select! {
                    called = run => called,
                    () = context.ct.cancelled() => return Ok(end.cancelled().await),
                };
                return end.answer(called).await;
            }
        };
        task_events.become_task(&task.task_id);
        end.forwarder.finish().await;
        tracing::info!(
            tool = %request.name,
            task = super::tasks::short(&task.task_id),
            "the call goes on as a task"
        );
        let (version, round) = (end.version, end.round);
        self.tasks.run(&task.task_id, async move {
            let called = run.await;
            match respond(called, version.as_ref(), round.as_deref()) {
                Ok(CallToolResponse::Complete(result)) => Finished::Completed(result),
                Ok(_) => Finished::Failed(McpError::internal_error(
                    "the tool asked the client for input in rounds after it had become a task",
                    None,
                )),
                Err(error) => Finished::Failed(error),
            }
        });
        let mut meta = None;
        server_info_meta(&mut meta);
        let mut created = CreateTaskResult::new(task);
        if let Some(meta) = meta {
            created = created.with_meta(meta);
        }
        Ok(CallToolResponse::Task(created))
    }
}

/// How a call that answers directly ends: its notifications flushed, its
/// span told the outcome, and its answer for the session's revision.
struct CallEnd<'a> {
    span: &'a tracing::Span,
    forwarder: Arc<Forwarder>,
    version: Option<ProtocolVersion>,
    round: Option<Arc<Round>>,
}

impl CallEnd<'_> {
    /// The answer to a call that ended. Every notification of the call is
    /// queued before its response. Over stdio and stateless HTTP they are
    /// all written before it; with HTTP sessions rmcp sends progress on the
    /// call's stream but log messages on the session's GET stream, which
    /// has no order with the response.
    async fn answer(self, called: Called) -> Result<CallToolResponse, McpError> {
        self.forwarder.finish().await;
        record(self.span, &called);
        respond(called, self.version.as_ref(), self.round.as_deref())
    }

    /// The answer to a cancelled call, which rmcp drops: the request's id
    /// is no longer pending.
    async fn cancelled(self) -> CallToolResponse {
        self.forwarder.finish().await;
        convert::error_result("the call was cancelled".into()).into()
    }
}

/// A call refused before it runs, as an error result (with the server's
/// identity at 2026-07-28).
fn refused(why: String, version: Option<&ProtocolVersion>) -> CallToolResponse {
    let mut result = convert::error_result(why);
    if is_2026_07_28_or_later(version) {
        server_info_meta(&mut result.meta);
    }
    result.into()
}

/// The answer to a run of a tool: its result, the input the guest asks
/// the client for (2026-07-28), or the JSON-RPC error the revision gives the
/// failure.
fn respond(
    called: Called,
    version: Option<&ProtocolVersion>,
    round: Option<&Round>,
) -> Result<CallToolResponse, McpError> {
    let result = match called.result {
        Ok(output) => convert::output(&output),
        Err(CallError::UnknownTool(name)) => {
            return Err(McpError::invalid_params(
                format!("unknown tool {name:?}; tools/list shows the available tools"),
                Some(json!({ "tool": name })),
            ));
        }
        Err(e @ CallError::InvalidArguments { .. }) => {
            if schema_errors_are_results(version) {
                convert::error_result(e.to_string())
            } else {
                let CallError::InvalidArguments { problems, .. } = &e else {
                    unreachable!("matched above")
                };
                let data = json!({ "problems": problems });
                return Err(McpError::invalid_params(e.to_string(), Some(data)));
            }
        }
        Err(CallError::Failed(failure)) if failure.cause == FailureCause::InputDeferred => {
            // The round's receipt, also when the call cannot go on.
            let mut response = input_required(round);
            let meta = match &mut response {
                CallToolResponse::InputRequired(input) => Some(&mut input.meta),
                CallToolResponse::Complete(result) => Some(&mut result.meta),
                _ => None,
            };
            if let Some(meta) = meta {
                convert::receipt_meta(meta, called.receipt.as_ref());
                server_info_meta(meta);
            }
            return Ok(response);
        }
        Err(CallError::Failed(failure)) => match &failure.cause {
            // 2026-07-28 has an error for it (SEP-2575); before, the
            // client reads why in the result.
            FailureCause::MissingClientCapability(kinds) if round.is_some() => {
                return Err(McpError::missing_required_client_capability(
                    super::client_requests::capabilities(kinds),
                ));
            }
            _ => convert::error_result(failure.to_string()),
        },
    };
    let mut result = convert::with_receipt(result, called.receipt.as_ref());
    if round.is_some() {
        server_info_meta(&mut result.meta);
    }
    Ok(result.into())
}

impl McpServer {
    /// Whether a call of `tool` runs as a task, and if so its deadline: at
    /// 2026-07-28, for a tool that supports tasks, when the request declares
    /// the tasks extension and the store has room. A tool that runs only as
    /// a task refuses a client without the extension (`-32021`, or an error
    /// result before 2026-07-28, which has no tasks).
    fn dispatch(
        &self,
        tool: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<Dispatch, McpError> {
        let catalog = self.runtime.catalog();
        let Some((info, target)) = catalog.get(tool) else {
            return Ok(Dispatch::Call);
        };
        if info.task_support == TaskSupport::Forbidden {
            return Ok(Dispatch::Call);
        }
        let required = info.task_support == TaskSupport::Required;
        if !is_2026_07_28_or_later(context.protocol_version().as_ref()) {
            return Ok(if required {
                Dispatch::Refused(format!(
                    "tool {tool:?} runs only as a task, and tasks need a client that speaks protocol revision 2026-07-28 or later with the io.modelcontextprotocol/tasks extension"
                ))
            } else {
                Dispatch::Call
            });
        }
        let declared = context
            .client_capabilities()
            .is_some_and(|c| c.supports_tasks());
        if !declared {
            if required {
                return Err(McpError::missing_required_client_capability(
                    ClientCapabilities::builder().enable_tasks().build(),
                ));
            }
            return Ok(Dispatch::Call);
        }
        if let Err(full) = self.tasks.room() {
            if required {
                return Ok(Dispatch::Refused(format!(
                    "tool {tool:?} runs only as a task, and {full}"
                )));
            }
            tracing::info!(tool, %full, "running the call as an ordinary call");
            return Ok(Dispatch::Call);
        }
        Ok(Dispatch::Task(target.plugin.policy.limits.task_timeout))
    }
}

/// The response of a run that ended waiting for the client: the open
/// requests and the state for the next round, or an error result saying why
/// the call cannot go on.
fn input_required(round: Option<&Round>) -> CallToolResponse {
    let result = match round {
        Some(round) => round.input_required(),
        None => Err("the tool waited for the client outside a 2026-07-28 call".into()),
    };
    match result {
        Ok(input) => CallToolResponse::InputRequired(input),
        Err(why) => convert::error_result(why).into(),
    }
}
