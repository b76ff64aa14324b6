//! `[server]`: the settings of the server as a whole (tasks, bounds on
//! URIs and subscriptions, HTTP sessions, plugin fetches, OAuth), read at
//! start and checked with the rest of the file.

use std::time::Duration;

use bytesize::ByteSize;
use mcp_wasm_host_runtime::ToolClash;
use serde::Deserialize;

use super::Config;
use super::ConfigError;
use super::oauth::{self, OAuthSpec};
use super::store::{StoreChoice, StoreSpec};

/// How the server keeps tasks (`[server]`'s task keys; see "Tasks" in
/// docs/protocol.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskSettings {
    /// A task-supporting call that ends (or asks the client something)
    /// within this time answers like an ordinary call; a longer one becomes
    /// a task then. Zero: every such call is a task at once.
    pub sync_window: Duration,
    /// How long a finished task stays readable after its run's deadline.
    pub result_ttl: Duration,
    /// The interval between polls suggested to clients.
    pub poll_interval: Duration,
    /// The most tasks kept at once, running or finished.
    pub max_tasks: usize,
    /// The most bytes the finished tasks' results may hold together.
    pub max_store_bytes: u64,
    /// With a shared store: how long the replica running a task holds it
    /// without renewing its lease (it renews every third of this). A task
    /// whose lease expired reads `failed`: its replica was lost.
    pub lease: Duration,
}

impl Default for TaskSettings {
    fn default() -> Self {
        TaskSettings {
            sync_window: Duration::from_millis(100),
            result_ttl: Duration::from_secs(15 * 60),
            poll_interval: Duration::from_secs(1),
            max_tasks: 1000,
            max_store_bytes: 256 << 20,
            lease: Duration::from_secs(10),
        }
    }
}

/// Bounds on the URIs clients send and on what they keep watching
/// (`[server]`'s `max_uri_size`, `max_subscriptions`, `max_watched_size`
/// and `max_listen_streams`; see "The server section" in docs/policy.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServedBounds {
    /// The longest URI a request may name (`resources/read`,
    /// `resources/subscribe`, a listen's `resourceSubscriptions`,
    /// `completion/complete`'s `ref/resource`).
    pub max_uri_bytes: usize,
    /// The most URIs one session (`resources/subscribe`) or one
    /// `subscriptions/listen` stream watches.
    pub max_subscriptions: usize,
    /// The bytes every watched URI of the server holds together.
    pub max_watched_bytes: usize,
    /// The `subscriptions/listen` streams open at once.
    pub max_listen_streams: usize,
}

impl Default for ServedBounds {
    fn default() -> Self {
        ServedBounds {
            max_uri_bytes: 8 << 10,
            max_subscriptions: 1024,
            max_watched_bytes: 64 << 20,
            max_listen_streams: 1024,
        }
    }
}

/// How many HTTP sessions the server holds, and how long an idle one
/// lives (`[server]`'s session keys; see "Sessions" in docs/http.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionSettings {
    /// The most sessions open at once.
    pub max_sessions: usize,
    /// The most sessions one OAuth subject may hold at once; 0: no bound.
    pub max_per_subject: usize,
    /// The most sessions one client IP address may hold at once; 0: no
    /// bound.
    pub max_per_address: usize,
    /// A session that receives nothing for this long is closed.
    pub idle_timeout: Duration,
}

impl Default for SessionSettings {
    fn default() -> Self {
        SessionSettings {
            max_sessions: 1000,
            max_per_subject: 100,
            max_per_address: 0,
            idle_timeout: Duration::from_secs(5 * 60),
        }
    }
}

/// `[server] tool_clash`: what becomes of a tool name two or more plugins
/// export (see "Tool names" in docs/policy.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum ToolClashSpec {
    /// Every exporter's tool becomes `<plugin>.<name>` (the default).
    Qualify,
    /// The plugin already serving the name keeps it; later ones are qualified.
    Prefix,
    /// The plugin already serving the name keeps it; later ones' tools of
    /// that name are left out.
    Refuse,
}

