//! Loading one plugin file: check it is a component for our world, compile
//! it once, pre-instantiate it, and read and validate its tool definitions.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use super::rate::ToolRates;
use tokio::sync::Semaphore;
use wasmtime::Engine;
use wasmtime::component::{Component, Linker};

use super::bindings::types as wit;
use super::cache::{CompileCache, Sha256Digest};
use super::call;
use super::capabilities::secrets::SecretsPolicy;
use super::error::{LoadError, clip};
use super::exports::Exports;
use super::file_hash::FileHash;
use super::generic::{self, DeriveError, GenericSummary};
use super::icons;
use super::imports::ImportKind;
use super::output::{TaskSupport, ToolInfo};
use super::policy::{Policies, Policy};
use super::quick::QuickTier;
use super::sandbox::CallState;
use super::schema::{MAX_TOOL_NAME, Schema, check_tool_name};
use super::served::{self, Listing, Served};
use super::stamp::FileStamp;
use super::tool::PluginTool;
use super::units::{bytes, count};
use super::warm::{IdlePool, PluginIdle};

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
    pub lane: super::offload::Lane,
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
    /// Compiled quickly by Winch: Cranelift's code replaces this version
    /// once it is compiled (see [`super::quick`]).
    pub quick: bool,
}

impl Plugin {
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

const COMPONENT_VERSION: [u8; 4] = [0x0d, 0x00, 0x01, 0x00];

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
}

impl std::fmt::Debug for Loader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loader")
            .field("cache", &self.cache.is_some())
            .finish_non_exhaustive()
    }
}

impl Loader {
    /// A loader that compiles with `engine`, links against `linker` and
    /// keeps idle instances in `idle`; it compiles every time until
    /// [`Loader::set_cache`].
    pub(crate) fn new(engine: Engine, linker: Linker<CallState>, idle: Arc<IdlePool>) -> Self {
        Loader {
            engine,
            cache: None,
            linker: Arc::new(linker),
            idle,
            quick: None,
            optimizing: false,
        }
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

    /// The engine plugins are compiled with.
    pub(crate) fn engine(&self) -> &Engine {
        &self.engine
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
        let compiled = self.compile_hashed(path, Some(&policy), hashed).await?;
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
        policies
            .policy_for(name)
            .map_err(|reason| LoadError::Policy {
                path: path.to_owned(),
                reason,
            })
    }
}

/// The digest a policy pins a plugin file to, and where it says so.
#[derive(Debug, Clone)]
struct Pin {
    digest: Sha256Digest,
    section: String,
    config_file: String,
}

impl Pin {
    /// The pin of `policy`, if it has one.
    fn of(policy: &Policy) -> Option<Pin> {
        policy.sha256.map(|digest| Pin {
            digest,
            section: policy.section.to_string(),
            config_file: policy.config_file.to_string(),
        })
    }

    /// Refuses the file at `path`, whose SHA-256 is `actual`, unless it is
    /// the pinned digest.
    fn check(&self, path: &Path, actual: &Sha256Digest) -> Result<(), LoadError> {
        if self.digest == *actual {
            return Ok(());
        }
        Err(LoadError::Digest {
            path: path.to_owned(),
            expected: self.digest.to_string(),
            actual: actual.to_string(),
            section: self.section.clone(),
            config_file: self.config_file.clone(),
        })
    }
}

/// The blocking steps of loading (compiling a component; listing a
/// plugin's tools and compiling their schemas) running at once. Cranelift
/// already spreads one component's functions over every core, so more only
/// adds threads and memory; and each listing holds a whole lifted tool list.
static LOAD_SLOTS: LazyLock<Semaphore> = LazyLock::new(|| {
    Semaphore::new(std::thread::available_parallelism().map_or(2, |n| n.get().max(2)))
});

/// Runs `work` on tokio's blocking pool, at most [`LOAD_SLOTS`] at a time
/// and inside the current span, so that loading never holds an async worker
/// (which would keep `ping` and other plugins' calls waiting).
async fn off_the_workers<R: Send + 'static>(
    work: impl FnOnce() -> R + Send + 'static,
) -> Result<R, tokio::task::JoinError> {
    // The semaphore is never closed, so acquiring only waits.
    let _slot = LOAD_SLOTS.acquire().await;
    let span = tracing::Span::current();
    tokio::task::spawn_blocking(move || {
        let _entered = span.enter();
        work()
    })
    .await
}

