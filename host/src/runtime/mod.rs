//! The WebAssembly runtime: the engine, plugin loading, the sandbox and the
//! calls. It speaks only its own types and knows nothing of MCP.

pub mod access;
pub(crate) mod bindings;
pub mod cache;
pub(crate) mod call;
pub mod capabilities;
pub mod capture;
pub mod catalog;
pub mod claims;
pub mod engine;
pub mod error;
pub mod events;
pub(crate) mod exports;
pub mod icons;
pub mod imports;
pub mod inspection;
pub mod limits;
pub mod log_budget;
pub mod observe;
pub mod offload;
pub mod output;
pub mod plugin;
pub mod policy;
pub mod rate;
pub mod receipt;
pub mod sandbox;
pub mod schema;
mod serve;
pub mod served;
pub mod stamp;
pub mod tool;
pub mod units;
pub(crate) mod warm;
pub mod watch;

use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use serde_json::{Map, Value};
use tokio::sync::{Mutex, watch as channel};
use wasmtime::Engine;
use wasmtime::component::Linker;

pub use access::{Access, Denied, Principal};
pub use bindings::WIT_VERSION;
pub use catalog::{Catalog, Generations};
pub use engine::EngineSettings;
pub use error::{CallError, FailureCause, GuestErrorKind, LoadError, ToolFailure};
pub use events::{
    BoxFuture, CallEvents, ClientRequestError, ClientRequestKind, Elicitation, ElicitationAction,
    ElicitationRequest, IncludeContext, LogLevel, ModelPreferences, NoEvents, Progress, RequestAt,
    Root, SampledMessage, SamplingContent, SamplingMessage, SamplingRequest, SamplingRole,
};
pub use icons::{Icon, IconTheme};
pub use imports::ImportKind;
pub use inspection::{Inspection, WorldTarget};
pub use limits::Limits;
pub use observe::{CallEnd, NoObserver, Observer, Phase};
pub use output::{
    Audience, Content, ContentHints, ResourceBody, TaskSupport, ToolHints, ToolInfo, ToolOutput,
};
pub use policy::{DefaultPolicies, Policies, Policy, PolicySource};
pub use rate::{Caller, RateScope};
pub use receipt::Receipt;
pub use serve::ServeError;
pub use stamp::FileStamp;

use sandbox::CallState;

/// What loading a directory did.
#[derive(Debug, Default)]
pub struct LoadReport {
    /// Plugins that loaded, by name.
    pub loaded: Vec<String>,
    /// Files that did not load, and why.
    pub failed: Vec<LoadError>,
    /// Tools left out of the catalog by the naming rule, and why.
    pub skipped_tools: Vec<String>,
}

/// What [`Runtime::reload_file`] did.
#[derive(Debug)]
pub enum ReloadOutcome {
    /// The file loaded and its plugin is now in the catalog.
    Loaded {
        /// The plugin's name.
        plugin: String,
        /// How many tools it has.
        tools: usize,
        /// Whether it replaced a version loaded from the same path.
        replaced: bool,
        /// Whether the list of tools clients see changed.
        list_changed: bool,
        /// Tools left out of the new catalog by the naming rule, and why.
        skipped_tools: Vec<String>,
    },
    /// The file did not load; the previous version (if any) keeps serving.
    Failed(LoadError),
    /// The file changed while it was being loaded (it is still being
    /// written): nothing was swapped in. Reload it once it has settled.
    Unsettled,
    /// The file has the size and modification time of the version already
    /// loaded (the event was a read, not a write): nothing was done.
    Unchanged,
}

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

/// Errors creating a runtime.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// The engine could not be built.
    #[error(transparent)]
    Engine(#[from] engine::EngineError),
    /// The host functions could not be linked.
    #[error("cannot set up the host functions: {0}")]
    Linker(String),
}

/// Loads plugins and runs their tools.
pub struct Runtime {
    engine: Engine,
    linker: Arc<Linker<CallState>>,
    policies: RwLock<PolicySource>,
    catalog: RwLock<Arc<Catalog>>,
    /// Serializes every change of the catalog (a read, a load, a swap).
    swap: Mutex<()>,
    /// Bumped whenever the catalog's lists or plugin versions change.
    changes: channel::Sender<Generations>,
    /// Where compiled components are kept between runs, if anywhere.
    cache: Option<Arc<cache::CompileCache>>,
    /// Becomes true when the first load (of a directory or files) is done.
    loaded: channel::Sender<bool>,
    /// Every plugin's idle warm instances.
    idle: Arc<warm::IdlePool>,
    /// Who counts what the runtime does.
    observer: Arc<dyn Observer>,
    /// Plugin names only some paths may serve.
    claims: RwLock<claims::NameClaims>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime").finish_non_exhaustive()
    }
}

