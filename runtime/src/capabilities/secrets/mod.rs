//! Secrets: values named in a plugin's policy and read from the server's
//! environment or a private file when the plugin loads. By default the host
//! injects a secret into the requests to the one origin it belongs to (the
//! guest never holds it); `expose = true` hands it to the guest as an
//! environment variable instead. Values never appear in logs, audit records,
//! `inspect` output or errors, and are redacted from what the guest prints
//! and from everything it sends the client (its results and its requests),
//! in their plain and encoded forms ([`redact`]). `block_secrets` also
//! refuses a request whose arguments hold one.

pub mod redact;
mod table;

pub use table::{check, resolve};

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use serde::Deserialize;
use serde::de::MapAccess;
use wasmtime_wasi::WasiCtxBuilder;

use crate::egress::outbound::{Field, Outbound};
// Through the registry, not `super::http`: http's sender reads this
// module's policy in turn (both declared in `Capability::READS`), and a
// file edge each way would be an import cycle.
use super::HttpPolicy;
use super::http::origin::{HostPattern, OriginPattern, RequestTarget};
use super::{
    Arguments, CallCtx, Capability, CapabilityError, KeyProblem, Others, Redaction, Report,
    ResolveCtx, Scope,
};

/// What every redacted value becomes.
pub const REDACTED: &str = "[redacted]";

/// The placeholder in `value` that stands for the secret.
pub const PLACEHOLDER: &str = "{secret}";

/// `[plugins.NAME.secrets.SECRET]`, as written.
#[derive(Debug, Default, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecretSpec {
    env: Option<String>,
    file: Option<PathBuf>,
    origin: Option<String>,
    header: Option<String>,
    value: Option<String>,
    #[serde(default)]
    expose: bool,
}

/// `[plugins.NAME.secrets]`: secret name to its spec.
pub type SecretsSpec = BTreeMap<String, SecretSpec>;

/// The capability's keys of one section: `secrets` and `block_secrets`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SecretsKeys {
    /// `[plugins.NAME.secrets]`.
    pub secrets: SecretsSpec,
    /// `block_secrets`: refuse a request whose arguments hold a secret.
    pub block_secrets: Option<bool>,
}

/// A secret's value. It prints as `[redacted]`; only
/// [`SecretValue::reveal`] gives the text.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretValue(Arc<str>);

impl SecretValue {
    /// The value itself, for the one place that sends it.
    pub fn reveal(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for SecretValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

/// Where a secret's value comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecretSource {
    /// The server's environment variable of this name.
    Env(String),
    /// This file.
    File(PathBuf),
}

impl fmt::Display for SecretSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SecretSource::Env(var) => write!(f, "environment variable {var}"),
            SecretSource::File(path) => write!(f, "file {}", path.display()),
        }
    }
}

/// A header the host adds to every request to one origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Injection {
    /// The origin (its path, if any, is ignored: the whole origin).
    pub origin: OriginPattern,
    /// The header's name.
    pub header: http::HeaderName,
    /// The header's value with [`PLACEHOLDER`] where the secret goes.
    pub template: String,
}

/// One secret of a plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Secret {
    /// Its name in the policy (and the guest's variable, when exposed).
    pub name: String,
    /// Where its value came from.
    pub source: SecretSource,
    /// The header it is injected as, if any.
    pub inject: Option<Injection>,
    /// The guest sees it as the environment variable `name`.
    pub expose: bool,
    /// The value.
    pub value: SecretValue,
}

impl Secret {
    /// The header value to send: the template with the secret in place,
    /// marked sensitive so that no HTTP layer logs it.
    pub fn header_value(&self, injection: &Injection) -> Option<http::HeaderValue> {
        let text = injection.template.replace(PLACEHOLDER, self.value.reveal());
        let mut value = http::HeaderValue::from_str(&text).ok()?;
        value.set_sensitive(true);
        Some(value)
    }
}

/// A plugin's effective secrets (cheap to clone: calls share them).
#[derive(Debug, Clone)]
pub struct SecretsPolicy {
    /// The secrets, by name.
    pub secrets: Arc<[Secret]>,
    /// Refuse a request whose arguments hold a secret (`block_secrets`).
    pub block: bool,
    /// The secrets' values in all their forms, built once with the policy
    /// (`None`: no secrets, nothing is ever searched).
    redactor: Option<Arc<redact::Redactor>>,
}

impl PartialEq for SecretsPolicy {
    fn eq(&self, other: &Self) -> bool {
        // The redactor follows from the values.
        self.secrets == other.secrets && self.block == other.block
    }
}

impl Eq for SecretsPolicy {}

impl Default for SecretsPolicy {
    fn default() -> Self {
        SecretsPolicy {
            secrets: Arc::new([]),
            block: false,
            redactor: None,
        }
    }
}

