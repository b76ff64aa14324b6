//! Plugins still loading: what the catalog lists for them (their cached
//! tool lists, see `tool_lists`), and a call's wait for one of them, within
//! the call's own timeout.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::watch as channel;

use crate::definitions::output::ToolInfo;
use crate::policy::Policy;
use crate::units::duration;

/// A plugin whose load has not ended yet, listed from its cached tool list.
pub struct PendingPlugin {
    /// The plugin's name: its file stem.
    pub name: Arc<str>,
    /// The file it is loading from.
    pub path: PathBuf,
    /// The policy it is loading under (who may see its tools, and how long
    /// a call waits for it).
    pub policy: Arc<Policy>,
    /// Its tools as its cached list gives them, under its own names.
    pub tools: Vec<ToolInfo>,
    /// Becomes true when its load has ended, loaded or not, and the catalog
    /// says which.
    pub(crate) done: channel::Receiver<bool>,
}

impl std::fmt::Debug for PendingPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingPlugin")
            .field("name", &self.name)
            .field("path", &self.path)
            .field("tools", &self.tools.len())
            .finish_non_exhaustive()
    }
}

/// A call's timeout ended while the plugin of its tool was still loading.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "tool {tool:?}: plugin {plugin:?} was still compiling when the call's timeout of {} ended; it is listed from its cached tool list and serves calls once it has loaded",
    duration(*limit)
)]
pub struct StillCompiling {
    /// The plugin.
    pub plugin: String,
    /// The tool called.
    pub tool: String,
    /// The timeout that ended.
    pub limit: std::time::Duration,
}

/// In debug builds only, for the tests: holds the load of the plugin
/// `name` until the file `<dir>/<name>.release` exists, where `dir` is the
/// environment variable `MCP_WASM_HOST_TEST_HOLD_LOADS` (unset: nothing is
/// held). Release builds ignore the variable.
pub(crate) async fn test_hold(name: &str) {
    hold("MCP_WASM_HOST_TEST_HOLD_LOADS", "load", name).await;
}

/// As [`test_hold`], for the background compile that replaces the plugin
/// `name`'s quick code, with `MCP_WASM_HOST_TEST_HOLD_OPTIMIZE`.
pub(crate) async fn test_hold_optimize(name: &str) {
    hold(
        "MCP_WASM_HOST_TEST_HOLD_OPTIMIZE",
        "optimizing compile",
        name,
    )
    .await;
}

async fn hold(variable: &str, what: &str, name: &str) {
    if !cfg!(debug_assertions) {
        return;
    }
    let Some(dir) = std::env::var_os(variable) else {
        return;
    };
    let release = PathBuf::from(dir).join(format!("{name}.release"));
    tracing::info!(
        plugin = name,
        "test hook: holding the {what} until {} exists",
        release.display()
    );
    while !release.exists() {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}
