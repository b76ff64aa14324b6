//! The bounds every fetch is held to, and the keys that set them, so that
//! a refusal can name what would raise it: how long to wait for a
//! connection, for the first byte of each answer, and for the whole fetch,
//! and how large a fetched component may be.

use std::time::Duration;

/// The default `fetch_connect_timeout`.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The default `fetch_first_byte_timeout`.
pub const DEFAULT_FIRST_BYTE_TIMEOUT: Duration = Duration::from_secs(30);
/// The default `fetch_timeout`.
pub const DEFAULT_FETCH_TIMEOUT: Duration = Duration::from_secs(300);
/// The default `max_plugin_size`.
pub const DEFAULT_MAX_PLUGIN_SIZE: u64 = 256 << 20;
/// The most bytes a manifest may have (the OCI distribution spec's
/// recommended minimum that registries accept).
pub const MAX_MANIFEST_SIZE: u64 = 4 << 20;
/// The most bytes a signature payload may have.
pub const MAX_PAYLOAD_SIZE: u64 = 64 << 10;

/// A bound and the key (or flag) that sets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound<T> {
    /// The value.
    pub value: T,
    /// What sets it: `server.fetch_timeout`, `--timeout`, …
    pub key: String,
}

impl<T> Bound<T> {
    /// `value`, set by `key`.
    pub fn new(value: T, key: impl Into<String>) -> Self {
        Bound {
            value,
            key: key.into(),
        }
    }
}

/// How long a fetch may wait.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchTimeouts {
    /// For a TCP (and TLS) connection.
    pub connect: Bound<Duration>,
    /// For the first byte of an answer, and between reads of a body.
    pub first_byte: Bound<Duration>,
    /// For the whole fetch of one plugin: tag, manifest, signatures and
    /// component.
    pub total: Bound<Duration>,
}

impl FetchTimeouts {
    /// The defaults, named by the policy's `[server]` keys.
    pub fn policy_defaults() -> Self {
        FetchTimeouts {
            connect: Bound::new(DEFAULT_CONNECT_TIMEOUT, "server.fetch_connect_timeout"),
            first_byte: Bound::new(
                DEFAULT_FIRST_BYTE_TIMEOUT,
                "server.fetch_first_byte_timeout",
            ),
            total: Bound::new(DEFAULT_FETCH_TIMEOUT, "server.fetch_timeout"),
        }
    }
}

impl Default for FetchTimeouts {
    fn default() -> Self {
        Self::policy_defaults()
    }
}

/// A duration as the policy file spells it (`"30s"`, `"500ms"`).
pub fn spelled(d: Duration) -> String {
    humantime_serde::re::humantime::format_duration(d).to_string()
}
