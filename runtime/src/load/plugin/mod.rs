//! Loading one plugin file: check it is a component for our world, compile
//! it once, pre-instantiate it, and read and validate its tool definitions.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::serve::rate::{Counting, ToolRates};
use tokio::sync::Semaphore;
use wasmtime::Engine;
use wasmtime::component::{Component, Linker};

use crate::cache::{CompileCache, Sha256Digest};
use crate::call;
use crate::call::sandbox::CallState;
use crate::call::warm::{IdlePool, PluginIdle};
use crate::capabilities::Grants;
use crate::definitions::output::ToolInfo;
use crate::definitions::served::{self, Listing, Served};
use crate::definitions::tool::PluginTool;
use crate::error::LoadError;
use crate::load::compile::{Compiled, Compilers, off_the_workers};
use crate::load::concurrent::AsyncTier;
use crate::load::engine::Abi;
use crate::load::exports::Exports;
use crate::load::file_hash::FileHash;
use crate::load::generic::{self, DeriveError, GenericSummary};
use crate::load::imports::ImportKind;
use crate::load::quick::QuickTier;
use crate::load::stamp::FileStamp;
use crate::policy::{Policies, Policy};
use crate::state::StateStore;
use crate::units::bytes;

mod tool_list;

use crate::policy::limits::spec::key;
use tool_list::{check_bounds, validate};

/// A loaded plugin: compiled once, ready to instantiate for each call.
pub struct Plugin {
    /// The plugin's name: its file stem.
    pub name: Arc<str>,
    /// The file it was loaded from.
    pub path: PathBuf,
    /// The SHA-256 of that file.
    pub digest: Sha256Digest,
    pub(crate) exports: Exports,
    /// Its tools, in the order the plugin listed them.
    pub tools: Vec<PluginTool>,
    /// What it serves besides tools: resources, templates, views, prompts.
    pub served: Served,
    /// The policy its calls run under.
    pub policy: Arc<Policy>,
    /// One permit per call that may run at once.
    pub slots: Arc<Semaphore>,
    /// Its share of the blocking pool, for checking its schemas.
    pub lane: call::offload::Lane,
    /// Per-tool rate limiters (absent when rate limiting is off).
    pub rate: ToolRates,
    /// The file's size and modification time when it was read, so that an
    /// event that did not change the file (a read) reloads nothing.
    pub stamp: Option<FileStamp>,
    /// Its idle warm instances (none unless its policy reuses instances),
    /// dropped with this version of the plugin.
    pub(crate) idle: PluginIdle,
    /// Served as a generic component (it exports none of our interfaces):
    /// its functions served as tools, and those left out.
    pub generic: Option<GenericSummary>,
    /// The functions a plugin (not a generic component) exports beside our
    /// world, which are not served, and why; each was logged at load.
    pub left_out: Vec<generic::LeftOut>,
    /// Compiled quickly by Winch: Cranelift's code replaces this version
    /// once it is compiled (see `quick`).
    pub quick: bool,
}

impl Plugin {
    /// What its policy grants that its component cannot use (it imports no
    /// interface that would use it), each naming the key.
    pub fn unused_grants(&self) -> Vec<String> {
        let engine = self.exports.engine();
        let imports: Vec<ImportKind> = self
            .exports
            .pre()
            .component()
            .component_type()
            .imports(engine)
            .map(|(name, _)| ImportKind::of(name))
            .collect();
        self.policy.grants.unused(&imports, &self.policy.section)
    }

    /// What every call of this plugin needs.
    pub(crate) fn target(&self) -> call::CallTarget<'_> {
        call::CallTarget {
            exports: &self.exports,
            plugin: &self.name,
            policy: &self.policy,
            lane: &self.lane,
            idle: &self.idle,
        }
    }
}

impl std::fmt::Debug for Plugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plugin")
            .field("name", &self.name)
            .field("path", &self.path)
            .field("tools", &self.tools)
            .finish_non_exhaustive()
    }
}

