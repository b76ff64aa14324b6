//! Running one export of a plugin in a fresh, limited store and instance,
//! and turning whatever happens (a result, a returned error, a trap, a limit
//! hit, a deadline) into the runtime's own types.

use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;
use wasmtime::{Store, Trap, UpdateDeadline};

use super::bindings::{Plugin as Bindings, PluginPre, types as wit};
use super::capture::{find_alloc_failure, find_panic};
use super::error::{FailureCause, GuestErrorKind, ToolFailure};
use super::events::{CallEvents, NoEvents};
use super::output::{Content, ResourceBody, ToolOutput};
use super::plugin::PluginTool;
use super::policy::Policy;
use super::sandbox::CallState;

/// What a call consumed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallStats {
    /// Fuel burnt (0 when the engine does not meter fuel).
    pub fuel_used: u64,
    /// The largest linear memory the call reached, in bytes.
    pub peak_memory: usize,
}

/// The plugin-wide inputs every call needs.
pub struct Target<'a> {
    /// The pre-instantiated component.
    pub pre: &'a PluginPre<CallState>,
    /// The plugin's name.
    pub plugin: &'a Arc<str>,
    /// Its policy.
    pub policy: &'a Arc<Policy>,
    /// Its resolved environment.
    pub env: &'a [(String, String)],
}

fn new_store(
    target: &Target<'_>,
    tool: &str,
    events: Arc<dyn CallEvents>,
    deadline: Instant,
) -> Result<Store<CallState>, ToolFailure> {
    let state = CallState::new(
        target.plugin.clone(),
        tool.into(),
        events,
        target.policy.clone(),
        target.env,
        deadline,
    )
    .map_err(|e| ToolFailure {
        plugin: target.plugin.to_string(),
        tool: tool.to_string(),
        cause: FailureCause::Host(e.to_string()),
    })?;
    let mut store = Store::new(target.pre.engine(), state);
    store.limiter(|s| &mut s.limiter);
    // Engines without fuel metering are a benchmark setting; asking such a
    // store for fuel would build an error (with a backtrace) on every call.
    if target.pre.engine().get_consume_fuel() {
        store
            .set_fuel(target.policy.limits.fuel)
            .map_err(|e| ToolFailure {
                plugin: target.plugin.to_string(),
                tool: tool.to_string(),
                cause: FailureCause::Host(format!("{e:#}")),
            })?;
    }
    store.set_epoch_deadline(1);
    store.epoch_deadline_callback(|ctx| {
        Ok(if Instant::now() >= ctx.data().deadline {
            UpdateDeadline::Interrupt
        } else {
            UpdateDeadline::Yield(1)
        })
    });
    Ok(store)
}

fn stats(store: &Store<CallState>, fuel: u64) -> CallStats {
    let metered = store.engine().get_consume_fuel();
    CallStats {
        fuel_used: if metered {
            store.get_fuel().map_or(0, |left| fuel.saturating_sub(left))
        } else {
            0
        },
        peak_memory: store.data().limiter.peak_memory,
    }
}

/// Runs `f` on a fresh instance under the store's limits, cut off at the
/// deadline even when the guest is blocked inside a host call.
async fn run<R>(
    store: &mut Store<CallState>,
    pre: &PluginPre<CallState>,
    f: impl AsyncFnOnce(&mut Store<CallState>, Bindings) -> wasmtime::Result<R>,
) -> Result<R, wasmtime::Error> {
    let deadline = store.data().deadline;
    let work = async {
        let instance = pre.instantiate_async(&mut *store).await?;
        f(&mut *store, instance).await
    };
    match tokio::time::timeout_at(deadline.into(), work).await {
        Ok(result) => result,
        Err(_) => Err(wasmtime::Error::from(Trap::Interrupt)),
    }
}

