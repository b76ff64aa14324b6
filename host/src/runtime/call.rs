//! Running one export of a plugin in a fresh store and instance, and turning
//! whatever happens (a result, a returned error, a trap) into the runtime's
//! own types.

use std::sync::Arc;

use serde_json::Value;
use wasmtime::Store;
use wasmtime::Trap;

use super::bindings::{PluginPre, types as wit};
use super::capture::{find_alloc_failure, find_panic};
use super::error::{FailureCause, GuestErrorKind, ToolFailure};
use super::events::{CallEvents, NoEvents};
use super::output::{Content, ToolOutput};
use super::plugin::PluginTool;
use super::sandbox::CallState;

/// Calls `list-tools` in a fresh instance.
pub async fn list_tools(
    pre: &PluginPre<CallState>,
    plugin: &Arc<str>,
) -> Result<Vec<wit::ToolDefinition>, ToolFailure> {
    let state = CallState::new(plugin.clone(), "list-tools".into(), Arc::new(NoEvents));
    let mut store = Store::new(pre.engine(), state);
    let result = async {
        let instance = pre.instantiate_async(&mut store).await?;
        instance
            .mcp_wasm_host_plugin_tools()
            .call_list_tools(&mut store)
            .await
    }
    .await;
    finish(&store);
    result.map_err(|e| describe_error(store.data(), e))
}

/// Calls `call-tool` for `tool` in a fresh instance, with arguments already
/// validated against its input schema.
pub async fn call_tool(
    pre: &PluginPre<CallState>,
    plugin: &Arc<str>,
    tool: &PluginTool,
    arguments: &str,
    events: Arc<dyn CallEvents>,
) -> Result<ToolOutput, ToolFailure> {
    let state = CallState::new(plugin.clone(), tool.name.as_str().into(), events);
    let mut store = Store::new(pre.engine(), state);
    let result = async {
        let instance = pre.instantiate_async(&mut store).await?;
        instance
            .mcp_wasm_host_plugin_tools()
            .call_call_tool(&mut store, &tool.name, arguments)
            .await
    }
    .await;
    finish(&store);
    let failure = |cause| ToolFailure {
        plugin: plugin.to_string(),
        tool: tool.name.clone(),
        cause,
    };
    match result {
        Err(e) => Err(describe_error(store.data(), e)),
        Ok(Err(guest)) => {
            let (kind, message) = match guest {
                wit::ToolError::InvalidArguments(m) => (GuestErrorKind::InvalidArguments, m),
                wit::ToolError::UnknownTool(m) => (GuestErrorKind::UnknownTool, m),
                wit::ToolError::Denied(m) => (GuestErrorKind::Denied, m),
                wit::ToolError::Failed(m) => (GuestErrorKind::Failed, m),
            };
            Err(failure(FailureCause::Guest { kind, message }))
        }
        Ok(Ok(result)) => {
            convert_result(tool, result).map_err(|m| failure(FailureCause::BadOutput(m)))
        }
    }
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
/// using the guest's stderr to explain Rust panics and failed allocations.
fn describe_error(state: &CallState, error: wasmtime::Error) -> ToolFailure {
    let (stderr, _) = state.stderr.contents();
    let cause = if let Some(trap) = error.downcast_ref::<Trap>() {
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
fn convert_result(tool: &PluginTool, result: wit::CallResult) -> Result<ToolOutput, String> {
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
