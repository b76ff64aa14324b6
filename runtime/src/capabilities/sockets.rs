//! Network access through plain sockets (`wasi:sockets`): the `sockets`
//! section of a plugin's policy, a TCP-connect allow-list of `host:port`
//! entries; nothing by default (TCP, UDP and name lookup denied). A name on the
//! list is resolved when the guest connects, and an internal address is
//! refused unless the entry is that address or `allow_addresses` names it,
//! as for HTTP. UDP, listening and every other address stay denied.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use serde::Deserialize;
use serde::de::MapAccess;
use serde_json::Value;
use wasmtime_wasi::WasiCtxBuilder;
use wasmtime_wasi::sockets::SocketAddrUse;

use super::http::address::{AddressGrants, refusal};
use super::http::origin::normal_name;
use super::{
    CallCtx, Capability, CapabilityError, KeyProblem, Others, Redaction, Report, ResolveCtx, Scope,
    granted_per_plugin,
};
use crate::load::imports::ImportKind;

/// The label of this capability's row of `inspect` and its member of
/// `inspect --json`'s policy: its key's name, as every capability's is
/// (before 0.1.0 it was `network`).
const REPORTED_AS: &str = "sockets";

/// `[plugins.NAME.sockets]`, as written.
#[derive(Debug, Default, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SocketsSpec {
    #[serde(default)]
    connect: Vec<String>,
    #[serde(default)]
    allow_addresses: Vec<String>,
}

/// One `host:port` the guest may connect to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// A name (lowercase) or an address literal.
    pub host: String,
    /// The address, when `host` is a literal.
    pub ip: Option<IpAddr>,
    /// The port.
    pub port: u16,
}

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.ip {
            Some(IpAddr::V6(v6)) => write!(f, "[{v6}]:{}", self.port),
            _ => write!(f, "{}:{}", self.host, self.port),
        }
    }
}

/// Why a `connect` entry is not an endpoint; each names the entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndpointError {
    /// No `:PORT`.
    #[error("{0:?} needs a port: write \"{0}:PORT\"")]
    NoPort(String),
    /// A port that is not one.
    #[error("{entry:?}: {port:?} is not a port (1 to 65535)")]
    Port {
        /// The entry.
        entry: String,
        /// The port as written.
        port: String,
    },
    /// A host that is neither a DNS name nor an address.
    #[error("{entry:?}: {host:?} is not a host name or address")]
    Host {
        /// The entry.
        entry: String,
        /// The host as written.
        host: String,
    },
}

fn endpoint(entry: &str) -> Result<Endpoint, EndpointError> {
    if let Ok(addr) = entry.parse::<SocketAddr>() {
        return Ok(Endpoint {
            host: addr.ip().to_string(),
            ip: Some(addr.ip()),
            port: addr.port(),
        });
    }
    let (host, port) = entry
        .rsplit_once(':')
        .ok_or_else(|| EndpointError::NoPort(entry.to_string()))?;
    let port = port
        .parse::<u16>()
        .ok()
        .filter(|p| *p != 0)
        .ok_or_else(|| EndpointError::Port {
            entry: entry.to_string(),
            port: port.to_string(),
        })?;
    let host = normal_name(host).ok_or_else(|| EndpointError::Host {
        entry: entry.to_string(),
        host: host.to_string(),
    })?;
    Ok(Endpoint {
        host,
        ip: None,
        port,
    })
}

/// A plugin's effective sockets policy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SocketsPolicy {
    /// Where the guest may connect over TCP; empty: nowhere.
    pub connect: Vec<Endpoint>,
    /// Internal addresses it may reach: `allow_addresses` and the literals
    /// of `connect`.
    pub addresses: AddressGrants,
}

impl SocketsSpec {
    /// Checks a `sockets` table (keys relative to the plugin's section).
    pub fn check(&self) -> Result<(), KeyProblem> {
        for entry in &self.connect {
            endpoint(entry).map_err(|e| KeyProblem::new("sockets.connect", e))?;
        }
        AddressGrants::parse(&self.allow_addresses)
            .map_err(|e| KeyProblem::new("sockets.allow_addresses", e))?;
        Ok(())
    }

    /// The effective policy (the spec was checked).
    pub fn resolve(&self) -> Result<SocketsPolicy, KeyProblem> {
        let connect = self
            .connect
            .iter()
            .map(|e| endpoint(e))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| KeyProblem::new("sockets.connect", e))?;
        let mut addresses = AddressGrants::parse(&self.allow_addresses)
            .map_err(|e| KeyProblem::new("sockets.allow_addresses", e))?;
        for e in &connect {
            if let Some(ip) = e.ip {
                addresses.add(ip);
            }
        }
        Ok(SocketsPolicy { connect, addresses })
    }
}

impl SocketsPolicy {
    /// Sets an instance's WASI socket permissions: nothing when nothing is
    /// granted; otherwise TCP connects to the listed endpoints (and the
    /// implicit wildcard bind a connect performs), with name lookup on only
    /// when a name is listed.
    pub fn apply(&self, wasi: &mut WasiCtxBuilder) {
        let names = self.connect.iter().any(|e| e.ip.is_none());
        wasi.allow_tcp(!self.connect.is_empty())
            .allow_udp(false)
            .allow_ip_name_lookup(names);
        if self.connect.is_empty() {
            wasi.socket_addr_check(|_, _| Box::pin(async { false }));
            return;
        }
        let policy = Arc::new(self.clone());
        wasi.socket_addr_check(move |addr, use_| {
            let policy = policy.clone();
            Box::pin(async move {
                match use_ {
                    SocketAddrUse::TcpBind => addr.ip().is_unspecified() && addr.port() == 0,
                    SocketAddrUse::TcpConnect => policy.allows(addr).await,
                    _ => false,
                }
            })
        });
    }