/// The plugin name a file gets: its stem.
pub fn plugin_name(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// What loading a plugin file takes: the engine that compiles it, the
/// cache of compiled components, the host functions it links against and
/// the pool its idle instances go to.
///
/// Loading is three steps, in order: [`Loader::policy`] resolves the
/// plugin's policy, [`Loader::compile`] reads and compiles its file, and
/// [`Loader::instantiate`] links it and lists and validates its tools.
/// [`Loader::load`] runs them and stops at the first that fails; inspecting
/// a file runs the same steps and keeps whatever each one gave.
#[derive(Clone)]
pub(crate) struct Loader {
    engine: Engine,
    cache: Option<Arc<CompileCache>>,
    linker: Arc<Linker<CallState>>,
    idle: Arc<IdlePool>,
    /// Compiles large components new to the cache quickly first (none:
    /// never).
    quick: Option<Arc<QuickTier>>,
    /// Compiles with Cranelift only, and deletes the quick code's cache
    /// entry once Cranelift's is stored: the loader of the background
    /// compiles.
    optimizing: bool,
    /// Compiles and links the components built for the component model's
    /// async ABI.
    concurrent: Arc<AsyncTier>,
    /// The state store every plugin's buckets live in.
    store: StateStore,
    /// Where every plugin's rate limits count.
    counting: Counting,
}

impl std::fmt::Debug for Loader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loader")
            .field("cache", &self.cache.is_some())
            .finish_non_exhaustive()
    }
}

impl Loader {
    /// A loader that compiles with `engine` (and `concurrent`, the
    /// components `engine` refuses for the async ABI), links against
    /// `linker` and keeps idle instances in `idle`; it compiles every time
    /// until [`Loader::set_cache`].
    pub(crate) fn new(
        engine: Engine,
        linker: Linker<CallState>,
        idle: Arc<IdlePool>,
        concurrent: AsyncTier,
    ) -> Self {
        Loader {
            engine,
            cache: None,
            linker: Arc::new(linker),
            idle,
            quick: None,
            optimizing: false,
            concurrent: Arc::new(concurrent),
            store: StateStore::default(),
            counting: Counting::default(),
        }
    }

    /// Gives every plugin loaded from now on `store` for its buckets.
    pub(crate) fn set_store(&mut self, store: StateStore) {
        self.store = store;
    }

    /// Counts the rate limits of every plugin loaded from now on as
    /// `counting` says.
    pub(crate) fn set_counting(&mut self, counting: Counting) {
        self.counting = counting;
    }

    /// Compiles the components `quick` picks with Winch first, when the
    /// cache has none (none: always with Cranelift).
    pub(crate) fn set_quick(&mut self, quick: Option<QuickTier>) {
        self.quick = quick.map(Arc::new);
    }

    /// This loader, compiling everything with Cranelift: what replaces a
    /// quick compile's code.
    pub(crate) fn optimizing(&self) -> Self {
        Loader {
            optimizing: true,
            ..self.clone()
        }
    }

    /// Takes compiled components from `cache`, and stores them there (none:
    /// compile every time).
    pub(crate) fn set_cache(&mut self, cache: Option<CompileCache>) {
        self.cache = cache.map(Arc::new);
    }

    /// Loads the plugin at `path` under the policy `policies` gives it:
    /// each step in turn, stopping at the first that fails.
    #[tracing::instrument(skip(self, policies, hashed), fields(path = %path.display()))]
    pub(crate) async fn load(
        &self,
        policies: &dyn Policies,
        path: &Path,
        hashed: Option<FileHash>,
    ) -> Result<Plugin, LoadError> {
        let started = std::time::Instant::now();
        let stamp = match &hashed {
            Some(hashed) => hashed.stamp,
            None => FileStamp::of(path),
        };
        let name: Arc<str> = plugin_name(path).into();
        let policy = self.policy(policies, &name, path)?;
        let compiled = self
            .compilers()
            .compile(path, &name, Some(&policy), hashed)
            .await?;
        let mut plugin = self
            .instantiate(name, Arc::new(policy), path, &compiled)
            .await?;
        plugin.stamp = stamp;
        tracing::info!(
            plugin = %plugin.name,
            tools = plugin.tools.len(),
            elapsed_ms = started.elapsed().as_millis() as u64,
            "loaded plugin"
        );
        Ok(plugin)
    }

