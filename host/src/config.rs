//! The policy file (`mcp-wasm-host.toml`): parsed strictly (an unknown key
//! or a wrongly typed value is an error naming the file, line and key), then
//! resolved into each plugin's effective [`Policy`].
//!
//! One central file holds `[defaults]` (limits for every plugin) and one
//! `[plugins.NAME]` section per plugin (NAME is the `.wasm` file's stem),
//! whose limits override the defaults and which alone may grant
//! capabilities. Each capability reads and checks its own keys of a section
//! and resolves its grant (see [`crate::runtime::capabilities`]); mounts'
//! host paths, for one, are relative to the file's directory and are
//! canonicalized when the plugin loads, and a missing one keeps that plugin
//! from loading.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use bytesize::ByteSize;
use serde::Deserialize;
use serde::de::{self, MapAccess};

use crate::runtime::capabilities::{self, GrantSpecs, Grants, KnownKey, ResolveCtx};
use crate::runtime::units::count;
use crate::runtime::{
    Limits, MAX_READY_INSTANCES, MAX_REUSE_INSTANCES, Policies, Policy, PolicyError, Sha256Digest,
};
use crate::source::limits::{Bound, DEFAULT_MAX_PLUGIN_SIZE, FetchTimeouts};
use crate::source::{PluginName, SourceRef};

/// The default file name, looked for in the current directory.
pub const DEFAULT_FILE: &str = "mcp-wasm-host.toml";

/// Why the policy file was refused.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{}: cannot read the policy file: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid TOML for the policy schema (toml's message
    /// gives the line, the column and the key).
    #[error("{}: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// toml's message.
        message: String,
    },
    /// A value is out of range or not allowed where it is.
    #[error("{}: `{key}`: {problem}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The key, e.g. `plugins.text.timeout`.
        key: String,
        /// What is wrong.
        problem: String,
    },
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    #[serde(default)]
    server: ServerSpec,
    #[serde(default)]
    defaults: SectionSpec,
    #[serde(default)]
    plugins: BTreeMap<String, SectionSpec>,
}

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
}