    /// Whether the guest may connect to `addr`: an endpoint lists its port
    /// and its address, or a name that resolves to it; an internal address
    /// needs a grant.
    pub async fn allows(&self, addr: SocketAddr) -> bool {
        if refusal(addr.ip(), &self.addresses).is_some() {
            tracing::warn!(%addr, "denied a TCP connect to an internal address the policy does not name");
            return false;
        }
        for e in self.connect.iter().filter(|e| e.port == addr.port()) {
            match e.ip {
                Some(ip) if ip == addr.ip() => return true,
                Some(_) => {}
                None => {
                    if let Ok(found) = tokio::net::lookup_host((e.host.as_str(), e.port)).await
                        && found.into_iter().any(|a| a.ip() == addr.ip())
                    {
                        return true;
                    }
                }
            }
        }
        tracing::warn!(%addr, "denied a TCP connect the policy does not grant");
        false
    }

    /// The report line.
    pub fn report(&self) -> String {
        let SocketsPolicy { connect, addresses } = self;
        if connect.is_empty() {
            return "none".into();
        }
        let mut text = format!(
            "TCP connect to {}",
            connect
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
        if !addresses.is_empty() {
            text.push_str(&format!(
                "; internal addresses: {}",
                addresses.entries().collect::<Vec<_>>().join(", ")
            ));
        }
        text
    }
}

impl Capability for SocketsPolicy {
    const NAME: &'static str = "sockets";
    const KEYS: &'static [&'static str] = &["sockets"];
    type Spec = SocketsSpec;
    type State = ();

    fn parse_key<'de, A: MapAccess<'de>>(
        spec: &mut SocketsSpec,
        _key: &str,
        map: &mut A,
    ) -> Result<(), A::Error> {
        *spec = map.next_value()?;
        Ok(())
    }

    fn check(spec: &SocketsSpec, scope: Scope) -> Result<(), KeyProblem> {
        granted_per_plugin::<Self>(spec, scope)?;
        spec.check()
    }

    fn resolve(
        _defaults: &SocketsSpec,
        spec: Option<&SocketsSpec>,
        _ctx: &ResolveCtx<'_>,
        _others: &Others<'_>,
    ) -> Result<Self, KeyProblem> {
        spec.map_or_else(|| Ok(SocketsPolicy::default()), SocketsSpec::resolve)
    }

    fn state(&self, _call: &CallCtx<'_>) {}

    fn configure(&self, wasi: &mut WasiCtxBuilder) -> Result<(), CapabilityError> {
        self.apply(wasi);
        Ok(())
    }
}

/// Endpoints are the guest's to see: nothing to redact.
impl Redaction for SocketsPolicy {}

impl Report for SocketsPolicy {
    fn inspect_json(&self) -> Vec<(&'static str, Value)> {
        // Every field, so that a new one cannot be left out unnoticed.
        let SocketsPolicy { connect, addresses } = self;
        if connect.is_empty() {
            return vec![(REPORTED_AS, "none".into())];
        }
        vec![(
            REPORTED_AS,
            serde_json::json!({
                "connect": connect.iter().map(ToString::to_string).collect::<Vec<_>>(),
                "allow_addresses": addresses.entries().collect::<Vec<_>>(),
            }),
        )]
    }

    fn inspect_lines(&self) -> Vec<(&'static str, String)> {
        vec![(REPORTED_AS, self.report())]
    }

    fn import_note(policy: Option<&Self>, kind: ImportKind) -> Option<String> {
        (kind == ImportKind::Sockets).then(|| match policy {
            Some(p) if !p.connect.is_empty() => format!(
                "requests network access — granted only for TCP connects to {}",
                p.connect
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            _ => "requests network access — granted only for TCP connects listed in `sockets.connect` (this policy lists none)".to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(text: &str) -> SocketsPolicy {
        let spec: SocketsSpec = toml::from_str(text).unwrap();
        spec.check().unwrap();
        spec.resolve().unwrap()
    }

    #[tokio::test]
    async fn only_listed_endpoints_may_be_reached() {
        let p = policy("connect = [\"127.0.0.1:6379\", \"localhost:5432\", \"[::1]:7000\"]\n");
        let addr = |s: &str| s.parse::<SocketAddr>().unwrap();
        assert!(p.allows(addr("127.0.0.1:6379")).await);
        assert!(p.allows(addr("[::1]:7000")).await);
        assert!(!p.allows(addr("127.0.0.1:6380")).await);
        // localhost resolves to loopback, which no entry names as an
        // address and allow_addresses does not grant.
        assert!(!p.allows(addr("127.0.0.2:5432")).await);
        let granted = policy(
            "connect = [\"localhost:5432\"]\nallow_addresses = [\"127.0.0.0/8\", \"::1\"]\n",
        );
        assert!(granted.allows(addr("127.0.0.1:5432")).await);
        assert_eq!(
            granted.report(),
            "TCP connect to localhost:5432; internal addresses: 127.0.0.0/8, ::1"
        );
        assert_eq!(SocketsPolicy::default().report(), "none");
    }

    #[test]
    fn bad_entries_name_the_key() {
        for text in [
            "connect = [\"db.internal\"]",
            "connect = [\"db:0\"]",
            "connect = [\"d b:1\"]",
            "allow_addresses = [\"x\"]",
        ] {
            let spec: SocketsSpec = toml::from_str(text).unwrap();
            let e = spec.check().unwrap_err();
            assert!(e.key.starts_with("sockets."), "{text}: {e}");
        }
    }
}
