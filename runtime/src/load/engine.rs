//! The one wasmtime [`Engine`] the server runs every plugin on, and its
//! instance allocator.

use std::sync::{Arc, OnceLock};

use wasmtime::component::Linker;

use wasmtime::{
    Config, Enabled, Engine, InstanceAllocationStrategy, PoolingAllocationConfig, Strategy,
};

use crate::cache::incremental::IncrementalStore;
use crate::call::sandbox::CallState;
use crate::policy::limits::{MAX_INSTANCES, MAX_MEMORIES, MAX_TABLE_ELEMENTS, MAX_TABLES};

/// Sizes of the engine's pooling allocator: how many calls can run at once
/// and how large each instance may get. The pool reserves address space up
/// front; a call that finds it full fails with a clear error instead of
/// growing the process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineSettings {
    /// Component instances that may be alive at once (one per running call).
    pub max_instances: u32,
    /// The largest linear memory one instance may have, in bytes.
    pub max_memory_bytes: usize,
    /// The largest table one instance may have, in elements.
    pub max_table_elements: usize,
    /// Use the pooling allocator (the default). Off uses on-demand
    /// allocation, which benchmarks compare against.
    pub pooling: bool,
    /// Meter fuel, so each call's CPU work is capped (the default). Off is
    /// for benchmarks only: the fuel limit is then not enforced.
    pub fuel: bool,
    /// Epoch interruption (the default): guests yield to other work every
    /// tick and are interrupted at their deadline. Off is for benchmarks
    /// only: a spinning guest then holds its thread until its timeout.
    pub epoch: bool,
    /// Bytes of each pooled linear memory (and table) kept resident when its
    /// instance ends, reset to their initial contents in place instead of
    /// being handed back to the kernel: the next instance in that slot then
    /// takes no page faults for them. 0 hands everything back.
    pub keep_resident: usize,
    /// Cranelift's incremental compilation cache: functions compiled before,
    /// by any plugin, are taken from it instead of compiled again (none:
    /// every function is compiled).
    pub incremental: Option<Arc<IncrementalStore>>,
    /// Which components new to the compile cache are compiled by Winch
    /// first, served at once, and replaced by Cranelift's code compiled in
    /// the background (see [`QuickCompile`]).
    pub quick: QuickCompile,
}

/// Which components a cache miss compiles quickly first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QuickCompile {
    /// Every component is compiled by Cranelift before it serves (the
    /// library's default: `inspect`, benchmarks and embedders).
    #[default]
    Never,
    /// Components of `LARGE` bytes or more (interpreters: Python,
    /// JavaScript, Go) are compiled by Winch first (`serve`'s default).
    Large,
    /// Every component new to the cache is compiled by Winch first.
    Always,
}

/// The size from which [`QuickCompile::Large`] compiles quickly first: 4 MiB.
/// Below it Cranelift takes about a second or less; a Python or JavaScript
/// component (an interpreter, 12–20 MB) takes it 7–8 s in a release build on
/// two cores, and Winch 1.5 s.
pub const LARGE: usize = 4 << 20;

impl QuickCompile {
    /// Whether a component of `len` bytes is compiled quickly first.
    pub fn applies_to(self, len: usize) -> bool {
        match self {
            QuickCompile::Never => false,
            QuickCompile::Large => len >= LARGE,
            QuickCompile::Always => true,
        }
    }
}

/// The default of [`EngineSettings::keep_resident`].
pub const KEEP_RESIDENT: usize = 2 << 20;

/// How often the epoch ticks: the granularity of deadlines and of yielding.
pub const TICK: std::time::Duration = std::time::Duration::from_millis(5);

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings {
            max_instances: 256,
            max_memory_bytes: 1 << 30,
            max_table_elements: MAX_TABLE_ELEMENTS as usize,
            pooling: true,
            fuel: true,
            epoch: true,
            keep_resident: KEEP_RESIDENT,
            incremental: None,
            quick: QuickCompile::Never,
        }
    }
}

/// Errors building the engine.
#[derive(Debug, thiserror::Error)]
#[error("cannot create the WebAssembly engine: {0}")]
pub struct EngineError(String);

/// Builds the engine: component model, async execution (so a guest blocked in
/// a host call never blocks a server thread), fuel metering, epoch
/// interruption driven by a ticker thread, the pooling allocator, and the
/// incremental compilation cache if one is given.
pub fn build(settings: &EngineSettings) -> Result<Engine, EngineError> {
    build_with(settings, Strategy::Cranelift, Abi::Sync)
}

