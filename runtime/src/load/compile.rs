//! The second step of loading: a plugin file to compiled code, with its
//! pin checked. A warm start takes the code and the file's SHA-256 from the
//! compile cache by the file's digest (`file_hash`, `file_digests`); a miss
//! reads the file, checks it is a component and compiles it (Cranelift, or
//! Winch first for a large plugin new to the cache: `quick`), then stores
//! the code.

use std::path::Path;
use std::sync::{Arc, LazyLock};

use tokio::sync::Semaphore;
use wasmtime::Engine;
use wasmtime::component::Component;

use crate::cache::{CompileCache, Sha256Digest};
use crate::error::{DigestMismatch, LoadError};
use crate::load::concurrent::{AsyncTier, needs_async_engine};
use crate::load::engine::Abi;
use crate::load::file_hash::FileHash;
use crate::load::generic;
use crate::load::quick::QuickTier;
use crate::policy::Policy;

/// The version and layer of a component (a core module has other bytes).
const COMPONENT_VERSION: [u8; 4] = [0x0d, 0x00, 0x01, 0x00];

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
            mismatch: Box::new(DigestMismatch {
                expected: self.digest.to_string(),
                actual: actual.to_string(),
                section: self.section.clone(),
                config_file: self.config_file.clone(),
            }),
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
pub(crate) async fn off_the_workers<R: Send + 'static>(
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
    /// The ABI of the engine that compiled it: [`Abi::Async`] links against
    /// the async tier's linker (see [`crate::load::concurrent`]).
    pub abi: Abi,
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
            abi: Abi::Sync,
        }
    }
}

/// What compiles a plugin's component: the main engine (Cranelift), the
/// compile cache, the quick tier, and whether this compile replaces quick
/// code (the loader of the background compiles).
#[derive(Clone)]
pub(crate) struct Compilers {
    /// The main engine.
    pub engine: Engine,
    /// The cache of compiled components.
    pub cache: Option<Arc<CompileCache>>,
    /// Compiles large components new to the cache quickly first (none:
    /// never).
    pub quick: Option<Arc<QuickTier>>,
    /// Compiles with Cranelift only, and deletes the quick code's cache
    /// entry once Cranelift's is stored.
    pub optimizing: bool,
    /// Compiles the components built for the component model's async ABI,
    /// which the main engine refuses.
    pub concurrent: Arc<AsyncTier>,
}

impl Compilers {
    /// Compiles the file at `path` of the plugin `plugin` (on the blocking
    /// pool, a few at a time): checks it against the digest `policy` pins
    /// it to (if any) and that it is a component, and takes it from the
    /// cache or compiles it and stores it there. With a compile cache, the
    /// file is first only hashed (or taken as `hashed` already, its digest
    /// and stamp): a warm start takes its code and its SHA-256 from the
    /// cache and never holds the file. Otherwise, or on a miss, the file is
    /// read whole.
    pub(crate) async fn compile(
        &self,
        path: &Path,
        plugin: &str,
        policy: Option<&Policy>,
        hashed: Option<FileHash>,
    ) -> Result<Compiled, LoadError> {
        let pin = policy.and_then(Pin::of);
        let (compilers, owned, plugin) = (self.clone(), path.to_owned(), plugin.to_owned());
        off_the_workers(move || {
            if compilers.cache.is_some()
                && let Some(hashed) = hashed.or_else(|| FileHash::of(&owned))
                && let Some(warm) = compile_warm(&compilers, &owned, &plugin, &hashed, pin.as_ref())
            {
                return warm;
            }
            let bytes = std::fs::read(&owned).map_err(|source| LoadError::Read {
                path: owned.clone(),
                source,
            })?;
            compile_blocking(&compilers, &owned, &plugin, &bytes, pin)
        })
        .await
        .map_err(|e| LoadError::Compile {
            path: path.to_owned(),
            reason: format!("the compiler task failed: {e}"),
        })?
    }
}

/// A warm start's compile: the plugin's code and the file's SHA-256 from
/// the cache, by the file's digest, without reading the file (but for a
/// generic component, whose doc comments are read from it). `None` when
/// the cache cannot serve it alone: [`compile_blocking`] then reads the
/// file and does every check on its bytes.
fn compile_warm(
    compilers: &Compilers,
    path: &Path,
    plugin: &str,
    hashed: &FileHash,
    pin: Option<&Pin>,
) -> Option<Result<Compiled, LoadError>> {
    let (engine, cache) = (&compilers.engine, compilers.cache.as_deref()?);
    let started = std::time::Instant::now();
    // Remembered only for a file that proved to be a component.
    let digest = crate::cache::file_digests::get(cache.dir(), &hashed.file, plugin)?;
    if let Some(Err(refused)) = pin.map(|pin| pin.check(path, &digest)) {
        return Some(Err(refused));
    }
    let quick = compilers.quick.as_deref().filter(|_| !compilers.optimizing);
    let (component, from_quick) = match cache.get(
        engine,
        &CompileCache::key_of_digest(engine, &hashed.file),
        plugin,
    ) {
        Some(component) => (component, false),
        None => {
            let quick = quick?;
            let engine = quick.engine()?;
            let component = cache.get(
                engine,
                &CompileCache::key_of_digest(engine, &hashed.file),
                plugin,
            )?;
            (component, true)
        }
    };
    // A generic component's tools are described by its doc comments, read
    // from the very bytes whose digest found its code.
    let docs = if generic::is_generic(&component, component.engine()) {
        let bytes = std::fs::read(path).ok()?;
        if crate::cache::entry::digest(&bytes) != hashed.file {
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
        abi: Abi::Sync,
    }))
}

