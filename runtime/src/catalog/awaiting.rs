//! A call waiting for the plugin that serves its tool to finish loading,
//! within that plugin's call timeout.

use crate::catalog::pending::StillCompiling;
use crate::runtime::Runtime;

impl Runtime {
    /// Waits until a call of the tool `name` can be routed: at once if its
    /// plugin has loaded; until its plugin's load ends, within that
    /// plugin's call timeout, if it is listed from a cached list; and until
    /// the first load is done if no plugin lists it yet (it may come from a
    /// plugin with no cached list).
    pub async fn wait_for_tool(&self, name: &str) -> Result<(), StillCompiling> {
        self.wait_until_listed().await;
        let catalog = self.catalog();
        if catalog.get(name).is_some() {
            return Ok(());
        }
        let Some((pending, _)) = catalog.pending(name) else {
            self.wait_until_loaded().await;
            return Ok(());
        };
        let pending = pending.clone();
        drop(catalog);
        let limit = pending.policy.limits.timeout;
        let mut done = pending.done.clone();
        tracing::debug!(tool = name, plugin = %pending.name, "waiting for the plugin's load");
        match tokio::time::timeout(limit, done.wait_for(|done| *done)).await {
            // An error: the loader is gone (shutting down); the call then
            // finds the tool unknown.
            Ok(_) => Ok(()),
            Err(_) => Err(StillCompiling {
                plugin: pending.name.to_string(),
                tool: name.to_owned(),
                limit,
            }),
        }
    }
}