impl Default for TaskSettings {
    fn default() -> Self {
        TaskSettings {
            sync_window: Duration::from_millis(100),
            result_ttl: Duration::from_secs(15 * 60),
            poll_interval: Duration::from_secs(1),
            max_tasks: 1000,
            max_store_bytes: 256 << 20,
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

/// `[server]`: what applies to the server as a whole, read at start.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServerSpec {
    /// How long a 2026-07-28 client may cache a list result (`ttlMs`).
    list_ttl: Option<humantime_serde::Serde<Duration>>,
    /// A task-supporting call that ends within this time answers directly.
    task_sync_window: Option<humantime_serde::Serde<Duration>>,
    /// How long a finished task's result is kept.
    task_result_ttl: Option<humantime_serde::Serde<Duration>>,
    /// The poll interval suggested to clients.
    task_poll_interval: Option<humantime_serde::Serde<Duration>>,
    /// The most tasks kept at once, running or finished.
    max_tasks: Option<usize>,
    /// The most bytes the finished tasks' results may hold together.
    max_task_store_size: Option<ByteSize>,
    /// The longest URI a request may name.
    max_uri_size: Option<ByteSize>,
    /// The most URIs one session or listen stream watches.
    max_subscriptions: Option<usize>,
    /// The bytes every watched URI holds together.
    max_watched_size: Option<ByteSize>,
    /// The listen streams open at once.
    max_listen_streams: Option<usize>,
    /// Registries (`host` or `host:port`) reached over plain HTTP besides
    /// the loopback ones.
    plain_http_registries: Option<Vec<String>>,
    /// How long a plugin fetch waits for a connection.
    fetch_connect_timeout: Option<humantime_serde::Serde<Duration>>,
    /// How long a plugin fetch waits for the first byte of an answer (and
    /// for each next byte).
    fetch_first_byte_timeout: Option<humantime_serde::Serde<Duration>>,
    /// How long one plugin's whole fetch may take.
    fetch_timeout: Option<humantime_serde::Serde<Duration>>,
    /// The most HTTP sessions open at once.
    max_sessions: Option<usize>,
    /// The most HTTP sessions one OAuth subject may hold; 0: no bound.
    max_sessions_per_subject: Option<usize>,
    /// The most HTTP sessions one client address may hold; 0: no bound.
    max_sessions_per_address: Option<usize>,
    /// An HTTP session that receives nothing for this long is closed.
    session_idle_timeout: Option<humantime_serde::Serde<Duration>>,
    /// `[server.oauth]`: the HTTP transport is an OAuth 2.1 resource server.
    oauth: Option<OAuthSpec>,
}

/// `[server.oauth]` as written (see docs/authorization.md).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct OAuthSpec {
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
fn check_scope(scope: &str) -> Result<(), String> {
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

/// `reuse_instances` as written: a number of calls per instance, or
/// `"session"` (an instance per client session).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ReuseSpec {
    Calls(u32),
    Session,
}

impl<'de> Deserialize<'de> for ReuseSpec {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl de::Visitor<'_> for Visitor {
            type Value = ReuseSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(
                    "a number of calls per instance (0: a fresh instance per call) or \"session\" (one instance per client session)",
                )
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<ReuseSpec, E> {
                u32::try_from(n)
                    .map(ReuseSpec::Calls)
                    .map_err(|_| E::invalid_value(de::Unexpected::Signed(n), &self))
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<ReuseSpec, E> {
                u32::try_from(n)
                    .map(ReuseSpec::Calls)
                    .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(n), &self))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<ReuseSpec, E> {
                match s {
                    "session" => Ok(ReuseSpec::Session),
                    other => Err(E::invalid_value(de::Unexpected::Str(other), &self)),
                }
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// Declares [`SectionSpec`] with one optional field per limit key, and
/// reads those keys.
macro_rules! section_spec {
    ($($key:ident: $ty:ty),* $(,)?) => {
        /// One section (`[defaults]` or `[plugins.NAME]`) as written: its
        /// limits, its pinned digest, and its capability keys.
        #[derive(Debug, Default, Clone)]
        struct SectionSpec {
            $($key: Option<$ty>,)*
            sha256: Option<String>,
            source: Option<String>,
            signature_keys: Option<Vec<String>>,
            max_plugin_size: Option<ByteSize>,
            grants: GrantSpecs,
        }

        /// The limit keys.
        const LIMIT_KEYS: &[&str] = &[$(stringify!($key)),*];

        impl SectionSpec {
            /// Reads the value of `key` into its field; `false` if `key` is
            /// none of the limit keys and not `sha256`.
            fn accept<'de, A: MapAccess<'de>>(
                &mut self,
                key: &str,
                map: &mut A,
            ) -> Result<bool, A::Error> {
                match key {
                    $(stringify!($key) => self.$key = Some(map.next_value()?),)*
                    "sha256" => self.sha256 = Some(map.next_value()?),
                    "source" => self.source = Some(map.next_value()?),
                    "signature_keys" => self.signature_keys = Some(map.next_value()?),
                    "max_plugin_size" => self.max_plugin_size = Some(map.next_value()?),
                    _ => return Ok(false),
                }
                Ok(true)
            }
        }
    };
}

section_spec! {
    fuel: u64,
    memory: ByteSize,
    table_elements: u64,
    instances: u32,
    tables: u32,
    memories: u32,
    timeout: humantime_serde::Serde<Duration>,
    task_timeout: humantime_serde::Serde<Duration>,
    max_concurrent_calls: u32,
    max_argument_size: ByteSize,
    max_result_size: ByteSize,
    rate_limit: u32,
    client_rate_limit: u32,
    audit_arguments: bool,
    receipts: bool,
    log_lines: u64,
    log_bytes: ByteSize,
    host_resources: u32,
    max_tools: u32,
    max_schema_size: ByteSize,
    max_tool_list_size: ByteSize,
    reuse_instances: ReuseSpec,
    ready_instances: u32,
    scopes: Vec<String>,
    tool_scopes: BTreeMap<String, Vec<String>>,
}

/// Every key a section may hold: the limits, `sha256`, and the
/// capabilities' keys.
fn section_keys() -> &'static [&'static str] {
    static ALL: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        let mut all = LIMIT_KEYS.to_vec();
        all.extend(["sha256", "source", "signature_keys", "max_plugin_size"]);
        all.extend(capabilities::keys());
        all
    });
    &ALL
}

/// Read by hand: serde's `flatten` (to let the capabilities read their own
/// keys) cannot refuse unknown keys and loses the parser's line numbers.
impl<'de> Deserialize<'de> for SectionSpec {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> de::Visitor<'de> for Visitor {
            type Value = SectionSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a policy section")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SectionSpec, A::Error> {
                let mut section = SectionSpec::default();
                while let Some(key) = map.next_key_seed(KnownKey(section_keys()))? {
                    if !section.accept(&key, &mut map)? && !section.grants.accept(&key, &mut map)? {
                        // Unreachable: `KnownKey` let only listed keys through.
                        return Err(de::Error::unknown_field(&key, section_keys()));
                    }
                }
                Ok(section)
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

/// A loaded policy file.
#[derive(Debug, Clone)]
pub struct Config {
    path: PathBuf,
    base: PathBuf,
    server: ServerSpec,
    defaults: SectionSpec,
    plugins: BTreeMap<String, SectionSpec>,
    max_memory: u64,
    builtin: bool,
}

impl Config {
    /// A configuration with no file: the built-in defaults for every plugin.
    pub fn builtin(max_memory: u64) -> Self {
        Config {
            path: PathBuf::from(DEFAULT_FILE),
            base: PathBuf::from("."),
            server: ServerSpec::default(),
            defaults: SectionSpec::default(),
            plugins: BTreeMap::new(),
            max_memory,
            builtin: true,
        }
    }

