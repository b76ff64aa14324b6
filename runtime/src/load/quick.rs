//! Quick first compiles: a large component new to the compile cache is
//! compiled by Winch (wasmtime's baseline compiler, several times faster
//! than Cranelift), served at once, and replaced by Cranelift's optimized
//! code compiled in the background.
//!
//! Winch's code runs under the same sandbox as Cranelift's: the same fuel
//! metering, epoch deadlines, pooled instance limits, resource limiter and
//! host functions. It is stored in the compile cache under its own key (the
//! key covers the engine's configuration), so a server stopped before the
//! background compile ends starts from it again; the optimized code, once
//! stored, replaces that entry.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::Notify;
use wasmtime::component::{Component, Linker};
use wasmtime::{Engine, Strategy};

use crate::call::sandbox::CallState;
use crate::load::engine::{Abi, EngineSettings, LazyEngine, QuickCompile};

/// The Winch engine and its linker, built the first time a component is
/// compiled quickly (a server whose cache holds every plugin never builds
/// them), with the same settings as the main engine but its compiler.
#[derive(Debug)]
pub(crate) struct QuickTier {
    rule: QuickCompile,
    lazy: LazyEngine,
}

impl QuickTier {
    /// Quick compiles under `settings.quick`, on an engine like the one
    /// `settings` describe; `None` when that rule is [`QuickCompile::Never`].
    pub(crate) fn new(settings: &EngineSettings) -> Option<Self> {
        (settings.quick != QuickCompile::Never).then(|| QuickTier {
            rule: settings.quick,
            lazy: LazyEngine::new(
                EngineSettings {
                    // Winch has no incremental cache, and its code is never kept.
                    incremental: None,
                    ..settings.clone()
                },
                Strategy::Winch,
                Abi::Sync,
                "quick compiles are off: cannot build the Winch engine",
            ),
        })
    }

    /// Whether a component of `len` bytes is compiled quickly first.
    pub(crate) fn applies_to(&self, len: usize) -> bool {
        self.rule.applies_to(len)
    }

    /// The Winch engine (built now if it was not yet); `None` if it cannot
    /// be built.
    pub(crate) fn engine(&self) -> Option<&Engine> {
        self.lazy.engine()
    }

    /// Compiles `bytes` with Winch; `None` if Winch cannot (a feature it
    /// does not support, say): the caller then compiles with Cranelift.
    pub(crate) fn compile(&self, plugin: &str, bytes: &[u8]) -> Option<Component> {
        let engine = self.lazy.engine()?;
        Component::from_binary(engine, bytes)
            .inspect_err(|e| {
                tracing::debug!(
                    plugin,
                    "Winch cannot compile it ({e:#}); compiling with Cranelift"
                )
            })
            .ok()
    }

    /// The linker for components compiled by [`QuickTier::compile`].
    pub(crate) fn linker(&self) -> Option<&Arc<Linker<CallState>>> {
        self.lazy.linker()
    }
}

/// The plugin files whose quick code waits to be replaced by Cranelift's,
/// in the order they were loaded, each once.
#[derive(Debug, Default)]
pub(crate) struct OptimizeQueue {
    paths: Mutex<VecDeque<PathBuf>>,
    added: Notify,
}

impl OptimizeQueue {
    /// Queues `path` unless it is already queued.
    pub(crate) fn push(&self, path: &Path) {
        let mut paths = self.paths.lock().unwrap_or_else(PoisonError::into_inner);
        if !paths.iter().any(|p| p == path) {
            paths.push_back(path.to_owned());
        }
        drop(paths);
        self.added.notify_one();
    }

    /// The next queued path, waiting for one.
    pub(crate) async fn next(&self) -> PathBuf {
        loop {
            let added = self.added.notified();
            if let Some(path) = self
                .paths
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .pop_front()
            {
                return path;
            }
            added.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_queue_hands_out_each_path_once_in_order() {
        let queue = OptimizeQueue::default();
        queue.push(Path::new("a.wasm"));
        queue.push(Path::new("b.wasm"));
        queue.push(Path::new("a.wasm"));
        assert_eq!(queue.next().await, Path::new("a.wasm"));
        assert_eq!(queue.next().await, Path::new("b.wasm"));
        let queue = Arc::new(queue);
        let waiter = tokio::spawn({
            let queue = queue.clone();
            async move { queue.next().await }
        });
        queue.push(Path::new("c.wasm"));
        assert_eq!(waiter.await.expect("joined"), Path::new("c.wasm"));
    }
}
