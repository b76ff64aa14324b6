//! The state of one call's store: its WASI context (built from the plugin's
//! policy, which grants nothing by default), its resource limiter, its
//! captured stdio, and the host functions of the WIT `host` interface (those
//! of `client` are in [`super::capabilities::client`]).

use std::sync::Arc;
use std::time::Instant;

use wasmtime::ResourceLimiter;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use super::bindings::mcp_wasm_host::plugin::{host, types};
use super::capabilities::filesystem::MountError;
use super::capture::Capture;
use super::error::{MAX_MESSAGE, clip};
use super::events::{CallEvents, LogLevel, Progress};
use super::log_budget::LogBudget;
use super::policy::{Limits, Policy, bytes};

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
    /// What the call may still write to the server's log.
    pub log_budget: LogBudget,
    plugin: Arc<str>,
    tool: Arc<str>,
    events: Arc<dyn CallEvents>,
    last_progress: Option<f64>,
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
    /// A sandbox with exactly what `policy` grants: its mounts, its
    /// environment (`env`, already resolved), no network and no stdin;
    /// clocks and random numbers are always available. Stdout and stderr
    /// are captured.
    pub fn new(
        plugin: Arc<str>,
        tool: Arc<str>,
        events: Arc<dyn CallEvents>,
        policy: Arc<Policy>,
        env: &[(String, String)],
        deadline: Instant,
    ) -> Result<Self, MountError> {
        let stdout = Capture::new();
        let stderr = Capture::new();
        let mut wasi = WasiCtx::builder();
        wasi.stdout(stdout.clone()).stderr(stderr.clone());
        policy.filesystem.apply(&mut wasi)?;
        policy.env.apply(env, &mut wasi);
        policy.network.apply(&mut wasi);
        let mut table = ResourceTable::new();
        table.set_max_capacity(policy.limits.host_resources as usize);
        Ok(CallState {
            wasi: wasi.build(),
            table,
            stdout,
            stderr,
            limiter: Limiter::new(&policy.limits),
            log_budget: LogBudget::new(&policy.limits),
            policy,
            deadline,
            plugin,
            tool,
            events,
            last_progress: None,
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
    /// far as the call's log budget goes, then one line saying what the
    /// budget left out, if anything.
    pub fn close_log(&mut self) {
        let (plugin, tool) = (&*self.plugin, &*self.tool);
        for (stream, capture) in [("stdout", &self.stdout), ("stderr", &self.stderr)] {
            let (text, dropped) = capture.contents();
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                if self.log_budget.admit(line.len()) {
                    tracing::info!(target: "guest", plugin, tool, stream, "{line}");
                }
            }
            if dropped > 0 {
                tracing::warn!(target: "guest", plugin, tool, stream, dropped, "guest output beyond the capture limit was dropped");
            }
        }
        let budget = &self.log_budget;
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

    /// Where the call's reports and requests to the client go.
    pub(crate) fn events(&self) -> &Arc<dyn CallEvents> {
        &self.events
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

impl From<types::LogLevel> for LogLevel {
    fn from(level: types::LogLevel) -> Self {
        match level {
            types::LogLevel::Debug => LogLevel::Debug,
            types::LogLevel::Info => LogLevel::Info,
            types::LogLevel::Notice => LogLevel::Notice,
            types::LogLevel::Warning => LogLevel::Warning,
            types::LogLevel::Error => LogLevel::Error,
            types::LogLevel::Critical => LogLevel::Critical,
            types::LogLevel::Alert => LogLevel::Alert,
            types::LogLevel::Emergency => LogLevel::Emergency,
        }
    }
}

impl types::Host for CallState {}

impl host::Host for CallState {
    async fn log(&mut self, level: types::LogLevel, message: String) {
        let level = LogLevel::from(level);
        let message = clip(message, MAX_MESSAGE);
        let (plugin, tool) = (&*self.plugin, &*self.tool);
        let logged = self.log_budget.admit(message.len());
        match level {
            _ if !logged => {}
            LogLevel::Debug => tracing::debug!(target: "guest", plugin, tool, "{message}"),
            LogLevel::Info | LogLevel::Notice => {
                tracing::info!(target: "guest", plugin, tool, %level, "{message}")
            }
            LogLevel::Warning => tracing::warn!(target: "guest", plugin, tool, "{message}"),
            _ => tracing::error!(target: "guest", plugin, tool, %level, "{message}"),
        }
        self.events.log(plugin, tool, level, &message);
    }

    async fn report_progress(
        &mut self,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) {
        // A debug line is about 100 bytes; what counts is that it is a line.
        const LINE: usize = 100;
        if !progress.is_finite() || self.last_progress.is_some_and(|last| progress <= last) {
            if self.log_budget.admit(LINE) {
                tracing::debug!(plugin = %self.plugin, tool = %self.tool, progress, "dropped a progress report that did not increase");
            }
            return;
        }
        self.last_progress = Some(progress);
        let total = total.filter(|t| t.is_finite());
        if self
            .log_budget
            .admit(LINE + message.as_ref().map_or(0, String::len))
        {
            tracing::debug!(plugin = %self.plugin, tool = %self.tool, progress, ?total, "progress");
        }
        self.events.progress(
            &self.plugin,
            &self.tool,
            Progress {
                progress,
                total,
                message: message.map(|m| clip(m, MAX_MESSAGE)),
            },
        );
    }
}