    /// Reads and checks the file at `path`. `max_memory` is the engine's
    /// per-instance memory ceiling; no limit may exceed it.
    pub fn load(path: &Path, max_memory: u64) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(path, &text, max_memory)
    }

    /// Checks `text` as the contents of the file at `path`.
    pub fn parse(path: &Path, text: &str, max_memory: u64) -> Result<Self, ConfigError> {
        let spec: FileSpec = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: path.to_owned(),
            message: e.to_string().trim_end().to_string(),
        })?;
        let invalid = |key: String, problem: &str| ConfigError::Invalid {
            path: path.to_owned(),
            key,
            problem: problem.to_string(),
        };
        let d = &spec.defaults;
        d.grants
            .check_defaults()
            .map_err(|p| invalid(format!("defaults.{}", p.key), &p.problem))?;
        if d.sha256.is_some() {
            return Err(invalid(
                "defaults.sha256".into(),
                "a digest pins one plugin file; set it in [plugins.NAME]",
            ));
        }
        if d.source.is_some() {
            return Err(invalid(
                "defaults.source".into(),
                "a source names one plugin; set it in [plugins.NAME]",
            ));
        }
        check_section("defaults", d, max_memory).map_err(|(k, p)| invalid(k, &p))?;
        if d.tool_scopes.is_some() {
            return Err(invalid(
                "defaults.tool_scopes".into(),
                "a tool's scopes are set per plugin, in [plugins.NAME.tool_scopes]",
            ));
        }
        let s = &spec.server;
        if s.task_result_ttl.is_some_and(|t| t.is_zero()) {
            return Err(invalid(
                "server.task_result_ttl".into(),
                "must be longer than zero",
            ));
        }
        if s.task_poll_interval.is_some_and(|t| t.as_millis() == 0) {
            return Err(invalid(
                "server.task_poll_interval".into(),
                "must be at least 1ms",
            ));
        }
        if s.max_tasks == Some(0) {
            return Err(invalid("server.max_tasks".into(), "must be at least 1"));
        }
        for (key, value) in [
            ("fetch_connect_timeout", s.fetch_connect_timeout),
            ("fetch_first_byte_timeout", s.fetch_first_byte_timeout),
            ("fetch_timeout", s.fetch_timeout),
        ] {
            if value.is_some_and(|t| t.as_millis() == 0) {
                return Err(invalid(format!("server.{key}"), "must be at least 1ms"));
            }
        }
        for (key, value) in [
            ("max_uri_size", s.max_uri_size.map(|b| b.as_u64())),
            ("max_subscriptions", s.max_subscriptions.map(|n| n as u64)),
            ("max_watched_size", s.max_watched_size.map(|b| b.as_u64())),
            ("max_listen_streams", s.max_listen_streams.map(|n| n as u64)),
        ] {
            if value == Some(0) {
                return Err(invalid(format!("server.{key}"), "must be at least 1"));
            }
        }
        if s.max_sessions == Some(0) {
            return Err(invalid("server.max_sessions".into(), "must be at least 1"));
        }
        if s.session_idle_timeout.is_some_and(|t| t.as_millis() == 0) {
            return Err(invalid(
                "server.session_idle_timeout".into(),
                "must be at least 1ms",
            ));
        }
        if let Some(oauth) = &s.oauth {
            check_oauth(oauth).map_err(|(k, p)| invalid(format!("server.oauth.{k}"), &p))?;
        }
        for (name, section) in &spec.plugins {
            // The name becomes a file name (NAME.wasm): refused before
            // anything else is read from the section.
            if let Err(e) = PluginName::parse(name) {
                return Err(invalid(
                    format!("plugins.{name:?}"),
                    &format!("{e}; rename the section"),
                ));
            }
            let prefix = format!("plugins.{name}");
            check_section(&prefix, section, max_memory).map_err(|(k, p)| invalid(k, &p))?;
            section
                .grants
                .check()
                .map_err(|p| invalid(format!("{prefix}.{}", p.key), &p.problem))?;
        }
        let base = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        Ok(Config {
            path: path.to_owned(),
            base,
            server: spec.server,
            defaults: spec.defaults,
            plugins: spec.plugins,
            max_memory,
            builtin: false,
        })
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