/// A plugin file compiled, and the SHA-256 of the file.
#[derive(Debug, Clone)]
pub(crate) struct Compiled {
    /// The component.
    pub component: Component,
    /// The SHA-256 digest of its file.
    pub digest: Sha256Digest,
    /// Its WIT doc comments (for a generic component's descriptions).
    pub docs: Arc<generic::docs::Docs>,
    /// Compiled by Winch: links against the quick tier's linker, and is
    /// never cached.
    pub quick: bool,
}

impl Compiled {
    /// `component`, compiled from `bytes` (whose digest is `digest`; their
    /// doc comments are read from them), by Winch if `quick`.
    fn new(component: Component, digest: Sha256Digest, bytes: &[u8], quick: bool) -> Self {
        Compiled {
            component,
            digest,
            docs: Arc::new(generic::docs::Docs::read(bytes)),
            quick,
        }
    }
}

impl Loader {
    /// The second step: reads the file at `path`, checks it against the
    /// digest `policy` pins it to (if any), checks that it is a component,
    /// and takes it from the cache or compiles it (on the blocking pool, a
    /// few at a time: Cranelift takes a while) and stores it there.
    #[tracing::instrument(skip_all, fields(path = %path.display()))]
    pub(crate) async fn compile(
        &self,
        path: &Path,
        policy: Option<&Policy>,
    ) -> Result<Compiled, LoadError> {
        self.compile_hashed(path, policy, None).await
    }

    /// [`Loader::compile`]. With a compile cache, the file is first only
    /// hashed (or taken as `hashed` already, its digest and stamp): a warm
    /// start takes its code and its SHA-256 from the cache and never holds
    /// the file. Otherwise, or on a miss, the file is read whole.
    async fn compile_hashed(
        &self,
        path: &Path,
        policy: Option<&Policy>,
        hashed: Option<FileHash>,
    ) -> Result<Compiled, LoadError> {
        let pin = policy.and_then(Pin::of);
        let (engine, cache, owned) = (self.engine.clone(), self.cache.clone(), path.to_owned());
        let (quick, optimizing) = (self.quick.clone(), self.optimizing);
        off_the_workers(move || {
            let compilers = Compilers {
                engine: &engine,
                cache: cache.as_deref(),
                quick: quick.as_deref(),
                optimizing,
            };
            if compilers.cache.is_some()
                && let Some(hashed) = hashed.or_else(|| FileHash::of(&owned))
                && let Some(warm) = compile_warm(compilers, &owned, &hashed, pin.as_ref())
            {
                return warm;
            }
            let bytes = std::fs::read(&owned).map_err(|source| LoadError::Read {
                path: owned.clone(),
                source,
            })?;
            compile_blocking(compilers, &owned, &bytes, pin)
        })
        .await
        .map_err(|e| LoadError::Compile {
            path: path.to_owned(),
            reason: format!("the compiler task failed: {e}"),
        })?
    }
}

/// What compiles a component: the main engine (Cranelift), the compile
/// cache, the quick tier, and whether this compile replaces quick code.
#[derive(Clone, Copy)]
struct Compilers<'a> {
    engine: &'a Engine,
    cache: Option<&'a CompileCache>,
    quick: Option<&'a QuickTier>,
    optimizing: bool,
}

/// A warm start's compile: the plugin's code and the file's SHA-256 from
/// the cache, by the file's digest, without reading the file (but for a
/// generic component, whose doc comments are read from it). `None` when
/// the cache cannot serve it alone: [`compile_blocking`] then reads the
/// file and does every check on its bytes.
fn compile_warm(
    compilers: Compilers<'_>,
    path: &Path,
    hashed: &FileHash,
    pin: Option<&Pin>,
) -> Option<Result<Compiled, LoadError>> {
    let (engine, cache) = (compilers.engine, compilers.cache?);
    let started = std::time::Instant::now();
    let plugin = plugin_name(path);
    // Remembered only for a file that proved to be a component.
    let digest = super::file_digests::get(cache.dir(), &hashed.file, &plugin)?;
    if let Some(Err(refused)) = pin.map(|pin| pin.check(path, &digest)) {
        return Some(Err(refused));
    }
    let quick = compilers.quick.filter(|_| !compilers.optimizing);
    let (component, from_quick) = match cache.get(
        engine,
        &CompileCache::key_of_digest(engine, &hashed.file),
        &plugin,
    ) {
        Some(component) => (component, false),
        None => {
            let quick = quick?;
            let engine = quick.engine()?;
            let component = cache.get(
                engine,
                &CompileCache::key_of_digest(engine, &hashed.file),
                &plugin,
            )?;
            (component, true)
        }
    };
    // A generic component's tools are described by its doc comments, read
    // from the very bytes whose digest found its code.
    let docs = if generic::is_generic(&component, component.engine()) {
        let bytes = std::fs::read(path).ok()?;
        if super::entry::digest(&bytes) != hashed.file {
            return None;
        }
        generic::docs::Docs::read(&bytes)
    } else {
        generic::docs::Docs::default()
    };
    tracing::info!(
        plugin,
        elapsed_ms = started.elapsed().as_millis() as u64,
        "{}",
        if from_quick {
            "loaded Winch's code from cache; optimizing in the background"
        } else {
            "loaded from cache"
        }
    );
    Some(Ok(Compiled {
        component,
        digest,
        docs: Arc::new(docs),
        quick: from_quick,
    }))
}

