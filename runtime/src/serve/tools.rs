//! A tool call ([`Runtime::call`]) through admission: routed through the
//! catalog, admitted, held to its tool's input schema (a tool call's own
//! stage), run in its sandbox, and recorded in its receipt, which goes
//! back with the result.

use std::sync::Arc;
use std::time::Instant;

use serde_json::{Map, Value};

use crate::call::events::CallEvents;
use crate::call::offload;
use crate::call::{Arguments, call_tool};
use crate::capabilities::Arguments as Inbound;
use crate::catalog::ToolRoute;
use crate::definitions::output::ToolOutput;
use crate::definitions::schema::Schema;
use crate::error::{CallError, FailureCause};
use crate::runtime::Runtime;
use crate::serve::admission::{Failed, Names, Request};
use crate::serve::rate::Caller;
use crate::serve::receipt::{Receipt, audit_unknown};
use crate::serve::rounded::RoundedNumbers;

/// A finished call: its result and its receipt.
#[derive(Debug)]
pub struct Called {
    /// The tool's output, or why there is none.
    pub result: Result<ToolOutput, CallError>,
    /// What the call consumed and how it ended; `None` for an unknown tool
    /// or when the plugin's policy turns receipts off (`receipts = false`).
    pub receipt: Option<Receipt>,
    /// The plugin that served it (`None` for an unknown tool).
    pub plugin: Option<Arc<str>>,
    /// How it ended, as its audit line says (`unknown_tool` for an unknown
    /// tool).
    pub outcome: &'static str,
}

/// What a call is given: its arguments as read, and the numbers among them
/// that a double rounded to an integer they are not (the transport finds
/// those in the request's text; see [`RoundedNumbers`]).
#[derive(Debug, Clone, Default)]
pub struct CallInput {
    /// The arguments object (`None` is `{}`).
    pub arguments: Option<Map<String, Value>>,
    /// The numbers a double rounded.
    pub rounded: RoundedNumbers,
}

impl From<Option<Map<String, Value>>> for CallInput {
    fn from(arguments: Option<Map<String, Value>>) -> Self {
        CallInput {
            arguments,
            rounded: RoundedNumbers::default(),
        }
    }
}

/// How `arguments` break the tool's input schema, as read and then as
/// written (a rounded number is held to the schema at its written value).
fn as_written(schema: &Schema, arguments: &Value, rounded: &RoundedNumbers) -> Vec<String> {
    let problems = schema.violations(arguments);
    if problems.is_empty() {
        rounded.violations(arguments, schema)
    } else {
        problems
    }
}

/// How a call runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RunAs {
    /// An ordinary call, within the plugin's `timeout`.
    #[default]
    Call,
    /// A task (MCP's tasks extension), within the plugin's `task_timeout`.
    Task,
}

/// Why a call has no result, and the receipt of its audit line.
type Refused = (CallError, Receipt);

impl Runtime {
    /// Calls a tool. In order: the tool's rate limits (its own, then the
    /// caller's share), the arguments' size, the capabilities' inbound
    /// checks (`block_secrets`) and the input schema are
    /// checked before any guest code runs; the
    /// call then waits for one of the plugin's slots and runs in a fresh
    /// instance (or a warm one, when the plugin's `reuse_instances` asks for
    /// it), all within the plugin's timeout. Dropping the returned future
    /// stops the guest and frees its instance. Every call ends with
    /// one audit log line (target `audit`): its [`Receipt`], which is also
    /// returned unless the plugin's policy turns receipts off.
    pub async fn call(
        &self,
        name: &str,
        arguments: impl Into<CallInput>,
        caller: &Caller,
        events: Arc<dyn CallEvents>,
    ) -> Called {
        self.call_as(name, arguments, caller, events, RunAs::Call)
            .await
    }