/// Calls `list-tools` in a fresh instance, under the plugin's limits.
pub async fn list_tools(target: &Target<'_>) -> Result<Vec<wit::ToolDefinition>, ToolFailure> {
    let deadline = Instant::now() + target.policy.limits.timeout;
    let mut store = new_store(target, "list-tools", Arc::new(NoEvents), deadline)?;
    let result = run(&mut store, target.pre, async |store, instance| {
        instance
            .mcp_wasm_host_plugin_tools()
            .call_list_tools(store)
            .await
    })
    .await;
    finish(&store);
    result.map_err(|e| describe_error(store.data(), e))
}

/// Calls `call-tool` for `tool` in a fresh instance, with arguments already
/// validated against its input schema.
pub async fn call_tool(
    target: &Target<'_>,
    tool: &PluginTool,
    arguments: &str,
    events: Arc<dyn CallEvents>,
    deadline: Instant,
) -> (Result<ToolOutput, ToolFailure>, CallStats) {
    let mut store = match new_store(target, &tool.name, events, deadline) {
        Ok(store) => store,
        Err(failure) => return (Err(failure), CallStats::default()),
    };
    let result = run(&mut store, target.pre, async |store, instance| {
        instance
            .mcp_wasm_host_plugin_tools()
            .call_call_tool(store, &tool.name, arguments)
            .await
    })
    .await;
    finish(&store);
    let stats = stats(&store, target.policy.limits.fuel);
    let failure = |cause| ToolFailure {
        plugin: target.plugin.to_string(),
        tool: tool.name.clone(),
        cause,
    };
    let outcome = match result {
        Err(e) => Err(describe_error(store.data(), e)),
        Ok(Err(guest)) => {
            let (kind, mut message) = guest_error(guest);
            if kind == GuestErrorKind::Denied {
                message = format!("{message} ({})", denied_hint(target.policy));
            }
            Err(failure(FailureCause::Guest { kind, message }))
        }
        Ok(Ok(result)) => convert_result(tool, result)
            .map_err(|m| failure(FailureCause::BadOutput(m)))
            .and_then(|out| {
                let size = output_size(&out);
                let limit = target.policy.limits.max_result_bytes;
                if size > limit {
                    Err(failure(FailureCause::ResultTooLarge { size, limit }))
                } else {
                    Ok(out)
                }
            }),
    };
    (outcome, stats)
}

/// A guest's `tool-error` as the runtime's kind of guest error and message.
pub(crate) fn guest_error(error: wit::ToolError) -> (GuestErrorKind, String) {
    match error {
        wit::ToolError::InvalidArguments(m) => (GuestErrorKind::InvalidArguments, m),
        wit::ToolError::UnknownTool(m) => (GuestErrorKind::UnknownTool, m),
        wit::ToolError::Denied(m) => (GuestErrorKind::Denied, m),
        wit::ToolError::Failed(m) => (GuestErrorKind::Failed, m),
    }
}

/// How a denied guest's user grants access: the filesystem and environment
/// sections of the policy, named by where they live.
fn denied_hint(policy: &Policy) -> String {
    use super::capabilities::env::EnvPolicy;
    format!(
        "{}; {} (in {})",
        policy.filesystem.hint(&policy.section),
        EnvPolicy::hint(&policy.section),
        policy.config_file
    )
}

/// The bytes a result carries: text, binary data and structured content.
pub(crate) fn output_size(out: &ToolOutput) -> u64 {
    let blocks: usize = out
        .content
        .iter()
        .map(|c| match c {
            Content::Text { text, .. } => text.len(),
            Content::Image { data, .. } | Content::Audio { data, .. } => data.len(),
            Content::Resource { body, .. } => match body {
                ResourceBody::Text(t) => t.len(),
                ResourceBody::Blob(b) => b.len(),
            },
            Content::ResourceLink { uri, name, .. } => uri.len() + name.len(),
        })
        .sum();
    let structured = out.structured.as_ref().map_or(0, |v| v.to_string().len());
    (blocks + structured) as u64
}