impl Runtime {
    /// A runtime with no plugins, whose plugins get their policies from
    /// `policies`.
    pub fn new(settings: &EngineSettings, policies: PolicySource) -> Result<Self, RuntimeError> {
        let engine = engine::build(settings)?;
        let mut linker = Linker::<CallState>::new(&engine);
        wasmtime_wasi::p2::add_to_linker_async(&mut linker)
            .map_err(|e| RuntimeError::Linker(format!("{e:#}")))?;
        capabilities::link(&mut linker).map_err(|e| RuntimeError::Linker(format!("{e:#}")))?;
        Ok(Runtime {
            engine,
            linker: Arc::new(linker),
            policies: RwLock::new(policies),
            catalog: RwLock::new(Arc::new(Catalog::default())),
            swap: Mutex::new(()),
            changes: channel::Sender::new(Generations::default()),
            cache: None,
            loaded: channel::Sender::new(false),
            idle: warm::IdlePool::new(warm::IdlePool::capacity_for(settings.max_instances)),
            observer: Arc::new(NoObserver),
            claims: RwLock::new(claims::NameClaims::default()),
        })
    }

    /// Keeps compiled components in `cache` (none: compile every time).
    pub fn with_cache(mut self, cache: Option<cache::CompileCache>) -> Self {
        self.cache = cache.map(Arc::new);
        self
    }

    /// Reports every call's end, the calls waiting and running, and the
    /// loads and reloads of plugins to `observer` (by default nobody).
    pub fn with_observer(mut self, observer: Arc<dyn Observer>) -> Self {
        self.observer = observer;
        self
    }