impl SecretsPolicy {
    /// The policy of `secrets`, with its redactor built.
    pub fn new(secrets: Vec<Secret>, block: bool) -> SecretsPolicy {
        let redactor =
            redact::Redactor::new(secrets.iter().map(|s| s.value.reveal())).map(Arc::new);
        SecretsPolicy {
            secrets: secrets.into(),
            block,
            redactor,
        }
    }

    /// A policy of exposed secrets with these names and values, for tests.
    #[cfg(test)]
    pub(crate) fn for_tests(values: &[(&str, &str)], block: bool) -> SecretsPolicy {
        let secrets = values
            .iter()
            .map(|(name, value)| Secret {
                name: name.to_string(),
                source: SecretSource::Env(name.to_string()),
                inject: None,
                expose: true,
                value: SecretValue(Arc::from(*value)),
            })
            .collect();
        SecretsPolicy::new(secrets, block)
    }

    /// The variables exposed secrets set in the guest's environment.
    pub fn exposed(&self) -> impl Iterator<Item = (&str, &str)> {
        self.secrets
            .iter()
            .filter(|s| s.expose)
            .map(|s| (s.name.as_str(), s.value.reveal()))
    }

    /// The secrets injected into requests, with their injections.
    pub fn injections(&self) -> impl Iterator<Item = (&Secret, &Injection)> {
        self.secrets
            .iter()
            .filter_map(|s| s.inject.as_ref().map(|i| (s, i)))
    }

    /// `text` with every secret's value, in each of its forms (see
    /// [`redact`]), replaced by `[redacted]`.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        match &self.redactor {
            Some(redactor) => redactor.redact(text),
            None => Cow::Borrowed(text),
        }
    }

    /// The name of a secret `arguments` hold in any form, if one does: in
    /// a text, or in a JSON tree's strings, keys or numbers.
    pub fn found_in(&self, arguments: Arguments<'_>) -> Option<&str> {
        let redactor = self.redactor.as_ref()?;
        let found = match arguments {
            Arguments::Json(value) => redactor.find_json(value),
            Arguments::Texts(texts) => texts.iter().find_map(|t| redactor.find(t)),
        };
        found
            .and_then(|i| self.secrets.get(i))
            .map(|s| s.name.as_str())
    }

    /// No secrets.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// The report lines: each secret's name, source and use, never its value.
    pub fn report(&self) -> Vec<(&'static str, String)> {
        // Every field, so that a new one cannot be left out unnoticed; the
        // values (and the redactor built of them) are never shown.
        let SecretsPolicy {
            secrets,
            block,
            redactor: _,
        } = self;
        if secrets.is_empty() {
            return vec![("secrets", "none".into())];
        }
        let mut lines: Vec<(&'static str, String)> = secrets
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let Secret {
                    name,
                    source,
                    inject,
                    expose,
                    value: _,
                } = s;
                let mut uses = Vec::new();
                if let Some(inj) = inject {
                    uses.push(format!("injected as {} into {}", inj.header, inj.origin));
                }
                if *expose {
                    uses.push("exposed to the guest as an environment variable".into());
                }
                (
                    if i == 0 { "secrets" } else { "" },
                    format!("{name} (from the {source}): {}", uses.join("; ")),
                )
            })
            .collect();
        lines.push((
            "",
            format!(
                "redacted from everything the plugin sends the client, as themselves, JSON-escaped, percent-encoded and in base64; {}",
                if *block {
                    "requests whose arguments hold one are refused (`block_secrets`)"
                } else {
                    "requests whose arguments hold one are passed on (`block_secrets = true` refuses them)"
                }
            ),
        ));
        lines
    }

    /// The secrets as JSON for `inspect --json`: no values.
    pub fn json(&self) -> serde_json::Value {
        self.secrets
            .iter()
            .map(|s| {
                let Secret {
                    name,
                    source,
                    inject,
                    expose,
                    value: _,
                } = s;
                let source = match source {
                    SecretSource::Env(v) => serde_json::json!({ "env": v }),
                    SecretSource::File(p) => serde_json::json!({ "file": p.display().to_string() }),
                };
                (
                    name.clone(),
                    serde_json::json!({
                        "source": source,
                        "inject": inject.as_ref().map(|i| serde_json::json!({
                            "origin": i.origin.to_string(),
                            "header": i.header.as_str(),
                        })),
                        "expose": expose,
                    }),
                )
            })
            .collect::<serde_json::Map<_, _>>()
            .into()
    }
}