/// Which of the component model's ABIs an engine's components may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Abi {
    /// The synchronous ABI only: every plugin's engine. wasmtime's
    /// concurrency support is off, so a call never goes through its
    /// concurrent machinery (a component built for the async ABI fails
    /// validation, and goes to the engine below).
    Sync,
    /// The async ABI too (`async` exports, `stream`, `future`,
    /// `error-context`, their built-ins): the engine of the components that
    /// need it (see [`crate::load::concurrent`]). The stackful ABI and the
    /// threading built-ins stay off.
    Async,
}

/// Builds an engine as [`build`] does, whose compiler is `strategy`
/// (Winch for quick first compiles, see [`crate::load::quick`]) and whose
/// components may use `abi`.
pub(crate) fn build_with(
    settings: &EngineSettings,
    strategy: Strategy,
    abi: Abi,
) -> Result<Engine, EngineError> {
    let mut config = Config::new();
    config.strategy(strategy);
    config.wasm_component_model(true);
    // On by default when wasmtime is built with `component-model-async`:
    // then every `call_async` runs as a concurrent task. Only the async
    // engine pays for that.
    config.concurrency_support(abi == Abi::Async);
    if abi == Abi::Async {
        config
            .wasm_component_model_async(true)
            .wasm_component_model_more_async_builtins(true)
            .wasm_component_model_error_context(true);
    }
    config.consume_fuel(settings.fuel);
    config.epoch_interruption(settings.epoch);
    if let Some(store) = &settings.incremental {
        config
            .enable_incremental_compilation(store.clone())
            .map_err(|e| EngineError(format!("{e:#}")))?;
    }
    if settings.pooling {
        let mut pool = PoolingAllocationConfig::new();
        let instances = settings.max_instances;
        pool.total_component_instances(instances)
            // Rust components have a few core instances, Python ones a dozen
            // or so; size the totals for a mix.
            .total_core_instances(instances.saturating_mul(8))
            .total_memories(instances.saturating_mul(4))
            .total_tables(instances.saturating_mul(8))
            .total_stacks(instances)
            // A component's own counts are the policy's to limit
            // (`instances`, `tables`, `memories`, checked by the call's
            // resource limiter): the pool holds as many as a policy may set.
            .max_core_instances_per_component(MAX_INSTANCES)
            .max_memories_per_component(MAX_MEMORIES)
            .max_tables_per_component(MAX_TABLES)
            .max_memory_size(settings.max_memory_bytes)
            .table_elements(settings.max_table_elements)
            .max_component_instance_size(1 << 20)
            .max_core_instance_size(1 << 20)
            .linear_memory_keep_resident(settings.keep_resident)
            .table_keep_resident(settings.keep_resident)
            // With PAGEMAP_SCAN (Linux 6.7+), only the pages an instance
            // actually dirtied are reset, so keeping a large budget resident
            // costs nothing for small guests.
            .pagemap_scan(Enabled::Auto);
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    }
    let engine = match Engine::new(&config) {
        Ok(engine) => engine,
        Err(pool_error) if settings.pooling => on_demand(&mut config, settings, &pool_error)?,
        Err(e) => return Err(EngineError(format!("{e:#}"))),
    };
    if settings.epoch {
        start_ticker(&engine)?;
    }
    Ok(engine)
}

/// The engine of `config` with instances allocated on demand, when the
/// pool could not be made. The pool reserves its address space up front
/// (about 4 GiB for each of its memories, four per instance: 4.4 TiB for 256
/// instances), which a process may not have: an arm64 kernel with 39-bit
/// addresses (512 GiB), a `ulimit -v`, or qemu-user, which keeps real memory
/// for every page of the emulated address space. The server then still
/// starts and serves, each call reserving only its own instance's memories;
/// `--max-instances` no longer bounds the calls running at once, which the
/// warning says. Compiled code does not depend on the allocator, so the
/// compile cache stays valid.
fn on_demand(
    config: &mut Config,
    settings: &EngineSettings,
    pool_error: &wasmtime::Error,
) -> Result<Engine, EngineError> {
    config.allocation_strategy(InstanceAllocationStrategy::OnDemand);
    let engine = Engine::new(config).map_err(|e| EngineError(format!("{e:#}")))?;
    tracing::warn!(
        max_instances = settings.max_instances,
        "the instance pool for --max-instances {} cannot reserve its address space ({pool_error:#}); \
         each call's instance is allocated on demand instead, so --max-instances no longer bounds the \
         calls running at once: lower --max-instances until this warning goes, or raise the process's \
         address-space limit (ulimit -v)",
        settings.max_instances,
    );
    Ok(engine)
}

