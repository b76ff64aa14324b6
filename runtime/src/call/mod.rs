//! Stage `call`: one export of a loaded plugin run in its sandbox. `serve`
//! hands it an admitted request; it takes an instance (`warm`: fresh, ready,
//! reused or a session's), sets up the store (`sandbox`, with the output
//! captured by `capture` under the `log_budget`), runs the guest, and turns
//! what happens into the runtime's own types. Host work that can take long
//! runs off the async workers (`offload`). While the guest runs, what it
//! reports or asks the client goes out through the caller's [`CallEvents`]
//! (`events`), and the client's answers come back into the running call
//! the same way; the result leaves through `egress`.
//!
//! This file is the run itself:
//! running one export of a plugin in a limited store and instance (a fresh
//! one, or a warm one the plugin's policy lets serve another call), and
//! turning whatever happens (a result, a returned error, a trap, a limit
//! hit, a deadline) into the runtime's own types.

pub(crate) mod capture;
pub(crate) mod events;
pub(crate) mod log_budget;
pub(crate) mod offload;
pub(crate) mod sandbox;
pub(crate) mod session;
pub(crate) mod warm;

use std::sync::Arc;
use std::time::Instant;

use wasmtime::component::{Instance, Val};
use wasmtime::{PoolConcurrencyLimitError, Store, Trap, UpdateDeadline};

use crate::call::events::{CallEvents, NoEvents};
use crate::call::offload::Lane;
use crate::call::sandbox::CallState;
use crate::call::session::Whose;
use crate::call::warm::{PluginIdle, Warm};
use crate::definitions::output::{Content, ToolOutput};
use crate::definitions::served::Listing;
use crate::definitions::tool::PluginTool;
use crate::egress;
use crate::egress::outbound::Outbound;
use crate::error::{FailureCause, GuestErrorKind, HostFault, MAX_MESSAGE, ToolFailure, clip};
use crate::load::bindings::types as wit;
use crate::load::exports::Exports;
use crate::load::generic::Function;
use crate::policy::Policy;
use crate::state::Owner;

mod blame;
mod result;
mod served;

pub use result::{guest_error, output_size};
// The fuzz targets check the conversion alone (`crate::fuzzing`).
use crate::policy::limits::spec::key;
#[cfg(any(test, feature = "fuzzing"))]
pub use result::convert_result;
use result::{convert_off_the_workers, denied_hint, describe_error, finish};
pub(crate) use served::{Budgeted, serve};

/// What a call consumed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallStats {
    /// Fuel burnt (0 when the engine does not meter fuel).
    pub fuel_used: u64,
    /// The largest linear memory the call reached, in bytes.
    pub peak_memory: usize,
}

/// The plugin-wide inputs every call needs.
pub struct CallTarget<'a> {
    /// The pre-instantiated component and its exports.
    pub exports: &'a Exports,
    /// The plugin's name.
    pub plugin: &'a Arc<str>,
    /// Its policy.
    pub policy: &'a Arc<Policy>,
    /// Its share of the blocking pool, for checking results that may be
    /// slow to check.
    pub lane: &'a Lane,
    /// Its idle instances, and the runtime's.
    pub idle: &'a PluginIdle,
}

/// A call's store, and its instance once it has one.
struct Live {
    store: Store<CallState>,
    instance: Option<Instance>,
    /// The calls the instance served before this one.
    served: u32,
    /// An instantiation failed in this store, which may hold part of it:
    /// the store is never kept.
    tainted: bool,
}

impl Live {
    fn fresh(store: Store<CallState>) -> Live {
        Live {
            store,
            instance: None,
            served: 0,
            tainted: false,
        }
    }
}

fn new_store(
    target: &CallTarget<'_>,
    tool: &str,
    events: Arc<dyn CallEvents>,
    owner: Owner,
    deadline: Instant,
) -> Result<Store<CallState>, ToolFailure> {
    store_for(
        target.exports.engine(),
        target.plugin,
        target.policy,
        tool,
        events,
        owner,
        deadline,
    )
}

