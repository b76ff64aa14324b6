//! Reading a resource, getting a prompt and completing an argument (a
//! plugin's optional exports): each routed through the catalog to the
//! plugin that serves it, taken through admission as a tool call is (its
//! rate limits, its argument bounds, a slot within its deadline, an audit
//! line), and run in its sandbox by [`call::serve`], which holds its result
//! to `max_result_size`.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use crate::call;
use crate::call::events::CallEvents;
use crate::capabilities::Arguments as Inbound;
use crate::catalog::Catalog;
use crate::definitions::served::{self, Completion, CompletionTarget, PromptOutput, ResourcePart};
use crate::error::{FailureCause, GuestErrorKind, ToolFailure, clip};
use crate::load::bindings::exports::mcp_wasm_host::plugin::completions as wc;
use crate::load::plugin::Plugin;
use crate::observe::Observer;
use crate::runtime::Runtime;
use crate::serve::admission::{Names, Request};
use crate::serve::rate::Caller;

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

impl ServeError {
    /// No prompt is called `name` (clipped as every such error is).
    pub fn prompt_not_found(name: &str) -> ServeError {
        ServeError::PromptNotFound(clip(name.to_string(), 256))
    }

    /// No prompt or template is `target` (clipped as every such error is).
    pub fn not_found(target: &CompletionTarget) -> ServeError {
        match target {
            CompletionTarget::Prompt(name) => ServeError::prompt_not_found(name),
            CompletionTarget::Template(template) => {
                ServeError::TemplateNotFound(clip(template.clone(), 256))
            }
        }
    }
}

/// A request of `kind` (one of [`crate::serve::rate::REQUESTS`]) to
/// `plugin`, named `label` in its failures and its audit line.
fn request_of<'a>(
    plugin: &'a Arc<Plugin>,
    kind: &'static str,
    label: &'a str,
    caller: &'a Caller,
    observer: &'a dyn Observer,
    started: Instant,
) -> Request<'a> {
    Request {
        plugin,
        names: Names {
            audited: label,
            failed: label,
            counted: kind,
        },
        caller,
        observer,
        started,
        timeout: plugin.policy.limits.timeout,
        logged: None,
    }
}

/// Admits `request`, its arguments `size` bytes and holding `texts` (for
/// the capabilities' inbound checks).
async fn admit(request: &Request<'_>, size: usize, texts: &[&str]) -> Result<(), ServeError> {
    request
        .admit(size, Inbound::Texts(texts))
        .await
        .map_err(|failed| ServeError::Failed(failed.failure))
}

/// Runs `f` in the plugin's sandbox once `request` has a slot; the outcome
/// is audited. A guest's `not-found` becomes `not_found`. `f` returns the
/// runtime's own type of result, which leaves through the boundary of what
/// a guest produces.
async fn run<R: crate::egress::outbound::Outbound + call::Budgeted>(
    request: &Request<'_>,
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
    let (plugin, label) = (request.plugin, request.names.audited);
    let ran = request
        .run(async |deadline| {
            let target = plugin.target();
            let whose = request.caller.whose();
            call::serve(&target, label, events, deadline, whose, f).await
        })
        .await
        .map_err(|failed| ServeError::Failed(failed.failure))?;
    let failure = match request.finish(ran, |_| "ok") {
        Ok((value, _receipt)) => return Ok(value),
        Err(failed) => failed.failure,
    };
    Err(match &failure.cause {
        FailureCause::Guest {
            kind: GuestErrorKind::UnknownTool,
            ..
        } => not_found(),
        FailureCause::Guest {
            kind: GuestErrorKind::InvalidArguments,
            message,
        } => ServeError::InvalidArguments(format!(
            "{label} of plugin {:?} rejected its arguments: {message}",
            plugin.name
        )),
        FailureCause::InputDeferred => ServeError::Failed(failure),
        _ => {
            tracing::warn!("{}", failure.log_line());
            ServeError::Failed(failure)
        }
    })
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
    let label = format!("resources/read {}", clip(uri.to_string(), 256));
    let request = request_of(plugin, "resources/read", &label, caller, observer, started);
    admit(&request, uri.len(), &[uri]).await?;
    let parts = run(
        &request,
        events,
        not_found,
        async |exports, store, instance| {
            let read = exports.read_resource(store, &instance, uri).await?;
            Ok(read.map(|contents| served::parts(contents, &plugin.served)))
        },
    )
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
        return Err(ServeError::prompt_not_found(name));
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
    let label = format!("prompts/get {name}");
    let request = request_of(
        &entry.plugin,
        "prompts/get",
        &label,
        caller,
        observer,
        started,
    );
    let pairs: Vec<(String, String)> = arguments.into_iter().collect();
    let size = pairs.iter().map(|(k, v)| k.len() + v.len()).sum();
    let texts: Vec<&str> = pairs
        .iter()
        .flat_map(|(k, v)| [k.as_str(), v.as_str()])
        .collect();
    admit(&request, size, &texts).await?;
    let own_name = entry.info.name.as_str();
    let not_found = || ServeError::PromptNotFound(name.to_string());
    let output = run(
        &request,
        events,
        not_found,
        async |exports, store, instance| {
            let got = exports
                .get_prompt(store, &instance, own_name, &pairs)
                .await?;
            Ok(got.map(served::prompt_output))
        },
    )
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
                return Err(ServeError::not_found(target));
            };
            (
                &entry.plugin,
                wc::CompletionTarget::Prompt(entry.info.name.clone()),
            )
        }
        CompletionTarget::Template(template) => {
            let Some(entry) = catalog.template(template) else {
                return Err(ServeError::not_found(target));
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
    let label = format!("completion/complete {argument}");
    let request = request_of(
        plugin,
        "completion/complete",
        &label,
        caller,
        observer,
        started,
    );
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
    admit(&request, size, &texts).await?;
    let not_found = || match target {
        CompletionTarget::Prompt(p) => ServeError::PromptNotFound(p.clone()),
        CompletionTarget::Template(t) => ServeError::TemplateNotFound(t.clone()),
    };
    let completion = run(
        &request,
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