    /// The current catalog. It stays valid, whatever is loaded later.
    pub fn catalog(&self) -> Arc<Catalog> {
        self.catalog
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The policies plugins load under.
    pub fn policies(&self) -> PolicySource {
        self.policies
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Replaces the policies; plugins loaded from now on get theirs from
    /// `policies` (loaded ones keep the policy they were loaded with).
    pub fn set_policies(&self, policies: PolicySource) {
        *self
            .policies
            .write()
            .unwrap_or_else(PoisonError::into_inner) = policies;
    }

    /// Replaces the claimed plugin names: from now on a file whose plugin
    /// takes a claimed name loads only from a path its claim lists, and a
    /// reload drops the plugins the claims no longer keep.
    pub fn set_claims(&self, claims: claims::NameClaims) {
        *self.claims.write().unwrap_or_else(PoisonError::into_inner) = claims;
    }

    fn claims(&self) -> claims::NameClaims {
        self.claims
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// A receiver that sees new counters each time the catalog changes: its
    /// tools, resources or prompts, or the versions of its plugins (see
    /// [`catalog::Generations`]); several changes may coalesce into one.
    pub fn subscribe_changes(&self) -> channel::Receiver<Generations> {
        self.changes.subscribe()
    }

    /// Makes `catalog` the current one and, if it differs from the previous
    /// one, tells the subscribers. Returns whether its tools differed.
    fn swap_in(&self, catalog: Catalog) -> bool {
        let new = Arc::new(catalog);
        let old = std::mem::replace(
            &mut *self.catalog.write().unwrap_or_else(PoisonError::into_inner),
            new.clone(),
        );
        let tools_changed = old.tools() != new.tools();
        self.observer.plugins_loaded(new.plugins().len());
        // Before the first load is done nobody has seen a list (tools/list
        // waits for it), so filling the catalog is not a change to announce.
        if *self.loaded.borrow() {
            let current = *self.changes.borrow();
            if let Some(next) = current.after(&old, &new) {
                self.changes.send_replace(next);
            }
        }
        tools_changed
    }

    /// Loads the plugin at `path` on its own task (compiling on a blocking
    /// thread), under the current policies.
    fn spawn_load(
        &self,
        path: &Path,
    ) -> tokio::task::JoinHandle<Result<plugin::Plugin, LoadError>> {
        let (engine, cache, linker, policies, idle, path) = (
            self.engine.clone(),
            self.cache.clone(),
            self.linker.clone(),
            self.policies(),
            self.idle.clone(),
            path.to_owned(),
        );
        if let Some(reason) = self.claims().refusal(&plugin::plugin_name(&path), &path) {
            return tokio::spawn(async move { Err(LoadError::NameTaken { path, reason }) });
        }
        tokio::spawn(async move {
            plugin::load(&engine, cache.as_ref(), &linker, &*policies, &idle, &path).await
        })
    }

    /// Loads (or loads again) the plugin file at `path`, off the request
    /// path, and swaps a catalog with it in atomically: the plugin formerly
    /// loaded from the same path is replaced, every other one stays. Calls
    /// already running finish on the catalog they started with. If the file
    /// does not load, the previous version keeps serving; if it changed while
    /// it was read ([`ReloadOutcome::Unsettled`]), nothing is swapped.
    /// `path` must be spelled as it was when first loaded (as
    /// [`Runtime::load_dir`] joins it: `dir/name.wasm`).
    #[tracing::instrument(skip(self, path), fields(path = %path.display()))]
    pub async fn reload_file(&self, path: &Path) -> ReloadOutcome {
        let _swap = self.swap.lock().await;
        let before = FileStamp::of(path);
        if before.is_some()
            && self
                .catalog()
                .plugins()
                .iter()
                .any(|p| p.path == path && p.stamp == before)
        {
            return ReloadOutcome::Unchanged;
        }
        let loaded = match self.spawn_load(path).await {
            Ok(result) => result,
            Err(join) => Err(LoadError::ListTools {
                path: path.to_owned(),
                reason: format!("the loader task failed: {join}"),
            }),
        };
        if before.is_none() || FileStamp::of(path) != before {
            return ReloadOutcome::Unsettled;
        }
        let plugin = match loaded {
            Ok(plugin) => plugin,
            Err(e) => {
                self.observer.load_failed();
                self.observer.reloaded(false);
                return ReloadOutcome::Failed(e);
            }
        };
        let (name, tools) = (plugin.name.to_string(), plugin.tools.len());
        let current = self.catalog();
        let mut plugins: Vec<_> = current.plugins().to_vec();
        let before_len = plugins.len();
        plugins.retain(|p| p.path != path);
        let replaced = plugins.len() != before_len;
        plugins.push(Arc::new(plugin));
        let (catalog, skipped_tools) = Catalog::build(plugins);
        let list_changed = self.swap_in(catalog);
        self.observer.reloaded(true);
        ReloadOutcome::Loaded {
            plugin: name,
            tools,
            replaced,
            list_changed,
            skipped_tools,
        }
    }

    /// Removes the plugin loaded from `path` (spelled as for
    /// [`Runtime::reload_file`]) and its tools. Returns its name, or `None`
    /// if no plugin was loaded from there. Running calls finish.
    #[tracing::instrument(skip(self, path), fields(path = %path.display()))]
    pub async fn remove_file(&self, path: &Path) -> Option<String> {
        let _swap = self.swap.lock().await;
        let current = self.catalog();
        let removed = current
            .plugins()
            .iter()
            .find(|p| p.path == path)?
            .name
            .to_string();
        let plugins = current
            .plugins()
            .iter()
            .filter(|p| p.path != path)
            .cloned()
            .collect();
        let (catalog, _) = Catalog::build(plugins);
        self.swap_in(catalog);
        Some(removed)
    }

    /// Loads `files` again in parallel (under the current policies, after
    /// [`Runtime::set_policies`]) and swaps in a catalog of what loaded. A
    /// file that fails keeps its previous version if one was loaded, and so
    /// does a plugin whose file is not in `files`, unless the claims
    /// ([`Runtime::set_claims`]) no longer keep it.
    #[tracing::instrument(skip(self, files), fields(files = files.len()))]
    pub async fn reload_files(&self, files: &[PathBuf]) -> LoadReport {
        let _swap = self.swap.lock().await;
        let current = self.catalog();
        let (mut report, mut plugins) = self.load_parallel(files).await;
        let loaded: Vec<PathBuf> = plugins.iter().map(|p| p.path.clone()).collect();
        let claims = self.claims();
        for old in current.plugins() {
            if !loaded.contains(&old.path) && claims.keeps(&old.name, &old.path) {
                plugins.push(old.clone());
            }
        }
        let (catalog, skipped) = Catalog::build(plugins);
        report.skipped_tools = skipped;
        self.swap_in(catalog);
        self.observer.reloaded(report.failed.is_empty());
        report
    }

    /// Waits until the first load is done, so that a server answering
    /// `initialize` before its plugins are compiled still lists them all.
    pub async fn wait_until_loaded(&self) {
        let mut loaded = self.loaded.subscribe();
        // Fails only if the sender is gone, which it is not while `self` lives.
        let _ = loaded.wait_for(|done| *done).await;
    }

    /// The `*.wasm` files directly inside `dir`, sorted by name.
    pub fn plugin_files(dir: &Path) -> Result<Vec<PathBuf>, LoadError> {
        let entries = std::fs::read_dir(dir).map_err(|source| LoadError::Directory {
            path: dir.to_owned(),
            source,
        })?;
        let mut files: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "wasm") && p.is_file())
            .collect();
        files.sort();
        Ok(files)
    }

    /// Loads every `*.wasm` file in `dir` and replaces the catalog with what
    /// loaded. A file that fails is reported and left out; it never stops
    /// the others.
    #[tracing::instrument(skip(self), fields(dir = %dir.display()))]
    pub async fn load_dir(&self, dir: &Path) -> Result<LoadReport, LoadError> {
        let files = Self::plugin_files(dir)?;
        Ok(self.load_files(&files).await)
    }

    /// Loads the given files in parallel and replaces the catalog with what
    /// loaded.
    pub async fn load_files(&self, files: &[PathBuf]) -> LoadReport {
        let _swap = self.swap.lock().await;
        let (mut report, plugins) = self.load_parallel(files).await;
        let (catalog, skipped) = Catalog::build(plugins);
        report.skipped_tools = skipped;
        self.swap_in(catalog);
        self.loaded.send_replace(true);
        report
    }

    /// Loads `files` in parallel; the catalog is left alone.
    async fn load_parallel(&self, files: &[PathBuf]) -> (LoadReport, Vec<Arc<plugin::Plugin>>) {
        let tasks: Vec<_> = files.iter().map(|path| self.spawn_load(path)).collect();
        let mut report = LoadReport::default();
        let mut plugins = Vec::new();
        for (task, path) in tasks.into_iter().zip(files) {
            match task.await {
                Ok(Ok(p)) => {
                    report.loaded.push(p.name.to_string());
                    plugins.push(Arc::new(p));
                }
                Ok(Err(e)) => report.failed.push(e),
                Err(join) => report.failed.push(LoadError::ListTools {
                    path: path.clone(),
                    reason: format!("the loader task failed: {join}"),
                }),
            }
        }
        for _ in &report.failed {
            self.observer.load_failed();
        }
        (report, plugins)
    }

    /// Inspects the plugin file at `path` without adding it to the catalog:
    /// resolves its policy, compiles it, reads its imports, exports and
    /// world, and loads it the way [`Runtime::load_files`] does (linking it
    /// and listing and validating its tools in a throwaway instance). Never
    /// fails as a whole: whatever could be read is filled in and every
    /// reason it would not load is in [`Inspection::errors`].
    #[tracing::instrument(skip(self), fields(path = %path.display()))]
    pub async fn inspect(&self, path: &Path) -> Inspection {
        let name: Arc<str> = plugin::plugin_name(path).into();
        let mut inspection = Inspection::new(path, &name);
        let policy = plugin::resolve_policy(&*self.policies(), &name, path);
        let pin = policy.as_ref().ok().and_then(plugin::Pin::of);
        let compiled = plugin::compile(&self.engine, self.cache.as_ref(), path, pin).await;
        if let Ok(compiled) = &compiled {
            inspection.read_component(&self.engine, compiled);
        }
        match policy {
            Ok(p) => inspection.policy = Some(p),
            Err(e) => inspection.errors.push(e),
        }
        match compiled {
            Ok(compiled) => {
                if let Some(policy) = &inspection.policy {
                    let loaded = plugin::instantiate(
                        &self.linker,
                        &self.idle,
                        name,
                        Arc::new(policy.clone()),
                        path,
                        &compiled,
                    )
                    .await;
                    match loaded {
                        Ok(plugin) => {
                            inspection.served = plugin.served.clone();
                            // Alone, a plugin's names (checked at load) are
                            // never qualified, so no tool is left out.
                            let (catalog, _) = Catalog::build(vec![Arc::new(plugin)]);
                            inspection.tools = catalog.tools().to_vec();
                        }
                        Err(e) => inspection.errors.push(e),
                    }
                }
            }
            Err(e) => inspection.errors.push(e),
        }
        inspection
    }

    /// Calls a tool. In order: the tool's rate limits (its own, then the
    /// caller's share), the arguments' size and their input schema are
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
        arguments: Option<Map<String, Value>>,
        caller: &Caller,
        events: Arc<dyn CallEvents>,
    ) -> Called {
        self.call_as(name, arguments, caller, events, RunAs::Call)
            .await
    }

