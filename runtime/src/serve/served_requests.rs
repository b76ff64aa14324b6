//! Reading a resource, getting a prompt and completing an argument: each
//! routed through the catalog to the plugin that serves it, admitted like a
//! tool call (its rate limits, its argument and result bounds, a slot within
//! its deadline) and run in its sandbox by [`call::serve`], with an audit
//! line.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use crate::call;
use crate::call::events::CallEvents;
use crate::catalog::Catalog;
use crate::definitions::served::{self, Completion, CompletionTarget, PromptOutput, ResourcePart};
use crate::error::{FailureCause, GuestErrorKind, ToolFailure, clip};
use crate::load::bindings::exports::mcp_wasm_host::plugin::completions as wc;
use crate::load::plugin::Plugin;
use crate::observe::{InPhase, Observer, Phase};
use crate::policy::limits::spec::key;
use crate::runtime::Runtime;
use crate::serve::rate::{Caller, RateScope};
use crate::serve::receipt::Receipt;
use crate::serve::receipt::Unfinished;

/// URI bytes times templates up to which a URI is matched on the async
/// worker (a few microseconds); more goes to the blocking pool.
const QUICK_MATCH_WORK: usize = 64 << 10;

/// How long matching one URI may take before it counts as matching none.
const MATCH_DEADLINE: std::time::Duration = std::time::Duration::from_secs(10);

/// Why a resource read, a prompt or a completion has no result.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ServeError {
    /// No plugin serves this URI, or the plugin that matched it has nothing
    /// there.
    #[error("no resource has the URI {0:?}")]
    ResourceNotFound(String),
    /// No prompt has this name.
    #[error("no prompt is called {0:?}")]
    PromptNotFound(String),
    /// No resource template has this URI template.
    #[error("no resource template is {0:?}")]
    TemplateNotFound(String),
    /// The arguments cannot be used (a required one is missing, or the
    /// plugin refused them).
    #[error("{0}")]
    InvalidArguments(String),
    /// The plugin failed, or a limit stopped it.
    #[error(transparent)]
    Failed(#[from] ToolFailure),
}

/// Which request runs, for its label and its audit line.
struct Request<'a> {
    plugin: &'a Arc<Plugin>,
    /// The rate limiter's name for it (one of [`crate::serve::rate::REQUESTS`]).
    kind: &'static str,
    /// `kind` and what it is about, for failures and the audit line.
    label: String,
    started: Instant,
    observer: &'a dyn Observer,
    /// Who asked, for the audit line.
    subject: Option<&'a Arc<str>>,
    /// The asker's session, for `reuse_instances = "session"`.
    session: Option<&'a call::session::Session>,
}