    /// [`Runtime::call`], run as `run_as` says: a task's deadline is the
    /// plugin's `task_timeout` rather than its `timeout`.
    #[tracing::instrument(level = "debug", skip(self, input, caller, events), fields(plugin))]
    pub async fn call_as(
        &self,
        name: &str,
        input: impl Into<CallInput>,
        caller: &Caller,
        events: Arc<dyn CallEvents>,
        run_as: RunAs,
    ) -> Called {
        let started = Instant::now();
        let CallInput { arguments, rounded } = input.into();
        let catalog = self.catalog();
        let Some((_, route)) = catalog.get(name) else {
            audit_unknown(name, started, caller.subject());
            self.observer.unknown_tool();
            return Called {
                result: Err(CallError::UnknownTool(name.to_string())),
                receipt: None,
                plugin: None,
                outcome: "unknown_tool",
            };
        };
        let plugin = &route.plugin;
        tracing::Span::current().record("plugin", &*plugin.name);
        let tool = route.tool();
        let limits = &plugin.policy.limits;
        let arguments = Arc::new(Value::Object(arguments.unwrap_or_default()));
        let request = Request {
            plugin,
            names: Names {
                audited: name,
                failed: &tool.name,
                counted: &tool.name,
            },
            caller,
            observer: &*self.observer,
            started,
            timeout: match run_as {
                RunAs::Call => limits.timeout,
                RunAs::Task => limits.task_timeout,
            },
            logged: limits.audit_arguments.then_some(&*arguments),
        };
        let admitted = admit_and_run(&request, route, &arguments, &rounded, events);
        let (result, receipt) = match admitted.await {
            Ok((output, receipt)) => (Ok(output), receipt),
            Err((error, receipt)) => (Err(error), receipt),
        };
        Called {
            result,
            outcome: receipt.outcome,
            receipt: limits.receipts.then_some(receipt),
            plugin: Some(plugin.name.clone()),
        }
    }
}

/// A failure of the pipeline as a call's.
fn refused(failed: Box<Failed>) -> Refused {
    let Failed { failure, receipt } = *failed;
    (CallError::Failed(failure), receipt)
}

/// The call through admission's stages, its input schema checked between
/// its admission and its run.
async fn admit_and_run(
    request: &Request<'_>,
    route: &ToolRoute,
    arguments: &Arc<Value>,
    rounded: &RoundedNumbers,
    events: Arc<dyn CallEvents>,
) -> Result<(ToolOutput, Receipt), Refused> {
    let json = arguments.to_string();
    request
        .admit(json.len(), Inbound::Json(arguments))
        .await
        .map_err(refused)?;
    let arguments = checked(request, route, arguments, rounded, &json).await?;
    let ran = request
        .run(async |deadline| {
            let target = route.plugin.target();
            let whose = request.caller.whose();
            call_tool(&target, route.tool(), arguments, events, deadline, whose).await
        })
        .await
        .map_err(refused)?;
    match &ran.result {
        // Not a failure: the call goes on in the client's next round.
        Err(failure) if failure.cause == FailureCause::InputDeferred => {
            tracing::info!("{failure}")
        }
        Err(failure) => tracing::warn!("{}", failure.log_line()),
        Ok(_) => {}
    }
    request
        .finish(ran, |out| if out.is_error { "tool_error" } else { "ok" })
        .map_err(refused)
}

/// A tool call's own stage: its arguments against the tool's input schema,
/// as read and as written (a number a double rounded, [`RoundedNumbers`]),
/// on the plugin's share of the blocking pool when that may take a while,
/// within the call's deadline; then a generic component's arguments
/// become WIT values, and one the schema admits but its type cannot take
/// exactly (an integer a double cannot tell from its neighbours) is as
/// invalid.
async fn checked<'a>(
    request: &Request<'_>,
    route: &'a ToolRoute,
    arguments: &Arc<Value>,
    rounded: &RoundedNumbers,
    json: &'a str,
) -> Result<Arguments<'a>, Refused> {
    let (plugin, tool) = (&route.plugin, route.tool());
    let problems = if tool.input.is_quick_to_check(json.len()) {
        as_written(&tool.input, arguments, rounded)
    } else {
        let (owner, index, args) = (plugin.clone(), route.index, arguments.clone());
        let rounded = rounded.clone();
        let checked = offload::run(&plugin.lane, request.deadline(), move || {
            as_written(&owner.tools[index].input, &args, &rounded)
        })
        .await;
        match checked {
            Ok(problems) => problems,
            Err(offload::Expired) => {
                let cause = FailureCause::Timeout {
                    limit: request.timeout,
                };
                return Err(refused(request.stop(cause)));
            }
        }
    };
    let invalid = |problems| {
        let error = CallError::InvalidArguments {
            tool: request.names.audited.to_string(),
            problems,
        };
        (error, request.end("invalid_arguments", None, None))
    };
    if !problems.is_empty() {
        return Err(invalid(problems));
    }
    let function = plugin
        .exports
        .generic_functions()
        .and_then(|g| g.function(&tool.name));
    match (function, &**arguments) {
        (Some(function), Value::Object(object)) => match function.arguments(object) {
            Ok(params) => Ok(Arguments::Values(function, params)),
            Err(problem) => Err(invalid(vec![problem])),
        },
        _ => Ok(Arguments::Json(json)),
    }
}