fn compile_blocking(
    compilers: Compilers<'_>,
    path: &Path,
    bytes: &[u8],
    pin: Option<Pin>,
) -> Result<Compiled, LoadError> {
    let Compilers {
        engine,
        cache,
        quick,
        optimizing,
    } = compilers;
    let started = std::time::Instant::now();
    let plugin = plugin_name(path);
    // One BLAKE3 of the file keys its compiled code and its remembered
    // SHA-256 (`file_digests`), which a warm start then need not compute.
    let file = cache.map(|_| super::entry::digest(bytes));
    let remembered = cache
        .zip(file.as_ref())
        .and_then(|(cache, file)| super::file_digests::get(cache.dir(), file, &plugin));
    let digest = remembered.unwrap_or_else(|| Sha256Digest::of(bytes));
    if let Some(pin) = pin {
        pin.check(path, &digest)?;
    }
    if bytes.len() < 8 || &bytes[..4] != b"\0asm" {
        return Err(LoadError::NotWasm {
            path: path.to_owned(),
        });
    }
    if bytes[4..8] != COMPONENT_VERSION {
        return Err(LoadError::CoreModule {
            path: path.to_owned(),
        });
    }
    if remembered.is_none()
        && let (Some(cache), Some(file)) = (cache, &file)
    {
        super::file_digests::put(cache.dir(), file, &digest, &plugin);
    }
    let key = file
        .as_ref()
        .map(|f| CompileCache::key_of_digest(engine, f));
    if let (Some(cache), Some(key)) = (cache, &key)
        && let Some(component) = cache.get(engine, key, &plugin)
    {
        tracing::info!(
            plugin,
            elapsed_ms = started.elapsed().as_millis() as u64,
            "loaded from cache"
        );
        return Ok(Compiled::new(component, digest, bytes, false));
    }
    // The quick code's own entry: looked up and stored as a plugin new to
    // the cache compiles quickly, deleted once the optimized code is stored.
    let quick = quick.filter(|q| q.applies_to(bytes.len()));
    let quick_key = quick.and_then(|q| {
        Some((
            q,
            cache?,
            CompileCache::key_of_digest(q.engine()?, file.as_ref()?),
        ))
    });
    if !optimizing && let Some(quick) = quick {
        if let Some((quick, cache, key)) = &quick_key
            && let Some(engine) = quick.engine()
            && let Some(component) = cache.get(engine, key, &plugin)
        {
            tracing::info!(
                plugin,
                elapsed_ms = started.elapsed().as_millis() as u64,
                "loaded Winch's code from cache; optimizing in the background"
            );
            return Ok(Compiled::new(component, digest, bytes, true));
        }
        if let Some(component) = quick.compile(&plugin, bytes) {
            tracing::info!(
                plugin,
                elapsed_ms = started.elapsed().as_millis() as u64,
                sha256 = %digest,
                "compiled quickly (Winch); optimizing in the background"
            );
            if let Some((_, cache, key)) = &quick_key {
                cache.put(key, &component, &plugin);
            }
            return Ok(Compiled::new(component, digest, bytes, true));
        }
    }
    let component = Component::from_binary(engine, bytes).map_err(|e| LoadError::Compile {
        path: path.to_owned(),
        reason: format!("{e:#}"),
    })?;
    tracing::info!(
        plugin,
        elapsed_ms = started.elapsed().as_millis() as u64,
        sha256 = %digest,
        "compiled"
    );
    if let (Some(cache), Some(key)) = (cache, &key) {
        cache.put(key, &component, &plugin);
    }
    if optimizing && let Some((_, cache, key)) = &quick_key {
        cache.remove(key, &plugin);
    }
    Ok(Compiled::new(component, digest, bytes, false))
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
            .filter(|name| ImportKind::of(name) == ImportKind::Other)
            .map(|name| format!("`{name}`"))
            .collect();
        if unknown.is_empty() {
            return format!("{e:#}");
        }
        format!(
            "it imports {}, which this host does not provide (it provides WASI 0.2's interfaces and its own `mcp-wasm-host:plugin`; `inspect` lists every import)",
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
        let linker = match &self.quick {
            Some(quick) if compiled.quick => quick.linker().unwrap_or(&self.linker),
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
        let idle = self.idle.plugin(
            policy.limits.reuse_instances,
            policy.limits.max_concurrent_calls.max(1) as usize,
        );
        let listing = {
            let (name, policy, path) = (name.clone(), policy.clone(), path.to_owned());
            let runtime = tokio::runtime::Handle::current();
            off_the_workers(move || {
                let lane = super::offload::Lane::default();
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
                super::egress::identities(&policy.grants, &name, &mut defs, &mut listing);
                let serves = !listing.resources.is_empty()
                    || !listing.templates.is_empty()
                    || !listing.prompts.is_empty();
                let secrets = &policy.grants.secrets;
                let mut tools = validate(&path, defs, serves).map_err(|e| redacted(e, secrets))?;
                let names = tools.iter().map(|t| t.name.as_str()).collect();
                let mut served = served::check(listing, &names).map_err(|(what, problem)| {
                    redacted(
                        LoadError::InvalidServed {
                            path: path.clone(),
                            what,
                            problem,
                        },
                        secrets,
                    )
                })?;
                super::egress::catalog(&policy.grants, &mut tools, &mut served);
                Ok((tools, served, exports, idle))
            })
        };
        let (tools, served, exports, idle) =
            listing.await.map_err(|e| LoadError::ListTools {
                path: path.to_owned(),
                reason: format!("the loader task failed: {e}"),
            })??;
        let rate = ToolRates::new(
            policy.limits.rate_limit_per_minute,
            tools
                .iter()
                .map(|t| t.name.as_str())
                .chain(super::rate::REQUESTS),
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
                        hint: policy.raise_hint("max_tool_list_size"),
                    })?;
                for left in &summary.left_out {
                    if left.internal {
                        tracing::debug!("{}: {left}", file.display());
                    } else {
                        tracing::warn!("{}: {left}", file.display());
                    }
                }
                check_bounds(&file, &policy, &defs, &Listing::default())?;
                // The same egress boundary as a plugin's catalog: a name
                // that holds a secret goes, every other field is rewritten.
                let mut defs = defs;
                super::egress::identities(
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
                super::egress::catalog(&policy.grants, &mut tools, &mut Served::default());
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
            policy.limits.rate_limit_per_minute,
            tools
                .iter()
                .map(|t| t.name.as_str())
                .chain(super::rate::REQUESTS),
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
            quick: compiled.quick,
        })
    }
}

