//! Loading one plugin file: check it is a component for our world, compile
//! it once, pre-instantiate it, and read and validate its tool definitions.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use tokio::sync::Semaphore;
use wasmtime::Engine;
use wasmtime::component::{Component, Linker};

use super::bindings::{PluginPre, types as wit};
use super::cache::{CompileCache, Sha256Digest};
use super::call;
use super::error::LoadError;
use super::output::ToolHints;
use super::policy::{Policies, Policy};
use super::sandbox::CallState;
use super::schema::{Schema, check_tool_name};

/// A tool as the plugin defines it, validated.
#[derive(Debug)]
pub struct PluginTool {
    /// The name the plugin knows it by.
    pub name: String,
    /// Display name.
    pub title: Option<String>,
    /// What it does.
    pub description: String,
    /// Its compiled input schema.
    pub input: Schema,
    /// Its compiled output schema, if any.
    pub output: Option<Schema>,
    /// Behaviour hints.
    pub hints: ToolHints,
}

/// A loaded plugin: compiled once, ready to instantiate for each call.
pub struct Plugin {
    /// The plugin's name: its file stem.
    pub name: Arc<str>,
    /// The file it was loaded from.
    pub path: PathBuf,
    pub(crate) pre: PluginPre<CallState>,
    /// Its tools, in the order the plugin listed them.
    pub tools: Vec<PluginTool>,
    /// The policy its calls run under.
    pub policy: Arc<Policy>,
    /// Its environment variables, resolved at load.
    pub env: Vec<(String, String)>,
    /// One permit per call that may run at once.
    pub slots: Arc<Semaphore>,
    /// Its share of the blocking pool, for checking its schemas.
    pub lane: super::offload::Lane,
    /// Per-tool rate limiters (absent when rate limiting is off).
    pub rate: HashMap<String, DefaultDirectRateLimiter>,
    /// The file's size and modification time when it was read, so that an
    /// event that did not change the file (a read) reloads nothing.
    pub stamp: Option<super::FileStamp>,
}

