//! Call admission: a tool call routed through the catalog, held to its
//! plugin's rate limits, argument bounds and input schema before any guest
//! code runs, given one of the plugin's slots within its deadline, run, and
//! recorded in one audit line (its receipt).

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::call::events::CallEvents;
use crate::call::offload;
use crate::call::{Arguments, CallStats, call_tool};
use crate::capabilities::Arguments as Inbound;
use crate::definitions::output::ToolOutput;
use crate::definitions::schema::Schema;
use crate::error::{CallError, FailureCause, ToolFailure};
use crate::load::plugin::Plugin;
use crate::observe::{InPhase, Phase};
use crate::policy::limits::spec::key;
use crate::runtime::Runtime;
use crate::serve::rate::{Caller, RateScope};
use crate::serve::receipt::{Receipt, Unfinished, audit_unknown};
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
        let started = std::time::Instant::now();
        let CallInput { arguments, rounded } = input.into();
        let catalog = self.catalog();
        let Some((_, target)) = catalog.get(name) else {
            audit_unknown(name, started, caller.subject());
            self.observer.unknown_tool();
            return Called {
                result: Err(CallError::UnknownTool(name.to_string())),
                receipt: None,
                plugin: None,
                outcome: "unknown_tool",
            };
        };
        let plugin = &target.plugin;
        tracing::Span::current().record("plugin", &*plugin.name);
        let tool = target.tool();
        let limits = &plugin.policy.limits;
        let arguments = Arc::new(Value::Object(arguments.unwrap_or_default()));
        let logged_args = limits.audit_arguments.then_some(&*arguments);
        let timeout = match run_as {
            RunAs::Call => limits.timeout,
            RunAs::Task => limits.task_timeout,
        };
        let deadline = started + timeout;
        let fail = |cause| {
            CallError::Failed(ToolFailure {
                plugin: plugin.name.to_string(),
                tool: tool.name.clone(),
                cause,
            })
        };
        // Every way the call ends from here: its receipt, audited.
        let observer = &*self.observer;
        let end = |outcome, stats: Option<CallStats>, result: Result<ToolOutput, CallError>| {
            let ran = stats.is_some();
            let receipt = Receipt::new(plugin, name, outcome, started, stats, caller.subject());
            receipt.audit(logged(plugin, logged_args));
            let limit = match &result {
                Err(CallError::Failed(failure)) => failure.cause.limit(),
                _ => None,
            };
            observer.call_ended(&receipt.observed(&tool.name, limit, ran));
            Called {
                result,
                receipt: limits.receipts.then_some(receipt),
                plugin: Some(plugin.name.clone()),
                outcome,
            }
        };

        let quota = match plugin.rate.check(&tool.name) {
            Err(wait) => Some((RateScope::AllClients, limits.rate_limit_per_minute, wait)),
            Ok(()) => caller
                .check(&tool.name, limits.client_rate_limit_per_minute)
                .err()
                .map(|wait| {
                    let per_minute = limits.client_rate_limit_per_minute;
                    (RateScope::EachClient, per_minute, wait)
                }),
        };
        if let Some((scope, per_minute, retry_after)) = quota {
            let cause = FailureCause::RateLimited {
                scope,
                per_minute,
                retry_after,
            };
            return end("rate_limited", None, Err(fail(cause)));
        }
        let json = arguments.to_string();
        if json.len() as u64 > limits.max_argument_bytes {
            let cause = FailureCause::ArgumentsTooLarge {
                size: json.len() as u64,
                limit: limits.max_argument_bytes,
                hint: plugin.policy.raise_hint(key::MAX_ARGUMENT_SIZE),
            };
            return end("arguments_too_large", None, Err(fail(cause)));
        }
        let policy = &plugin.policy;
        if let Err(refused) = policy.grants.inbound(Inbound::Json(&arguments)) {
            let cause = FailureCause::ArgumentsRefused {
                key: format!("{}.{}", policy.section, refused.key),
                problem: refused.problem,
                config_file: policy.config_file.to_string(),
            };
            return end("arguments_refused", None, Err(fail(cause)));
        }
        let problems = if tool.input.is_quick_to_check(json.len()) {
            as_written(&tool.input, &arguments, &rounded)
        } else {
            let (owner, index, args) = (plugin.clone(), target.index, arguments.clone());
            let checked = offload::run(&plugin.lane, deadline, move || {
                as_written(&owner.tools[index].input, &args, &rounded)
            })
            .await;
            match checked {
                Ok(problems) => problems,
                Err(offload::Expired) => {
                    let cause = FailureCause::Timeout { limit: timeout };
                    return end("timeout", None, Err(fail(cause)));
                }
            }
        };
        let invalid = |problems| CallError::InvalidArguments {
            tool: name.to_string(),
            problems,
        };
        if !problems.is_empty() {
            return end("invalid_arguments", None, Err(invalid(problems)));
        }
        // A generic component's arguments become WIT values here: one the
        // schema admits but its type cannot take exactly (an integer a
        // double cannot tell from its neighbours) is as invalid.
        let function = plugin
            .exports
            .generic_functions()
            .and_then(|g| g.function(&tool.name));
        let arguments = match (function, &*arguments) {
            (Some(function), Value::Object(object)) => match function.arguments(object) {
                Ok(params) => Arguments::Values(function, params),
                Err(problem) => return end("invalid_arguments", None, Err(invalid(vec![problem]))),
            },
            _ => Arguments::Json(&json),
        };

        // From here on the call awaits; if its future is dropped (the client
        // cancelled it), the guard writes the audit line.
        let mut unfinished = Unfinished {
            plugin,
            tool: name,
            label: &tool.name,
            observer,
            started,
            arguments: logged_args,
            subject: caller.subject(),
            armed: true,
        };
        let waiting = InPhase::enter(observer, &plugin.name, Phase::Waiting);
        let slot = tokio::time::timeout_at(deadline.into(), plugin.slots.acquire()).await;
        drop(waiting);
        let Ok(Ok(_slot)) = slot else {
            unfinished.armed = false;
            let cause = FailureCause::Timeout { limit: timeout };
            return end("timeout", None, Err(fail(cause)));
        };
        tracing::debug!(tool = name, "running: got a slot");
        let running = InPhase::enter(observer, &plugin.name, Phase::Running);
        let (result, stats) = call_tool(
            &plugin.target(),
            tool,
            arguments,
            events,
            deadline,
            caller.session(),
        )
        .await;
        drop(running);
        unfinished.armed = false;
        // The deadline was this run's, a task's own when it runs as one.
        let result = result.map_err(|mut failure| {
            if let FailureCause::Timeout { limit } = &mut failure.cause {
                *limit = timeout;
            }
            failure
        });
        let outcome = match &result {
            Ok(out) if out.is_error => "tool_error",
            Ok(_) => "ok",
            Err(f) => f.cause.kind(),
        };
        match &result {
            // Not a failure: the call goes on in the client's next round.
            Err(failure) if failure.cause == FailureCause::InputDeferred => {
                tracing::info!("{failure}")
            }
            Err(failure) => tracing::warn!("{}", failure.log_line()),
            Ok(_) => {}
        }
        end(outcome, Some(stats), result.map_err(CallError::Failed))
    }
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

/// The arguments as the audit line shows them, when the plugin's policy
/// asks for them: any secret of the plugin's redacted.
fn logged(plugin: &Plugin, arguments: Option<&Value>) -> Option<String> {
    arguments.map(|a| plugin.policy.grants.redacted(a.to_string()))
}