/// `error` with the plugin's secrets redacted from the guest's text it
/// quotes (a tool's name, an entry, what is wrong with a schema or an icon):
/// a refusal is logged and shown by `inspect`.
fn redacted(error: LoadError, secrets: &SecretsPolicy) -> LoadError {
    match error {
        LoadError::InvalidTool {
            path,
            tool,
            problem,
        } => LoadError::InvalidTool {
            path,
            tool: secrets.redact_owned(tool),
            problem: secrets.redact_owned(problem),
        },
        LoadError::InvalidServed {
            path,
            what,
            problem,
        } => LoadError::InvalidServed {
            path,
            what: secrets.redact_owned(what),
            problem: secrets.redact_owned(problem),
        },
        other => other,
    }
}

/// The bytes a tool definition adds to its plugin's tool list: its name,
/// title, description, schemas and icons.
fn definition_size(def: &wit::ToolDefinition) -> u64 {
    let optional = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    (def.name.len()
        + optional(&def.title)
        + def.description.len()
        + def.input_schema.len()
        + optional(&def.output_schema)
        + optional(&def.annotations.title)
        + icons::size(&def.icons)) as u64
}

/// Holds a plugin's tool list to its policy's bounds (`max_tools`,
/// `max_schema_size`, `max_tool_list_size`) before any of it is parsed or
/// compiled: compiling a schema costs many times its size in host memory.
fn check_bounds(
    path: &Path,
    policy: &Policy,
    defs: &[wit::ToolDefinition],
    listing: &Listing,
) -> Result<(), LoadError> {
    let limits = &policy.limits;
    let over = |key: &str, what: String, limit: String| LoadError::ToolListTooLarge {
        path: path.to_owned(),
        what,
        limit,
        hint: policy.raise_hint(key),
    };
    if defs.len() as u64 > u64::from(limits.max_tools) {
        return Err(over(
            "max_tools",
            format!("it lists {} tools", count(defs.len() as u64)),
            count(limits.max_tools.into()),
        ));
    }
    for def in defs {
        let schemas = [
            ("input schema", Some(&def.input_schema)),
            ("output schema", def.output_schema.as_ref()),
        ];
        for (which, schema) in schemas {
            if let Some(schema) = schema
                && schema.len() as u64 > limits.max_schema_bytes
            {
                return Err(over(
                    "max_schema_size",
                    format!(
                        "tool {:?}: its {which} is {}",
                        clip(def.name.clone(), MAX_TOOL_NAME),
                        bytes(schema.len() as u64)
                    ),
                    bytes(limits.max_schema_bytes),
                ));
            }
        }
    }
    let (entries, served_bytes) = listing.size();
    if entries as u64 > u64::from(limits.max_tools) {
        return Err(over(
            "max_tools",
            format!(
                "it lists {} resources, templates or prompts of one kind",
                count(entries as u64)
            ),
            count(limits.max_tools.into()),
        ));
    }
    let tools: u64 = defs.iter().map(definition_size).sum();
    let total = tools + served_bytes;
    if total > limits.max_tool_list_bytes {
        let what = if served_bytes == 0 {
            format!(
                "its tool list (names, titles, descriptions, schemas and icons) is {}",
                bytes(total)
            )
        } else {
            format!(
                "its tool, resource and prompt lists (names, titles, descriptions, URIs, schemas and icons) are {}",
                bytes(total)
            )
        };
        return Err(over(
            "max_tool_list_size",
            what,
            bytes(limits.max_tool_list_bytes),
        ));
    }
    Ok(())
}

