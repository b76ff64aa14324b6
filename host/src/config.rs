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
mod tests {
    use super::*;

    const MAX: u64 = 1 << 30;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(Path::new("/etc/mcp-wasm-host.toml"), text, MAX)
    }

    #[test]
    fn a_complete_file_resolves_per_plugin() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("data")).unwrap();
        let path = dir.path().join("mcp-wasm-host.toml");
        std::fs::write(
            &path,
            r#"
[defaults]
fuel = 500_000_000
memory = "64 MiB"
timeout = "5s"

[plugins.text]
timeout = "30s"
max_concurrent_calls = 2
rate_limit = 0
env = { GREETING = "hello" }
env_passthrough = ["HOME"]
[[plugins.text.mounts]]
host = "data"
guest = "/data"
write = true
"#,
        )
        .unwrap();
        let config = Config::load(&path, MAX).unwrap();
        let text = config.policy_for("text").unwrap();
        assert_eq!(text.limits.fuel, 500_000_000);
        assert_eq!(text.limits.memory_bytes, 64 << 20);
        assert_eq!(text.limits.timeout, Duration::from_secs(30));
        assert_eq!(text.limits.max_concurrent_calls, 2);
        assert_eq!(text.limits.rate_limit_per_minute, 0);
        assert_eq!(text.grants.filesystem.mounts.len(), 1);
        assert_eq!(
            text.grants.filesystem.mounts[0].host,
            dir.path().join("data").canonicalize().unwrap()
        );
        assert!(text.grants.filesystem.mounts[0].write);
        assert_eq!(
            text.grants.env.vars,
            [("GREETING".to_string(), "hello".to_string())]
        );
        let other = config.policy_for("json").unwrap();
        assert_eq!(other.limits.timeout, Duration::from_secs(5));
        assert!(other.grants.filesystem.mounts.is_empty() && other.grants.env.vars.is_empty());
        let loaded = ["json".to_string()];
        assert_eq!(
            config.unused_sections(&loaded).collect::<Vec<_>>(),
            ["text"]
        );
    }

    #[test]
    fn typos_and_wrong_types_name_the_line_and_key() {
        let e = parse("[defaults]\nfule = 5\n").unwrap_err().to_string();
        assert!(
            e.contains("/etc/mcp-wasm-host.toml") && e.contains("line 2") && e.contains("fule"),
            "{e}"
        );
        let e = parse("[plugins.text]\ntimeout = 5\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2") && e.contains("timeout"), "{e}");
        let e = parse("[plugins.text]\nmemory = \"lots\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2") && e.contains("memory"), "{e}");
        let e = parse("[plugin.text]\n").unwrap_err().to_string();
        assert!(e.contains("line 1") && e.contains("plugin"), "{e}");
        let e = parse("[[plugins.t.mounts]]\nhost = \"x\"\nguest = \"/x\"\nwrite = \"yes\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 4") && e.contains("write"), "{e}");
    }

    #[test]
    fn values_are_range_checked() {
        let e = parse("[defaults]\nmemory = \"4 GiB\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`defaults.memory`"), "{e}");
        let e = parse("[plugins.a]\ntimeout = \"0s\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`plugins.a.timeout`"), "{e}");
        let e = parse("[[plugins.a.mounts]]\nhost = \".\"\nguest = \"data\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("must be absolute"), "{e}");
        let e = parse("[[defaults.mounts]]\nhost = \".\"\nguest = \"/d\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("granted per plugin"), "{e}");
    }

    #[test]
    fn tool_list_bounds_default_and_are_overridden_per_plugin() {
        let config = parse(
            "[defaults]\nmax_tools = 50\n[plugins.big]\nmax_tools = 100_000\nmax_schema_size = \"1 MiB\"\nmax_tool_list_size = \"64 MiB\"\n",
        )
        .unwrap();
        let big = config.policy_for("big").unwrap().limits;
        assert_eq!(
            (big.max_tools, big.max_schema_bytes, big.max_tool_list_bytes),
            (100_000, 1 << 20, 64 << 20)
        );
        let other = config.policy_for("other").unwrap().limits;
        let d = Limits::default();
        assert_eq!(
            (
                other.max_tools,
                other.max_schema_bytes,
                other.max_tool_list_bytes
            ),
            (50, d.max_schema_bytes, d.max_tool_list_bytes)
        );
        for (text, key) in [
            ("[defaults]\nmax_tools = 0\n", "`defaults.max_tools`"),
            (
                "[plugins.a]\nmax_schema_size = 0\n",
                "`plugins.a.max_schema_size`",
            ),
            (
                "[plugins.a]\nmax_tool_list_size = \"0 B\"\n",
                "`plugins.a.max_tool_list_size`",
            ),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(key) && e.contains("at least 1"), "{e}");
        }
        let e = parse("[defaults]\nmax_tools = \"many\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2") && e.contains("max_tools"), "{e}");
    }

    #[test]
    fn instance_reuse_is_off_unless_set_and_a_plugin_may_turn_it_off() {
        let config = parse(
            "[defaults]\nreuse_instances = 8\n[plugins.a]\nreuse_instances = 0\n[plugins.b]\nfuel = 5\n",
        )
        .unwrap();
        let reuse = |name: &str| config.policy_for(name).unwrap().limits.reuse_instances;
        assert_eq!((reuse("a"), reuse("b"), reuse("unlisted")), (0, 8, 8));
        let builtin = Config::builtin(MAX);
        assert_eq!(builtin.policy_for("a").unwrap().limits.reuse_instances, 0);
        let e = parse("[plugins.a]\nreuse_instances = 1_000_001\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`plugins.a.reuse_instances`") && e.contains("at most 1,000,000"),
            "{e}"
        );
        for text in [
            "[defaults]\nreuse_instances = -1\n",
            "[defaults]\nreuse_instances = \"yes\"\n",
            "[defaults]\nreuse_instance = 2\n",
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(
                e.contains("line 2") && e.contains("reuse_instance"),
                "{text}: {e}"
            );
        }
    }

    #[test]
    fn session_reuse_is_a_value_of_reuse_instances_and_a_plugin_may_override_it() {
        let config = parse(
            "[defaults]\nreuse_instances = \"session\"\n[plugins.a]\nreuse_instances = 4\n[plugins.b]\nready_instances = 2\n",
        )
        .unwrap();
        let limits = |name: &str| config.policy_for(name).unwrap().limits;
        let (a, b) = (limits("a"), limits("b"));
        assert!(!a.reuse_per_session && a.reuse_instances == 4);
        assert!(b.reuse_per_session && b.reuse_instances == MAX_REUSE_INSTANCES);
        assert_eq!((a.ready_instances, b.ready_instances), (0, 2));
        let builtin = Config::builtin(MAX).policy_for("a").unwrap().limits;
        assert!(!builtin.reuse_per_session, "off by default");
        for text in [
            "[plugins.a]\nreuse_instances = \"sessions\"\n",
            "[plugins.a]\nreuse_instances = \"per-session\"\n",
            "[plugins.a]\nreuse_instances = true\n",
            "[plugins.a]\nreuse_instances = 4_294_967_296\n",
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(
                e.contains("line 2") && e.contains("reuse_instances") && e.contains("\"session\""),
                "{text}: {e}"
            );
        }
        let e = parse("[defaults]\nready_instances = 17\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`defaults.ready_instances`") && e.contains("at most 16"),
            "{e}"
        );
    }

    #[test]
    fn fetch_bounds_are_read_per_plugin_and_named_by_their_keys() {
        let config = parse(
            "[server]\nfetch_connect_timeout = \"2s\"\nfetch_first_byte_timeout = \"3s\"\nfetch_timeout = \"1m\"\n[defaults]\nmax_plugin_size = \"8 MiB\"\n[plugins.a]\nsource = \"oci://r/a:v1\"\n[plugins.b]\nsource = \"oci://r/b:v1\"\nmax_plugin_size = 1000\n",
        )
        .unwrap();
        let t = config.fetch_timeouts();
        assert_eq!(
            t.connect,
            Bound::new(Duration::from_secs(2), "server.fetch_connect_timeout")
        );
        assert_eq!(
            t.first_byte,
            Bound::new(Duration::from_secs(3), "server.fetch_first_byte_timeout")
        );
        assert_eq!(
            t.total,
            Bound::new(Duration::from_secs(60), "server.fetch_timeout")
        );
        let sources = config.sources();
        assert_eq!(
            sources[0].max_size,
            Bound::new(8 << 20, "defaults.max_plugin_size")
        );
        assert_eq!(
            sources[1].max_size,
            Bound::new(1000, "plugins.b.max_plugin_size")
        );
        assert!(sources[0].pin_key.contains("`sha256` in [plugins.a]"));
        let none = parse("[plugins.a]\nsource = \"oci://r/a:v1\"\n").unwrap();
        assert_eq!(none.fetch_timeouts(), FetchTimeouts::policy_defaults());
        assert_eq!(none.sources()[0].max_size.value, DEFAULT_MAX_PLUGIN_SIZE);
        for (text, key) in [
            (
                "[server]\nfetch_timeout = \"0s\"\n",
                "`server.fetch_timeout`",
            ),
            (
                "[server]\nfetch_connect_timeout = \"0ms\"\n",
                "`server.fetch_connect_timeout`",
            ),
            (
                "[defaults]\nmax_plugin_size = 0\n",
                "`defaults.max_plugin_size`",
            ),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(key), "{text}: {e}");
        }
    }

    /// The class: a section name is held to the plugin-name rule, whatever
    /// the section holds; the message names the section as written.
    #[test]
    fn section_names_must_be_plugin_names() {
        for bad in [
            "../x", "..", ".", "a/b", "a\\\\b", ".x", "", "x y", "-x", "a/../b",
        ] {
            for body in ["fuel = 5\n", "source = \"oci://r/a:v1\"\n"] {
                let text = format!("[plugins.\"{bad}\"]\n{body}");
                let e = parse(&text).unwrap_err().to_string();
                assert!(
                    e.contains("is not a plugin name") && e.contains("`plugins.\""),
                    "{text}: {e}"
                );
            }
        }
        for good in ["a", "word_count", "v1.2", "Text-2"] {
            parse(&format!("[plugins.\"{good}\"]\nfuel = 5\n")).unwrap();
        }
    }

    #[test]
    fn sources_and_signature_keys_are_read_and_checked() {
        let config = parse(
            "[server]\nplain_http_registries = [\"registry.internal:5000\"]\n[defaults]\nsignature_keys = [\"keys/team.pub\"]\n[plugins.a]\nsource = \"oci://127.0.0.1:5000/plugins/a:v1\"\n[plugins.b]\nsource = \"oci://registry.internal:5000/b:v2\"\nsignature_keys = [\"b.pub\"]\n[plugins.c]\nfuel = 5\n",
        )
        .unwrap();
        assert_eq!(config.plain_http_registries(), ["registry.internal:5000"]);
        let sources = config.sources();
        let names: Vec<&str> = sources.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        let a = sources[0].keys.as_ref().unwrap();
        assert_eq!(a.policy_key, "defaults.signature_keys");
        assert_eq!(a.paths, [Path::new("/etc/keys/team.pub")]);
        let b = sources[1].keys.as_ref().unwrap();
        assert_eq!(b.policy_key, "plugins.b.signature_keys");
        assert_eq!(b.paths, [Path::new("/etc/b.pub")]);
        assert_eq!(
            sources[0].source.to_string(),
            "oci://127.0.0.1:5000/plugins/a:v1"
        );
        assert!(config.policy_for("a").is_ok());
        for (text, key, problem) in [
            (
                "[defaults]\nsource = \"oci://r/a:v1\"\n",
                "`defaults.source`",
                "[plugins.NAME]",
            ),
            (
                "[plugins.a]\nsource = \"oci://r/a\"\n",
                "`plugins.a.source`",
                "name a tag",
            ),
            (
                "[plugins.a]\nsource = \"https://example.com/a.wasm\"\n",
                "`plugins.a.source`",
                "set `sha256`",
            ),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(key) && e.contains(problem), "{text}: {e}");
        }
        for (text, key) in [
            ("[plugins.a]\nsorce = \"oci://r/a:v1\"\n", "sorce"),
            ("[defaults]\nsignature_key = [\"k.pub\"]\n", "signature_key"),
            ("[server]\nplain_http = [\"r\"]\n", "plain_http"),
            ("[plugins.a]\nsource = 5\n", "source"),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains("line ") && e.contains(key), "{text}: {e}");
        }
    }

    #[test]
    fn a_pinned_digest_is_checked_and_resolved() {
        let hex = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        let config = parse(&format!(
            "[plugins.a]\nsha256 = \"{}\"\n",
            hex.to_uppercase()
        ))
        .unwrap();
        assert_eq!(
            config
                .policy_for("a")
                .unwrap()
                .sha256
                .map(|d| d.to_string()),
            Some(hex.to_string())
        );
        assert_eq!(config.policy_for("b").unwrap().sha256, None);
        let e = parse("[plugins.a]\nsha256 = \"abc\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`plugins.a.sha256`") && e.contains("64 hexadecimal"),
            "{e}"
        );
        let e = parse(&format!("[defaults]\nsha256 = \"{hex}\"\n"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("`defaults.sha256`"), "{e}");
    }

    #[test]
    fn the_server_section_sets_the_task_store_and_checks_its_values() {
        let defaults = TaskSettings::default();
        assert_eq!(parse("").unwrap().task_options(defaults), defaults);
        let config = parse(
            "[server]\ntask_sync_window = \"0s\"\ntask_result_ttl = \"1h\"\ntask_poll_interval = \"250ms\"\nmax_tasks = 7\nmax_task_store_size = \"1 MiB\"\n",
        )
        .unwrap();
        let tasks = config.task_options(defaults);
        assert_eq!(tasks.sync_window, Duration::ZERO);
        assert_eq!(tasks.result_ttl, Duration::from_secs(3600));
        assert_eq!(tasks.poll_interval, Duration::from_millis(250));
        assert_eq!((tasks.max_tasks, tasks.max_store_bytes), (7, 1 << 20));
        for (text, key) in [
            ("[server]\nmax_tasks = 0\n", "server.max_tasks"),
            (
                "[server]\ntask_result_ttl = \"0s\"\n",
                "server.task_result_ttl",
            ),
            (
                "[server]\ntask_poll_interval = \"0s\"\n",
                "server.task_poll_interval",
            ),
            (
                "[plugins.p]\ntask_timeout = \"0s\"\n",
                "plugins.p.task_timeout",
            ),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(key), "{text}: {e}");
        }
        let config = parse("[plugins.p]\ntask_timeout = \"1h\"\n").unwrap();
        let p = config.policy_for("p").unwrap();
        assert_eq!(p.limits.task_timeout, Duration::from_secs(3600));
        assert_eq!(p.limits.timeout, Duration::from_secs(10));
    }

    #[test]
    fn the_server_section_sets_the_uri_and_subscription_bounds_and_checks_them() {
        let defaults = ServedBounds::default();
        assert_eq!(parse("").unwrap().served_bounds(defaults.clone()), defaults);
        let config = parse(
            "[server]\nmax_uri_size = \"1 KiB\"\nmax_subscriptions = 3\nmax_watched_size = \"2 MiB\"\nmax_listen_streams = 5\n",
        )
        .unwrap();
        assert_eq!(
            config.served_bounds(defaults),
            ServedBounds {
                max_uri_bytes: 1024,
                max_subscriptions: 3,
                max_watched_bytes: 2 << 20,
                max_listen_streams: 5,
            }
        );
        for key in [
            "max_uri_size",
            "max_subscriptions",
            "max_watched_size",
            "max_listen_streams",
        ] {
            let e = parse(&format!("[server]\n{key} = 0\n"))
                .unwrap_err()
                .to_string();
            assert!(e.contains(&format!("server.{key}")), "{key}: {e}");
        }
    }

    #[test]
    fn the_server_section_bounds_the_sessions_and_checks_its_values() {
        let defaults = SessionSettings::default();
        assert_eq!(parse("").unwrap().session_options(), defaults);
        let config = parse(
            "[server]\nmax_sessions = 3\nmax_sessions_per_subject = 0\nmax_sessions_per_address = 2\nsession_idle_timeout = \"1500ms\"\n",
        )
        .unwrap();
        assert_eq!(
            config.session_options(),
            SessionSettings {
                max_sessions: 3,
                max_per_subject: 0,
                max_per_address: 2,
                idle_timeout: Duration::from_millis(1500),
            }
        );
        for (text, key) in [
            ("[server]\nmax_sessions = 0\n", "server.max_sessions"),
            (
                "[server]\nsession_idle_timeout = \"0s\"\n",
                "server.session_idle_timeout",
            ),
            (
                "[server]\nmax_sessions_per_subject = -1\n",
                "max_sessions_per_subject",
            ),
            (
                "[server]\nmax_sessions_per_address = \"many\"\n",
                "max_sessions_per_address",
            ),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(key), "{text}: {e}");
        }
    }

    #[test]
    fn the_server_section_sets_the_list_ttl_and_refuses_unknown_keys() {
        assert_eq!(parse("").unwrap().list_ttl(), None);
        let config = parse("[server]\nlist_ttl = \"2m\"\n").unwrap();
        assert_eq!(config.list_ttl(), Some(Duration::from_secs(120)));
        let e = parse("[server]\nttl = \"2m\"\n").unwrap_err().to_string();
        assert!(e.contains("ttl") && e.contains("list_ttl"), "{e}");
        let e = parse("[server]\nlist_ttl = \"soon\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("list_ttl"), "{e}");
    }

    #[test]
    fn requests_to_the_client_are_granted_per_plugin_and_kind() {
        let config = parse(
            "[plugins.a.client]\nsampling = true\nelicitation = true\n[plugins.b.client]\nelicitation = true\nroots = true\n[plugins.c]\nfuel = 5\n",
        )
        .unwrap();
        let grant = |name: &str| {
            let c = config.policy_for(name).unwrap().grants.client;
            (c.sampling, c.elicitation, c.roots)
        };
        assert_eq!(grant("a"), (true, true, false));
        assert_eq!(grant("b"), (false, true, true));
        assert_eq!(grant("c"), (false, false, false));
        assert_eq!(grant("unlisted"), (false, false, false));
        let e = parse("[plugins.a.client]\nsampling = true\nlogging = true\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 3") && e.contains("logging"), "{e}");
        let e = parse("[plugins.a.client]\nsampling = \"yes\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2") && e.contains("sampling"), "{e}");
        let e = parse("[defaults.client]\nsampling = true\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`defaults.client`") && e.contains("granted per plugin"),
            "{e}"
        );
    }

    #[test]
    fn a_secret_injected_into_an_origin_the_plugin_cannot_reach_is_refused() {
        let secret = "[plugins.a.secrets.T]\nenv = \"PATH\"\norigin = \"https://api.example.com\"\nheader = \"Authorization\"\n";
        let config = parse(&format!(
            "[plugins.a.http]\nallow = [\"https://other.example.com\"]\n{secret}"
        ))
        .unwrap();
        let e = config.policy_for("a").unwrap_err().to_string();
        assert!(
            e.contains("`plugins.a.secrets.T.origin`") && e.contains("http.allow"),
            "{e}"
        );
        for allow in ["https://api.example.com/v3", "https://*.example.com"] {
            let config = parse(&format!(
                "[plugins.a.http]\nallow = [\"{allow}\"]\n{secret}"
            ))
            .unwrap();
            let policy = config.policy_for("a").unwrap();
            assert_eq!(policy.grants.secrets.injections().count(), 1, "{allow}");
        }
    }

    #[test]
    fn block_secrets_is_set_in_the_defaults_or_per_plugin_but_secrets_only_per_plugin() {
        let config = parse(
            "[defaults]\nblock_secrets = true\n[plugins.a]\nblock_secrets = false\n[plugins.b.secrets.T]\nenv = \"PATH\"\nexpose = true\n",
        )
        .unwrap();
        assert!(!config.policy_for("a").unwrap().grants.secrets.block);
        let b = config.policy_for("b").unwrap();
        assert!(b.grants.secrets.block);
        assert_eq!(b.grants.secrets.secrets.len(), 1);
        assert!(config.policy_for("c").unwrap().grants.secrets.block);
        assert!(
            !parse("")
                .unwrap()
                .policy_for("c")
                .unwrap()
                .grants
                .secrets
                .block
        );
        let e = parse("[defaults.secrets.T]\nenv = \"PATH\"\nexpose = true\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`defaults.secrets`") && e.contains("granted per plugin"),
            "{e}"
        );
        let e = parse("[plugins.a]\nblock_secrets = \"yes\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("block_secrets"), "{e}");
    }

    const OAUTH: &str = "[server.oauth]\nissuer = \"https://idp.example.com/\"\naudience = \"https://mcp.example.com/mcp\"\njwks_uri = \"https://idp.example.com/jwks\"\n";

    #[test]
    fn the_oauth_section_fills_in_defaults_and_collects_the_scopes() {
        assert_eq!(parse("").unwrap().oauth(), None);
        let config = parse(&format!(
            "{OAUTH}[defaults]\nscopes = [\"mcp\"]\n[plugins.calc]\nscopes = [\"calc\"]\n[plugins.calc.tool_scopes]\ndivide = [\"calc.admin\", \"mcp\"]\n[plugins.other]\nfuel = 5\n"
        ))
        .unwrap();
        let oauth = config.oauth().unwrap();
        assert_eq!(oauth.issuer, "https://idp.example.com/");
        assert_eq!(oauth.jwks_uri.to_string(), "https://idp.example.com/jwks");
        assert_eq!(oauth.algorithms, OAuthSettings::DEFAULT_ALGORITHMS);
        assert_eq!(oauth.leeway, OAuthSettings::DEFAULT_LEEWAY);
        assert_eq!(oauth.scopes_supported, ["calc", "calc.admin", "mcp"]);
        let calc = config.policy_for("calc").unwrap().access;
        assert_eq!(calc.scopes, ["calc"]);
        assert_eq!(calc.tool_scopes["divide"], ["calc.admin", "mcp"]);
        let other = config.policy_for("other").unwrap().access;
        assert_eq!(
            (other.scopes, other.tool_scopes.len()),
            (vec!["mcp".to_string()], 0)
        );
        let config = parse(&format!(
            "{OAUTH}algorithms = [\"ES256\", \"EdDSA\"]\nleeway = \"5s\"\njwks_refetch_interval = \"0s\"\nmax_jwks_size = \"8 KiB\"\n"
        ))
        .unwrap();
        let oauth = config.oauth().unwrap();
        assert_eq!(
            oauth.algorithms,
            [
                jsonwebtoken::Algorithm::ES256,
                jsonwebtoken::Algorithm::EdDSA
            ]
        );
        assert_eq!(oauth.leeway, Duration::from_secs(5));
        assert_eq!(oauth.jwks_refetch_interval, Duration::ZERO);
        assert_eq!(oauth.max_jwks_bytes, 8 << 10);
    }

    #[test]
    fn the_oauth_section_refuses_typos_weak_algorithms_and_plain_http() {
        let e = parse(&format!("{OAUTH}jwks_url = \"x\"\n"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 5") && e.contains("jwks_url"), "{e}");
        let e = parse("[server.oauth]\nissuer = \"https://a\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("audience"), "{e}");
        for (extra, key, why) in [
            (
                "algorithms = [\"HS256\"]\n",
                "server.oauth.algorithms",
                "HMAC",
            ),
            (
                "algorithms = [\"none\"]\n",
                "server.oauth.algorithms",
                "unsigned",
            ),
            (
                "algorithms = [\"RS1\"]\n",
                "server.oauth.algorithms",
                "not a JWS algorithm",
            ),
            (
                "algorithms = []\n",
                "server.oauth.algorithms",
                "at least one",
            ),
            ("leeway = \"1h\"\n", "server.oauth.leeway", "at most"),
            (
                "jwks_ttl = \"0s\"\n",
                "server.oauth.jwks_ttl",
                "longer than zero",
            ),
            (
                "max_jwks_size = \"1 GiB\"\n",
                "server.oauth.max_jwks_size",
                "16 MiB",
            ),
        ] {
            let e = parse(&format!("{OAUTH}{extra}")).unwrap_err().to_string();
            assert!(e.contains(key) && e.contains(why), "{extra}: {e}");
        }
        let plain = OAUTH.replace(
            "https://idp.example.com/jwks",
            "http://idp.example.com/jwks",
        );
        let e = parse(&plain).unwrap_err().to_string();
        assert!(
            e.contains("server.oauth.jwks_uri") && e.contains("loopback"),
            "{e}"
        );
        let loopback = OAUTH.replace("https://idp.example.com/jwks", "http://127.0.0.1:9/jwks");
        assert!(parse(&loopback).unwrap().oauth().is_some());
        let e = parse("[plugins.a]\nscopes = [\"two words\"]\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("plugins.a.scopes") && e.contains("' '"), "{e}");
        let e = parse("[defaults.tool_scopes]\nx = [\"a\"]\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("defaults.tool_scopes") && e.contains("per plugin"),
            "{e}"
        );
        let e = parse("[plugins.a]\nscope = [\"x\"]\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2") && e.contains("scope"), "{e}");
        let e = parse("[plugins.a]\nscopes = \"x\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2") && e.contains("scopes"), "{e}");
    }

    #[test]
    fn a_missing_mount_is_an_error_for_that_plugin_only() {
        let config =
            parse("[[plugins.a.mounts]]\nhost = \"/definitely/not/here\"\nguest = \"/d\"\n")
                .unwrap();
        let e = config.policy_for("a").unwrap_err().to_string();
        assert!(
            e.contains("plugins.a.mounts[0].host") && e.contains("/definitely/not/here"),
            "{e}"
        );
        assert!(config.policy_for("b").is_ok());
    }
}

#[cfg(test)]
mod documentation {
    //! The policy reference (`docs/policy.md`) and the example file must match
    //! the code, and every relative link in the README and `docs/` must lead
    //! to a file and heading that exist.
    use super::*;
    use crate::runtime::units::{bytes, count};

    fn workspace_file(rel: &str) -> (PathBuf, String) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
        let text = std::fs::read_to_string(&path).unwrap();
        (path, text)
    }

    #[test]
    fn the_example_file_parses_and_its_defaults_are_the_real_ones() {
        let (path, text) = workspace_file("examples/mcp-wasm-host.toml");
        let config = Config::parse(&path, &text, 1 << 30).unwrap();
        let unlisted = config.policy_for("some-other-plugin").unwrap();
        assert_eq!(unlisted.limits, Limits::default());
        let json = config.policy_for("json").unwrap();
        assert_eq!(json.limits.memory_bytes, 256 << 20);
    }

    #[test]
    fn the_policy_reference_network_example_parses_and_its_http_table_matches_the_code() {
        use crate::runtime::capabilities::http::HttpLimits;
        use crate::runtime::units::duration;
        let (path, readme) = workspace_file("docs/policy.md");
        let section = readme
            .split("## Network access and secrets")
            .nth(1)
            .expect("docs/policy.md has a network section");
        let example = section
            .split("```toml\n")
            .nth(1)
            .and_then(|rest| rest.split("```").next())
            .expect("the network section has a TOML example");
        let config = Config::parse(&path, example, 1 << 30).unwrap();
        let fetch = config.policy_for("fetch").unwrap();
        assert_eq!(fetch.grants.http.allow.len(), 3);
        assert_eq!(fetch.grants.http.methods, ["GET", "HEAD"]);
        let d = HttpLimits::default();
        let human = |t: Duration| duration(t).replace(' ', "");
        for row in [
            format!("| `max_requests` | integer | `{}` |", d.max_requests),
            format!(
                "| `max_request_body` | size | `\"{}\"` |",
                bytes(d.max_request_body)
            ),
            format!(
                "| `max_response_body` | size | `\"{}\"` |",
                bytes(d.max_response_body)
            ),
            format!(
                "| `connect_timeout` | duration | `\"{}\"` |",
                human(d.connect_timeout)
            ),
            format!(
                "| `first_byte_timeout` | duration | `\"{}\"` |",
                human(d.first_byte_timeout)
            ),
        ] {
            assert!(section.contains(&row), "docs/policy.md lacks the row {row}");
        }
    }

    #[test]
    fn the_policy_reference_defaults_table_matches_the_code() {
        let (_, readme) = workspace_file("docs/policy.md");
        let (_, example) = workspace_file("examples/mcp-wasm-host.toml");
        assert!(
            readme.contains(example.trim_end()),
            "docs/policy.md embeds examples/mcp-wasm-host.toml verbatim"
        );
        let d = Limits::default();
        let int = |n: u64| count(n).replace(',', "_");
        let rows = [
            format!("| `fuel` | integer | `{}` |", int(d.fuel)),
            format!("| `memory` | size | `\"{}\"` |", bytes(d.memory_bytes)),
            format!(
                "| `table_elements` | integer | `{}` |",
                int(d.table_elements)
            ),
            format!("| `instances` | integer | `{}` |", d.instances),
            format!("| `tables` | integer | `{}` |", d.tables),
            format!("| `memories` | integer | `{}` |", d.memories),
            format!("| `timeout` | duration | `\"{}s\"` |", d.timeout.as_secs()),
            format!(
                "| `max_concurrent_calls` | integer | `{}` |",
                d.max_concurrent_calls
            ),
            format!(
                "| `max_argument_size` | size | `\"{}\"` |",
                bytes(d.max_argument_bytes)
            ),
            format!(
                "| `max_result_size` | size | `\"{}\"` |",
                bytes(d.max_result_bytes)
            ),
            format!("| `rate_limit` | integer | `{}` |", d.rate_limit_per_minute),
            format!(
                "| `client_rate_limit` | integer | `{}` |",
                d.client_rate_limit_per_minute
            ),
            format!("| `audit_arguments` | boolean | `{}` |", d.audit_arguments),
            format!(
                "| `block_secrets` | boolean | `{}` |",
                capabilities::secrets::SecretsPolicy::default().block
            ),
            format!("| `receipts` | boolean | `{}` |", d.receipts),
            format!("| `log_lines` | integer | `{}` |", int(d.log_lines)),
            format!("| `log_bytes` | size | `\"{}\"` |", bytes(d.log_bytes)),
            format!(
                "| `host_resources` | integer | `{}` |",
                int(u64::from(d.host_resources))
            ),
            format!("| `max_tools` | integer | `{}` |", int(d.max_tools.into())),
            format!(
                "| `max_schema_size` | size | `\"{}\"` |",
                bytes(d.max_schema_bytes)
            ),
            format!(
                "| `max_tool_list_size` | size | `\"{}\"` |",
                bytes(d.max_tool_list_bytes)
            ),
            format!(
                "| `reuse_instances` | integer or `\"session\"` | `{}` | calls one instance may serve before it is dropped (at most `{}`)",
                d.reuse_instances,
                int(MAX_REUSE_INSTANCES.into())
            ),
            format!(
                "| `ready_instances` | integer | `{}` | fresh instances made ahead of the plugin's calls (at most `{}`)",
                d.ready_instances, MAX_READY_INSTANCES
            ),
        ];
        for row in rows {
            assert!(readme.contains(&row), "docs/policy.md lacks the row {row}");
        }
    }

    #[test]
    fn the_policy_reference_fetch_rows_match_the_code() {
        use crate::source::limits::{DEFAULT_MAX_PLUGIN_SIZE, spelled};
        let (_, readme) = workspace_file("docs/policy.md");
        let t = FetchTimeouts::policy_defaults();
        let rows = [
            format!(
                "| `fetch_connect_timeout` | `{}` |",
                spelled(t.connect.value)
            ),
            format!(
                "| `fetch_first_byte_timeout` | `{}` |",
                spelled(t.first_byte.value)
            ),
            format!("| `fetch_timeout` | `{}` |", spelled(t.total.value)),
            format!(
                "| `max_plugin_size` | `[defaults]`, `[plugins.NAME]` | `\"{}\"` |",
                bytes(DEFAULT_MAX_PLUGIN_SIZE)
            ),
        ];
        for row in rows {
            assert!(readme.contains(&row), "docs/policy.md lacks the row {row}");
        }
        // The keys the rows name are the keys the bounds say in messages.
        for bound in [&t.connect.key, &t.first_byte.key, &t.total.key] {
            let key = bound.trim_start_matches("server.");
            assert!(readme.contains(&format!("| `{key}` |")), "{key}");
        }
    }

    #[test]
    fn the_server_section_table_has_the_real_bounds() {
        let (_, readme) = workspace_file("docs/policy.md");
        let d = ServedBounds::default();
        let t = TaskSettings::default();
        let size = |n: usize| format!("`\"{}\"`", bytes(n as u64));
        for row in [
            format!("| `max_uri_size` | {} |", size(d.max_uri_bytes)),
            format!("| `max_subscriptions` | `{}` |", d.max_subscriptions),
            format!("| `max_watched_size` | {} |", size(d.max_watched_bytes)),
            format!("| `max_listen_streams` | `{}` |", d.max_listen_streams),
            format!("| `max_tasks` | `{}` |", t.max_tasks),
            format!(
                "| `max_task_store_size` | {} |",
                size(t.max_store_bytes as usize)
            ),
        ] {
            assert!(readme.contains(&row), "docs/policy.md lacks the row {row}");
        }
    }

    #[test]
    fn the_policy_reference_server_table_has_the_session_keys_with_their_defaults() {
        use humantime_serde::re::humantime::format_duration;
        let (_, readme) = workspace_file("docs/policy.md");
        let section = readme
            .split("## The server section")
            .nth(1)
            .and_then(|rest| rest.split("\n## ").next())
            .expect("docs/policy.md has a server section");
        let d = SessionSettings::default();
        let off = |n: usize| {
            if n == 0 {
                "`0` (no bound)".to_string()
            } else {
                format!("`{n}`")
            }
        };
        for row in [
            format!("| `max_sessions` | `{}` |", d.max_sessions),
            format!(
                "| `max_sessions_per_subject` | {} |",
                off(d.max_per_subject)
            ),
            format!(
                "| `max_sessions_per_address` | {} |",
                off(d.max_per_address)
            ),
            format!(
                "| `session_idle_timeout` | `\"{}\"` |",
                format_duration(d.idle_timeout)
            ),
        ] {
            assert!(section.contains(&row), "docs/policy.md lacks the row {row}");
        }
    }

    /// The lines of a Markdown text outside fenced code blocks.
    fn prose_lines(markdown: &str) -> Vec<&str> {
        let mut fenced = false;
        markdown
            .lines()
            .filter(|line| {
                if line.trim_start().starts_with("```") {
                    fenced = !fenced;
                    return false;
                }
                !fenced
            })
            .collect()
    }

    /// The anchors GitHub gives a Markdown text's headings: lower case,
    /// letters, digits, `-` and `_` kept, spaces made `-`, and `-1`, `-2`, …
    /// added to repeats.
    fn anchors(markdown: &str) -> Vec<String> {
        let mut slugs: Vec<String> = Vec::new();
        let mut anchors = Vec::new();
        for line in prose_lines(markdown) {
            let Some(heading) = line
                .strip_prefix('#')
                .and_then(|rest| rest.trim_start_matches('#').strip_prefix(' '))
            else {
                continue;
            };
            let slug: String = heading
                .trim()
                .to_lowercase()
                .chars()
                .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
                .map(|c| if c == ' ' { '-' } else { c })
                .collect();
            let repeats = slugs.iter().filter(|s| **s == slug).count();
            anchors.push(match repeats {
                0 => slug.clone(),
                n => format!("{slug}-{n}"),
            });
            slugs.push(slug);
        }
        anchors
    }

    /// The targets of a Markdown text's inline links, code left out.
    fn link_targets(markdown: &str) -> Vec<String> {
        let prose = prose_lines(markdown).join("\n");
        let outside_code: Vec<&str> = prose.split('`').step_by(2).collect();
        outside_code
            .join(" ")
            .split("](")
            .skip(1)
            .filter_map(|rest| rest.split_once(')').map(|(target, _)| target.to_string()))
            .collect()
    }

    #[test]
    fn every_relative_link_in_the_readme_and_docs_leads_to_a_file_and_heading() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut pages = vec![root.join("README.md")];
        for entry in std::fs::read_dir(root.join("docs")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|ext| ext == "md") {
                pages.push(path);
            }
        }
        let mut links = 0;
        let mut broken = Vec::new();
        for page in &pages {
            let text = std::fs::read_to_string(page).unwrap();
            for target in link_targets(&text) {
                links += 1;
                if target.contains(':') {
                    continue; // https:, mailto:
                }
                let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
                let file = match file {
                    "" => page.clone(),
                    file => page.parent().unwrap().join(file),
                };
                let found = file.exists()
                    && (anchor.is_empty()
                        || std::fs::read_to_string(&file)
                            .is_ok_and(|text| anchors(&text).iter().any(|a| a == anchor)));
                if !found {
                    broken.push(format!("{}: {target}", page.display()));
                }
            }
        }
        assert!(links > 100, "only {links} links found");
        assert!(
            broken.is_empty(),
            "links that lead nowhere:\n{}",
            broken.join("\n")
        );
    }
}
