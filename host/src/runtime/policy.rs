//! A plugin's effective policy: the limits every call runs under and the
//! capabilities its sandbox grants. Built by the configuration layer from
//! the policy file; deny by default.

use std::sync::Arc;
use std::time::Duration;

use super::cache::Sha256Digest;
use super::capabilities::Grants;

/// Per-call resource limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Fuel (roughly, wasm instructions) one call may burn.
    pub fuel: u64,
    /// The most linear memory one instance may have, in bytes.
    pub memory_bytes: u64,
    /// The most elements one table may have.
    pub table_elements: u64,
    /// The most core instances, tables and memories one call may create.
    pub instances: u32,
    /// See [`Limits::instances`].
    pub tables: u32,
    /// See [`Limits::instances`].
    pub memories: u32,
    /// Wall-clock time one call may take, waiting for a slot included.
    pub timeout: Duration,
    /// Calls of this plugin that may run at once; more wait for a slot.
    pub max_concurrent_calls: u32,
    /// The largest arguments object accepted, serialized, in bytes.
    pub max_argument_bytes: u64,
    /// The largest result accepted, in bytes of content.
    pub max_result_bytes: u64,
    /// Calls per minute per tool; 0 turns rate limiting off.
    pub rate_limit_per_minute: u32,
    /// Write each call's arguments into the audit log line.
    pub audit_arguments: bool,
    /// Lines one call may write to the server's log (its log messages, its
    /// stdout and stderr lines, its progress lines); later ones are counted
    /// and dropped.
    pub log_lines: u64,
    /// Bytes those lines may hold together.
    pub log_bytes: u64,
    /// Host-side WASI handles (streams, pollables, files, sockets) one call
    /// may hold at once; each costs host memory, which the guest's memory
    /// limit does not count.
    pub host_resources: u32,
    /// The most tools a plugin may list.
    pub max_tools: u32,
    /// The largest input or output schema a tool may declare, in bytes of
    /// its JSON text.
    pub max_schema_bytes: u64,
    /// The most bytes a plugin's whole tool list may hold: names, titles,
    /// descriptions and schemas together.
    pub max_tool_list_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            fuel: 1_000_000_000,
            memory_bytes: 128 << 20,
            table_elements: 100_000,
            instances: 64,
            tables: 64,
            memories: 16,
            timeout: Duration::from_secs(10),
            max_concurrent_calls: 16,
            max_argument_bytes: 1 << 20,
            max_result_bytes: 8 << 20,
            rate_limit_per_minute: 1200,
            audit_arguments: false,
            log_lines: 1000,
            log_bytes: 1 << 20,
            host_resources: 10_000,
            // A demanding plugin lists a few hundred tools whose schemas are
            // a few KiB (300 tools with 2 KiB input and output schemas hold
            // about 1.3 MiB). Compiling a schema costs up to about 65 times
            // its JSON text in host memory (many small property schemas), so
            // the worst tool list these bounds admit costs about 130 MiB.
            max_tools: 1000,
            max_schema_bytes: 64 << 10,
            max_tool_list_bytes: 2 << 20,
        }
    }
}

/// Everything a plugin's calls run under.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Policy {
    /// Resource limits.
    pub limits: Limits,
    /// What each capability grants (nothing by default).
    pub grants: Grants,
    /// The SHA-256 the plugin file must have; a file with another digest is
    /// refused at load.
    pub sha256: Option<Sha256Digest>,
    /// The policy file section that grants more, e.g. `plugins.text`, for
    /// messages to denied guests.
    pub section: String,
    /// The policy file, for the same messages.
    pub config_file: String,
}

impl Policy {
    /// Where a user raises the limit `key` for this plugin:
    /// ``raise `plugins.NAME.key` in FILE``.
    pub fn raise_hint(&self, key: &str) -> String {
        format!("raise `{}.{key}` in {}", self.section, self.config_file)
    }
}

/// Gives each plugin its policy. The configuration layer implements it.
pub trait Policies: Send + Sync {
    /// The policy for the plugin named `plugin` (its file stem), or why it
    /// cannot be built (for example a mount whose directory is missing).
    fn policy_for(&self, plugin: &str) -> Result<Policy, String>;
}

/// Every plugin gets the defaults and no capabilities.
#[derive(Debug, Clone, Default)]
pub struct DefaultPolicies {
    /// The limits every plugin gets.
    pub limits: Limits,
}

impl Policies for DefaultPolicies {
    fn policy_for(&self, plugin: &str) -> Result<Policy, String> {
        Ok(Policy {
            limits: self.limits.clone(),
            section: format!("plugins.{plugin}"),
            config_file: "mcp-wasm-host.toml".into(),
            ..Policy::default()
        })
    }
}

/// Shared handle to a policy source.
pub type PolicySource = Arc<dyn Policies>;

/// Formats a byte count the way the README and messages write it.
pub fn bytes(n: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (size, unit) in UNITS {
        if n >= size && n.is_multiple_of(size) {
            return format!("{} {unit}", n / size);
        }
    }
    if n >= 1 << 20 {
        return format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64);
    }
    format!("{n} bytes")
}

/// Formats a count with thousands separators: `1,000,000,000`.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Formats a duration: `5 s`, `250 ms`, `1.5 s`.
pub fn duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_read_naturally() {
        assert_eq!(count(1_000_000_000), "1,000,000,000");
        assert_eq!(count(999), "999");
        assert_eq!(bytes(64 << 20), "64 MiB");
        assert_eq!(bytes(1 << 30), "1 GiB");
        assert_eq!(bytes(1500), "1500 bytes");
        assert_eq!(duration(Duration::from_secs(5)), "5 s");
        assert_eq!(duration(Duration::from_millis(250)), "250 ms");
        assert_eq!(duration(Duration::from_millis(1500)), "1.5 s");
    }
}