    /// The first step: the policy `policies` gives the plugin `name`
    /// loaded from `path`.
    pub(crate) fn policy(
        &self,
        policies: &dyn Policies,
        name: &str,
        path: &Path,
    ) -> Result<Policy, LoadError> {
        let mut policy = policies
            .policy_for(name)
            .map_err(|reason| LoadError::Policy {
                path: path.to_owned(),
                reason,
            })?;
        policy.store = self.store.clone();
        Ok(policy)
    }
}

impl Loader {
    /// The second step: compiles the file at `path` (see
    /// [`Compilers::compile`]).
    #[tracing::instrument(skip_all, fields(path = %path.display()))]
    pub(crate) async fn compile(
        &self,
        path: &Path,
        policy: Option<&Policy>,
    ) -> Result<Compiled, LoadError> {
        self.compilers()
            .compile(path, &plugin_name(path), policy, None)
            .await
    }

    /// What compiles for this loader.
    fn compilers(&self) -> Compilers {
        Compilers {
            engine: self.engine.clone(),
            cache: self.cache.clone(),
            quick: self.quick.clone(),
            optimizing: self.optimizing,
            concurrent: self.concurrent.clone(),
        }
    }
}

impl Loader {
    /// Why `component` does not link: the interfaces it imports that this
    /// host does not provide at all, named, when there are any (wasmtime's
    /// own words then speak of a "wrong type" of the first function it
    /// looked for); wasmtime's reason otherwise (a WASI version the host's
    /// wasmtime does not have, say).
    fn link_failure(&self, component: &Component, e: &wasmtime::Error) -> String {
        let unknown: Vec<String> = component
            .component_type()
            .imports(component.engine())
            .map(|(name, _)| name)
            .filter(|name| !crate::load::imports::provided(name))
            .map(|name| format!("`{name}`"))
            .collect();
        if unknown.is_empty() {
            return format!("{e:#}");
        }
        format!(
            "it imports {}, which this host does not provide (it provides WASI 0.2's interfaces; wasi:keyvalue at @0.2.0-draft and @0.2.0-draft2, wasi:config at @0.2.0-draft, @0.2.0-draft-2024-09-27 and @0.2.0-rc.1, wasi:logging at @0.1.0-draft; and its own `mcp-wasm-host:plugin`; `inspect` lists every import)",
            unknown.join(", ")
        )
    }

