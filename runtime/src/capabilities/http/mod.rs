//! Outbound HTTP (`wasi:http/outgoing-handler`): the `http` section of a
//! plugin's policy (the origins it may reach, the methods, the internal
//! addresses it may reach, and the limits of its requests), and the sender
//! that enforces it on every request. Nothing is reachable by default.

pub mod address;
pub mod codes;
pub mod origin;
pub mod outbound;
pub mod path;
pub mod tls;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use bytesize::ByteSize;
use serde::Deserialize;
use serde::de::MapAccess;
use serde_json::Value;
use wasmtime::component::Linker;
use wasmtime_wasi_http::{WasiHttp, WasiHttpCtx, WasiHttpCtxView};

use self::outbound::{CallInfo, Outbound};
use super::{
    CallCtx, CallHooks, Capability, CapsView, Grants, Others, Redaction, Report, ResolveCtx, Scope,
};
use crate::load::imports::ImportKind;

use self::address::AddressGrants;
use self::origin::{HostPattern, OriginPattern};
use super::super::units::{bytes, duration};
use super::KeyProblem;

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
    /// Its limits.
    pub limits: HttpLimits,
    /// The certificates it trusts for https.
    pub tls: tls::Trust,
}

impl HttpSpec {
    /// Checks the section; `defaults` says it is `[defaults.http]`, which
    /// may only set limits. Keys are relative to the plugin's section.
    pub fn check(&self, defaults: bool) -> Result<(), KeyProblem> {
        let key = |k: &str| format!("http.{k}");
        if defaults {
            for (k, set) in [
                ("allow", self.allow.is_some()),
                ("methods", self.methods.is_some()),
                ("allow_addresses", self.allow_addresses.is_some()),
            ] {
                if set {
                    return Err(KeyProblem::new(
                        key(k),
                        "capabilities are granted per plugin, in [plugins.NAME.http], never in [defaults]; only limits may be set here",
                    ));
                }
            }
        }
        for entry in self.allow.iter().flatten() {
            OriginPattern::parse(entry).map_err(|e| KeyProblem::new(key("allow"), e))?;
        }
        for m in self.methods.iter().flatten() {
            if m.is_empty() || !m.bytes().all(|b| b.is_ascii_alphabetic()) {
                return Err(KeyProblem::new(
                    key("methods"),
                    format!("{m:?} is not an HTTP method"),
                ));
            }
        }
        AddressGrants::parse(self.allow_addresses.as_deref().unwrap_or_default())
            .map_err(|e| KeyProblem::new(key("allow_addresses"), e))?;
        if self.max_requests == Some(0) {
            return Err(KeyProblem::new(
                key("max_requests"),
                "must be at least 1 (leave `allow` empty to grant nothing)",
            ));
        }
        for (k, t) in [
            ("connect_timeout", self.connect_timeout),
            ("first_byte_timeout", self.first_byte_timeout),
        ] {
            if t.is_some_and(|t| t.is_zero()) {
                return Err(KeyProblem::new(key(k), "must be longer than zero"));
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
        base: &Path,
    ) -> Result<HttpPolicy, KeyProblem> {
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
                .map_err(|e| KeyProblem::new("http.ca_file", e))?,
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
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| KeyProblem::new("http.allow", e))?;
        let mut addresses =
            AddressGrants::parse(spec.allow_addresses.as_deref().unwrap_or_default())
                .map_err(|e| KeyProblem::new("http.allow_addresses", e))?;
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
            limits,
            tls,
        })
    }
}

impl HttpPolicy {
    /// The entry that grants `target`, if any.
    pub fn granting(&self, target: &origin::RequestTarget) -> Option<&OriginPattern> {
        self.allow.iter().find(|e| e.matches(target))
    }

    /// Whether `method` (uppercase) is allowed.
    pub fn allows_method(&self, method: &str) -> bool {
        self.methods.is_empty() || self.methods.iter().any(|m| m == method)
    }

