//! A call's receipt: what one `tools/call` consumed (fuel, peak memory, wall
//! time), which plugin file served it (its name and SHA-256) and how it
//! ended. The same record is the call's audit log line (target `audit`) and,
//! unless the plugin's policy turns receipts off, goes back with the result.
//! It never holds the arguments or anything else the caller sent; the audit
//! line names the caller's authenticated subject (never a token).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::cache::Sha256Digest;
use crate::call::CallStats;
use crate::load::plugin::Plugin;
use crate::observe::{CallEnd, Observer};

/// What one call consumed and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receipt {
    /// The plugin that served the call.
    pub plugin: Arc<str>,
    /// The SHA-256 of the plugin's file, as `inspect` shows it.
    pub digest: Sha256Digest,
    /// The tool, as the client named it.
    pub tool: String,
    /// How the call ended: `ok`, `tool_error`, `timeout`, `trap`, … (the
    /// audit log's outcomes).
    pub outcome: &'static str,
    /// Wall time from the call's arrival to its end, waiting for a slot
    /// included.
    pub duration: Duration,
    /// Fuel the guest burnt (0 if no guest code ran).
    pub fuel_used: u64,
    /// The largest linear memory the guest reached, in bytes.
    pub peak_memory: u64,
    /// Who called (the authenticated subject), for the audit line; not
    /// sent back with the result.
    pub subject: Option<Arc<str>>,
}

impl Receipt {
    /// The receipt of a call of `tool` on `plugin` that started at `started`
    /// and ends now with `outcome`.
    pub(crate) fn new(
        plugin: &Plugin,
        tool: &str,
        outcome: &'static str,
        started: Instant,
        stats: Option<CallStats>,
        subject: Option<&Arc<str>>,
    ) -> Self {
        let stats = stats.unwrap_or_default();
        Receipt {
            plugin: plugin.name.clone(),
            digest: plugin.digest,
            tool: tool.to_string(),
            outcome,
            duration: started.elapsed(),
            fuel_used: stats.fuel_used,
            peak_memory: stats.peak_memory as u64,
            subject: subject.cloned(),
        }
    }

    /// Writes the receipt as the call's audit line, with the arguments when
    /// the plugin's policy asks for them (already redacted by the caller).
    pub(crate) fn audit(&self, arguments: Option<String>) {
        audit_line(
            Some(&self.plugin),
            Some(&self.digest),
            &self.tool,
            self.outcome,
            self.duration,
            self.fuel_used,
            self.peak_memory,
            self.subject.as_deref(),
            arguments,
        );
    }

    /// The call's end as the [`Observer`] sees it: `tool` is the name the
    /// catalog knows it by, `limit` the policy key of the limit that stopped
    /// it, and `ran` whether guest code ran (so fuel and memory count).
    pub(crate) fn observed<'a>(
        &'a self,
        tool: &'a str,
        limit: Option<&'static str>,
        ran: bool,
    ) -> CallEnd<'a> {
        CallEnd {
            plugin: &self.plugin,
            tool,
            outcome: self.outcome,
            limit,
            duration: self.duration,
            usage: ran.then_some((self.fuel_used, self.peak_memory)),
        }
    }

    /// The wall time in milliseconds, to the microsecond.
    pub fn wall_time_ms(&self) -> f64 {
        self.duration.as_micros() as f64 / 1000.0
    }
}

/// The audit line of a call no plugin served (an unknown tool).
pub(crate) fn audit_unknown(tool: &str, started: Instant, subject: Option<&Arc<str>>) {
    audit_line(
        None,
        None,
        tool,
        "unknown_tool",
        started.elapsed(),
        0,
        0,
        subject.map(|s| &**s),
        None,
    );
}

/// One structured line per call, target `audit`.
#[allow(clippy::too_many_arguments)] // the line's fields, each named once
fn audit_line(
    plugin: Option<&str>,
    digest: Option<&Sha256Digest>,
    tool: &str,
    outcome: &str,
    duration: Duration,
    fuel_used: u64,
    peak_memory: u64,
    subject: Option<&str>,
    arguments: Option<String>,
) {
    tracing::info!(
        target: "audit",
        plugin,
        sha256 = digest.map(tracing::field::display),
        tool,
        outcome,
        duration_us = duration.as_micros() as u64,
        fuel_used,
        peak_memory,
        subject,
        arguments,
        "call"
    );
}

/// Writes a call's audit line (outcome `cancelled`) if the call's future is
/// dropped before it finished.
pub(crate) struct Unfinished<'a> {
    pub(crate) plugin: &'a Plugin,
    pub(crate) tool: &'a str,
    /// The name the observer counts the call under (see [`CallEnd::tool`]).
    pub(crate) label: &'a str,
    pub(crate) observer: &'a dyn Observer,
    pub(crate) started: Instant,
    pub(crate) arguments: Option<&'a serde_json::Value>,
    pub(crate) subject: Option<&'a Arc<str>>,
    pub(crate) armed: bool,
}

impl Drop for Unfinished<'_> {
    fn drop(&mut self) {
        if self.armed {
            let arguments = self
                .arguments
                .map(|a| self.plugin.policy.grants.redacted(a.to_string()));
            let receipt = Receipt::new(
                self.plugin,
                self.tool,
                "cancelled",
                self.started,
                None,
                self.subject,
            );
            receipt.audit(arguments);
            self.observer
                .call_ended(&receipt.observed(self.label, None, false));
        }
    }
}
