//! `[server.oauth]`: the HTTP transport as an OAuth 2.1 resource server
//! (docs/authorization.md), and the scope syntax every `scopes` key shares.

use std::time::Duration;

use bytesize::ByteSize;
use serde::Deserialize;

use super::Config;

/// `[server.oauth]` as written (see docs/authorization.md).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OAuthSpec {
    /// The authorization server's issuer identifier (the tokens' `iss`).
    issuer: String,
    /// This server's canonical URI (the tokens' `aud`, the metadata's
    /// `resource`).
    audience: String,
    /// Where the issuer publishes its signing keys.
    jwks_uri: String,
    /// The signature algorithms accepted.
    algorithms: Option<Vec<String>>,
    /// Clock skew allowed on `exp` and `nbf`.
    leeway: Option<humantime_serde::Serde<Duration>>,
    /// How long a fetched JWKS is used before it is fetched again.
    jwks_ttl: Option<humantime_serde::Serde<Duration>>,
    /// The least time between two fetches of the JWKS.
    jwks_refetch_interval: Option<humantime_serde::Serde<Duration>>,
    /// How long one fetch of the JWKS may take.
    jwks_timeout: Option<humantime_serde::Serde<Duration>>,
    /// The largest JWKS document accepted.
    max_jwks_size: Option<ByteSize>,
}

/// The HTTP transport as an OAuth 2.1 resource server: `[server.oauth]`,
/// checked, with its defaults filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthSettings {
    /// The tokens' required `iss`, and the metadata's authorization server.
    pub issuer: String,
    /// The tokens' required `aud`: this server's canonical URI.
    pub audience: String,
    /// The issuer's JWKS (https, or http on a loopback address).
    pub jwks_uri: http::Uri,
    /// The signature algorithms accepted (never `none` or HMAC).
    pub algorithms: Vec<jsonwebtoken::Algorithm>,
    /// Clock skew allowed on `exp` and `nbf`.
    pub leeway: Duration,
    /// How long a fetched JWKS is used before it is fetched again.
    pub jwks_ttl: Duration,
    /// The least time between two fetches (an unknown `kid` fetches anew
    /// at most this often).
    pub jwks_refetch_interval: Duration,
    /// How long one fetch may take, connecting included.
    pub jwks_timeout: Duration,
    /// The largest JWKS document accepted, in bytes.
    pub max_jwks_bytes: u64,
    /// Every scope the policy names, for the metadata's `scopes_supported`.
    pub scopes_supported: Vec<String>,
}

impl OAuthSettings {
    /// The default leeway on `exp` and `nbf`.
    pub const DEFAULT_LEEWAY: Duration = Duration::from_secs(30);
    /// The most leeway allowed.
    pub const MAX_LEEWAY: Duration = Duration::from_secs(300);
    /// The default JWKS lifetime.
    pub const DEFAULT_JWKS_TTL: Duration = Duration::from_secs(600);
    /// The default least time between JWKS fetches.
    pub const DEFAULT_REFETCH_INTERVAL: Duration = Duration::from_secs(30);
    /// The default JWKS fetch timeout.
    pub const DEFAULT_JWKS_TIMEOUT: Duration = Duration::from_secs(5);
    /// The default bound on the JWKS document.
    pub const DEFAULT_MAX_JWKS_BYTES: u64 = 256 << 10;
    /// The algorithms accepted unless `algorithms` says otherwise.
    pub const DEFAULT_ALGORITHMS: [jsonwebtoken::Algorithm; 2] = [
        jsonwebtoken::Algorithm::RS256,
        jsonwebtoken::Algorithm::ES256,
    ];
}