impl Request<'_> {
    fn fail(&self, cause: FailureCause) -> ServeError {
        ServeError::Failed(ToolFailure {
            plugin: self.plugin.name.to_string(),
            tool: self.label.clone(),
            cause,
        })
    }

    fn audit(
        &self,
        outcome: &'static str,
        limit: Option<&'static str>,
        stats: Option<call::CallStats>,
    ) {
        let ran = stats.is_some();
        let receipt = Receipt::new(
            self.plugin,
            &self.label,
            outcome,
            self.started,
            stats,
            self.subject,
        );
        receipt.audit(None);
        self.observer
            .call_ended(&receipt.observed(self.kind, limit, ran));
    }

    /// The plugin's and the caller's rate limits, then the arguments'
    /// size and what they hold (`texts`, for the capabilities' inbound
    /// checks), as for a tool call.
    fn admit(
        &self,
        caller: &Caller,
        argument_bytes: usize,
        texts: &[&str],
    ) -> Result<(), ServeError> {
        let limits = &self.plugin.policy.limits;
        let quota = match self.plugin.rate.check(self.kind) {
            Err(wait) => Some((RateScope::AllClients, limits.rate_limit_per_minute, wait)),
            Ok(()) => caller
                .check(self.kind, limits.client_rate_limit_per_minute)
                .err()
                .map(|wait| {
                    let per_minute = limits.client_rate_limit_per_minute;
                    (RateScope::EachClient, per_minute, wait)
                }),
        };
        if let Some((scope, per_minute, retry_after)) = quota {
            self.audit("rate_limited", Some(scope.key()), None);
            return Err(self.fail(FailureCause::RateLimited {
                scope,
                per_minute,
                retry_after,
            }));
        }
        if argument_bytes as u64 > limits.max_argument_bytes {
            self.audit("arguments_too_large", Some(key::MAX_ARGUMENT_SIZE), None);
            return Err(self.fail(FailureCause::ArgumentsTooLarge {
                size: argument_bytes as u64,
                limit: limits.max_argument_bytes,
                hint: self.plugin.policy.raise_hint(key::MAX_ARGUMENT_SIZE),
            }));
        }
        let policy = &self.plugin.policy;
        if let Err(refused) = policy
            .grants
            .inbound(crate::capabilities::Arguments::Texts(texts))
        {
            self.audit("arguments_refused", None, None);
            return Err(self.fail(FailureCause::ArgumentsRefused {
                key: format!("{}.{}", policy.section, refused.key),
                problem: refused.problem,
                config_file: policy.config_file.to_string(),
            }));
        }
        Ok(())
    }

    /// Waits for one of the plugin's slots, then runs `f` in its sandbox;
    /// the outcome is audited. A guest's `not-found` becomes `not_found`.
    /// `f` returns the runtime's own type of result, which leaves through
    /// the boundary of what a guest produces.
    async fn run<R: crate::egress::outbound::Outbound + call::Budgeted>(
        &self,
        events: Arc<dyn CallEvents>,
        not_found: impl FnOnce() -> ServeError,
        f: impl AsyncFnOnce(
            &crate::load::exports::Exports,
            &mut wasmtime::Store<call::sandbox::CallState>,
            wasmtime::component::Instance,
        ) -> wasmtime::Result<
            Result<R, crate::load::bindings::mcp_wasm_host::plugin::errors::ServeError>,
        >,
    ) -> Result<R, ServeError> {
        let limits = &self.plugin.policy.limits;
        let deadline = self.started + limits.timeout;
        let mut unfinished = Unfinished {
            plugin: self.plugin,
            tool: &self.label,
            label: self.kind,
            observer: self.observer,
            started: self.started,
            arguments: None,
            subject: self.subject,
            armed: true,
        };
        let waiting = InPhase::enter(self.observer, &self.plugin.name, Phase::Waiting);
        let slot = tokio::time::timeout_at(deadline.into(), self.plugin.slots.acquire()).await;
        drop(waiting);
        let Ok(Ok(_slot)) = slot else {
            unfinished.armed = false;
            self.audit("timeout", Some(key::TIMEOUT), None);
            return Err(self.fail(FailureCause::Timeout {
                limit: limits.timeout,
            }));
        };
        let running = InPhase::enter(self.observer, &self.plugin.name, Phase::Running);
        let (result, stats) = call::serve(
            &self.plugin.target(),
            &self.label,
            events,
            deadline,
            self.session,
            f,
        )
        .await;
        drop(running);
        unfinished.armed = false;
        let (outcome, limit) = match &result {
            Ok(_) => ("ok", None),
            Err(f) => (f.cause.kind(), f.cause.limit()),
        };
        self.audit(outcome, limit, Some(stats));
        match result {
            Ok(value) => Ok(value),
            Err(failure) => Err(match &failure.cause {
                FailureCause::Guest {
                    kind: GuestErrorKind::UnknownTool,
                    ..
                } => not_found(),
                FailureCause::Guest {
                    kind: GuestErrorKind::InvalidArguments,
                    message,
                } => ServeError::InvalidArguments(format!(
                    "{} of plugin {:?} rejected its arguments: {message}",
                    self.label, self.plugin.name
                )),
                FailureCause::InputDeferred => ServeError::Failed(failure),
                _ => {
                    tracing::warn!("{}", failure.log_line());
                    ServeError::Failed(failure)
                }
            }),
        }
    }
}