/// `[server]`: what applies to the server as a whole, read at start.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ServerSpec {
    /// How long a 2026-07-28 client may cache a list result (`ttlMs`).
    pub(super) list_ttl: Option<humantime_serde::Serde<Duration>>,
    /// What becomes of a tool name two or more plugins export.
    pub(super) tool_clash: Option<ToolClashSpec>,
    /// A task-supporting call that ends within this time answers directly.
    pub(super) task_sync_window: Option<humantime_serde::Serde<Duration>>,
    /// How long a finished task's result is kept.
    pub(super) task_result_ttl: Option<humantime_serde::Serde<Duration>>,
    /// The poll interval suggested to clients.
    pub(super) task_poll_interval: Option<humantime_serde::Serde<Duration>>,
    /// The most tasks kept at once, running or finished.
    pub(super) max_tasks: Option<usize>,
    /// The most bytes the finished tasks' results may hold together.
    pub(super) max_task_store_size: Option<ByteSize>,
    /// The longest URI a request may name.
    pub(super) max_uri_size: Option<ByteSize>,
    /// The most URIs one session or listen stream watches.
    pub(super) max_subscriptions: Option<usize>,
    /// The bytes every watched URI holds together.
    pub(super) max_watched_size: Option<ByteSize>,
    /// The listen streams open at once.
    pub(super) max_listen_streams: Option<usize>,
    /// Registries (`host` or `host:port`) reached over plain HTTP besides
    /// the loopback ones.
    pub(super) plain_http_registries: Option<Vec<String>>,
    /// How long a plugin fetch waits for a connection.
    pub(super) fetch_connect_timeout: Option<humantime_serde::Serde<Duration>>,
    /// How long a plugin fetch waits for the first byte of an answer (and
    /// for each next byte).
    pub(super) fetch_first_byte_timeout: Option<humantime_serde::Serde<Duration>>,
    /// How long one plugin's whole fetch may take.
    pub(super) fetch_timeout: Option<humantime_serde::Serde<Duration>>,
    /// The most HTTP sessions open at once.
    pub(super) max_sessions: Option<usize>,
    /// The most HTTP sessions one OAuth subject may hold; 0: no bound.
    pub(super) max_sessions_per_subject: Option<usize>,
    /// The most HTTP sessions one client address may hold; 0: no bound.
    pub(super) max_sessions_per_address: Option<usize>,
    /// An HTTP session that receives nothing for this long is closed.
    pub(super) session_idle_timeout: Option<humantime_serde::Serde<Duration>>,
    /// `[server.oauth]`: the HTTP transport is an OAuth 2.1 resource server.
    pub(super) oauth: Option<OAuthSpec>,
    /// Where the state store is (none: the embedded file).
    pub(super) store: Option<StoreSpec>,
}

impl ServerSpec {
    /// Refuses a value out of range, naming its key below `server.`.
    pub(super) fn check(&self) -> Result<(), (String, String)> {
        if self.task_result_ttl.is_some_and(|t| t.is_zero()) {
            return Err(("task_result_ttl".into(), "must be longer than zero".into()));
        }
        if self.task_poll_interval.is_some_and(|t| t.as_millis() == 0) {
            return Err(("task_poll_interval".into(), "must be at least 1ms".into()));
        }
        if self.max_tasks == Some(0) {
            return Err(("max_tasks".into(), "must be at least 1".into()));
        }
        for (key, value) in [
            ("fetch_connect_timeout", self.fetch_connect_timeout),
            ("fetch_first_byte_timeout", self.fetch_first_byte_timeout),
            ("fetch_timeout", self.fetch_timeout),
        ] {
            if value.is_some_and(|t| t.as_millis() == 0) {
                return Err((key.into(), "must be at least 1ms".into()));
            }
        }
        for (key, value) in [
            ("max_uri_size", self.max_uri_size.map(|b| b.as_u64())),
            (
                "max_subscriptions",
                self.max_subscriptions.map(|n| n as u64),
            ),
            (
                "max_watched_size",
                self.max_watched_size.map(|b| b.as_u64()),
            ),
            (
                "max_listen_streams",
                self.max_listen_streams.map(|n| n as u64),
            ),
        ] {
            if value == Some(0) {
                return Err((key.into(), "must be at least 1".into()));
            }
        }
        if self.max_sessions == Some(0) {
            return Err(("max_sessions".into(), "must be at least 1".into()));
        }
        if self
            .session_idle_timeout
            .is_some_and(|t| t.as_millis() == 0)
        {
            return Err(("session_idle_timeout".into(), "must be at least 1ms".into()));
        }
        if let Some(oauth) = &self.oauth {
            oauth::check(oauth).map_err(|(k, p)| (format!("oauth.{k}"), p))?;
        }
        if let Some(store) = &self.store {
            store.check()?;
        }
        Ok(())
    }
}