    /// The third step: links a compiled component against the host, checks it
    /// targets our world, and lists and validates its tools in a throwaway
    /// instance. The
    /// listing (wasmtime copies the whole list out of the guest's memory), the
    /// bounds check and the schema compilation run off the async workers.
    #[tracing::instrument(skip_all, fields(plugin = %name))]
    pub(crate) async fn instantiate(
        &self,
        name: Arc<str>,
        policy: Arc<Policy>,
        path: &Path,
        compiled: &Compiled,
    ) -> Result<Plugin, LoadError> {
        let linker = match (&self.quick, compiled.abi) {
            (_, Abi::Async) => self.concurrent.linker().unwrap_or(&self.linker),
            (Some(quick), _) if compiled.quick => quick.linker().unwrap_or(&self.linker),
            _ => &self.linker,
        };
        let pre = linker
            .instantiate_pre(&compiled.component)
            .map_err(|e| LoadError::Link {
                path: path.to_owned(),
                reason: self.link_failure(&compiled.component, &e),
            })?;
        if generic::is_generic(&compiled.component, compiled.component.engine()) {
            return self
                .instantiate_generic(name, policy, path, compiled, pre)
                .await;
        }
        let exports = Exports::find(pre).map_err(|reason| LoadError::World {
            path: path.to_owned(),
            reason: reason.to_string(),
        })?;
        let left_out = generic::beside_our_world(&compiled.component, compiled.component.engine());
        log_left_out(path, &left_out);
        let idle = self.idle.plugin(
            policy.limits.reuse_instances,
            policy.limits.max_concurrent_calls.max(1) as usize,
        );
        let listing = {
            let (name, policy, path) = (name.clone(), policy.clone(), path.to_owned());
            let runtime = tokio::runtime::Handle::current();
            off_the_workers(move || {
                let lane = call::offload::Lane::default();
                let target = call::CallTarget {
                    exports: &exports,
                    plugin: &name,
                    policy: &policy,
                    lane: &lane,
                    idle: &idle,
                };
                let (mut defs, mut listing) =
                    runtime
                        .block_on(call::list_tools(&target))
                        .map_err(|failure| LoadError::ListTools {
                            path: path.clone(),
                            reason: failure.to_string(),
                        })?;
                tracing::debug!(
                    tools = defs.len(),
                    resources = listing.resources.len(),
                    prompts = listing.prompts.len(),
                    "listed its tools; checking and compiling them"
                );
                check_bounds(&path, &policy, &defs, &listing)?;
                // The catalog crosses the egress boundary here, once: the
                // entries whose name or URI holds a secret go before any
                // check can quote them, then every other field is rewritten.
                crate::egress::identities(&policy.grants, &name, &mut defs, &mut listing);
                let serves = !listing.resources.is_empty()
                    || !listing.templates.is_empty()
                    || !listing.prompts.is_empty();
                let grants = &policy.grants;
                let mut tools = validate(&path, defs, serves).map_err(|e| redacted(e, grants))?;
                let names = tools.iter().map(|t| t.name.as_str()).collect();
                let mut served = served::check(listing, &names).map_err(|(what, problem)| {
                    redacted(
                        LoadError::InvalidServed {
                            path: path.clone(),
                            what,
                            problem,
                        },
                        grants,
                    )
                })?;
                crate::egress::catalog(&policy.grants, &mut tools, &mut served);
                Ok((tools, served, exports, idle))
            })
        };
        let (tools, served, exports, idle) =
            listing.await.map_err(|e| LoadError::ListTools {
                path: path.to_owned(),
                reason: format!("the loader task failed: {e}"),
            })??;
        let rate = ToolRates::new(
            name.clone(),
            policy.limits.rate_limit_per_minute,
            tools
                .iter()
                .map(|t| t.name.as_str())
                .chain(crate::serve::rate::REQUESTS),
            self.counting.clone(),
        );
        Ok(Plugin {
            name,
            path: path.to_owned(),
            digest: compiled.digest,
            exports,
            tools,
            served,
            slots: Arc::new(Semaphore::new(
                policy.limits.max_concurrent_calls.max(1) as usize
            )),
            policy,
            rate,
            lane: Default::default(),
            stamp: None,
            idle,
            generic: None,
            left_out,
            quick: compiled.quick,
        })
    }