/// A new store for a call of `plugin`'s `tool` under `policy`, armed.
fn store_for(
    engine: &wasmtime::Engine,
    plugin: &Arc<str>,
    policy: &Arc<Policy>,
    tool: &str,
    events: Arc<dyn CallEvents>,
    owner: Owner,
    deadline: Instant,
) -> Result<Store<CallState>, ToolFailure> {
    let state = CallState::new(
        plugin.clone(),
        tool.into(),
        events,
        owner,
        policy.clone(),
        deadline,
    )
    .map_err(|e| ToolFailure {
        plugin: plugin.to_string(),
        tool: tool.to_string(),
        cause: FailureCause::Host(e.to_string()),
    })?;
    let mut store = Store::new(engine, state);
    store.limiter(|s| &mut s.limiter);
    // What the guest may hand the host at once is the policy's, not
    // wasmtime's default copy budget.
    store.set_hostcall_fuel(blame::hostcall_fuel(policy));
    store.set_max_component_handles(blame::component_handles(policy));
    store.epoch_deadline_callback(|ctx| {
        Ok(if Instant::now() >= ctx.data().deadline {
            UpdateDeadline::Interrupt
        } else {
            UpdateDeadline::Yield(1)
        })
    });
    arm(&mut store, plugin, policy, tool)?;
    Ok(store)
}

/// Gives the store's next call the policy's whole fuel budget and starts
/// its epoch deadline over.
fn arm(
    store: &mut Store<CallState>,
    plugin: &str,
    policy: &Policy,
    tool: &str,
) -> Result<(), ToolFailure> {
    // Engines without fuel metering are a benchmark setting; asking such a
    // store for fuel would build an error (with a backtrace) on every call.
    if store.engine().get_consume_fuel() {
        store
            .set_fuel(policy.limits.fuel)
            .map_err(|e| ToolFailure {
                plugin: plugin.to_string(),
                tool: tool.to_string(),
                cause: FailureCause::Host(format!("{e:#}")),
            })?;
    }
    store.set_epoch_deadline(1);
    Ok(())
}

/// The store and instance a call of `tool` runs in: a warm one of the
/// plugin's (with `reuse_instances = "session"`, one kept for `session`
/// only), renewed for this call (its own tool, events, deadline, fuel, log
/// budget); else a ready one, fresh and never used, made ahead of the call
/// under the same policy and given this call's own tool, events, deadline
/// and fuel now; else a new store. Taking a ready instance, or finding
/// none, starts making the plugin's next ones off the call path.
fn live(
    target: &CallTarget<'_>,
    tool: &str,
    events: Arc<dyn CallEvents>,
    deadline: Instant,
    whose: Whose<'_>,
) -> Result<Live, ToolFailure> {
    // What the guest sends the client while it runs crosses the boundary.
    let events = egress::events(&target.policy.grants, events);
    let (plugin, policy) = (&**target.plugin, &**target.policy);
    let kept = if policy.limits.reuse_per_session {
        whose.session.and_then(|s| target.idle.take_session(s))
    } else {
        target.idle.take()
    };
    if let Some(Warm {
        mut store,
        instance,
        served,
    }) = kept
    {
        store
            .data_mut()
            .begin_call(tool.into(), events, whose.owner(), deadline);
        arm(&mut store, plugin, policy, tool)?;
        return Ok(Live {
            store,
            instance: Some(instance),
            served,
            tainted: false,
        });
    }
    let ready = target.idle.take_ready();
    refill(target);
    let Some(Warm {
        mut store,
        instance,
        served: _,
    }) = ready
    else {
        return new_store(target, tool, events, whose.owner(), deadline).map(Live::fresh);
    };
    store
        .data_mut()
        .begin_first_call(tool.into(), events, whose.owner(), deadline);
    arm(&mut store, plugin, policy, tool)?;
    Ok(Live {
        store,
        instance: Some(instance),
        served: 0,
        tainted: false,
    })
}

/// Starts making as many ready instances of the plugin as its
/// `ready_instances` asks for beyond those it has or is making, each on a
/// task of its own, off the call path.
fn refill(target: &CallTarget<'_>) {
    let want = target.policy.limits.ready_instances;
    if want == 0 {
        return;
    }
    for refill in target.idle.refills(want) {
        let pre = target.exports.pre().clone();
        let (plugin, policy) = (target.plugin.clone(), target.policy.clone());
        tokio::spawn(async move {
            if refill.wanted()
                && let Some(ready) = make_ready(pre, &plugin, &policy).await
            {
                refill.put(ready);
            }
        });
    }
}