/// Checks each definition (its name, unique in the plugin; its description;
/// its schemas, compiled here) in one pass over the list.
fn validate(
    path: &Path,
    defs: Vec<wit::ToolDefinition>,
    serves: bool,
) -> Result<Vec<PluginTool>, LoadError> {
    if defs.is_empty() && !serves {
        return Err(LoadError::NoTools {
            path: path.to_owned(),
        });
    }
    let mut tools: Vec<PluginTool> = Vec::with_capacity(defs.len());
    let mut names: HashSet<String> = HashSet::with_capacity(defs.len());
    for def in defs {
        let invalid = |problem: String| LoadError::InvalidTool {
            path: path.to_owned(),
            tool: clip(def.name.clone(), MAX_TOOL_NAME),
            problem,
        };
        check_tool_name(&def.name).map_err(|e| invalid(e.to_string()))?;
        if !names.insert(def.name.clone()) {
            return Err(invalid("the plugin lists this tool name twice".into()));
        }
        if def.description.trim().is_empty() {
            return Err(invalid(
                "the description is empty; clients and models need one".into(),
            ));
        }
        icons::check(&def.icons).map_err(|e| invalid(e.to_string()))?;
        let input = Schema::compile_object("input schema", &def.input_schema)
            .map_err(|e| invalid(e.to_string()))?;
        let output = def
            .output_schema
            .as_deref()
            .map(|s| Schema::compile_object("output schema", s))
            .transpose()
            .map_err(|e| invalid(e.to_string()))?;
        tools.push(PluginTool {
            hints: def.annotations.into(),
            input,
            output: output.map(Arc::new),
            name: def.name,
            title: def.title,
            description: def.description,
            icons: def.icons.into_iter().map(Into::into).collect(),
            task_support: match def.task_support {
                wit::TaskSupport::Forbidden => TaskSupport::Forbidden,
                wit::TaskSupport::Optional => TaskSupport::Optional,
                wit::TaskSupport::Required => TaskSupport::Required,
            },
        });
    }
    Ok(tools)
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
