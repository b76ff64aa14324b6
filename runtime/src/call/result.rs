//! What a call's guest gave, as the runtime's own result: its output checked
//! against the tool's output schema and converted (off the async workers
//! when it is large), its size as `max_result_size` counts it, and its
//! returned error or trap described, redacted and clipped.

use std::time::Instant;

use serde_json::Value;
use wasmtime::{Store, Trap};

use super::blame;
use super::*;
use crate::call::capture::{find_alloc_failure, find_panic};
use crate::call::offload::{self, Expired};
use crate::call::sandbox::CallState;
use crate::capabilities::{self, Grants};
use crate::definitions::output::{Content, ToolOutput, cost};
use crate::definitions::schema::Schema;
use crate::definitions::tool::PluginTool;
use crate::error::{Excess, FailureCause, GuestErrorKind, ToolFailure};
use crate::load::bindings::types as wit;
use crate::policy::Policy;
use crate::policy::limits::spec::key;
use crate::units::count;

/// A guest's `tool-error` as the runtime's kind of guest error and message
/// (redacted, then clipped: [`Grants::guest_message`]).
pub fn guest_error(error: wit::ToolError, grants: &Grants) -> (GuestErrorKind, String) {
    let (kind, message) = match error {
        wit::ToolError::InvalidArguments(m) => (GuestErrorKind::InvalidArguments, m),
        wit::ToolError::UnknownTool(m) => (GuestErrorKind::UnknownTool, m),
        wit::ToolError::Denied(m) => (GuestErrorKind::Denied, m),
        wit::ToolError::Failed(m) => (GuestErrorKind::Failed, m),
    };
    (kind, grants.guest_message(message))
}

/// How a denied guest's user grants access: every capability's hint (the
/// filesystem's and the environment's), and the file they are granted in.
pub(super) fn denied_hint(policy: &Policy) -> String {
    format!(
        "{} (in {})",
        policy.grants.denied_hints(&policy.section).join("; "),
        policy.config_file
    )
}

/// What a result costs against `max_result_size`: every byte of it the
/// guest controls and the client receives, framing included (see
/// [`cost`]). Never less than the JSON of its content and structured content.
pub fn output_size(out: &ToolOutput) -> u64 {
    cost::output(out)
}

/// Writes the guest's captured stdout and stderr to the server log.
pub(super) fn finish(store: &mut Store<CallState>) {
    store.data_mut().finish_capabilities();
}

/// Turns a wasmtime error from instantiating or calling into plain words,
/// using the limiter's record and the guest's stderr: the host's own
/// failure only when its code said so ([`blame::host_fault`]), else a
/// limit's (naming its key) or the guest's ([`blame::guest_fault`]). Text
/// taken from the guest (its stderr) is redacted, then clipped to
/// [`MAX_MESSAGE`].
pub(super) fn describe_error(state: &CallState, error: wasmtime::Error) -> ToolFailure {
    let (stderr, _) = state.stderr.contents();
    let clipped = |text: String| state.policy.grants.guest_message(text);
    let limits = &state.policy.limits;
    let trap = error.downcast_ref::<Trap>();
    let cause = if let Some(host) = blame::host_fault(&error) {
        host.map_guest_text(clipped)
    } else if trap == Some(&Trap::OutOfFuel) {
        FailureCause::OutOfFuel { limit: limits.fuel }
    } else if trap == Some(&Trap::Interrupt) {
        FailureCause::Timeout {
            limit: limits.timeout,
        }
    } else if state.limiter.memory_refused {
        FailureCause::MemoryLimit {
            limit: limits.memory_bytes,
            detail: find_alloc_failure(&stderr)
                .or_else(|| trap.is_none().then(|| format!("{error:#}")))
                .map(clipped),
        }
    } else if state.limiter.table_refused {
        FailureCause::OverLimit(Box::new(Excess {
            key: key::TABLE_ELEMENTS,
            what: "grew a table".into(),
            limit: format!("{} elements", count(limits.table_elements)),
            hint: state.policy.raise_hint(key::TABLE_ELEMENTS),
        }))
    } else if let Some(trap) = trap {
        match trap {
            Trap::UnreachableCodeReached => {
                if let Some(panic) = find_panic(&stderr) {
                    FailureCause::Panic {
                        message: clipped(panic.message),
                        location: panic.location.map(clipped),
                    }
                } else if let Some(oom) = find_alloc_failure(&stderr) {
                    FailureCause::OutOfMemory(clipped(oom))
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
    } else if let Some(cause) = capabilities::failure_cause(&error) {
        cause
    } else if let Some(exit) = error.downcast_ref::<wasmtime_wasi::I32Exit>() {
        FailureCause::Trap(format!("the guest exited with status {}", exit.0))
    } else {
        // Not a trap and not the host's own failure: the guest's.
        blame::guest_fault(&error, &state.policy).map_guest_text(clipped)
    };
    ToolFailure {
        plugin: state.plugin().to_string(),
        tool: state.tool().to_string(),
        cause,
    }
}

/// [`convert_result`], on the blocking pool when checking the structured
/// content against the output schema may be slow (see
/// [`Schema::is_quick_to_check`]), within the call's deadline.
pub(super) async fn convert_off_the_workers(
    target: &CallTarget<'_>,
    tool: &PluginTool,
    result: wit::CallResult,
    deadline: Instant,
) -> Result<ToolOutput, FailureCause> {
    let bad_output = |m: String| FailureCause::BadOutput(target.policy.grants.guest_message(m));
    let structured_len = result.structured_content.as_ref().map_or(0, String::len);
    let slow = tool
        .output
        .as_ref()
        .filter(|schema| !schema.is_quick_to_check(structured_len));
    let Some(schema) = slow.cloned() else {
        return convert_result(tool, result).map_err(bad_output);
    };
    offload::run(target.lane, deadline, move || {
        convert_with(Some(&schema), result)
    })
    .await
    .map_err(|Expired| FailureCause::Timeout {
        limit: target.policy.limits.timeout,
    })?
    .map_err(bad_output)
}

/// Converts and checks a guest's result. Structured content must be JSON
/// and, when the tool declares an output schema, match it; a tool with a
/// schema must return structured content unless the result is an error.
pub fn convert_result(tool: &PluginTool, result: wit::CallResult) -> Result<ToolOutput, String> {
    convert_with(tool.output.as_deref(), result)
}

/// [`convert_result`] against the output schema `output`, if any.
fn convert_with(output: Option<&Schema>, result: wit::CallResult) -> Result<ToolOutput, String> {
    let structured = result
        .structured_content
        .as_deref()
        .map(serde_json::from_str::<Value>)
        .transpose()
        .map_err(|e| format!("its structured content is not valid JSON: {e}"))?;
    if let Some(schema) = output {
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