fn compile_blocking(
    compilers: &Compilers,
    path: &Path,
    plugin: &str,
    bytes: &[u8],
    pin: Option<Pin>,
) -> Result<Compiled, LoadError> {
    let Compilers {
        engine,
        cache,
        quick,
        optimizing,
        concurrent,
    } = compilers;
    let (cache, quick, optimizing) = (cache.as_deref(), quick.as_deref(), *optimizing);
    let started = std::time::Instant::now();
    // One BLAKE3 of the file keys its compiled code and its remembered
    // SHA-256 (`file_digests`), which a warm start then need not compute.
    let file = cache.map(|_| crate::cache::entry::digest(bytes));
    let remembered = cache
        .zip(file.as_ref())
        .and_then(|(cache, file)| crate::cache::file_digests::get(cache.dir(), file, plugin));
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
        crate::cache::file_digests::put(cache.dir(), file, &digest, plugin);
    }
    let key = file
        .as_ref()
        .map(|f| CompileCache::key_of_digest(engine, f));
    if let (Some(cache), Some(key)) = (cache, &key)
        && let Some(component) = cache.get(engine, key, plugin)
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
            && let Some(component) = cache.get(engine, key, plugin)
        {
            tracing::info!(
                plugin,
                elapsed_ms = started.elapsed().as_millis() as u64,
                "loaded Winch's code from cache; optimizing in the background"
            );
            return Ok(Compiled::new(component, digest, bytes, true));
        }
        if let Some(component) = quick.compile(plugin, bytes) {
            tracing::info!(
                plugin,
                elapsed_ms = started.elapsed().as_millis() as u64,
                sha256 = %digest,
                "compiled quickly (Winch); optimizing in the background"
            );
            if let Some((_, cache, key)) = &quick_key {
                cache.put(key, &component, plugin);
            }
            return Ok(Compiled::new(component, digest, bytes, true));
        }
    }
    let compile_error = |e: wasmtime::Error| LoadError::Compile {
        path: path.to_owned(),
        reason: format!("{e:#}"),
    };
    let component = match Component::from_binary(engine, bytes) {
        Ok(component) => component,
        Err(e) if needs_async_engine(&e) => {
            let file = cache.zip(file.as_ref());
            return compile_async(concurrent, plugin, bytes, digest, file, started)
                .unwrap_or(Err(e))
                .map_err(compile_error);
        }
        Err(e) => return Err(compile_error(e)),
    };
    tracing::info!(
        plugin,
        elapsed_ms = started.elapsed().as_millis() as u64,
        sha256 = %digest,
        "compiled"
    );
    if let (Some(cache), Some(key)) = (cache, &key) {
        cache.put(key, &component, plugin);
    }
    if optimizing && let Some((_, cache, key)) = &quick_key {
        cache.remove(key, plugin);
    }
    Ok(Compiled::new(component, digest, bytes, false))
}

/// Compiles `bytes` (whose SHA-256 is `digest`) on the async tier, which
/// the main engine refused for a component-model feature it leaves off:
/// from the cache (given `file`: the cache and the file's digest), or
/// compiled and stored there. `None` if the async engine cannot be built.
fn compile_async(
    tier: &AsyncTier,
    plugin: &str,
    bytes: &[u8],
    digest: Sha256Digest,
    file: Option<(&CompileCache, &blake3::Hash)>,
    started: std::time::Instant,
) -> Option<wasmtime::Result<Compiled>> {
    let engine = tier.engine()?;
    let key = file.map(|(cache, file)| (cache, CompileCache::key_of_digest(engine, file)));
    let cached = key
        .as_ref()
        .and_then(|(cache, key)| cache.get(engine, key, plugin));
    let how = if cached.is_some() {
        "loaded from cache"
    } else {
        "compiled"
    };
    let component = match cached {
        Some(component) => component,
        None => match tier.compile(bytes)? {
            Ok(component) => {
                if let Some((cache, key)) = &key {
                    cache.put(key, &component, plugin);
                }
                component
            }
            Err(e) => return Some(Err(e)),
        },
    };
    tracing::info!(
        plugin,
        elapsed_ms = started.elapsed().as_millis() as u64,
        sha256 = %digest,
        "{how} for the async engine (the component uses the component model's async ABI)"
    );
    Some(Ok(Compiled {
        abi: Abi::Async,
        ..Compiled::new(component, digest, bytes, false)
    }))
}
