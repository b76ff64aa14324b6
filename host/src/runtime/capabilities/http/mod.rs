//! Outbound HTTP (`wasi:http/outgoing-handler`): the `http` section of a
//! plugin's policy (the origins it may reach, the methods, the internal
//! addresses it may reach, and the limits of its requests), and the sender
//! that enforces it on every request. Nothing is reachable by default.

pub mod address;
pub mod origin;
pub mod outbound;
pub mod tls;

use std::path::{Path, PathBuf};
use std::time::Duration;

use bytesize::ByteSize;
use serde::Deserialize;

use self::address::AddressGrants;
use self::origin::{HostPattern, OriginPattern};
use super::super::policy::{bytes, duration};

/// `[plugins.NAME.http]` (and `[defaults.http]`, limits only), as written.
#[derive(Debug, Default, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpSpec {
    allow: Option<Vec<String>>,
    methods: Option<Vec<String>>,
    allow_addresses: Option<Vec<String>>,
    max_requests: Option<u32>,
    max_request_body: Option<ByteSize>,
    max_response_body: Option<ByteSize>,
    #[serde(default, with = "humantime_serde")]
    connect_timeout: Option<Duration>,
    #[serde(default, with = "humantime_serde")]
    first_byte_timeout: Option<Duration>,
    ca_file: Option<PathBuf>,
}

/// The limits on one call's outbound requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpLimits {
    /// Requests one call may send.
    pub max_requests: u32,
    /// The largest request body, in bytes.
    pub max_request_body: u64,
    /// The largest response body, in bytes.
    pub max_response_body: u64,
    /// Time to connect (TCP and TLS).
    pub connect_timeout: Duration,
    /// Time from sending the request to the response's head.
    pub first_byte_timeout: Duration,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            max_requests: 32,
            max_request_body: 1 << 20,
            max_response_body: 8 << 20,
            connect_timeout: Duration::from_secs(5),
            first_byte_timeout: Duration::from_secs(10),
        }
    }
}

/// The methods an allow-list grants when it does not say.
pub const ANY_METHOD: &str = "any method";

/// A plugin's effective HTTP policy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpPolicy {
    /// The origins (and path prefixes) it may reach; empty: none.
    pub allow: Vec<OriginPattern>,
    /// The methods it may use (uppercase); empty: any.
    pub methods: Vec<String>,
    /// Internal addresses it may reach: `allow_addresses`, and the address
    /// literals of `allow`.
    pub addresses: AddressGrants,
    /// What `allow_addresses` says, for reports.
    pub named_addresses: Vec<String>,
    /// Its limits.
    pub limits: HttpLimits,
    /// The certificates it trusts for https.
    pub tls: tls::Trust,
}

/// A key and what is wrong with its value.
pub type Problem = (String, String);

impl HttpSpec {
    /// Checks the section at `prefix` (e.g. `plugins.fetch`); `defaults`
    /// says it is `[defaults.http]`, which may only set limits.
    pub fn check(&self, prefix: &str, defaults: bool) -> Result<(), Problem> {
        let key = |k: &str| format!("{prefix}.http.{k}");
        if defaults {
            for (k, set) in [
                ("allow", self.allow.is_some()),
                ("methods", self.methods.is_some()),
                ("allow_addresses", self.allow_addresses.is_some()),
            ] {
                if set {
                    return Err((
                        key(k),
                        "capabilities are granted per plugin, in [plugins.NAME.http], never in [defaults]; only limits may be set here".into(),
                    ));
                }
            }
        }
        for entry in self.allow.iter().flatten() {
            OriginPattern::parse(entry).map_err(|e| (key("allow"), e))?;
        }
        for m in self.methods.iter().flatten() {
            if m.is_empty() || !m.bytes().all(|b| b.is_ascii_alphabetic()) {
                return Err((key("methods"), format!("{m:?} is not an HTTP method")));
            }
        }
        AddressGrants::parse(self.allow_addresses.as_deref().unwrap_or_default())
            .map_err(|e| (key("allow_addresses"), e))?;
        if self.max_requests == Some(0) {
            return Err((
                key("max_requests"),
                "must be at least 1 (leave `allow` empty to grant nothing)".into(),
            ));
        }
        for (k, t) in [
            ("connect_timeout", self.connect_timeout),
            ("first_byte_timeout", self.first_byte_timeout),
        ] {
            if t.is_some_and(|t| t.is_zero()) {
                return Err((key(k), "must be longer than zero".into()));
            }
        }
        Ok(())
    }

    /// The effective policy: `plugin`'s grants, its limits over `defaults`'.
    /// Both were checked with [`HttpSpec::check`].
    /// `base` is the policy file's directory, for a relative `ca_file`.
    pub fn resolve(
        defaults: &HttpSpec,
        plugin: Option<&HttpSpec>,
        prefix: &str,
        base: &Path,
    ) -> Result<HttpPolicy, String> {
        let mut limits = HttpLimits::default();
        let mut ca_file = None;
        for spec in std::iter::once(defaults).chain(plugin) {
            ca_file = spec.ca_file.as_ref().or(ca_file);
            let l = &mut limits;
            l.max_requests = spec.max_requests.unwrap_or(l.max_requests);
            l.max_request_body = spec.max_request_body.map_or(l.max_request_body, |b| b.0);
            l.max_response_body = spec.max_response_body.map_or(l.max_response_body, |b| b.0);
            l.connect_timeout = spec.connect_timeout.unwrap_or(l.connect_timeout);
            l.first_byte_timeout = spec.first_byte_timeout.unwrap_or(l.first_byte_timeout);
        }
        let tls = match ca_file {
            Some(file) => tls::Trust::with_roots(&base.join(file))
                .map_err(|e| format!("`{prefix}.http.ca_file`: {e}"))?,
            None => tls::Trust::default(),
        };
        let Some(spec) = plugin else {
            return Ok(HttpPolicy {
                limits,
                tls,
                ..HttpPolicy::default()
            });
        };
        let allow = spec
            .allow
            .iter()
            .flatten()
            .map(|e| OriginPattern::parse(e))
            .collect::<Result<Vec<_>, _>>()?;
        let named_addresses = spec.allow_addresses.clone().unwrap_or_default();
        let mut addresses = AddressGrants::parse(&named_addresses)?;
        for entry in &allow {
            if let HostPattern::Ip(ip) = entry.host {
                addresses.add(ip);
            }
        }
        let mut methods: Vec<String> = spec
            .methods
            .iter()
            .flatten()
            .map(|m| m.to_ascii_uppercase())
            .collect();
        methods.dedup();
        Ok(HttpPolicy {
            allow,
            methods,
            addresses,
            named_addresses,
            limits,
            tls,
        })
    }
}