    /// The file this configuration came from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// No file was read: these are the built-in defaults ([`Config::builtin`]).
    pub fn is_builtin(&self) -> bool {
        self.builtin
    }

    /// Plugin sections without a `source` whose name is not in `loaded`
    /// (likely typos; a source's failure is reported as such).
    pub fn unused_sections<'a>(
        &'a self,
        loaded: &'a [String],
    ) -> impl Iterator<Item = &'a str> + 'a {
        self.plugins
            .iter()
            .filter(|(k, section)| section.source.is_none() && !loaded.contains(k))
            .map(|(k, _)| k.as_str())
    }

    /// The engine's per-instance memory ceiling this file was checked against.
    pub fn max_memory(&self) -> u64 {
        self.max_memory
    }

    /// The plugins the file names a `source` for, in name order.
    pub fn sources(&self) -> Vec<PluginSource> {
        self.plugins
            .iter()
            .filter_map(|(name, section)| {
                // Checked by `parse`.
                let source = SourceRef::parse(section.source.as_deref()?).ok()?;
                let plugin = PluginName::parse(name).ok()?;
                Some(PluginSource {
                    name: plugin,
                    source,
                    sha256: section
                        .sha256
                        .as_deref()
                        .and_then(|h| Sha256Digest::from_hex(h).ok()),
                    pin_key: format!("`sha256` in [plugins.{name}] of {}", self.path.display()),
                    keys: self.signature_keys(name),
                    max_size: self.max_plugin_size(name),
                    section: format!("plugins.{name}"),
                })
            })
            .collect()
    }

    /// The most bytes the component fetched for `plugin` may have, and
    /// the key that says so: its own `max_plugin_size`, else `[defaults]`'s,
    /// else the default.
    pub fn max_plugin_size(&self, plugin: &str) -> Bound<u64> {
        let own = self.plugins.get(plugin).and_then(|s| s.max_plugin_size);
        match (own, self.defaults.max_plugin_size) {
            (Some(b), _) => Bound::new(b.as_u64(), format!("plugins.{plugin}.max_plugin_size")),
            (None, Some(b)) => Bound::new(b.as_u64(), "defaults.max_plugin_size"),
            (None, None) => Bound::new(DEFAULT_MAX_PLUGIN_SIZE, "defaults.max_plugin_size"),
        }
    }

    /// `[server]`'s fetch timeouts, each named by its key.
    pub fn fetch_timeouts(&self) -> FetchTimeouts {
        let mut t = FetchTimeouts::policy_defaults();
        let s = &self.server;
        for (bound, value) in [
            (&mut t.connect, s.fetch_connect_timeout),
            (&mut t.first_byte, s.fetch_first_byte_timeout),
            (&mut t.total, s.fetch_timeout),
        ] {
            if let Some(v) = value {
                bound.value = *v;
            }
        }
        t
    }

    /// The public keys a plugin's signature must verify with (none: no
    /// signature is required), and the key that lists them: the plugin's
    /// own `signature_keys`, else `[defaults]`'s. Paths are relative to the
    /// policy file's directory.
    pub fn signature_keys(&self, plugin: &str) -> Option<SignatureKeys> {
        let (key, paths) = match self
            .plugins
            .get(plugin)
            .and_then(|s| s.signature_keys.as_ref())
        {
            Some(paths) => (format!("plugins.{plugin}.signature_keys"), paths),
            None => (
                "defaults.signature_keys".to_string(),
                self.defaults.signature_keys.as_ref()?,
            ),
        };
        Some(SignatureKeys {
            policy_key: key,
            config_file: self.path.clone(),
            paths: paths.iter().map(|p| self.base.join(p)).collect(),
        })
    }

    /// `[server] plain_http_registries`: registries reached over plain HTTP
    /// besides the loopback ones.
    pub fn plain_http_registries(&self) -> &[String] {
        self.server.plain_http_registries.as_deref().unwrap_or(&[])
    }

    /// The file's directory, which relative paths in it start from.
    pub fn base_dir(&self) -> &Path {
        &self.base
    }
}

