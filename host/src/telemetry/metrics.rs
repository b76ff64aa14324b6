//! The server's Prometheus metrics, in the OpenMetrics text format at
//! `/metrics`: calls by plugin, tool and outcome, their duration, fuel and
//! peak memory, the calls running and waiting for a slot, the limits that
//! stopped calls, the plugins loaded and the reloads, and the open HTTP
//! sessions. The runtime feeds them through its [`Observer`] seam.
//!
//! Every label value comes from a loaded plugin (its name, and its tools'
//! names) or from a fixed list (outcomes, limit keys), never from what a
//! client sent: a call of an unknown tool only counts in
//! `mcp_wasm_host_unknown_tool_calls_total`, so clients cannot create
//! series.

use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use axum::Router;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use crate::runtime::{CallEnd, Observer, Phase};

/// The path metrics are served at.
pub const PATH: &str = "/metrics";

/// The prefix of every metric's name.
pub const PREFIX: &str = "mcp_wasm_host";

/// The content type of the OpenMetrics text format.
const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    plugin: String,
    tool: String,
    outcome: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ToolLabels {
    plugin: String,
    tool: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LimitLabels {
    plugin: String,
    tool: String,
    limit: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PluginLabels {
    plugin: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReloadLabels {
    result: &'static str,
}

type Histograms = Family<ToolLabels, Histogram, fn() -> Histogram>;

/// Counts the open HTTP sessions when asked: the transport hands it a way
/// to count them once it has a session manager.
#[derive(Clone, Default)]
pub struct SessionCount(Arc<OnceLock<Box<CountFn>>>);

/// Counts the sessions, or `None` when they cannot be counted right now.
type CountFn = dyn Fn() -> Option<usize> + Send + Sync;

impl fmt::Debug for SessionCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionCount")
            .field("set", &self.0.get().is_some())
            .finish()
    }
}

impl SessionCount {
    /// Counts the sessions with `count` (`None` when they cannot be counted
    /// right now; the last count is kept then). Only the first call counts.
    pub fn count_with(&self, count: impl Fn() -> Option<usize> + Send + Sync + 'static) {
        let _ = self.0.set(Box::new(count));
    }

    fn get(&self) -> Option<usize> {
        self.0.get().and_then(|count| count())
    }
}

/// The registry and every metric in it.
pub struct Metrics {
    registry: Mutex<Registry>,
    calls: Family<CallLabels, Counter>,
    duration: Histograms,
    fuel: Histograms,
    memory: Histograms,
    limits: Family<LimitLabels, Counter>,
    unknown: Counter,
    waiting: Family<PluginLabels, Gauge>,
    running: Family<PluginLabels, Gauge>,
    plugins: Gauge,
    load_failures: Counter,
    reloads: Family<ReloadLabels, Counter>,
    sessions: Gauge,
    session_count: SessionCount,
}

impl fmt::Debug for Metrics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

/// Seconds: 1 ms to about 65 s, doubling.
fn duration_buckets() -> Histogram {
    Histogram::new(exponential_buckets(0.001, 2.0, 17))
}

/// Fuel units: 10 thousand to 10 billion, times 10.
fn fuel_buckets() -> Histogram {
    Histogram::new(exponential_buckets(1e4, 10.0, 7))
}

/// Bytes: 64 KiB to 1 GiB, times 4.
fn memory_buckets() -> Histogram {
    Histogram::new(exponential_buckets(65536.0, 4.0, 8))
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// Every metric, registered, at zero.
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix(PREFIX);
        let m = Metrics {
            registry: Mutex::new(Registry::default()),
            calls: Family::default(),
            duration: Family::new_with_constructor(duration_buckets),
            fuel: Family::new_with_constructor(fuel_buckets),
            memory: Family::new_with_constructor(memory_buckets),
            limits: Family::default(),
            unknown: Counter::default(),
            waiting: Family::default(),
            running: Family::default(),
            plugins: Gauge::default(),
            load_failures: Counter::default(),
            reloads: Family::default(),
            sessions: Gauge::default(),
            session_count: SessionCount::default(),
        };
        registry.register(
            "calls",
            "Calls of tools (and resource reads, prompts and completions, by request name) that ended, by plugin, tool and outcome",
            m.calls.clone(),
        );
        registry.register(
            "call_duration_seconds",
            "Wall time of a call from its arrival to its end, waiting for a slot included",
            m.duration.clone(),
        );
        registry.register(
            "call_fuel",
            "Fuel a call's guest burnt (about one unit per wasm instruction), for calls whose guest ran",
            m.fuel.clone(),
        );
        registry.register(
            "call_peak_memory_bytes",
            "The largest linear memory a call's guest reached, for calls whose guest ran",
            m.memory.clone(),
        );
        registry.register(
            "limit_hits",
            "Calls a limit stopped, by plugin, tool and the limit's policy key",
            m.limits.clone(),
        );
        registry.register(
            "unknown_tool_calls",
            "Calls of a tool no loaded plugin has",
            m.unknown.clone(),
        );
        registry.register(
            "calls_waiting",
            "Calls waiting for one of their plugin's slots (max_concurrent_calls)",
            m.waiting.clone(),
        );
        registry.register(
            "calls_running",
            "Calls running in their sandbox",
            m.running.clone(),
        );
        registry.register(
            "plugins_loaded",
            "Plugins in the catalog",
            m.plugins.clone(),
        );
        registry.register(
            "plugin_load_failures",
            "Plugin files that failed to load, at start or on a reload",
            m.load_failures.clone(),
        );
        registry.register(
            "reloads",
            "Reloads of plugin files after a change, by result (ok: every file loaded)",
            m.reloads.clone(),
        );
        registry.register(
            "http_sessions",
            "Open Streamable HTTP sessions",
            m.sessions.clone(),
        );
        *m.registry.lock().unwrap_or_else(PoisonError::into_inner) = registry;
        m
    }

    /// Where the HTTP transport says how to count its sessions.
    pub fn session_count(&self) -> SessionCount {
        self.session_count.clone()
    }

    /// Every metric in the OpenMetrics text format.
    pub fn encode(&self) -> String {
        if let Some(n) = self.session_count.get() {
            self.sessions.set(n as i64);
        }
        let mut out = String::new();
        let registry = self.registry.lock().unwrap_or_else(PoisonError::into_inner);
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &registry);
        out
    }

    /// `/metrics`.
    pub fn routes(self: &Arc<Self>) -> Router {
        let metrics = self.clone();
        Router::new().route(
            PATH,
            get(move || {
                let metrics = metrics.clone();
                async move {
                    (
                        StatusCode::OK,
                        [(header::CONTENT_TYPE, CONTENT_TYPE)],
                        metrics.encode(),
                    )
                        .into_response()
                }
            }),
        )
    }
}