/// Whether `host` (from a URI) names the loopback interface.
fn is_loopback_host(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// `text` as an absolute `https` URI (or `http` to a loopback host).
fn secure_uri(text: &str) -> Result<http::Uri, String> {
    let uri: http::Uri = text
        .parse()
        .map_err(|e| format!("{text:?} is not a URI: {e}"))?;
    let host = uri
        .host()
        .ok_or_else(|| format!("{text:?} is not an absolute URI"))?;
    match uri.scheme_str() {
        Some("https") => Ok(uri),
        Some("http") if is_loopback_host(host) => Ok(uri),
        Some("http") => Err(format!(
            "{text:?} uses http: only https is allowed (http only to a loopback address, for tests)"
        )),
        _ => Err(format!("{text:?} is not an https URI")),
    }
}

/// The algorithms `[server.oauth] algorithms` names, or why one is refused.
fn algorithms(names: Option<&[String]>) -> Result<Vec<jsonwebtoken::Algorithm>, String> {
    use jsonwebtoken::AlgorithmFamily;
    let Some(names) = names else {
        return Ok(OAuthSettings::DEFAULT_ALGORITHMS.to_vec());
    };
    if names.is_empty() {
        return Err("list at least one signature algorithm, e.g. [\"RS256\"]".into());
    }
    names
        .iter()
        .map(|name| {
            if name.eq_ignore_ascii_case("none") {
                return Err("`none` is refused: an unsigned token proves nothing".into());
            }
            let alg: jsonwebtoken::Algorithm = name.parse().map_err(|_| {
                format!("{name:?} is not a JWS algorithm (RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, EdDSA)")
            })?;
            if alg.family() == AlgorithmFamily::Hmac {
                return Err(format!(
                    "{name} is refused: an HMAC token is checked with a shared secret, not the issuer's public keys"
                ));
            }
            Ok(alg)
        })
        .collect()
}

/// A scope as RFC 6749 allows it: printable ASCII without space, double
/// quote or backslash.
pub(super) fn check_scope(scope: &str) -> Result<(), String> {
    if scope.is_empty() {
        return Err("a scope cannot be empty".into());
    }
    if let Some(bad) = scope
        .chars()
        .find(|&c| !c.is_ascii_graphic() || c == '"' || c == '\\')
    {
        return Err(format!(
            "the scope {scope:?} contains {bad:?}, which a scope cannot have"
        ));
    }
    Ok(())
}

pub(super) fn check(o: &OAuthSpec) -> Result<(), (String, String)> {
    let err = |key: &str, problem: String| Err((key.to_string(), problem));
    for (key, value) in [("issuer", &o.issuer), ("audience", &o.audience)] {
        if let Err(problem) = secure_uri(value) {
            return err(key, problem);
        }
    }
    if let Err(problem) = secure_uri(&o.jwks_uri) {
        return err("jwks_uri", problem);
    }
    if let Err(problem) = algorithms(o.algorithms.as_deref()) {
        return err("algorithms", problem);
    }
    if o.leeway.is_some_and(|l| *l > OAuthSettings::MAX_LEEWAY) {
        return err("leeway", "must be at most 5m".into());
    }
    if o.jwks_ttl.is_some_and(|t| t.is_zero()) {
        return err("jwks_ttl", "must be longer than zero".into());
    }
    if o.jwks_timeout.is_some_and(|t| t.is_zero()) {
        return err("jwks_timeout", "must be longer than zero".into());
    }
    if let Some(size) = o.max_jwks_size
        && (size.as_u64() == 0 || size.as_u64() > 16 << 20)
    {
        return err("max_jwks_size", format!("{size} is outside 1 B ..= 16 MiB"));
    }
    Ok(())
}

impl Config {
    /// `[server.oauth]`, if the file has it: the HTTP transport then takes
    /// only the issuer's access tokens, and the plugins' `scopes` apply.
    pub fn oauth(&self) -> Option<OAuthSettings> {
        let spec = self.server.oauth.as_ref()?;
        let duration =
            |d: Option<humantime_serde::Serde<Duration>>, default| d.map_or(default, |d| *d);
        let mut scopes: Vec<String> = std::iter::once(&self.defaults)
            .chain(self.plugins.values())
            .flat_map(|s| {
                s.scopes
                    .iter()
                    .flatten()
                    .chain(s.tool_scopes.iter().flat_map(|t| t.values().flatten()))
            })
            .chain(self.profiles.values().flat_map(|p| p.scopes()))
            .cloned()
            .collect();
        scopes.sort();
        scopes.dedup();
        Some(OAuthSettings {
            issuer: spec.issuer.clone(),
            audience: spec.audience.clone(),
            // Checked when the file was parsed.
            jwks_uri: secure_uri(&spec.jwks_uri).ok()?,
            algorithms: algorithms(spec.algorithms.as_deref()).ok()?,
            leeway: duration(spec.leeway, OAuthSettings::DEFAULT_LEEWAY),
            jwks_ttl: duration(spec.jwks_ttl, OAuthSettings::DEFAULT_JWKS_TTL),
            jwks_refetch_interval: duration(
                spec.jwks_refetch_interval,
                OAuthSettings::DEFAULT_REFETCH_INTERVAL,
            ),
            jwks_timeout: duration(spec.jwks_timeout, OAuthSettings::DEFAULT_JWKS_TIMEOUT),
            max_jwks_bytes: spec
                .max_jwks_size
                .map_or(OAuthSettings::DEFAULT_MAX_JWKS_BYTES, |b| b.as_u64()),
            scopes_supported: scopes,
        })
    }
}