    /// The third step for a generic component: derives its tools from its
    /// exported functions' types and docs (on the blocking pool), leaving
    /// out, with one warning each, the functions it cannot serve, and holds
    /// them to the same bounds and checks as any plugin's.
    async fn instantiate_generic(
        &self,
        name: Arc<str>,
        policy: Arc<Policy>,
        path: &Path,
        compiled: &Compiled,
        pre: wasmtime::component::InstancePre<CallState>,
    ) -> Result<Plugin, LoadError> {
        let derived = {
            let (component, engine, policy, file) = (
                compiled.component.clone(),
                compiled.component.engine().clone(),
                policy.clone(),
                path.to_owned(),
            );
            let docs = compiled.docs.clone();
            let name_for_log = name.clone();
            off_the_workers(move || {
                let (generic, summary, defs) = generic::derive(&component, &engine, &policy, &docs)
                    .map_err(|DeriveError::TooLarge| LoadError::ToolListTooLarge {
                        path: file.clone(),
                        what: "its exported functions' types".into(),
                        limit: bytes(policy.limits.max_tool_list_bytes),
                        hint: policy.raise_hint(key::MAX_TOOL_LIST_SIZE),
                    })?;
                log_left_out(&file, &summary.left_out);
                check_bounds(&file, &policy, &defs, &Listing::default())?;
                // The same egress boundary as a plugin's catalog: a name
                // that holds a secret goes, every other field is rewritten.
                let mut defs = defs;
                crate::egress::identities(
                    &policy.grants,
                    &name_for_log,
                    &mut defs,
                    &mut Listing::default(),
                );
                if defs.is_empty() {
                    return Err(LoadError::NoServableFunctions {
                        path: file.clone(),
                        left_out: summary.left_out.len(),
                    });
                }
                let mut tools = validate(&file, defs, false)?;
                crate::egress::catalog(&policy.grants, &mut tools, &mut Served::default());
                Ok((generic, summary, tools))
            })
            .await
            .map_err(|e| LoadError::ListTools {
                path: path.to_owned(),
                reason: format!("the loader task failed: {e}"),
            })??
        };
        let (generic, summary, tools) = derived;
        tracing::debug!(
            tools = tools.len(),
            left_out = summary.left_out.len(),
            "serving a generic component"
        );
        let idle = self.idle.plugin(
            policy.limits.reuse_instances,
            policy.limits.max_concurrent_calls.max(1) as usize,
        );
        let rate = ToolRates::new(
            name.clone(),
            policy.limits.rate_limit_per_minute,
            tools
                .iter()
                .map(|t| t.name.as_str())
                .chain(crate::serve::rate::REQUESTS),
            self.counting.clone(),
        );
        Ok(Plugin {
            name,
            path: path.to_owned(),
            digest: compiled.digest,
            exports: Exports::generic(pre, Arc::new(generic)),
            tools,
            served: Served::default(),
            slots: Arc::new(Semaphore::new(
                policy.limits.max_concurrent_calls.max(1) as usize
            )),
            policy,
            rate,
            lane: Default::default(),
            stamp: None,
            idle,
            generic: Some(summary),
            left_out: Vec::new(),
            quick: compiled.quick,
        })
    }
}

/// `error` with the plugin's secrets redacted from the guest's text it
/// quotes (a tool's name, an entry, what is wrong with a schema or an icon):
/// a refusal is logged and shown by `inspect`.
/// One line per function of `path` that is not served: a warning, or a
/// debug line for a function a toolchain added for its own use.
fn log_left_out(path: &Path, left_out: &[generic::LeftOut]) {
    for left in left_out {
        if left.internal {
            tracing::debug!("{}: {left}", path.display());
        } else {
            tracing::warn!("{}: {left}", path.display());
        }
    }
}

/// `error` as every capability lets it leave (see `Grants::redacted`): a
/// tool's or an entry's name and the problem may quote a secret.
fn redacted(error: LoadError, grants: &Grants) -> LoadError {
    match error {
        LoadError::InvalidTool {
            path,
            tool,
            problem,
        } => LoadError::InvalidTool {
            path,
            tool: grants.redacted(tool),
            problem: grants.redacted(problem),
        },
        LoadError::InvalidServed {
            path,
            what,
            problem,
        } => LoadError::InvalidServed {
            path,
            what: grants.redacted(what),
            problem: grants.redacted(problem),
        },
        other => other,
    }
}

impl Plugin {
    /// Its tool `index` as clients see it under `name`.
    pub(crate) fn tool_info(&self, index: usize, name: String) -> ToolInfo {
        let tool = &self.tools[index];
        ToolInfo {
            name,
            plugin: self.name.to_string(),
            title: tool.title.clone(),
            description: tool.description.clone(),
            input_schema: tool.input.json.clone(),
            output_schema: tool.output.as_ref().map(|s| s.json.clone()),
            hints: tool.hints.clone(),
            icons: tool.icons.clone(),
            task_support: tool.task_support,
            view: self.served.views.get(&tool.name).cloned(),
        }
    }
}

#[cfg(test)]
mod tests;