impl Config {
    /// `[server] tool_clash`: what becomes of a tool name two or more
    /// plugins export; read again on every reload of the file.
    pub fn tool_clash(&self) -> ToolClash {
        match self.server.tool_clash {
            None | Some(ToolClashSpec::Qualify) => ToolClash::Qualify,
            Some(ToolClashSpec::Prefix) => ToolClash::Prefix,
            Some(ToolClashSpec::Refuse) => ToolClash::Refuse,
        }
    }

    /// `[server] list_ttl`: how long clients may cache list results, if the
    /// file sets it.
    pub fn list_ttl(&self) -> Option<Duration> {
        self.server.list_ttl.as_ref().map(|t| **t)
    }

    /// `[server]`'s task keys over `defaults` (the keys the file leaves
    /// out keep their default).
    pub fn task_options(&self, defaults: TaskSettings) -> TaskSettings {
        let s = &self.server;
        TaskSettings {
            sync_window: s.task_sync_window.map_or(defaults.sync_window, |t| *t),
            result_ttl: s.task_result_ttl.map_or(defaults.result_ttl, |t| *t),
            poll_interval: s.task_poll_interval.map_or(defaults.poll_interval, |t| *t),
            max_tasks: s.max_tasks.unwrap_or(defaults.max_tasks),
            max_store_bytes: s
                .max_task_store_size
                .map_or(defaults.max_store_bytes, |b| b.as_u64()),
            lease: defaults.lease,
        }
    }

    /// `[server]`'s bounds on URIs and subscriptions over `defaults` (the
    /// keys the file leaves out keep their default).
    pub fn served_bounds(&self, defaults: ServedBounds) -> ServedBounds {
        let s = &self.server;
        let size = |b: Option<ByteSize>, default: usize| {
            b.map_or(default, |b| {
                usize::try_from(b.as_u64()).unwrap_or(usize::MAX)
            })
        };
        ServedBounds {
            max_uri_bytes: size(s.max_uri_size, defaults.max_uri_bytes),
            max_subscriptions: s.max_subscriptions.unwrap_or(defaults.max_subscriptions),
            max_watched_bytes: size(s.max_watched_size, defaults.max_watched_bytes),
            max_listen_streams: s.max_listen_streams.unwrap_or(defaults.max_listen_streams),
        }
    }

    /// `[server] store`: where the state store is, with its password read
    /// (from the variable or file the key names).
    pub fn store(&self) -> Result<StoreChoice, ConfigError> {
        let Some(spec) = &self.server.store else {
            return Ok(StoreChoice::Embedded);
        };
        spec.choice(&self.base)
            .map_err(|(key, problem)| ConfigError::Invalid {
                path: self.path.clone(),
                key: format!("server.{key}"),
                problem,
            })
    }

    /// `[server]`'s session keys (the keys the file leaves out keep their
    /// default).
    pub fn session_options(&self) -> SessionSettings {
        let s = &self.server;
        let d = SessionSettings::default();
        SessionSettings {
            max_sessions: s.max_sessions.unwrap_or(d.max_sessions),
            max_per_subject: s.max_sessions_per_subject.unwrap_or(d.max_per_subject),
            max_per_address: s.max_sessions_per_address.unwrap_or(d.max_per_address),
            idle_timeout: s.session_idle_timeout.map_or(d.idle_timeout, |t| *t),
        }
    }
}

#[cfg(test)]
mod tests;