impl Plugin {
    /// What every call of this plugin needs.
    pub(crate) fn target(&self) -> call::Target<'_> {
        call::Target {
            pre: &self.pre,
            plugin: &self.name,
            policy: &self.policy,
            env: &self.env,
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

/// Loads the plugin at `path` under the policy `policies` gives it, taking
/// its compiled code from `cache` when it holds it.
#[tracing::instrument(skip(engine, cache, linker, policies), fields(path = %path.display()))]
pub async fn load(
    engine: &Engine,
    cache: Option<&Arc<CompileCache>>,
    linker: &Linker<CallState>,
    policies: &dyn Policies,
    path: &Path,
) -> Result<Plugin, LoadError> {
    let started = std::time::Instant::now();
    let stamp = super::FileStamp::of(path);
    let name: Arc<str> = plugin_name(path).into();
    let policy = resolve_policy(policies, &name, path)?;
    let component = compile(engine, cache, path, Pin::of(&policy)).await?;
    let mut plugin = instantiate(linker, name, Arc::new(policy), path, &component).await?;
    plugin.stamp = stamp;
    tracing::info!(
        plugin = %plugin.name,
        tools = plugin.tools.len(),
        elapsed_ms = started.elapsed().as_millis() as u64,
        "loaded plugin"
    );
    Ok(plugin)
}

/// The policy `policies` gives the plugin `name` loaded from `path`.
pub(crate) fn resolve_policy(
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

/// The digest a policy pins a plugin file to, and where it says so.
#[derive(Debug, Clone)]
pub(crate) struct Pin {
    digest: Sha256Digest,
    section: String,
    config_file: String,
}

impl Pin {
    /// The pin of `policy`, if it has one.
    pub(crate) fn of(policy: &Policy) -> Option<Pin> {
        policy.sha256.map(|digest| Pin {
            digest,
            section: policy.section.clone(),
            config_file: policy.config_file.clone(),
        })
    }
}

/// Compilations running at once: Cranelift already spreads one component's
/// functions over every core, so more only adds threads and memory.
static COMPILE_SLOTS: LazyLock<Semaphore> = LazyLock::new(|| {
    Semaphore::new(std::thread::available_parallelism().map_or(2, |n| n.get().max(2)))
});

/// Reads the file at `path`, checks it against the digest `pin` (if any),
/// checks that it is a component, and takes it from `cache` or compiles it
/// (on the blocking pool, a few at a time: Cranelift takes a while) and
/// stores it there.
#[tracing::instrument(skip_all, fields(path = %path.display()))]
pub(crate) async fn compile(
    engine: &Engine,
    cache: Option<&Arc<CompileCache>>,
    path: &Path,
    pin: Option<Pin>,
) -> Result<Component, LoadError> {
    let bytes = tokio::fs::read(path)
        .await
        .map_err(|source| LoadError::Read {
            path: path.to_owned(),
            source,
        })?;
    let _slot = COMPILE_SLOTS.acquire().await;
    let (engine, cache, owned) = (engine.clone(), cache.cloned(), path.to_owned());
    let span = tracing::Span::current();
    tokio::task::spawn_blocking(move || {
        let _entered = span.enter();
        compile_blocking(&engine, cache.as_deref(), &owned, &bytes, pin)
    })
    .await
    .map_err(|e| LoadError::Compile {
        path: path.to_owned(),
        reason: format!("the compiler task failed: {e}"),
    })?
}

fn compile_blocking(
    engine: &Engine,
    cache: Option<&CompileCache>,
    path: &Path,
    bytes: &[u8],
    pin: Option<Pin>,
) -> Result<Component, LoadError> {
    let started = std::time::Instant::now();
    let plugin = plugin_name(path);
    let digest = Sha256Digest::of(bytes);
    if let Some(pin) = pin
        && pin.digest != digest
    {
        return Err(LoadError::Digest {
            path: path.to_owned(),
            expected: pin.digest.to_string(),
            actual: digest.to_string(),
            section: pin.section,
            config_file: pin.config_file,
        });
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
    let key = cache.map(|_| CompileCache::key(engine, &digest));
    if let (Some(cache), Some(key)) = (cache, &key)
        && let Some(component) = cache.get(engine, key, &plugin)
    {
        tracing::info!(
            plugin,
            elapsed_ms = started.elapsed().as_millis() as u64,
            "loaded from cache"
        );
        return Ok(component);
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
    Ok(component)
}

/// Links a compiled component against the host, checks it targets our
/// world, and lists and validates its tools in a throwaway instance.
pub(crate) async fn instantiate(
    linker: &Linker<CallState>,
    name: Arc<str>,
    policy: Arc<Policy>,
    path: &Path,
    component: &Component,
) -> Result<Plugin, LoadError> {
    let env = policy.env.resolve();
    let pre = linker
        .instantiate_pre(component)
        .map_err(|e| LoadError::Link {
            path: path.to_owned(),
            reason: format!("{e:#}"),
        })?;
    let pre = PluginPre::new(pre).map_err(|e| LoadError::World {
        path: path.to_owned(),
        reason: format!("{e:#}"),
    })?;
    let target = call::Target {
        pre: &pre,
        plugin: &name,
        policy: &policy,
        env: &env,
    };
    let defs = call::list_tools(&target)
        .await
        .map_err(|failure| LoadError::ListTools {
            path: path.to_owned(),
            reason: failure.to_string(),
        })?;
    let tools = validate(path, defs)?;
    let rate = NonZeroU32::new(policy.limits.rate_limit_per_minute)
        .map(|n| {
            tools
                .iter()
                .map(|t| (t.name.clone(), RateLimiter::direct(Quota::per_minute(n))))
                .collect()
        })
        .unwrap_or_default();
    Ok(Plugin {
        name,
        path: path.to_owned(),
        pre,
        tools,
        slots: Arc::new(Semaphore::new(
            policy.limits.max_concurrent_calls.max(1) as usize
        )),
        policy,
        env,
        rate,
        lane: Default::default(),
        stamp: None,
    })
}

fn validate(path: &Path, defs: Vec<wit::ToolDefinition>) -> Result<Vec<PluginTool>, LoadError> {
    if defs.is_empty() {
        return Err(LoadError::NoTools {
            path: path.to_owned(),
        });
    }
    let mut tools: Vec<PluginTool> = Vec::with_capacity(defs.len());
    for def in defs {
        let invalid = |problem: String| LoadError::InvalidTool {
            path: path.to_owned(),
            tool: def.name.clone(),
            problem,
        };
        check_tool_name(&def.name).map_err(invalid)?;
        if tools.iter().any(|t| t.name == def.name) {
            return Err(invalid("the plugin lists this tool name twice".into()));
        }
        if def.description.trim().is_empty() {
            return Err(invalid(
                "the description is empty; clients and models need one".into(),
            ));
        }
        let input = Schema::compile_object("input schema", &def.input_schema).map_err(invalid)?;
        let output = def
            .output_schema
            .as_deref()
            .map(|s| Schema::compile_object("output schema", s))
            .transpose()
            .map_err(invalid)?;
        tools.push(PluginTool {
            title: def.title.clone(),
            description: def.description.clone(),
            input,
            output,
            hints: def.annotations.clone().into(),
            name: def.name,
        });
    }
    Ok(tools)
}
