//! `tools/call`, step by step: admit the call (the tool is known and in the
//! connection's profile, the caller may use it, and whether it runs as a task), set up where its
//! events go, run it as an ordinary call or as one that may become a task
//! (cancellation stops either), and answer with the failure mapping each
//! protocol revision requires. Its span continues the client's trace.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, CreateTaskResult, ProtocolVersion,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::json;

use super::convert;
use super::revision::{is_2026_07_28_or_later, schema_errors_are_results, server_info_meta};
use super::server::{McpServer, Run};
use super::tasks::Finished;
use super::to_client::notifications::Forwarder;
use super::to_client::rounds::{InputRequiredError, Round};
use super::to_client::task_run::TaskEvents;
use crate::runtime::{
    CallError, CallEvents, CallInput, Called, FailureCause, RoundedNumbers, RunAs, TaskSupport,
};

/// How a `tools/call` runs.
enum Dispatch {
    /// As an ordinary call.
    Call,
    /// As a call that becomes a task, with this deadline, asking the task
    /// store for at most the second (the ordinary call's deadline).
    Task(std::time::Duration, std::time::Duration),
    /// Not at all: the tool runs only as a task, and cannot be one now.
    Refused(String),
    /// Not at all: the connection's profile leaves the tool out, so it is
    /// answered as a name no plugin serves.
    Hidden,
}

/// The error of a call to a tool no plugin serves, or one the connection's
/// profile leaves out: the same bytes for both, so that a profile reveals
/// nothing of what it hides.
pub(super) fn unknown_tool(name: &str) -> McpError {
    McpError::invalid_params(
        format!("unknown tool {name:?}; tools/list shows the available tools"),
        Some(json!({ "tool": name })),
    )
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
    /// `tools/call`, within its span (see [`call_span`]).
    pub(super) async fn tools_call(
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

    /// `tools/call` within its span, which learns the plugin and the
    /// outcome when the call ends. Its steps: admit the call
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
            Dispatch::Task(timeout, within) => Some((timeout, within)),
            Dispatch::Refused(why) => return Ok(refused(why, version.as_ref())),
            Dispatch::Hidden => {
                // As for a name no plugin serves: the events are set up
                // (a request state that does not verify fails alike), with
                // no plugin's digest, then the same error.
                self.run_events(
                    &context,
                    &request.name,
                    String::new,
                    request.arguments.as_ref(),
                    request.request_state.as_deref(),
                    request.input_responses.take(),
                )?;
                return Err(unknown_tool(&request.name));
            }
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
            Some(timeouts) => {
                self.call_maybe_as_task(request, &context, events, end, timeouts)
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
        // Before the wait for a listed plugin's load, whose refusal would
        // name the plugin; and again once it has loaded.
        if gate.hides_tool(&self.runtime.catalog(), &request.name) {
            return Ok(Dispatch::Hidden);
        }
        if let Err(still) = self.runtime.wait_for_tool(&request.name).await {
            tracing::warn!("{still}");
            return Ok(Dispatch::Refused(still.to_string()));
        }
        let catalog = self.runtime.catalog();
        if gate.hides_tool(&catalog, &request.name) {
            return Ok(Dispatch::Hidden);
        }
        if let Some((_, target)) = catalog.get(&request.name)
            && let Err(denied) = gate.tool(target)
        {
            return Err(gate.refusal(&format!("tool {:?}", request.name), &denied));
        }
        self.dispatch(&request.name, context).await
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
            called = self.runtime.call(&request.name, input(request.arguments, context), &self.caller, events) => called,
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
        (task_timeout, store_within): (std::time::Duration, std::time::Duration),
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
            let (name, arguments) = (
                request.name.clone(),
                input(request.arguments.take(), context),
            );
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
        let task = match self.tasks.create_within(task_timeout, store_within).await {
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

/// A call's arguments, with the numbers in them that a double rounded
/// (found in the request's text by the transport: in the request's
/// extensions over stdio, in its HTTP request's over HTTP).
fn input(
    arguments: Option<serde_json::Map<String, serde_json::Value>>,
    context: &RequestContext<RoleServer>,
) -> CallInput {
    let rounded = context
        .extensions
        .get::<RoundedNumbers>()
        .or_else(|| {
            context
                .extensions
                .get::<http::request::Parts>()
                .and_then(|parts| parts.extensions.get::<RoundedNumbers>())
        })
        .cloned()
        .unwrap_or_default();
    CallInput { arguments, rounded }
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
        Err(CallError::UnknownTool(name)) => return Err(unknown_tool(&name)),
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
                    super::to_client::requests::capabilities(kinds),
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
    async fn dispatch(
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
        let limits = &target.plugin.policy.limits;
        if let Err(full) = self.tasks.room_within(limits.timeout).await {
            if required {
                return Ok(Dispatch::Refused(format!(
                    "tool {tool:?} runs only as a task, and {full}"
                )));
            }
            tracing::info!(tool, %full, "running the call as an ordinary call");
            return Ok(Dispatch::Call);
        }
        Ok(Dispatch::Task(limits.task_timeout, limits.timeout))
    }
}

/// The response of a run that ended waiting for the client: the open
/// requests and the state for the next round, or an error result saying why
/// the call cannot go on.
fn input_required(round: Option<&Round>) -> CallToolResponse {
    let result = match round {
        Some(round) => round.input_required(),
        None => Err(InputRequiredError::NoRound),
    };
    match result {
        Ok(input) => CallToolResponse::InputRequired(input),
        Err(why) => convert::error_result(why.to_string()).into(),
    }
}