impl HttpPolicy {
    /// The entry that grants `target`, if any.
    pub fn granting(&self, target: &origin::Target) -> Option<&OriginPattern> {
        self.allow.iter().find(|e| e.matches(target))
    }

    /// Whether `method` (uppercase) is allowed.
    pub fn allows_method(&self, method: &str) -> bool {
        self.methods.is_empty() || self.methods.iter().any(|m| m == method)
    }

    /// The policy's report lines: the origins, then the methods, the
    /// internal addresses and the limits, when anything is granted.
    pub fn report(&self) -> Vec<(&'static str, String)> {
        if self.allow.is_empty() {
            return vec![("http", "none".into())];
        }
        let mut rows: Vec<(&'static str, String)> = self
            .allow
            .iter()
            .enumerate()
            .map(|(i, e)| (if i == 0 { "http" } else { "" }, e.to_string()))
            .collect();
        let methods = if self.methods.is_empty() {
            ANY_METHOD.to_string()
        } else {
            self.methods.join(", ")
        };
        rows.push(("", format!("methods: {methods}")));
        if !self.addresses.is_empty() {
            rows.push((
                "",
                format!(
                    "internal addresses: {}",
                    self.addresses.entries().collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        let l = &self.limits;
        if let Some(file) = self.tls.ca_file() {
            rows.push((
                "",
                format!("also trusts the certificates in {}", file.display()),
            ));
        }
        rows.push((
            "",
            format!(
                "{} requests per call; bodies up to {} sent, {} received; connect {}, first byte {}",
                l.max_requests,
                bytes(l.max_request_body),
                bytes(l.max_response_body),
                duration(l.connect_timeout),
                duration(l.first_byte_timeout)
            ),
        ));
        rows
    }

    /// The policy as JSON for `inspect --json`.
    pub fn json(&self) -> serde_json::Value {
        let l = &self.limits;
        serde_json::json!({
            "allow": self.allow.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "methods": self.methods,
            "allow_addresses": self.addresses.entries().collect::<Vec<_>>(),
            "max_requests": l.max_requests,
            "max_request_body": l.max_request_body,
            "max_response_body": l.max_response_body,
            "connect_timeout_ms": l.connect_timeout.as_millis() as u64,
            "first_byte_timeout_ms": l.first_byte_timeout.as_millis() as u64,
            "ca_file": self.tls.ca_file().map(|f| f.display().to_string()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> HttpSpec {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn a_plugin_section_grants_origins_methods_and_addresses() {
        let defaults = spec("max_requests = 4\nmax_response_body = \"1 MiB\"\n");
        defaults.check("defaults", true).unwrap();
        let plugin = spec(
            "allow = [\"https://api.github.com\", \"http://127.0.0.1:8080\"]\nmethods = [\"get\", \"POST\"]\nallow_addresses = [\"10.0.0.0/8\"]\nmax_requests = 8\n",
        );
        plugin.check("plugins.gh", false).unwrap();
        let p = HttpSpec::resolve(&defaults, Some(&plugin), "plugins.gh", Path::new(".")).unwrap();
        assert_eq!(p.allow.len(), 2);
        assert_eq!(p.methods, ["GET", "POST"]);
        assert!(p.allows_method("POST") && !p.allows_method("DELETE"));
        assert!(p.addresses.contains("127.0.0.1".parse().unwrap()));
        assert!(p.addresses.contains("10.1.1.1".parse().unwrap()));
        assert_eq!(p.limits.max_requests, 8);
        assert_eq!(p.limits.max_response_body, 1 << 20);
        assert_eq!(
            p.limits.max_request_body,
            HttpLimits::default().max_request_body
        );
        let none = HttpSpec::resolve(&defaults, None, "plugins.gh", Path::new(".")).unwrap();
        assert!(none.allow.is_empty());
        assert_eq!(none.report(), [("http", "none".to_string())]);
    }

    #[test]
    fn grants_in_defaults_and_bad_values_name_the_key() {
        let e = spec("allow = [\"https://a.b\"]")
            .check("defaults", true)
            .unwrap_err();
        assert_eq!(e.0, "defaults.http.allow");
        for (text, key) in [
            ("allow = [\"example.com\"]", "plugins.p.http.allow"),
            ("methods = [\"G T\"]", "plugins.p.http.methods"),
            (
                "allow_addresses = [\"nope\"]",
                "plugins.p.http.allow_addresses",
            ),
            ("max_requests = 0", "plugins.p.http.max_requests"),
            ("connect_timeout = \"0s\"", "plugins.p.http.connect_timeout"),
        ] {
            assert_eq!(
                spec(text).check("plugins.p", false).unwrap_err().0,
                key,
                "{text}"
            );
        }
        assert!(toml::from_str::<HttpSpec>("alow = []").is_err());
    }
}
