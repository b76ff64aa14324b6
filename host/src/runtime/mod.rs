//! The WebAssembly runtime: the engine, plugin loading, the sandbox and the
//! calls. It speaks only its own types and knows nothing of MCP.

mod bindings;
mod call;
pub mod capabilities;
pub mod capture;
pub mod catalog;
pub mod engine;
pub mod error;
pub mod events;
pub mod inspection;
pub mod output;
pub mod plugin;
pub mod policy;
pub mod sandbox;
pub mod schema;

use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use serde_json::{Map, Value};
use wasmtime::Engine;
use wasmtime::component::{HasSelf, Linker};

pub use catalog::Catalog;
pub use engine::EngineSettings;
pub use error::{CallError, FailureCause, GuestErrorKind, LoadError, ToolFailure};
pub use events::{CallEvents, LogLevel, NoEvents, Progress};
pub use inspection::{Capability, Inspection, WorldTarget};
pub use output::{Audience, Content, ContentHints, ResourceBody, ToolHints, ToolInfo, ToolOutput};
pub use policy::{DefaultPolicies, Limits, Policies, Policy, PolicySource};

use sandbox::CallState;

/// The version of the WIT package `mcp-wasm-host:plugin` this host speaks.
pub const WIT_VERSION: &str = "0.1.0";

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
    policies: PolicySource,
    catalog: RwLock<Arc<Catalog>>,
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
        bindings::Plugin::add_to_linker::<_, HasSelf<_>>(&mut linker, |state| state)
            .map_err(|e| RuntimeError::Linker(format!("{e:#}")))?;
        Ok(Runtime {
            engine,
            linker: Arc::new(linker),
            policies,
            catalog: RwLock::new(Arc::new(Catalog::default())),
        })
    }

    /// The current catalog. It stays valid, whatever is loaded later.
    pub fn catalog(&self) -> Arc<Catalog> {
        self.catalog
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
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
        let tasks: Vec<_> = files
            .iter()
            .map(|path| {
                let (engine, linker, policies, path) = (
                    self.engine.clone(),
                    self.linker.clone(),
                    self.policies.clone(),
                    path.clone(),
                );
                tokio::spawn(async move { plugin::load(&engine, &linker, &*policies, &path).await })
            })
            .collect();
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
        let (catalog, skipped) = Catalog::build(plugins);
        report.skipped_tools = skipped;
        *self.catalog.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(catalog);
        report
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
        let policy = plugin::resolve_policy(&*self.policies, &name, path);
        let component = plugin::compile(&self.engine, path).await;
        if let Ok(component) = &component {
            inspection.read_component(&self.engine, component);
        }
        match policy {
            Ok(p) => inspection.policy = Some(p),
            Err(e) => inspection.errors.push(e),
        }
        match component {
            Ok(component) => {
                if let Some(policy) = &inspection.policy {
                    let loaded = plugin::instantiate(
                        &self.linker,
                        name,
                        Arc::new(policy.clone()),
                        path,
                        &component,
                    )
                    .await;
                    match loaded {
                        Ok(plugin) => {
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

    /// Calls a tool. In order: the tool's rate limit, the arguments' size
    /// and their input schema are checked before any guest code runs; the
    /// call then waits for one of the plugin's slots and runs in a fresh
    /// instance, all within the plugin's timeout. Dropping the returned
    /// future stops the guest and frees its instance. Every call ends with
    /// one audit log line (target `audit`).
    #[tracing::instrument(skip(self, arguments, events), fields(plugin))]
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
        events: Arc<dyn CallEvents>,
    ) -> Result<ToolOutput, CallError> {
        let started = std::time::Instant::now();
        let catalog = self.catalog();
        let Some((_, target)) = catalog.get(name) else {
            audit(None, name, "unknown_tool", started, None, None);
            return Err(CallError::UnknownTool(name.to_string()));
        };
        let plugin = &target.plugin;
        tracing::Span::current().record("plugin", &*plugin.name);
        let tool = target.tool();
        let limits = &plugin.policy.limits;
        let arguments = Value::Object(arguments.unwrap_or_default());
        let logged_args = limits.audit_arguments.then_some(&arguments);
        let fail = |cause| {
            CallError::Failed(ToolFailure {
                plugin: plugin.name.to_string(),
                tool: tool.name.clone(),
                cause,
            })
        };

        if let Some(limiter) = plugin.rate.get(&tool.name)
            && let Err(not_until) = limiter.check()
        {
            let retry_after = not_until.wait_time_from(governor::clock::Clock::now(
                &governor::clock::DefaultClock::default(),
            ));
            audit(
                Some(plugin),
                name,
                "rate_limited",
                started,
                None,
                logged_args,
            );
            return Err(fail(FailureCause::RateLimited {
                per_minute: limits.rate_limit_per_minute,
                retry_after,
            }));
        }
        let json = arguments.to_string();
        if json.len() as u64 > limits.max_argument_bytes {
            audit(
                Some(plugin),
                name,
                "arguments_too_large",
                started,
                None,
                logged_args,
            );
            return Err(fail(FailureCause::ArgumentsTooLarge {
                size: json.len() as u64,
                limit: limits.max_argument_bytes,
            }));
        }
        let problems = tool.input.violations(&arguments);
        if !problems.is_empty() {
            audit(
                Some(plugin),
                name,
                "invalid_arguments",
                started,
                None,
                logged_args,
            );
            return Err(CallError::InvalidArguments {
                tool: name.to_string(),
                problems,
            });
        }

        let deadline = started + limits.timeout;
        let Ok(Ok(_slot)) = tokio::time::timeout_at(deadline.into(), plugin.slots.acquire()).await
        else {
            audit(Some(plugin), name, "timeout", started, None, logged_args);
            return Err(fail(FailureCause::Timeout {
                limit: limits.timeout,
            }));
        };
        tracing::debug!(tool = name, "running: got a slot");
        let (result, stats) =
            call::call_tool(&plugin.target(), tool, &json, events, deadline).await;
        let outcome = match &result {
            Ok(out) if out.is_error => "tool_error",
            Ok(_) => "ok",
            Err(f) => f.cause.kind(),
        };
        if let Err(failure) = &result {
            tracing::warn!("{failure}");
        }
        audit(
            Some(plugin),
            name,
            outcome,
            started,
            Some(stats),
            logged_args,
        );
        Ok(result?)
    }
}

/// The audit log: one structured line per call (target `audit`), with the
/// arguments only when the plugin's policy asks for them.
fn audit(
    plugin: Option<&plugin::Plugin>,
    tool: &str,
    outcome: &str,
    started: std::time::Instant,
    stats: Option<call::CallStats>,
    arguments: Option<&Value>,
) {
    let stats = stats.unwrap_or_default();
    tracing::info!(
        target: "audit",
        plugin = plugin.map(|p| &*p.name),
        tool,
        outcome,
        duration_us = started.elapsed().as_micros() as u64,
        fuel_used = stats.fuel_used,
        peak_memory = stats.peak_memory,
        arguments = arguments.map(|a| a.to_string()),
        "call"
    );
}
