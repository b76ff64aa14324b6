//! Components built for the component model's async ABI (`async` exports,
//! `stream` and `future` types, the async built-ins WASI 0.3's toolchains
//! use): compiled and run on an engine of their own, with wasmtime's
//! concurrency support, built the first time such a component loads.
//!
//! The main engine keeps that support off, so an ordinary plugin's call
//! never goes through wasmtime's concurrent machinery; a component the main
//! engine refuses for a component-model feature it leaves off is compiled
//! again here. Its calls are any call's: the same fuel, epoch deadline,
//! pooled instance limits, resource limiter and host functions (wasmtime's
//! `call_async` runs an async-lifted export as a concurrent task and
//! returns when it has returned its result).

use std::sync::Arc;

use wasmtime::component::{Component, Linker};
use wasmtime::{Engine, Strategy};

use crate::call::sandbox::CallState;
use crate::load::engine::{Abi, EngineSettings, LazyEngine};

/// How wasmparser's validator words a component-model feature an engine
/// leaves off ("`task.return` requires the component model async feature").
const NEEDS_FEATURE: &str = "requires the component model";

/// Whether the main engine refused a component for a component-model
/// feature it leaves off: the async engine is then tried (and gives its own
/// error for a feature that engine leaves off too, such as the stackful
/// ABI).
pub(crate) fn needs_async_engine(refusal: &wasmtime::Error) -> bool {
    format!("{refusal:#}").contains(NEEDS_FEATURE)
}

/// The async engine and its linker, built the first time a component needs
/// them, with the main engine's settings.
#[derive(Debug)]
pub(crate) struct AsyncTier {
    lazy: LazyEngine,
}

impl AsyncTier {
    /// An async engine like the one `settings` describe (Cranelift).
    pub(crate) fn new(settings: &EngineSettings) -> Self {
        AsyncTier {
            lazy: LazyEngine::new(
                settings.clone(),
                Strategy::Cranelift,
                Abi::Async,
                "components built for the async ABI cannot load: cannot build their engine",
            ),
        }
    }

    /// The async engine (built now if it was not yet); `None` if it cannot
    /// be built.
    pub(crate) fn engine(&self) -> Option<&Engine> {
        self.lazy.engine()
    }

    /// Compiles `bytes` on the async engine: its error if it refuses them
    /// too, `None` if that engine cannot be built.
    pub(crate) fn compile(&self, bytes: &[u8]) -> Option<wasmtime::Result<Component>> {
        Some(Component::from_binary(self.engine()?, bytes))
    }

    /// The linker for components compiled by [`AsyncTier::compile`].
    pub(crate) fn linker(&self) -> Option<&Arc<Linker<CallState>>> {
        self.lazy.linker()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A component whose export is lifted with the async ABI (callback
    /// form): `task.return` gives its result.
    const ASYNC_EXPORT: &str = r#"(component
        (core module $m
            (import "" "task.return" (func $ret (param i32)))
            (func (export "f") (result i32) (call $ret (i32.const 7)) (i32.const 0))
            (func (export "cb") (param i32 i32 i32) (result i32) unreachable))
        (core func $ret (canon task.return (result u32)))
        (core instance $i (instantiate $m (with "" (instance (export "task.return" (func $ret))))))
        (func (export "f") async (result u32)
            (canon lift (core func $i "f") async (callback (core func $i "cb")))))"#;

    fn settings() -> EngineSettings {
        EngineSettings {
            pooling: false,
            epoch: false,
            ..EngineSettings::default()
        }
    }

    #[test]
    fn the_main_engine_refuses_the_async_abi_and_the_async_engine_takes_it() {
        let bytes = wat::parse_str(ASYNC_EXPORT).expect("valid WAT");
        let main = crate::load::engine::build(&settings()).expect("engine");
        let refused = Component::from_binary(&main, &bytes).expect_err("the main engine refuses");
        assert!(needs_async_engine(&refused), "{refused:#}");
        let tier = AsyncTier::new(&settings());
        tier.compile(&bytes)
            .expect("the engine builds")
            .expect("the async engine compiles it");
        assert!(tier.linker().is_some());
    }

    #[test]
    fn other_refusals_do_not_go_to_the_async_engine() {
        let main = crate::load::engine::build(&settings()).expect("engine");
        let refused = Component::from_binary(&main, b"\0asm\x0d\0\x01\0garbage")
            .expect_err("not a component");
        assert!(!needs_async_engine(&refused), "{refused:#}");
    }
}