impl Observer for Metrics {
    fn call_ended(&self, end: &CallEnd<'_>) {
        let (plugin, tool) = (end.plugin.to_string(), end.tool.to_string());
        self.calls
            .get_or_create(&CallLabels {
                plugin: plugin.clone(),
                tool: tool.clone(),
                outcome: end.outcome,
            })
            .inc();
        if let Some(limit) = end.limit {
            self.limits
                .get_or_create(&LimitLabels {
                    plugin: plugin.clone(),
                    tool: tool.clone(),
                    limit,
                })
                .inc();
        }
        let labels = ToolLabels { plugin, tool };
        self.duration
            .get_or_create(&labels)
            .observe(end.duration.as_secs_f64());
        if let Some((fuel, memory)) = end.usage {
            self.fuel.get_or_create(&labels).observe(fuel as f64);
            self.memory.get_or_create(&labels).observe(memory as f64);
        }
    }

    fn unknown_tool(&self) {
        self.unknown.inc();
    }

    fn phase(&self, plugin: &str, phase: Phase, entered: bool) {
        let family = match phase {
            Phase::Waiting => &self.waiting,
            Phase::Running => &self.running,
        };
        let gauge = family.get_or_create(&PluginLabels {
            plugin: plugin.to_string(),
        });
        if entered {
            gauge.inc();
        } else {
            gauge.dec();
        }
    }

    fn plugins_loaded(&self, plugins: usize) {
        self.plugins.set(plugins as i64);
    }

    fn load_failed(&self) {
        self.load_failures.inc();
    }

    fn reloaded(&self, ok: bool) {
        let result = if ok { "ok" } else { "failed" };
        self.reloads.get_or_create(&ReloadLabels { result }).inc();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_call_counts_by_outcome_and_its_limit_and_usage() {
        let m = Metrics::new();
        let end = CallEnd {
            plugin: "p",
            tool: "t",
            outcome: "out_of_fuel",
            limit: Some("fuel"),
            duration: Duration::from_millis(3),
            usage: Some((1_000, 65_536)),
        };
        m.call_ended(&end);
        m.unknown_tool();
        let text = m.encode();
        for line in [
            "mcp_wasm_host_calls_total{plugin=\"p\",tool=\"t\",outcome=\"out_of_fuel\"} 1",
            "mcp_wasm_host_limit_hits_total{plugin=\"p\",tool=\"t\",limit=\"fuel\"} 1",
            "mcp_wasm_host_call_fuel_count{plugin=\"p\",tool=\"t\"} 1",
            "mcp_wasm_host_call_peak_memory_bytes_count{plugin=\"p\",tool=\"t\"} 1",
            "mcp_wasm_host_unknown_tool_calls_total 1",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} not in\n{text}");
        }
    }
}
