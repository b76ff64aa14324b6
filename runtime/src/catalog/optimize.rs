//! Replacing the code of plugins compiled quickly (by Winch, see
//! [`crate::load::quick`]) with Cranelift's, in the background: one plugin at a
//! time, swapped in only if the catalog still holds the very version that
//! was compiled quickly.

use std::path::Path;
use std::sync::Arc;

use crate::runtime::Runtime;

impl Runtime {
    /// Compiles the plugins loaded with Winch's code again with Cranelift,
    /// one at a time, and swaps each in; runs until the runtime is dropped
    /// (the server spawns it once). Without it, quick code serves until the
    /// plugin is reloaded.
    pub async fn optimize_in_background(&self) {
        loop {
            let path = self.optimize.next().await;
            self.optimize(&path).await;
        }
    }

    /// Replaces the plugin at `path`, if it still serves quick code, with
    /// the same file compiled by Cranelift (and stores that in the compile
    /// cache). A file changed since is left to its own reload.
    #[tracing::instrument(skip(self, path), fields(path = %path.display()))]
    async fn optimize(&self, path: &Path) {
        let started = std::time::Instant::now();
        let Some(quick) = self
            .catalog()
            .plugins()
            .iter()
            .find(|p| p.path == path && p.quick)
            .cloned()
        else {
            return;
        };
        crate::catalog::pending::test_hold_optimize(&quick.name).await;
        let loader = self.loader.optimizing();
        let compiled = match loader.compile(path, Some(&quick.policy)).await {
            Ok(compiled) if compiled.digest == quick.digest => compiled,
            Ok(_) => {
                tracing::debug!(plugin = %quick.name, "the file changed since; its reload compiles it");
                return;
            }
            Err(e) => {
                tracing::warn!(plugin = %quick.name, "cannot compile it with Cranelift; its quick code keeps serving: {e}");
                return;
            }
        };
        let mut plugin = match loader
            .instantiate(quick.name.clone(), quick.policy.clone(), path, &compiled)
            .await
        {
            Ok(plugin) => plugin,
            Err(e) => {
                tracing::warn!(plugin = %quick.name, "Cranelift's code does not load; its quick code keeps serving: {e}");
                return;
            }
        };
        plugin.stamp = quick.stamp;
        let optimized = Arc::new(plugin);
        let _swap = self.swap.lock().await;
        let current = self.catalog();
        if !current.plugins().iter().any(|p| Arc::ptr_eq(p, &quick)) {
            return;
        }
        let plugins = current
            .plugins()
            .iter()
            .map(|p| {
                if Arc::ptr_eq(p, &quick) {
                    optimized.clone()
                } else {
                    p.clone()
                }
            })
            .collect();
        let (catalog, _) = self.rebuild(plugins, Vec::new());
        self.swap_in(catalog);
        tracing::info!(
            plugin = %quick.name,
            elapsed_ms = started.elapsed().as_millis() as u64,
            "optimized: Cranelift's code now serves it"
        );
    }
}