/// Reads the resource `uri` from the plugin that lists it (or, failing
/// that, the first plugin with a template that matches it).
#[tracing::instrument(
    level = "debug",
    skip(plugin, caller, events, observer),
    fields(plugin)
)]
async fn read_resource(
    plugin: Option<Arc<Plugin>>,
    uri: &str,
    caller: &Caller,
    events: Arc<dyn CallEvents>,
    observer: &dyn Observer,
) -> Result<Vec<ResourcePart>, ServeError> {
    let started = Instant::now();
    let not_found = || ServeError::ResourceNotFound(clip(uri.to_string(), 1024));
    let Some(plugin) = &plugin else {
        return Err(not_found());
    };
    tracing::Span::current().record("plugin", &*plugin.name);
    let request = Request {
        plugin,
        kind: "resources/read",
        label: format!("resources/read {}", clip(uri.to_string(), 256)),
        started,
        observer,
        subject: caller.subject(),
        session: caller.session(),
    };
    request.admit(caller, uri.len(), &[uri])?;
    let parts = request
        .run(events, not_found, async |exports, store, instance| {
            let read = exports.read_resource(store, &instance, uri).await?;
            Ok(read.map(|contents| served::parts(contents, &plugin.served)))
        })
        .await?;
    if parts.is_empty() {
        return Err(not_found());
    }
    // Held to `max_result_size` before redaction (`call::Budgeted`).
    Ok(parts)
}

/// Fills in the prompt clients call `name` with `arguments`; a required
/// argument that is missing is refused before the plugin runs.
#[tracing::instrument(
    level = "debug",
    skip(catalog, arguments, caller, events, observer),
    fields(plugin)
)]
async fn get_prompt(
    catalog: &Catalog,
    name: &str,
    arguments: BTreeMap<String, String>,
    caller: &Caller,
    events: Arc<dyn CallEvents>,
    observer: &dyn Observer,
) -> Result<PromptOutput, ServeError> {
    let started = Instant::now();
    let Some(entry) = catalog.prompt(name) else {
        return Err(ServeError::PromptNotFound(clip(name.to_string(), 256)));
    };
    tracing::Span::current().record("plugin", &*entry.plugin.name);
    if let Some(missing) = entry
        .info
        .arguments
        .iter()
        .find(|a| a.required && !arguments.contains_key(&a.name))
    {
        return Err(ServeError::InvalidArguments(format!(
            "the prompt {name:?} needs the argument {:?}",
            missing.name
        )));
    }
    let request = Request {
        plugin: &entry.plugin,
        kind: "prompts/get",
        label: format!("prompts/get {name}"),
        started,
        observer,
        subject: caller.subject(),
        session: caller.session(),
    };
    let pairs: Vec<(String, String)> = arguments.into_iter().collect();
    let size = pairs.iter().map(|(k, v)| k.len() + v.len()).sum();
    let texts: Vec<&str> = pairs
        .iter()
        .flat_map(|(k, v)| [k.as_str(), v.as_str()])
        .collect();
    request.admit(caller, size, &texts)?;
    let own_name = entry.info.name.as_str();
    let not_found = || ServeError::PromptNotFound(name.to_string());
    let output = request
        .run(events, not_found, async |exports, store, instance| {
            let got = exports
                .get_prompt(store, &instance, own_name, &pairs)
                .await?;
            Ok(got.map(served::prompt_output))
        })
        .await?;
    // Held to `max_result_size` before redaction (`call::Budgeted`).
    Ok(output)
}