/// A linker for components compiled by `engine`, with every host function:
/// WASI 0.2's and the capabilities', and the host's own `wasi:io/error`
/// debug strings in place of wasmtime-wasi's (`io_errors`).
pub(crate) fn host_linker(engine: &Engine) -> wasmtime::Result<Linker<CallState>> {
    let mut linker = Linker::<CallState>::new(engine);
    wasmtime_wasi::p2::add_to_linker_async(&mut linker)?;
    crate::capabilities::link(&mut linker)?;
    super::io_errors::link(&mut linker)?;
    Ok(linker)
}

/// An engine like the main one but for its compiler or its ABI, with its
/// host linker, built the first time a component needs it (a server none of
/// whose plugins needs it never builds it, nor reserves its pool).
pub(crate) struct LazyEngine {
    settings: EngineSettings,
    strategy: Strategy,
    abi: Abi,
    /// What is off when it cannot be built, and why, for the warning.
    off: &'static str,
    built: OnceLock<Option<(Engine, Arc<Linker<CallState>>)>>,
}

impl std::fmt::Debug for LazyEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyEngine")
            .field("strategy", &self.strategy)
            .field("abi", &self.abi)
            .finish_non_exhaustive()
    }
}

impl LazyEngine {
    /// An engine of `settings` compiling with `strategy` for `abi`; `off`
    /// says what is off, and why, if it cannot be built.
    pub(crate) fn new(
        settings: EngineSettings,
        strategy: Strategy,
        abi: Abi,
        off: &'static str,
    ) -> Self {
        LazyEngine {
            settings,
            strategy,
            abi,
            off,
            built: OnceLock::new(),
        }
    }

    /// The engine and its linker, built now if they were not yet; `None`
    /// (and one warning) if they cannot be built.
    pub(crate) fn get(&self) -> Option<&(Engine, Arc<Linker<CallState>>)> {
        self.built
            .get_or_init(|| {
                let built = build_with(&self.settings, self.strategy, self.abi)
                    .map_err(|e| e.to_string())
                    .and_then(|engine| {
                        host_linker(&engine)
                            .map(|linker| (engine, Arc::new(linker)))
                            .map_err(|e| format!("{e:#}"))
                    });
                built
                    .inspect_err(|reason| tracing::warn!("{}: {reason}", self.off))
                    .ok()
            })
            .as_ref()
    }

    /// The engine (built now if it was not yet).
    pub(crate) fn engine(&self) -> Option<&Engine> {
        self.get().map(|(engine, _)| engine)
    }

    /// Its linker (built now if it was not yet).
    pub(crate) fn linker(&self) -> Option<&Arc<Linker<CallState>>> {
        self.get().map(|(_, linker)| linker)
    }
}

/// Advances the engine's epoch every [`TICK`] until the engine is dropped.
fn start_ticker(engine: &Engine) -> Result<(), EngineError> {
    let weak = engine.weak();
    std::thread::Builder::new()
        .name("epoch-ticker".into())
        .spawn(move || {
            while let Some(engine) = weak.upgrade() {
                engine.increment_epoch();
                drop(engine);
                std::thread::sleep(TICK);
            }
        })
        .map(|_| ())
        .map_err(|e| EngineError(format!("cannot start the epoch ticker: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_picks_components_by_size() {
        assert!(!QuickCompile::Never.applies_to(usize::MAX));
        assert!(!QuickCompile::Large.applies_to(LARGE - 1));
        assert!(QuickCompile::Large.applies_to(LARGE));
        assert!(QuickCompile::Always.applies_to(0));
    }

    /// Whether `engine` has wasmtime's concurrency support: only then does
    /// a linker take a concurrent host function.
    fn concurrent(engine: &Engine) -> bool {
        Linker::<()>::new(engine)
            .root()
            .func_new_concurrent("f", |_, _, _, _| Box::pin(async { Ok(()) }))
            .is_ok()
    }

    /// Ordinary plugins' calls never go through wasmtime's concurrent
    /// machinery: `call_async` takes it only on an engine with concurrency
    /// support, which only the async engine has.
    #[test]
    fn only_the_async_engine_has_concurrency_support() {
        let settings = EngineSettings {
            pooling: false,
            epoch: false,
            ..EngineSettings::default()
        };
        assert!(!concurrent(&build(&settings).expect("engine")));
        let quick = build_with(&settings, Strategy::Winch, Abi::Sync).expect("Winch engine");
        assert!(!concurrent(&quick));
        let cranelift = build_with(&settings, Strategy::Cranelift, Abi::Async).expect("engine");
        assert!(concurrent(&cranelift));
    }

    #[test]
    fn default_engine_builds() {
        build(&EngineSettings::default()).expect("engine");
        build(&EngineSettings {
            pooling: false,
            ..EngineSettings::default()
        })
        .expect("engine without pooling");
    }
}
