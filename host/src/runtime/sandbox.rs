//! The state of one call's store: its WASI context (built from the plugin's
//! policy, which grants nothing by default), its resource limiter, its
//! captured stdio, and the capabilities' per-call states (whose host
//! functions are in their modules under [`super::capabilities`]).

use std::sync::Arc;
use std::time::Instant;

use wasmtime::ResourceLimiter;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use super::capabilities::{CallCaps, CallCtx, CapabilityError, CapsView};
use super::capture::Capture;
use super::events::CallEvents;
use super::limits::Limits;
use super::policy::Policy;
use super::units::bytes;

/// Enforces a call's memory, table and instance limits, and remembers
/// whether it refused anything and how much memory the call used.
#[derive(Debug)]
pub struct Limiter {
    memory_bytes: usize,
    table_elements: usize,
    instances: usize,
    tables: usize,
    memories: usize,
    /// The largest memory size any memory of the call reached, in bytes.
    pub peak_memory: usize,
    /// A memory growth was refused.
    pub memory_refused: bool,
    /// A table growth was refused.
    pub table_refused: bool,
}

impl Limiter {
    fn new(limits: &Limits) -> Self {
        let clamp = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        Limiter {
            memory_bytes: clamp(limits.memory_bytes),
            table_elements: clamp(limits.table_elements),
            instances: limits.instances as usize,
            tables: limits.tables as usize,
            memories: limits.memories as usize,
            peak_memory: 0,
            memory_refused: false,
            table_refused: false,
        }
    }
}

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.memory_bytes {
            self.memory_refused = true;
            return Ok(false);
        }
        self.peak_memory = self.peak_memory.max(desired);
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.table_elements {
            self.table_refused = true;
            return Ok(false);
        }
        Ok(true)
    }

    fn instances(&self) -> usize {
        self.instances
    }

    fn tables(&self) -> usize {
        self.tables
    }

    fn memories(&self) -> usize {
        self.memories
    }
}

/// Everything a call's store holds.
pub struct CallState {
    wasi: WasiCtx,
    table: ResourceTable,
    /// The guest's stdout.
    pub stdout: Capture,
    /// The guest's stderr.
    pub stderr: Capture,
    /// The resource limiter.
    pub limiter: Limiter,
    /// The policy the call runs under.
    pub policy: Arc<Policy>,
    /// When the call must be finished.
    pub deadline: Instant,
    /// The capabilities' states, on which their host functions run.
    pub caps: CallCaps,
    plugin: Arc<str>,
    tool: Arc<str>,
}

impl std::fmt::Debug for CallState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallState")
            .field("plugin", &self.plugin)
            .field("tool", &self.tool)
            .finish_non_exhaustive()
    }
}

impl CallState {
    /// A sandbox with exactly what `policy` grants (each capability applies
    /// its grant) and no stdin; clocks and random numbers are always
    /// available. Stdout and stderr are captured.
    pub fn new(
        plugin: Arc<str>,
        tool: Arc<str>,
        events: Arc<dyn CallEvents>,
        policy: Arc<Policy>,
        deadline: Instant,
    ) -> Result<Self, CapabilityError> {
        let stdout = Capture::new();
        let stderr = Capture::new();
        let mut wasi = WasiCtx::builder();
        wasi.stdout(stdout.clone()).stderr(stderr.clone());
        let call = CallCtx {
            plugin: &plugin,
            tool: &tool,
            events: &events,
            limits: &policy.limits,
            grants: &policy.grants,
            section: &policy.section,
            config_file: &policy.config_file,
            deadline,
        };
        let caps = policy.grants.prepare(&call, &mut wasi)?;
        let mut table = ResourceTable::new();
        table.set_max_capacity(policy.limits.host_resources as usize);
        Ok(CallState {
            wasi: wasi.build(),
            table,
            stdout,
            stderr,
            limiter: Limiter::new(&policy.limits),
            caps,
            policy,
            deadline,
            plugin,
            tool,
        })
    }

    /// The plugin this call belongs to.
    pub fn plugin(&self) -> &str {
        &self.plugin
    }

    /// The tool being called.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// Writes the guest's captured stdout and stderr to the server log, as
    /// far as the call's log budget (kept by the logging capability) goes,
    /// with the plugin's secrets redacted, then one line saying what the
    /// budget left out, if anything.
    pub fn close_log(&mut self) {
        let (plugin, tool) = (&*self.plugin, &*self.tool);
        let budget = &mut self.caps.logging.budget;
        let secrets = &self.policy.grants.secrets;
        for (stream, capture) in [("stdout", &self.stdout), ("stderr", &self.stderr)] {
            let (text, dropped) = capture.contents();
            let text = secrets.redact(&text);
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                if budget.admit(line.len()) {
                    tracing::info!(target: "guest", plugin, tool, stream, "{line}");
                }
            }
            if dropped > 0 {
                tracing::warn!(target: "guest", plugin, tool, stream, dropped, "guest output beyond the capture limit was dropped");
            }
        }
        if budget.exceeded() {
            let limits = &self.policy.limits;
            tracing::warn!(
                target: "guest",
                plugin,
                tool,
                dropped_lines = budget.dropped_lines,
                dropped_bytes = budget.dropped_bytes,
                "the call's log budget ({} lines, {}) was used up: {} more lines ({}) were not written to the server log; raise `{}.log_lines` or `{}.log_bytes` in {} to keep them",
                limits.log_lines,
                bytes(limits.log_bytes),
                budget.dropped_lines,
                bytes(budget.dropped_bytes),
                self.policy.section,
                self.policy.section,
                self.policy.config_file,
            );
        }
    }
}

impl CapsView for CallState {
    fn caps(&mut self) -> &mut CallCaps {
        &mut self.caps
    }

    fn table_and_caps(&mut self) -> (&mut ResourceTable, &mut CallCaps) {
        (&mut self.table, &mut self.caps)
    }
}

impl WasiView for CallState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}
