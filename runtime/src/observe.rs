//! The seam through which the runtime reports what it does to whoever counts
//! it (the server's metrics): every call's end, the calls waiting for a slot
//! and running, and the loads and reloads of plugins. The runtime calls an
//! [`Observer`] and knows nothing of what it does with the numbers; the
//! default one does nothing.

use std::time::Duration;

/// How one call, resource read, prompt or completion ended.
#[derive(Debug, Clone, Copy)]
pub struct CallEnd<'a> {
    /// The plugin that served it.
    pub plugin: &'a str,
    /// The tool's name in the catalog, or the request's kind
    /// (`resources/read`, `prompts/get`, `completion/complete`): always a
    /// name a loaded plugin declared, never a client's free text.
    pub tool: &'a str,
    /// How it ended (the audit log's outcomes: `ok`, `tool_error`, `trap`,
    /// `rate_limited`, …).
    pub outcome: &'static str,
    /// The policy key of the limit that stopped it, if one did (`timeout`,
    /// `fuel`, `max_memory`, `rate_limit`, `client_rate_limit`,
    /// `max_argument_size`, `max_result_size`).
    pub limit: Option<&'static str>,
    /// Wall time from its arrival to its end.
    pub duration: Duration,
    /// What the guest consumed, when guest code ran: fuel and the peak of
    /// its linear memory in bytes.
    pub usage: Option<(u64, u64)>,
}

/// Where a call is between its admission and its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Waiting for one of the plugin's slots.
    Waiting,
    /// Running in its sandbox.
    Running,
}

/// Receives what the runtime does. Every method must be cheap and must not
/// block: they are called on the call path.
pub trait Observer: Send + Sync + std::fmt::Debug {
    /// A call of a known tool (or a resource read, prompt or completion)
    /// ended, however it ended.
    fn call_ended(&self, _end: &CallEnd<'_>) {}
    /// A call named a tool no loaded plugin has.
    fn unknown_tool(&self) {}
    /// A call of `plugin` entered `phase` (`entered`) or left it.
    fn phase(&self, _plugin: &str, _phase: Phase, _entered: bool) {}
    /// The catalog now holds `plugins` plugins.
    fn plugins_loaded(&self, _plugins: usize) {}
    /// A plugin file failed to load (at start or on a reload).
    fn load_failed(&self) {}
    /// A reload of one or more plugin files finished; `ok` if every file
    /// in it loaded.
    fn reloaded(&self, _ok: bool) {}
}

/// Counts nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoObserver;

impl Observer for NoObserver {}

/// Keeps a call in a [`Phase`] while it lives.
pub(crate) struct InPhase<'a> {
    observer: &'a dyn Observer,
    plugin: &'a str,
    phase: Phase,
}

impl<'a> InPhase<'a> {
    /// Enters `phase`; dropping the guard leaves it.
    pub(crate) fn enter(observer: &'a dyn Observer, plugin: &'a str, phase: Phase) -> Self {
        observer.phase(plugin, phase, true);
        InPhase {
            observer,
            plugin,
            phase,
        }
    }
}

impl Drop for InPhase<'_> {
    fn drop(&mut self) {
        self.observer.phase(self.plugin, self.phase, false);
    }
}