impl Capability for SecretsPolicy {
    const NAME: &'static str = "secrets";
    const KEYS: &'static [&'static str] = &["secrets", "block_secrets"];
    /// An injected secret's origin must be one the plugin may reach.
    const READS: &'static [&'static str] = &["http"];
    type Spec = SecretsKeys;
    type State = ();

    fn parse_key<'de, A: MapAccess<'de>>(
        spec: &mut SecretsKeys,
        key: &str,
        map: &mut A,
    ) -> Result<(), A::Error> {
        if key == "block_secrets" {
            spec.block_secrets = Some(map.next_value()?);
        } else {
            spec.secrets = map.next_value()?;
        }
        Ok(())
    }

    /// `[defaults]` may turn `block_secrets` on for every plugin; secrets
    /// themselves are granted per plugin.
    fn check(spec: &SecretsKeys, scope: Scope) -> Result<(), KeyProblem> {
        match scope {
            Scope::Plugin => check(&spec.secrets),
            Scope::Defaults if spec.secrets.is_empty() => Ok(()),
            Scope::Defaults => Err(KeyProblem::new(
                "secrets",
                "capabilities are granted per plugin, in [plugins.NAME], never in [defaults]",
            )),
        }
    }

    fn resolve(
        defaults: &SecretsKeys,
        spec: Option<&SecretsKeys>,
        ctx: &ResolveCtx<'_>,
        others: &Others<'_>,
    ) -> Result<Self, KeyProblem> {
        let block = spec
            .and_then(|s| s.block_secrets)
            .or(defaults.block_secrets)
            .unwrap_or(false);
        let mut policy = match spec {
            Some(spec) if !spec.secrets.is_empty() => resolve(&spec.secrets, ctx.base)?,
            _ => SecretsPolicy::default(),
        };
        policy.block = block;
        let http = others
            .get::<HttpPolicy>()
            .map_err(|e| KeyProblem::new("secrets", e))?;
        policy.reachable(http)?;
        Ok(policy)
    }

    fn state(&self, _call: &CallCtx<'_>) {}

    /// Sets the exposed secrets in the guest's environment (after the
    /// `env` capability's variables).
    fn configure(&self, wasi: &mut WasiCtxBuilder) -> Result<(), CapabilityError> {
        for (name, value) in self.exposed() {
            wasi.env(name, value);
        }
        Ok(())
    }
}

impl SecretsPolicy {
    /// Checks that every injected secret's origin is one `http` lets the
    /// plugin reach, or the secret would never be sent.
    fn reachable(&self, http: &HttpPolicy) -> Result<(), KeyProblem> {
        for (secret, injection) in self.injections() {
            let origin = &injection.origin;
            let target = |host: String, ip| RequestTarget {
                scheme: origin.scheme,
                host,
                ip,
                port: origin.port,
                path: "/".into(),
                query: String::new(),
            };
            let reachable = http.allow.iter().any(|entry| match &origin.host {
                HostPattern::Name(name) => entry.same_origin(&target(name.clone(), None)),
                HostPattern::Ip(ip) => entry.same_origin(&target(ip.to_string(), Some(*ip))),
                HostPattern::Subdomains(_) => {
                    (entry.scheme, &entry.host, entry.port)
                        == (origin.scheme, &origin.host, origin.port)
                }
            });
            if !reachable {
                return Err(KeyProblem::new(
                    format!("secrets.{}.origin", secret.name),
                    format!(
                        "{} is not on this plugin's `http.allow`, so the secret would never be sent; add it there",
                        injection.origin
                    ),
                ));
            }
        }
        Ok(())
    }
}

impl Redaction for SecretsPolicy {
    fn redacts(&self) -> bool {
        self.redactor.is_some()
    }

    /// Every secret's value, in each of its forms (the inherent
    /// [`SecretsPolicy::redact`]).
    fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        SecretsPolicy::redact(self, text)
    }

    /// Redacts every secret, in each of its forms, from every field.
    fn outbound(&self, product: &mut dyn Outbound) {
        let Some(redactor) = &self.redactor else {
            return;
        };
        product.fields(&mut |field| match field {
            Field::Text(text) => redactor.redact_string(text),
            Field::Bytes(data) => redactor.redact_bytes(data),
            Field::Json(value) => redactor.redact_json(value),
        });
    }

    /// With `block_secrets`, refuses arguments that hold a secret.
    fn inbound(&self, arguments: Arguments<'_>) -> Result<(), KeyProblem> {
        if !self.block {
            return Ok(());
        }
        match self.found_in(arguments) {
            None => Ok(()),
            Some(name) => Err(KeyProblem::new(
                "block_secrets",
                format!(
                    "the arguments hold the value of the plugin's secret {name} (as itself or encoded), and this key refuses such requests"
                ),
            )),
        }
    }
}

impl Report for SecretsPolicy {
    fn inspect_json(&self) -> Vec<(&'static str, serde_json::Value)> {
        let mut members = vec![("secrets", self.json())];
        if self.block {
            members.push(("block_secrets", true.into()));
        }
        members
    }

    fn inspect_lines(&self) -> Vec<(&'static str, String)> {
        self.report()
    }
}

#[cfg(test)]
mod tests;
