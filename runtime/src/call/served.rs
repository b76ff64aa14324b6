//! Running one of the optional exports (a resource read, a prompt, a
//! completion) under a tool call's limits, and what each result costs
//! against `max_result_size`.

use std::sync::Arc;
use std::time::Instant;

use wasmtime::Store;
use wasmtime::component::Instance;

use super::*;
use crate::call::events::CallEvents;
use crate::call::sandbox::CallState;
use crate::call::session::Whose;
use crate::definitions::output::{ToolOutput, cost};
use crate::egress::outbound::Outbound;
use crate::error::{FailureCause, GuestErrorKind, ToolFailure};
use crate::load::exports::Exports;
use crate::policy::limits::spec::key;

/// What a result of one of the optional exports costs against
/// `max_result_size` (see [`output_size`]), counted on the guest's own
/// result, before redaction: the limit is the guest's budget, and a
/// secret replaced by `[redacted]` never turns a result within it into a
/// refusal (nor a refusal into a result).
pub(crate) trait Budgeted {
    /// The bytes it costs; `None`: not held to the limit (completions are
    /// clipped value by value instead).
    fn cost(&self) -> Option<u64>;
}

impl Budgeted for Vec<crate::definitions::served::ResourcePart> {
    fn cost(&self) -> Option<u64> {
        Some(
            self.iter()
                .map(|p| {
                    cost::string(&p.uri)
                        + p.mime_type.as_deref().map_or(0, cost::string)
                        + match &p.body {
                            crate::definitions::output::ResourceBody::Text(t) => cost::string(t),
                            crate::definitions::output::ResourceBody::Blob(b) => {
                                cost::base64(b.len())
                            }
                        }
                })
                .sum(),
        )
    }
}

impl Budgeted for crate::definitions::served::PromptOutput {
    fn cost(&self) -> Option<u64> {
        Some(cost::output(&ToolOutput {
            content: self.messages.iter().map(|(_, c)| c.clone()).collect(),
            ..ToolOutput::default()
        }))
    }
}

impl Budgeted for crate::definitions::served::Completion {
    fn cost(&self) -> Option<u64> {
        None
    }
}

/// Runs `f` (one of the optional exports: a resource read, a prompt, a
/// completion) in a fresh instance, or a warm one, under the same limits,
/// deadline, policy and failure mapping as a tool call; `label` names the
/// request in failures and the log. A guest's own error comes back as
/// [`FailureCause::Guest`], its message clipped and its secrets redacted.
pub(crate) async fn serve<R: Outbound + Budgeted>(
    target: &CallTarget<'_>,
    label: &str,
    events: Arc<dyn CallEvents>,
    deadline: Instant,
    whose: Whose<'_>,
    f: impl AsyncFnOnce(
        &Exports,
        &mut Store<CallState>,
        Instance,
    ) -> wasmtime::Result<
        Result<R, crate::load::bindings::mcp_wasm_host::plugin::errors::ServeError>,
    >,
) -> (Result<R, ToolFailure>, CallStats) {
    let mut live = match live(target, label, events, deadline, whose) {
        Ok(live) => live,
        Err(failure) => return (Err(failure), CallStats::default()),
    };
    let result = run(&mut live, target, async |store, instance| {
        f(target.exports, store, instance).await
    })
    .await;
    let store = &mut live.store;
    finish(store);
    let stats = stats(store, target.policy.limits.fuel);
    let clean = result.is_ok() && !live.tainted && !store.data().refused_growth();
    let outcome = match result {
        Err(e) => Err(describe_error(store.data(), e)),
        Ok(Err(guest)) => {
            let (kind, message) = crate::definitions::served::guest_error(guest);
            let mut message = target.policy.grants.guest_message(message);
            if kind == GuestErrorKind::Denied {
                message = format!("{message} ({})", denied_hint(target.policy));
            }
            Err(ToolFailure {
                plugin: target.plugin.to_string(),
                tool: label.to_string(),
                cause: FailureCause::Guest { kind, message },
            })
        }
        Ok(Ok(value)) => {
            let limit = target.policy.limits.max_result_bytes;
            match value.cost() {
                Some(size) if size > limit => Err(ToolFailure {
                    plugin: target.plugin.to_string(),
                    tool: label.to_string(),
                    cause: FailureCause::ResultTooLarge {
                        size,
                        limit,
                        hint: target.policy.raise_hint(key::MAX_RESULT_SIZE),
                    },
                }),
                _ => Ok(value),
            }
        }
    };
    (settle(live, target, whose, clean, outcome), stats)
}