/// Suggests values for `argument` of a prompt or resource template as
/// clients name them; a plugin without `completions` suggests none.
#[tracing::instrument(
    level = "debug",
    skip(catalog, context, caller, observer),
    fields(plugin)
)]
async fn complete(
    catalog: &Catalog,
    target: &CompletionTarget,
    argument: &str,
    value: &str,
    context: BTreeMap<String, String>,
    caller: &Caller,
    observer: &dyn Observer,
) -> Result<Completion, ServeError> {
    let started = Instant::now();
    let (plugin, own) = match target {
        CompletionTarget::Prompt(name) => {
            let Some(entry) = catalog.prompt(name) else {
                return Err(ServeError::PromptNotFound(clip(name.clone(), 256)));
            };
            (
                &entry.plugin,
                wc::CompletionTarget::Prompt(entry.info.name.clone()),
            )
        }
        CompletionTarget::Template(template) => {
            let Some(entry) = catalog.template(template) else {
                return Err(ServeError::TemplateNotFound(clip(template.clone(), 256)));
            };
            (
                &entry.plugin,
                wc::CompletionTarget::ResourceTemplate(template.clone()),
            )
        }
    };
    if !plugin.served.completes {
        return Ok(Completion::default());
    }
    tracing::Span::current().record("plugin", &*plugin.name);
    let request = Request {
        plugin,
        kind: "completion/complete",
        label: format!("completion/complete {argument}"),
        started,
        observer,
        subject: caller.subject(),
        session: caller.session(),
    };
    let wit = wc::CompletionRequest {
        target: own,
        argument: argument.to_string(),
        value: value.to_string(),
        context: context.into_iter().collect(),
    };
    let size = wit.argument.len()
        + wit.value.len()
        + wit
            .context
            .iter()
            .map(|(k, v)| k.len() + v.len())
            .sum::<usize>();
    let texts: Vec<&str> = [wit.argument.as_str(), wit.value.as_str()]
        .into_iter()
        .chain(
            wit.context
                .iter()
                .flat_map(|(k, v)| [k.as_str(), v.as_str()]),
        )
        .collect();
    request.admit(caller, size, &texts)?;
    let not_found = || match target {
        CompletionTarget::Prompt(p) => ServeError::PromptNotFound(p.clone()),
        CompletionTarget::Template(t) => ServeError::TemplateNotFound(t.clone()),
    };
    let completion = request
        .run(
            Arc::new(call::events::NoEvents),
            not_found,
            async |exports, store, instance| {
                let completed = exports.complete(store, &instance, &wit).await?;
                Ok(completed.map(served::completion))
            },
        )
        .await?;
    Ok(served::clip_completion(completion))
}

impl Runtime {
    /// Reads the resource `uri` from `plugin`, the one
    /// [`Runtime::resource_plugin`] found for it (none: not found).
    pub async fn read_resource(
        &self,
        plugin: Option<Arc<Plugin>>,
        uri: &str,
        caller: &Caller,
        events: Arc<dyn CallEvents>,
    ) -> Result<Vec<ResourcePart>, ServeError> {
        read_resource(plugin, uri, caller, events, &*self.observer).await
    }

    /// The plugin that serves `uri` now: the one that lists it, else the
    /// first with a template that matches it. Matching is linear in the
    /// URI, but a long URI against many templates still takes a while, so
    /// such a match runs on the blocking pool (two at a time for the whole
    /// server) rather than on an async worker, as slow schema checks do.
    pub async fn resource_plugin(&self, uri: &str) -> Option<Arc<Plugin>> {
        let catalog = self.catalog();
        let work = uri.len().saturating_mul(catalog.templates().len());
        if work <= QUICK_MATCH_WORK || catalog.resource(uri).is_some() {
            return catalog.resource_plugin(uri).cloned();
        }
        let uri = uri.to_owned();
        let deadline = Instant::now() + MATCH_DEADLINE;
        call::offload::run(&self.matching, deadline, move || {
            catalog.resource_plugin(&uri).cloned()
        })
        .await
        .unwrap_or_else(|call::offload::Expired| {
            tracing::warn!("matching a URI against the resource templates took too long");
            None
        })
    }

    /// Fills in the prompt clients call `name` with `arguments`; a required
    /// argument that is missing is refused before the plugin runs.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: BTreeMap<String, String>,
        caller: &Caller,
        events: Arc<dyn CallEvents>,
    ) -> Result<PromptOutput, ServeError> {
        get_prompt(
            &self.catalog(),
            name,
            arguments,
            caller,
            events,
            &*self.observer,
        )
        .await
    }

    /// Suggests values for `argument` of a prompt or resource template as
    /// clients name them; a plugin without `completions` suggests none.
    pub async fn complete(
        &self,
        target: &CompletionTarget,
        argument: &str,
        value: &str,
        context: BTreeMap<String, String>,
        caller: &Caller,
    ) -> Result<Completion, ServeError> {
        complete(
            &self.catalog(),
            target,
            argument,
            value,
            context,
            caller,
            &*self.observer,
        )
        .await
    }
}