/// A plugin the policy file names a source for (`[plugins.NAME] source`).
#[derive(Debug, Clone, PartialEq)]
pub struct PluginSource {
    /// The section's NAME: the plugin is served under it.
    pub name: PluginName,
    /// Where it comes from.
    pub source: SourceRef,
    /// The digest the section pins the component to, if any.
    pub sha256: Option<Sha256Digest>,
    /// What pins it, for messages: ``​`sha256` in [plugins.NAME] of FILE``.
    pub pin_key: String,
    /// The keys its signature must verify with, if the policy requires one.
    pub keys: Option<SignatureKeys>,
    /// The most bytes its component may have (`max_plugin_size`).
    pub max_size: Bound<u64>,
    /// `plugins.NAME`, for messages.
    pub section: String,
}

/// The public keys a policy requires a signature from.
#[derive(Debug, Clone, PartialEq)]
pub struct SignatureKeys {
    /// The policy key that lists them, e.g. `plugins.text.signature_keys`.
    pub policy_key: String,
    /// The policy file.
    pub config_file: PathBuf,
    /// The key files (PEM SPKI, as `cosign.pub`), resolved against the
    /// policy file's directory.
    pub paths: Vec<PathBuf>,
}

fn check_oauth(o: &OAuthSpec) -> Result<(), (String, String)> {
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

fn check_section(prefix: &str, s: &SectionSpec, max_memory: u64) -> Result<(), (String, String)> {
    let err = |key: &str, problem: String| Err((format!("{prefix}.{key}"), problem));
    for scope in s.scopes.iter().flatten() {
        if let Err(problem) = check_scope(scope) {
            return err("scopes", problem);
        }
    }
    for (tool, scopes) in s.tool_scopes.iter().flatten() {
        for scope in scopes {
            if let Err(problem) = check_scope(scope) {
                return err(&format!("tool_scopes.{tool}"), problem);
            }
        }
    }
    if s.fuel == Some(0) {
        return err("fuel", "must be at least 1".into());
    }
    if let Some(m) = s.memory
        && (m.as_u64() < 64 * 1024 || m.as_u64() > max_memory)
    {
        return err(
            "memory",
            format!(
                "{m} is outside 64 KiB ..= {} (the engine's per-instance ceiling)",
                ByteSize(max_memory)
            ),
        );
    }
    if s.timeout.is_some_and(|t| t.is_zero()) {
        return err("timeout", "must be longer than zero".into());
    }
    if s.task_timeout.is_some_and(|t| t.is_zero()) {
        return err("task_timeout", "must be longer than zero".into());
    }
    if s.max_concurrent_calls == Some(0) {
        return err("max_concurrent_calls", "must be at least 1".into());
    }
    if s.max_tools == Some(0) {
        return err("max_tools", "must be at least 1".into());
    }
    for (key, size) in [
        ("max_schema_size", s.max_schema_size),
        ("max_tool_list_size", s.max_tool_list_size),
    ] {
        if size.is_some_and(|b| b.as_u64() == 0) {
            return err(key, "must be at least 1 byte".into());
        }
    }
    if let Some(ReuseSpec::Calls(n)) = s.reuse_instances
        && n > MAX_REUSE_INSTANCES
    {
        return err(
            "reuse_instances",
            format!(
                "must be at most {} (0: a fresh instance per call), or \"session\"",
                count(MAX_REUSE_INSTANCES.into())
            ),
        );
    }
    if s.ready_instances.is_some_and(|n| n > MAX_READY_INSTANCES) {
        return err(
            "ready_instances",
            format!(
                "must be at most {MAX_READY_INSTANCES} (0: no instance is made ahead of a call)"
            ),
        );
    }
    if let Some(Err(problem)) = s.sha256.as_deref().map(Sha256Digest::from_hex) {
        return err("sha256", problem.to_string());
    }
    if let Some(Err(problem)) = s.source.as_deref().map(SourceRef::parse) {
        return err("source", problem.to_string());
    }
    if let Some(SourceRef::Https(_)) = s.source.as_deref().and_then(|t| SourceRef::parse(t).ok())
        && s.sha256.is_none()
    {
        return err(
            "source",
            "an https:// source needs the file's digest: set `sha256` in the same section".into(),
        );
    }
    if s.signature_keys
        .as_ref()
        .is_some_and(|k| k.iter().any(String::is_empty))
    {
        return err("signature_keys", "a key path is empty".into());
    }
    if s.max_plugin_size.is_some_and(|b| b.as_u64() == 0) {
        return err("max_plugin_size", "must be at least 1 byte".into());
    }
    Ok(())
}

fn apply(limits: &mut Limits, s: &SectionSpec) {
    let set = |target: &mut u64, v: Option<u64>| {
        if let Some(v) = v {
            *target = v;
        }
    };
    set(&mut limits.fuel, s.fuel);
    set(&mut limits.memory_bytes, s.memory.map(|b| b.as_u64()));
    set(&mut limits.table_elements, s.table_elements);
    set(
        &mut limits.max_argument_bytes,
        s.max_argument_size.map(|b| b.as_u64()),
    );
    set(
        &mut limits.max_result_bytes,
        s.max_result_size.map(|b| b.as_u64()),
    );
    set(&mut limits.log_lines, s.log_lines);
    set(&mut limits.log_bytes, s.log_bytes.map(|b| b.as_u64()));
    limits.host_resources = s.host_resources.unwrap_or(limits.host_resources);
    limits.instances = s.instances.unwrap_or(limits.instances);
    limits.tables = s.tables.unwrap_or(limits.tables);
    limits.memories = s.memories.unwrap_or(limits.memories);
    limits.timeout = s.timeout.map_or(limits.timeout, |t| *t);
    limits.task_timeout = s.task_timeout.map_or(limits.task_timeout, |t| *t);
    limits.max_concurrent_calls = s
        .max_concurrent_calls
        .unwrap_or(limits.max_concurrent_calls);
    limits.rate_limit_per_minute = s.rate_limit.unwrap_or(limits.rate_limit_per_minute);
    limits.client_rate_limit_per_minute = s
        .client_rate_limit
        .unwrap_or(limits.client_rate_limit_per_minute);
    limits.audit_arguments = s.audit_arguments.unwrap_or(limits.audit_arguments);
    limits.receipts = s.receipts.unwrap_or(limits.receipts);
    limits.max_tools = s.max_tools.unwrap_or(limits.max_tools);
    match s.reuse_instances {
        Some(ReuseSpec::Calls(n)) => {
            limits.reuse_instances = n;
            limits.reuse_per_session = false;
        }
        Some(ReuseSpec::Session) => {
            limits.reuse_instances = MAX_REUSE_INSTANCES;
            limits.reuse_per_session = true;
        }
        None => {}
    }
    limits.ready_instances = s.ready_instances.unwrap_or(limits.ready_instances);
    set(
        &mut limits.max_schema_bytes,
        s.max_schema_size.map(|b| b.as_u64()),
    );
    set(
        &mut limits.max_tool_list_bytes,
        s.max_tool_list_size.map(|b| b.as_u64()),
    );
}

impl Policies for Config {
    fn policy_for(&self, plugin: &str) -> Result<Policy, PolicyError> {
        let mut policy = Policy {
            section: format!("plugins.{plugin}").into(),
            config_file: self.path.display().to_string().into(),
            ..Policy::default()
        };
        apply(&mut policy.limits, &self.defaults);
        policy.access.scopes = self.defaults.scopes.clone().unwrap_or_default();
        let section = self.plugins.get(plugin);
        if let Some(section) = section {
            apply(&mut policy.limits, section);
            if let Some(scopes) = &section.scopes {
                policy.access.scopes = scopes.clone();
            }
            policy.access.tool_scopes = section.tool_scopes.clone().unwrap_or_default();
            // Checked when the file was parsed.
            policy.sha256 = section
                .sha256
                .as_deref()
                .and_then(|hex| Sha256Digest::from_hex(hex).ok());
        }
        let ctx = ResolveCtx {
            config_file: &self.path,
            base: &self.base,
            section: &policy.section,
        };
        let grants = Grants::resolve(&self.defaults.grants, section.map(|s| &s.grants), &ctx)
            .map_err(|p| PolicyError::Grant {
                config_file: policy.config_file.clone(),
                section: policy.section.clone(),
                key: p.key,
                problem: p.problem,
            })?;
        policy.grants = Arc::new(grants);
        Ok(policy)
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod documentation;