/// A fresh instance of the plugin, made under `policy` in a store of its
/// own, within the policy's timeout; `None` if it cannot be made now (no
/// free instance slot: a ready instance never takes one from a call) or
/// at all (the call that takes no ready instance makes its own, and says
/// why it failed).
#[tracing::instrument(level = "trace", skip_all, fields(plugin = &**plugin))]
async fn make_ready(
    pre: wasmtime::component::InstancePre<CallState>,
    plugin: &Arc<str>,
    policy: &Arc<Policy>,
) -> Option<Warm> {
    let deadline = Instant::now() + policy.limits.timeout;
    let mut store = store_for(
        pre.engine(),
        plugin,
        policy,
        "(ready)",
        Arc::new(NoEvents),
        Owner::default(),
        deadline,
    )
    .ok()?;
    let made = tokio::time::timeout_at(deadline.into(), pre.instantiate_async(&mut store)).await;
    match made {
        Ok(Ok(instance)) if !store.data().refused_growth() => Some(Warm {
            store,
            instance,
            served: 0,
        }),
        Ok(Err(e)) => {
            tracing::trace!("no ready instance: {e:#}");
            None
        }
        _ => None,
    }
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

/// Runs `f` on the call's instance (instantiated first if it has none)
/// under the store's limits, cut off at the deadline even when the guest is
/// blocked inside a host call.
async fn run<R>(
    live: &mut Live,
    target: &CallTarget<'_>,
    f: impl AsyncFnOnce(&mut Store<CallState>, Instance) -> wasmtime::Result<R>,
) -> Result<R, wasmtime::Error> {
    let deadline = live.store.data().deadline;
    let work = async {
        let instance = match live.instance {
            Some(instance) => instance,
            None => {
                let instance = instantiate(live, target).await?;
                live.instance = Some(instance);
                instance
            }
        };
        f(&mut live.store, instance).await
    };
    match tokio::time::timeout_at(deadline.into(), work).await {
        Ok(result) => result,
        Err(_) => Err(wasmtime::Error::from(Trap::Interrupt)),
    }
}

/// A new instance in the call's store. When the engine's instance slots
/// are all taken, idle warm instances (any plugin's) are dropped, oldest
/// first, until it fits: idle instances never keep a call from running.
/// With none left, every slot is held by a call running, an instance being
/// dropped or made ready, or a plugin being listed, and the call waits for
/// one to be given back: `--max-instances` bounds the calls that run at
/// once, and the others wait for a slot within their own deadline (the
/// caller's), as a plugin's `max_concurrent_calls` makes them wait for its
/// own.
async fn instantiate(live: &mut Live, target: &CallTarget<'_>) -> wasmtime::Result<Instance> {
    let pool = target.idle.pool();
    loop {
        match target.exports.instantiate(&mut live.store).await {
            Err(e) if e.downcast_ref::<PoolConcurrencyLimitError>().is_some() => {
                live.tainted = true;
                if pool.evict_oldest() {
                    continue;
                }
                pool.released().await;
            }
            result => return result,
        }
    }
}

/// Calls `list-tools`, and the list functions of the optional exports
/// (resources, templates, views, prompts), in one fresh instance, under the
/// plugin's limits, type-checking the plugin's exports on the way. wasmtime
/// copies each whole list out of the guest's memory before the host sees
/// any of it, so that copy is bounded by the plugin's memory limit (and
/// fuel), not by its list bounds, which are checked after it.
pub async fn list_tools(
    target: &CallTarget<'_>,
) -> Result<(Vec<wit::ToolDefinition>, Listing), ToolFailure> {
    let deadline = Instant::now() + target.policy.limits.timeout;
    let store = new_store(
        target,
        "list-tools",
        Arc::new(NoEvents),
        Owner::default(),
        deadline,
    )?;
    let mut live = Live::fresh(store);
    let result = run(&mut live, target, async |store, instance| {
        let tools = target.exports.list_tools(&mut *store, &instance).await?;
        let fuel = store
            .engine()
            .get_consume_fuel()
            .then_some(target.policy.limits.fuel);
        let served = target.exports.list_served(store, &instance, fuel).await?;
        Ok((tools, served))
    })
    .await;
    finish(&mut live.store);
    result.map_err(|e| describe_error(live.store.data(), e))
}

/// A call's arguments as the guest takes them.
pub(crate) enum Arguments<'a> {
    /// A plugin's: the JSON object as text, for `call-tool`.
    Json(&'a str),
    /// A generic component's function and its parameters as WIT values,
    /// converted from the JSON object (see [`Function::arguments`]).
    Values(&'a Function, Vec<Val>),
}

/// Calls `call-tool` for `tool` in a fresh instance, or a warm one when the
/// plugin reuses instances, with arguments already validated against its
/// input schema. The instance is kept for the plugin's next call only when
/// the guest returned cleanly (a result that passed every check, or its
/// own `tool-error`) and no growth was refused; a trap, a limit hit, a
/// deadline, a host error or a cancelled call (this future dropped) drops
/// it.
pub(crate) async fn call_tool(
    target: &CallTarget<'_>,
    tool: &PluginTool,
    arguments: Arguments<'_>,
    events: Arc<dyn CallEvents>,
    deadline: Instant,
    whose: Whose<'_>,
) -> (Result<ToolOutput, ToolFailure>, CallStats) {
    let arguments = match arguments {
        Arguments::Values(function, params) => {
            return call_function(target, tool, function, params, events, deadline, whose).await;
        }
        Arguments::Json(json) => json,
    };
    let mut live = match live(target, &tool.name, events, deadline, whose) {
        Ok(live) => live,
        Err(failure) => return (Err(failure), CallStats::default()),
    };
    let result = run(&mut live, target, async |store, instance| {
        let call = target.exports.call_tool(&mut *store, &instance)?;
        Ok(call.call_async(store, (&tool.name, arguments)).await?.0)
    })
    .await;
    let store = &mut live.store;
    finish(store);
    let stats = stats(store, target.policy.limits.fuel);
    let clean = result.is_ok() && !live.tainted && !store.data().refused_growth();
    let failure = |cause| ToolFailure {
        plugin: target.plugin.to_string(),
        tool: tool.name.clone(),
        cause,
    };
    let denials = store.data().caps.denials();
    let outcome = match result {
        Err(e) => Err(describe_error(store.data(), e)),
        Ok(Err(guest)) => {
            let (kind, mut message) = guest_error(guest, &target.policy.grants);
            if denials.is_empty() && kind == GuestErrorKind::Denied {
                message = format!("{message} ({})", denied_hint(target.policy));
            }
            Err(failure(FailureCause::Guest { kind, message }))
        }
        Ok(Ok(result)) => convert_off_the_workers(target, tool, result, deadline)
            .await
            .map_err(&failure)
            .and_then(|out| within_bound(target, out).map_err(failure)),
    };
    let outcome = told_denials(&denials, outcome);
    (settle(live, target, whose, clean, outcome), stats)
}

/// `outcome`, with what the policy denied during the call (each naming the
/// key that would grant it) told where the guest failed: its error, its
/// error result, its panic or its trap, any of which a denial may explain.
/// A success, or a limit the host enforced, is left as it is.
fn told_denials(
    denials: &[String],
    outcome: Result<ToolOutput, ToolFailure>,
) -> Result<ToolOutput, ToolFailure> {
    if denials.is_empty() {
        return outcome;
    }
    let why = clip(denials.join("; "), MAX_MESSAGE);
    let told = |text: String| format!("{text} ({why})");
    match outcome {
        Ok(mut out) if out.is_error => {
            match out.content.iter_mut().find_map(|c| match c {
                Content::Text { text, .. } => Some(text),
                _ => None,
            }) {
                Some(text) => *text = told(std::mem::take(text)),
                None => out
                    .content
                    .push(Content::text(told("the tool failed".into()))),
            }
            Ok(out)
        }
        Err(failure) => {
            let cause = match failure.cause {
                FailureCause::Guest { kind, message } => FailureCause::Guest {
                    kind,
                    message: told(message),
                },
                FailureCause::Panic { message, location } => FailureCause::Panic {
                    message: told(message),
                    location,
                },
                FailureCause::Trap(message) => FailureCause::Trap(told(message)),
                other => other,
            };
            Err(ToolFailure { cause, ..failure })
        }
        ok => ok,
    }
}

/// `out`, unless it is over the plugin's `max_result_size`.
fn within_bound(target: &CallTarget<'_>, out: ToolOutput) -> Result<ToolOutput, FailureCause> {
    let size = output_size(&out);
    let limit = target.policy.limits.max_result_bytes;
    if size > limit {
        Err(FailureCause::ResultTooLarge {
            size,
            limit,
            hint: target.policy.raise_hint(key::MAX_RESULT_SIZE),
        })
    } else {
        Ok(out)
    }
}

/// Calls a generic component's `function` (served as `tool`) with
/// `params`, its arguments converted to WIT values at admission, through
/// wasmtime's dynamic API: the arguments lowered from JSON along its WIT
/// types, its result lifted back ([`Function::output`]). Everything else is
/// a tool call's: the instance, limits, deadline, failure mapping, result
/// bound and warm reuse.
async fn call_function(
    target: &CallTarget<'_>,
    tool: &PluginTool,
    function: &Function,
    params: Vec<Val>,
    events: Arc<dyn CallEvents>,
    deadline: Instant,
    whose: Whose<'_>,
) -> (Result<ToolOutput, ToolFailure>, CallStats) {
    let failure = |cause| ToolFailure {
        plugin: target.plugin.to_string(),
        tool: tool.name.clone(),
        cause,
    };
    let mut live = match live(target, &tool.name, events, deadline, whose) {
        Ok(live) => live,
        Err(failure) => return (Err(failure), CallStats::default()),
    };
    let result = run(&mut live, target, async |store, instance| {
        let func = instance
            .get_func(&mut *store, function.index())
            .ok_or_else(|| HostFault::error("the instance does not export the function"))?;
        let mut results = vec![Val::Bool(false); function.result_count()];
        func.call_async(&mut *store, &params, &mut results).await?;
        Ok(results)
    })
    .await;
    let store = &mut live.store;
    finish(store);
    let stats = stats(store, target.policy.limits.fuel);
    let clean = result.is_ok() && !live.tainted && !store.data().refused_growth();
    let outcome = match result {
        Err(e) => Err(describe_error(store.data(), e)),
        Ok(results) => function
            .output(&results)
            .map_err(|m| FailureCause::BadOutput(clip(m, MAX_MESSAGE)))
            .and_then(|out| within_bound(target, out))
            .map_err(failure),
    };
    let outcome = told_denials(&store.data().caps.denials(), outcome);
    (settle(live, target, whose, clean, outcome), stats)
}

/// Ends a call: its instance is kept for the plugin's next call (with
/// `reuse_instances = "session"`, for `session`'s next call only, and only
/// when the call has a session) only when the run was `clean` and the guest
/// returned cleanly (a result that passed every check, or its own error),
/// and any secret of the plugin is redacted from the guest's text in a
/// failure. An instance not kept is dropped off the response path
/// ([`crate::call::warm::Idle::retire`]). A result leaves through the one
/// boundary of what a guest produces ([`egress::result`]).
fn settle<R: Outbound>(
    live: Live,
    target: &CallTarget<'_>,
    whose: Whose<'_>,
    clean: bool,
    mut outcome: Result<R, ToolFailure>,
) -> Result<R, ToolFailure> {
    if let Ok(value) = &mut outcome {
        egress::result(&target.policy.grants, value);
    }
    let served = live.served + 1;
    let per_session = target.policy.limits.reuse_per_session;
    let pool = target.idle.pool();
    let keep = clean
        && target.idle.would_keep(served)
        && (!per_session || whose.session.is_some())
        && outcome
            .as_ref()
            .map_or_else(|f| matches!(f.cause, FailureCause::Guest { .. }), |_| true);
    match live.instance {
        Some(instance) if keep => {
            let mut store = live.store;
            store.data_mut().end_call();
            let warm = Warm {
                store,
                instance,
                served,
            };
            let gone = match whose.session.filter(|_| per_session) {
                Some(session) => target.idle.keep_for_session(warm, served, session),
                None => target.idle.keep(warm, served),
            };
            if !gone.is_empty() {
                pool.retire(gone);
            }
        }
        _ => pool.retire(live.store),
    }
    let grants = &target.policy.grants;
    outcome.map_err(|failure| ToolFailure {
        cause: failure.cause.map_guest_text(|text| grants.redacted(text)),
        ..failure
    })
}

#[cfg(test)]
mod tests;
