//! Logging and progress: the WIT `host` interface and
//! `wasi:logging/logging@0.1.0-draft`, always granted. A call's log messages
//! go to the server's log (within the call's log budget) and to the client;
//! its progress reports reach the client only while they increase.

use std::sync::Arc;

use serde::de::MapAccess;
use wasmtime::component::{HasSelf, Linker};

use super::super::units::bytes;
use super::{
    CallCtx, CallEnd, CallHooks, Capability, CapsView, Grants, KeyProblem, Others, Redaction,
    Report, ResolveCtx,
};
use crate::call::events::{CallEvents, LogLevel, Progress};
use crate::call::log_budget::LogBudget;
use crate::load::bindings::link_earlier;
use crate::load::bindings::mcp_wasm_host::plugin::{host, types};

/// Logging and progress have no policy section: every plugin may use them,
/// within its `log_lines` and `log_bytes` limits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoggingPolicy;

impl Capability for LoggingPolicy {
    const NAME: &'static str = "logging";
    const KEYS: &'static [&'static str] = &[];
    type Spec = ();
    type State = LogState;

    fn parse_key<'de, A: MapAccess<'de>>(
        _spec: &mut (),
        _key: &str,
        _map: &mut A,
    ) -> Result<(), A::Error> {
        Ok(())
    }

    fn resolve(
        _defaults: &(),
        _spec: Option<&()>,
        _ctx: &ResolveCtx<'_>,
        _others: &Others<'_>,
    ) -> Result<Self, KeyProblem> {
        Ok(LoggingPolicy)
    }

    fn state(&self, call: &CallCtx<'_>) -> LogState {
        LogState {
            plugin: call.plugin.clone(),
            tool: call.tool.clone(),
            events: call.events.clone(),
            budget: LogBudget::new(call.limits),
            grants: call.grants.clone(),
            last_progress: None,
        }
    }

    fn link<T: CapsView>(linker: &mut Linker<T>) -> wasmtime::Result<()> {
        let state: fn(&mut T) -> &mut LogState = |s| s.caps().get_mut::<Self>();
        host::add_to_linker::<T, HasSelf<LogState>>(linker, state)?;
        // 0.1.x plugins import `host@0.1.x`: the same functions serve them.
        link_earlier(linker, "host", |older| {
            host::add_to_linker_instance::<T, HasSelf<LogState>>(older, state)
        })?;
        wasi_logging::wasi::logging::logging::add_to_linker::<T, HasSelf<LogState>>(linker, state)
    }
}

/// The bindings of `wasi:logging@0.1.0-draft` (`wit/wasi/`).
#[allow(missing_docs, clippy::all)]
mod wasi_logging {
    wasmtime::component::bindgen!({
        path: "wit/wasi/logging@0.1.0-draft",
        world: "imports",
        imports: { default: async },
    });
}

use wasi_logging::wasi::logging::logging as wasi_log;

impl From<wasi_log::Level> for LogLevel {
    fn from(level: wasi_log::Level) -> Self {
        match level {
            wasi_log::Level::Trace | wasi_log::Level::Debug => LogLevel::Debug,
            wasi_log::Level::Info => LogLevel::Info,
            wasi_log::Level::Warn => LogLevel::Warning,
            wasi_log::Level::Error => LogLevel::Error,
            wasi_log::Level::Critical => LogLevel::Critical,
        }
    }
}

/// `wasi:logging`'s `log` is the `host` interface's, its `context` (when
/// not empty) leading the message.
impl wasi_log::Host for LogState {
    async fn log(&mut self, level: wasi_log::Level, context: String, message: String) {
        let message = if context.is_empty() {
            message
        } else {
            format!("{context}: {message}")
        };
        self.write(LogLevel::from(level), message);
    }
}

/// One call's logging: where its messages go, and what it may still write.
pub struct LogState {
    plugin: Arc<str>,
    tool: Arc<str>,
    events: Arc<dyn CallEvents>,
    /// What the call may still write to the server's log (its captured
    /// stdout and stderr count too).
    pub budget: LogBudget,
    last_progress: Option<f64>,
    /// The plugin's grants: what they redact is redacted from every
    /// message (through the registry, whichever capability redacts).
    grants: Arc<Grants>,
}

impl std::fmt::Debug for LogState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogState")
            .field("plugin", &self.plugin)
            .field("tool", &self.tool)
            .field("budget", &self.budget)
            .field("last_progress", &self.last_progress)
            .finish_non_exhaustive()
    }
}

/// Logging has no policy to report, and hides nothing of its own: what it
/// writes is redacted by every capability that redacts.
impl Report for LoggingPolicy {}

impl Redaction for LoggingPolicy {}

impl CallHooks for LogState {
    /// Writes the guest's captured stdout and stderr to the server log, as
    /// far as the call's log budget goes, with the plugin's secrets
    /// redacted, then one line saying what the budget left out, if
    /// anything.
    fn finish(&mut self, end: &CallEnd<'_>) {
        let (plugin, tool) = (&*self.plugin, &*self.tool);
        let budget = &mut self.budget;
        for (stream, text, dropped) in &end.output {
            let text = self.grants.redact(text);
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                if budget.admit(line.len()) {
                    tracing::info!(target: "guest", plugin, tool, stream, "{line}");
                }
            }
            if *dropped > 0 {
                tracing::warn!(target: "guest", plugin, tool, stream, dropped, "guest output beyond the capture limit was dropped");
            }
        }
        if budget.exceeded() {
            let limits = end.limits;
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
                end.section,
                end.section,
                end.config_file,
            );
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

impl LogState {
    /// Writes one message of the guest's to the server log, within the
    /// call's budget, and sends it to the client.
    fn write(&mut self, level: LogLevel, message: String) {
        let message = self.grants.guest_message(message);
        let (plugin, tool) = (&*self.plugin, &*self.tool);
        let logged = self.budget.admit(message.len());
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
}

impl host::Host for LogState {
    async fn log(&mut self, level: types::LogLevel, message: String) {
        self.write(LogLevel::from(level), message);
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
            if self.budget.admit(LINE) {
                tracing::debug!(plugin = %self.plugin, tool = %self.tool, progress, "dropped a progress report that did not increase");
            }
            return;
        }
        self.last_progress = Some(progress);
        let total = total.filter(|t| t.is_finite());
        if self
            .budget
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
                // Redacted before the clip (a clip could cut a secret in
                // two), and again where every product of the guest leaves
                // for the client (`runtime::egress`).
                message: message.map(|m| self.grants.guest_message(m)),
            },
        );
    }
}