    /// The policy's report lines: the origins, then the methods, the
    /// internal addresses and the limits, when anything is granted.
    pub fn report(&self) -> Vec<(&'static str, String)> {
        // Every field, so that a new one cannot be left out unnoticed.
        let HttpPolicy {
            allow,
            methods,
            addresses,
            limits,
            tls,
        } = self;
        if allow.is_empty() {
            return vec![("http", "none".into())];
        }
        let mut rows: Vec<(&'static str, String)> = allow
            .iter()
            .enumerate()
            .map(|(i, e)| (if i == 0 { "http" } else { "" }, e.to_string()))
            .collect();
        let methods = if methods.is_empty() {
            ANY_METHOD.to_string()
        } else {
            methods.join(", ")
        };
        rows.push(("", format!("methods: {methods}")));
        if !addresses.is_empty() {
            rows.push((
                "",
                format!(
                    "internal addresses: {}",
                    addresses.entries().collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        let HttpLimits {
            max_requests,
            max_request_body,
            max_response_body,
            connect_timeout,
            first_byte_timeout,
        } = limits;
        if let Some(file) = tls.ca_file() {
            rows.push((
                "",
                format!("also trusts the certificates in {}", file.display()),
            ));
        }
        rows.push((
            "",
            format!(
                "{} requests per call; bodies up to {} sent, {} received; connect {}, first byte {}",
                max_requests,
                bytes(*max_request_body),
                bytes(*max_response_body),
                duration(*connect_timeout),
                duration(*first_byte_timeout)
            ),
        ));
        rows
    }

    /// The policy as JSON for `inspect --json`.
    pub fn json(&self) -> Value {
        let HttpPolicy {
            allow,
            methods,
            addresses,
            limits,
            tls,
        } = self;
        let HttpLimits {
            max_requests,
            max_request_body,
            max_response_body,
            connect_timeout,
            first_byte_timeout,
        } = limits;
        serde_json::json!({
            "allow": allow.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "methods": methods,
            "allow_addresses": addresses.entries().collect::<Vec<_>>(),
            "max_requests": max_requests,
            "max_request_body": max_request_body,
            "max_response_body": max_response_body,
            "connect_timeout_ms": connect_timeout.as_millis() as u64,
            "first_byte_timeout_ms": first_byte_timeout.as_millis() as u64,
            "ca_file": tls.ca_file().map(|f| f.display().to_string()),
        })
    }
}

impl Capability for HttpPolicy {
    const NAME: &'static str = "http";
    const KEYS: &'static [&'static str] = &["http"];
    /// The sender injects the plugin's secrets into the requests to their
    /// origins.
    const READS: &'static [&'static str] = &["secrets"];
    type Spec = HttpSpec;
    type State = HttpState;

    fn parse_key<'de, A: MapAccess<'de>>(
        spec: &mut HttpSpec,
        _key: &str,
        map: &mut A,
    ) -> Result<(), A::Error> {
        *spec = map.next_value()?;
        Ok(())
    }

    /// `[defaults.http]` may set limits (and `ca_file`), never grants.
    fn check(spec: &HttpSpec, scope: Scope) -> Result<(), KeyProblem> {
        spec.check(scope == Scope::Defaults)
    }

    fn resolve(
        defaults: &HttpSpec,
        spec: Option<&HttpSpec>,
        ctx: &ResolveCtx<'_>,
        _others: &Others<'_>,
    ) -> Result<Self, KeyProblem> {
        HttpSpec::resolve(defaults, spec, ctx.base)
    }

    /// wasi:http is always linked; the call's sender is made on its first
    /// request, so a call that sends none costs five reference counts.
    fn state(&self, call: &CallCtx<'_>) -> HttpState {
        HttpState {
            ctx: WasiHttpCtx::new(),
            info: CallInfo {
                plugin: call.plugin.clone(),
                tool: call.tool.clone(),
                section: call.section.clone(),
                config_file: call.config_file.clone(),
                deadline: call.deadline,
            },
            grants: call.grants.clone(),
            outbound: None,
        }
    }

    fn link<T: CapsView>(linker: &mut Linker<T>) -> wasmtime::Result<()> {
        use wasmtime_wasi_http::p2::bindings::{LinkOptions, http as wit};
        wit::outgoing_handler::add_to_linker::<T, WasiHttp>(linker, view)?;
        wit::types::add_to_linker::<T, WasiHttp>(linker, &LinkOptions::default().into(), view)?;
        codes::link(linker)
    }
}

/// Origins and paths are the guest's to see: nothing to redact (the sender
/// redacts the secrets from what it logs, through the registry).
impl Redaction for HttpPolicy {}

impl Report for HttpPolicy {
    fn inspect_json(&self) -> Vec<(&'static str, Value)> {
        vec![("http", self.json())]
    }

    fn inspect_lines(&self) -> Vec<(&'static str, String)> {
        self.report()
    }

    fn import_note(policy: Option<&Self>, kind: ImportKind) -> Option<String> {
        (kind == ImportKind::Http).then(|| match policy {
            Some(p) if !p.allow.is_empty() => format!(
                "makes outbound HTTP requests — granted only to {}",
                p.allow
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Some(_) => "makes outbound HTTP requests — but this policy grants no origin (set `allow` in [plugins.NAME.http]), so every request is denied".to_string(),
            None => "makes outbound HTTP requests — no policy".to_string(),
        })
    }
}

/// One call's wasi:http state: the context, and its sender once it sends.
pub struct HttpState {
    ctx: WasiHttpCtx,
    info: CallInfo,
    /// The plugin's grants: its `http` grant and the `secrets` to inject
    /// (see [`HttpPolicy::READS`](Capability::READS)).
    grants: Arc<Grants>,
    outbound: Option<Outbound>,
}

impl std::fmt::Debug for HttpState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpState")
            .field("info", &self.info)
            .field("outbound", &self.outbound)
            .finish_non_exhaustive()
    }
}

impl CallHooks for HttpState {
    /// What the policy denied during the call, each naming the key that
    /// would grant it.
    fn denials(&self) -> Vec<String> {
        self.outbound
            .as_ref()
            .map(Outbound::denials)
            .unwrap_or_default()
    }
}

/// The wasi:http view of a call's store: the shared resource table, and
/// this capability's context and sender.
fn view<T: CapsView>(state: &mut T) -> WasiHttpCtxView<'_> {
    let (table, caps) = state.table_and_caps();
    let http = caps.get_mut::<HttpPolicy>();
    let (info, grants) = (&http.info, &http.grants);
    let hooks = http
        .outbound
        .get_or_insert_with(|| Outbound::new(info.clone(), grants.clone()));
    WasiHttpCtxView {
        ctx: &mut http.ctx,
        table,
        hooks,
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
        defaults.check(true).unwrap();
        let plugin = spec(
            "allow = [\"https://api.github.com\", \"http://127.0.0.1:8080\"]\nmethods = [\"get\", \"POST\"]\nallow_addresses = [\"10.0.0.0/8\"]\nmax_requests = 8\n",
        );
        plugin.check(false).unwrap();
        let p = HttpSpec::resolve(&defaults, Some(&plugin), Path::new(".")).unwrap();
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
        let none = HttpSpec::resolve(&defaults, None, Path::new(".")).unwrap();
        assert!(none.allow.is_empty());
        assert_eq!(none.report(), [("http", "none".to_string())]);
    }

    #[test]
    fn grants_in_defaults_and_bad_values_name_the_key() {
        let e = spec("allow = [\"https://a.b\"]").check(true).unwrap_err();
        assert_eq!(e.key, "http.allow");
        for (text, key) in [
            ("allow = [\"example.com\"]", "http.allow"),
            ("methods = [\"G T\"]", "http.methods"),
            ("allow_addresses = [\"nope\"]", "http.allow_addresses"),
            ("max_requests = 0", "http.max_requests"),
            ("connect_timeout = \"0s\"", "http.connect_timeout"),
        ] {
            assert_eq!(spec(text).check(false).unwrap_err().key, key, "{text}");
        }
        assert!(toml::from_str::<HttpSpec>("alow = []").is_err());
    }
}