/// Writes the guest's captured stdout and stderr to the server log.
fn finish(store: &Store<CallState>) {
    let state = store.data();
    for (stream, capture) in [("stdout", &state.stdout), ("stderr", &state.stderr)] {
        let (text, dropped) = capture.contents();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            tracing::info!(target: "guest", plugin = state.plugin(), tool = state.tool(), stream, "{line}");
        }
        if dropped > 0 {
            tracing::warn!(target: "guest", plugin = state.plugin(), tool = state.tool(), stream, dropped, "guest output beyond the capture limit was dropped");
        }
    }
}

/// Turns a wasmtime error from instantiating or calling into plain words,
/// using the limiter's record and the guest's stderr.
fn describe_error(state: &CallState, error: wasmtime::Error) -> ToolFailure {
    let (stderr, _) = state.stderr.contents();
    let limits = &state.policy.limits;
    let trap = error.downcast_ref::<Trap>();
    let cause = if trap == Some(&Trap::OutOfFuel) {
        FailureCause::OutOfFuel { limit: limits.fuel }
    } else if trap == Some(&Trap::Interrupt) {
        FailureCause::Timeout {
            limit: limits.timeout,
        }
    } else if state.limiter.memory_refused {
        FailureCause::MemoryLimit {
            limit: limits.memory_bytes,
            detail: find_alloc_failure(&stderr)
                .or_else(|| trap.is_none().then(|| format!("{error:#}"))),
        }
    } else if let Some(trap) = trap {
        match trap {
            Trap::UnreachableCodeReached => {
                if let Some(panic) = find_panic(&stderr) {
                    FailureCause::Panic {
                        message: panic.message,
                        location: panic.location,
                    }
                } else if let Some(oom) = find_alloc_failure(&stderr) {
                    FailureCause::OutOfMemory(oom)
                } else {
                    FailureCause::Trap("executed an `unreachable` instruction".into())
                }
            }
            Trap::StackOverflow => FailureCause::Trap("stack overflow".into()),
            Trap::MemoryOutOfBounds => FailureCause::Trap(
                "out-of-bounds memory access (in a Rust guest this is also how deep recursion that exhausts the shadow stack shows up)".into(),
            ),
            other => FailureCause::Trap(other.to_string().trim_start_matches("wasm trap: ").to_string()),
        }
    } else if let Some(exit) = error.downcast_ref::<wasmtime_wasi::I32Exit>() {
        FailureCause::Trap(format!("the guest exited with status {}", exit.0))
    } else {
        FailureCause::Host(format!("{error:#}"))
    };
    ToolFailure {
        plugin: state.plugin().to_string(),
        tool: state.tool().to_string(),
        cause,
    }
}

/// Converts and checks a guest's result. Structured content must be JSON
/// and, when the tool declares an output schema, match it; a tool with a
/// schema must return structured content unless the result is an error.
pub(crate) fn convert_result(
    tool: &PluginTool,
    result: wit::CallResult,
) -> Result<ToolOutput, String> {
    let structured = result
        .structured_content
        .as_deref()
        .map(serde_json::from_str::<Value>)
        .transpose()
        .map_err(|e| format!("its structured content is not valid JSON: {e}"))?;
    if let Some(schema) = &tool.output {
        match &structured {
            Some(value) => {
                let problems = schema.violations(value);
                if !problems.is_empty() {
                    return Err(format!(
                        "its structured content does not match its output schema: {}",
                        problems.join("; ")
                    ));
                }
            }
            None if !result.is_error => {
                return Err(
                    "the tool declares an output schema but returned no structured content".into(),
                );
            }
            None => {}
        }
    }
    let mut content: Vec<Content> = result.content.into_iter().map(Content::from).collect();
    if content.is_empty()
        && let Some(value) = &structured
    {
        // Older clients read only `content`: give them the JSON as text.
        content.push(Content::text(value.to_string()));
    }
    Ok(ToolOutput {
        content,
        structured,
        is_error: result.is_error,
    })
}