    /// [`Runtime::call`], run as `run_as` says: a task's deadline is the
    /// plugin's `task_timeout` rather than its `timeout`.
    #[tracing::instrument(level = "debug", skip(self, arguments, caller, events), fields(plugin))]
    pub async fn call_as(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
        caller: &Caller,
        events: Arc<dyn CallEvents>,
        run_as: RunAs,
    ) -> Called {
        let started = std::time::Instant::now();
        let catalog = self.catalog();
        let Some((_, target)) = catalog.get(name) else {
            receipt::audit_unknown(name, started, caller.subject());
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
        let end =
            |outcome, stats: Option<call::CallStats>, result: Result<ToolOutput, CallError>| {
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
            };
            return end("arguments_too_large", None, Err(fail(cause)));
        }
        let problems = if tool.input.is_quick_to_check(json.len()) {
            tool.input.violations(&arguments)
        } else {
            let (owner, index, args) = (plugin.clone(), target.index, arguments.clone());
            let checked = offload::run(&plugin.lane, deadline, move || {
                owner.tools[index].input.violations(&args)
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
        if !problems.is_empty() {
            let invalid = CallError::InvalidArguments {
                tool: name.to_string(),
                problems,
            };
            return end("invalid_arguments", None, Err(invalid));
        }

        // From here on the call awaits; if its future is dropped (the client
        // cancelled it), the guard writes the audit line.
        let mut unfinished = receipt::Unfinished {
            plugin,
            tool: name,
            label: &tool.name,
            observer,
            started,
            arguments: logged_args,
            subject: caller.subject(),
            armed: true,
        };
        let waiting = observe::InPhase::enter(observer, &plugin.name, Phase::Waiting);
        let slot = tokio::time::timeout_at(deadline.into(), plugin.slots.acquire()).await;
        drop(waiting);
        let Ok(Ok(_slot)) = slot else {
            unfinished.armed = false;
            let cause = FailureCause::Timeout { limit: timeout };
            return end("timeout", None, Err(fail(cause)));
        };
        tracing::debug!(tool = name, "running: got a slot");
        let running = observe::InPhase::enter(observer, &plugin.name, Phase::Running);
        let (result, stats) =
            call::call_tool(&plugin.target(), tool, &json, events, deadline).await;
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
            Err(failure) => tracing::warn!("{failure}"),
            Ok(_) => {}
        }
        end(outcome, Some(stats), result.map_err(CallError::Failed))
    }
}

impl Runtime {
    /// Reads the resource `uri` from the plugin that serves it (see
    /// [`serve::read_resource`]).
    pub async fn read_resource(
        &self,
        uri: &str,
        caller: &Caller,
        events: Arc<dyn CallEvents>,
    ) -> Result<Vec<served::ResourcePart>, ServeError> {
        serve::read_resource(&self.catalog(), uri, caller, events, &*self.observer).await
    }

    /// Fills in the prompt clients call `name` (see [`serve::get_prompt`]).
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: std::collections::BTreeMap<String, String>,
        caller: &Caller,
        events: Arc<dyn CallEvents>,
    ) -> Result<served::PromptOutput, ServeError> {
        serve::get_prompt(
            &self.catalog(),
            name,
            arguments,
            caller,
            events,
            &*self.observer,
        )
        .await
    }

    /// Suggests values for an argument (see [`serve::complete`]).
    pub async fn complete(
        &self,
        target: &served::CompletionTarget,
        argument: &str,
        value: &str,
        context: std::collections::BTreeMap<String, String>,
        caller: &Caller,
    ) -> Result<served::Completion, ServeError> {
        serve::complete(
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
pub(crate) fn logged(plugin: &plugin::Plugin, arguments: Option<&Value>) -> Option<String> {
    arguments.map(|a| plugin.policy.grants.secrets.redact_owned(a.to_string()))
}
