//! `wasi:config/store`: configuration values a plugin reads, set per plugin
//! in `[plugins.NAME.config]`. A value is written there, read from the
//! server's environment (`{ env = "VAR" }`) or taken from one of the
//! plugin's secrets (`{ secret = "NAME" }`, defined in its `secrets`
//! section: naming it here hands it to the guest, as `expose = true`
//! does). Values are read when the plugin loads, and never reported: the
//! `inspect` report names each key and where its value comes from. A
//! plugin without the section sees no values (never an error).
//!
//! One backend serves the three labels components import (`wit/wasi/`):
//! `@0.2.0-draft` (Wassette), `@0.2.0-draft-2024-09-27` (Spin) and
//! `@0.2.0-rc.1` (wasmtime, wasmCloud), whose `store` interfaces are the
//! same word for word.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Deserialize;
use serde::de::MapAccess;
use serde_json::{Value, json};
use wasmtime::component::{HasSelf, Linker};

use super::secrets::SecretsPolicy;
use super::{
    CallCtx, Capability, CapsView, KeyProblem, Others, Redaction, Report, ResolveCtx, Scope,
    granted_per_plugin,
};
use crate::load::imports::ImportKind;

/// Where a configuration value comes from, as written.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum ValueSpec {
    /// The value itself.
    Text(String),
    /// A variable of the server's environment, read when the plugin loads.
    Env {
        /// The variable.
        env: String,
    },
    /// One of the plugin's secrets, by name.
    Secret {
        /// The secret's name in `[plugins.NAME.secrets]`.
        secret: String,
    },
}

/// `[plugins.NAME.config]` as written: key to value.
pub type ConfigSpec = BTreeMap<String, ValueSpec>;

/// A plugin's configuration values: what `get` and `get-all` return.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ConfigPolicy {
    /// Key, where its value comes from, and the value (`None`: the variable
    /// it comes from is unset, so the key has no value).
    values: Arc<[(String, ValueSpec, Option<String>)]>,
}

/// Names and sources only: a value may come from a secret.
impl std::fmt::Debug for ConfigPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.values.iter().map(|(k, _, _)| k))
            .finish()
    }
}

impl ConfigPolicy {
    /// The value of `key`, if it has one.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(k, _, _)| k == key)
            .and_then(|(_, _, v)| v.as_deref())
    }

    /// Every key with a value, in key order.
    pub fn all(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values
            .iter()
            .filter_map(|(k, _, v)| v.as_deref().map(|v| (k.as_str(), v)))
    }

    fn source(spec: &ValueSpec) -> String {
        match spec {
            ValueSpec::Text(_) => "set in the policy".into(),
            ValueSpec::Env { env } => format!("from ${env}"),
            ValueSpec::Secret { secret } => format!("secret {secret}"),
        }
    }
}

impl Capability for ConfigPolicy {
    const NAME: &'static str = "config";
    const KEYS: &'static [&'static str] = &["config"];
    const READS: &'static [&'static str] = &["secrets"];
    type Spec = ConfigSpec;
    type State = ConfigPolicy;

    fn parse_key<'de, A: MapAccess<'de>>(
        spec: &mut Self::Spec,
        _key: &str,
        map: &mut A,
    ) -> Result<(), A::Error> {
        *spec = map.next_value()?;
        Ok(())
    }

    fn check(spec: &Self::Spec, scope: Scope) -> Result<(), KeyProblem> {
        granted_per_plugin::<Self>(spec, scope)?;
        for (key, value) in spec {
            if key.is_empty() {
                return Err(KeyProblem::new("config", "a key cannot be empty"));
            }
            if let ValueSpec::Env { env } = value
                && (env.is_empty() || env.contains(['=', '\0']))
            {
                return Err(KeyProblem::new(
                    format!("config.{key}.env"),
                    format!("{env:?} is not a variable name"),
                ));
            }
        }
        Ok(())
    }

    fn resolve(
        _defaults: &Self::Spec,
        spec: Option<&Self::Spec>,
        _ctx: &ResolveCtx<'_>,
        others: &Others<'_>,
    ) -> Result<Self, KeyProblem> {
        let Some(spec) = spec.filter(|s| !s.is_empty()) else {
            return Ok(ConfigPolicy::default());
        };
        let secrets = others
            .get::<SecretsPolicy>()
            .map_err(|e| KeyProblem::new("config", e))?;
        let values = spec
            .iter()
            .map(|(key, value)| {
                let resolved = match value {
                    ValueSpec::Text(text) => Some(text.clone()),
                    ValueSpec::Env { env } => std::env::var(env).ok(),
                    ValueSpec::Secret { secret } => {
                        let found = secrets.secrets.iter().find(|s| s.name == *secret);
                        let Some(found) = found else {
                            return Err(KeyProblem::new(
                                format!("config.{key}.secret"),
                                format!(
                                    "the plugin has no secret {secret:?}: define it in `secrets.{secret}` (where its value comes from)"
                                ),
                            ));
                        };
                        Some(found.value.reveal().to_string())
                    }
                };
                Ok((key.clone(), value.clone(), resolved))
            })
            .collect::<Result<Vec<_>, KeyProblem>>()?;
        Ok(ConfigPolicy {
            values: values.into(),
        })
    }

    fn state(&self, _call: &CallCtx<'_>) -> ConfigPolicy {
        self.clone()
    }

    fn link<T: CapsView>(linker: &mut Linker<T>) -> wasmtime::Result<()> {
        let state: fn(&mut T) -> &mut ConfigPolicy = |s| s.caps().get_mut::<Self>();
        draft::wasi::config::store::add_to_linker::<T, HasSelf<ConfigPolicy>>(linker, state)?;
        spin::wasi::config::store::add_to_linker::<T, HasSelf<ConfigPolicy>>(linker, state)?;
        rc1::wasi::config::store::add_to_linker::<T, HasSelf<ConfigPolicy>>(linker, state)
    }
}

impl super::CallHooks for ConfigPolicy {}

/// Values from secrets are redacted by the secrets capability, which holds
/// every secret of the plugin.
impl Redaction for ConfigPolicy {}

impl Report for ConfigPolicy {
    fn inspect_json(&self) -> Vec<(&'static str, Value)> {
        let keys: serde_json::Map<String, Value> = self
            .values
            .iter()
            .map(|(k, spec, v)| {
                let source = match spec {
                    ValueSpec::Text(_) => json!({"set": true}),
                    ValueSpec::Env { env } => json!({"env": env, "set": v.is_some()}),
                    ValueSpec::Secret { secret } => json!({"secret": secret}),
                };
                (k.clone(), source)
            })
            .collect();
        vec![("config", Value::Object(keys))]
    }

    fn inspect_lines(&self) -> Vec<(&'static str, String)> {
        if self.values.is_empty() {
            return vec![("config", "none".into())];
        }
        let rows: Vec<String> = self
            .values
            .iter()
            .map(|(k, spec, v)| {
                let unset = if v.is_none() { ", unset" } else { "" };
                format!("{k} ({}{unset})", ConfigPolicy::source(spec))
            })
            .collect();
        vec![("config", rows.join(", "))]
    }

    fn import_note(policy: Option<&Self>, kind: ImportKind) -> Option<String> {
        if kind != ImportKind::Config {
            return None;
        }
        Some(match policy {
            Some(p) if !p.values.is_empty() => {
                format!("reads {} value(s) of `config`", p.values.len())
            }
            _ => "no value is set: `get` finds none (`config` sets them)".into(),
        })
    }
}

/// The bindings of each label, and their one implementation.
macro_rules! labels {
    ($($label:ident: $path:literal),* $(,)?) => {$(
        #[allow(missing_docs, clippy::all)]
        mod $label {
            wasmtime::component::bindgen!({
                path: $path,
                world: "imports",
            });
        }

        impl $label::wasi::config::store::Host for ConfigPolicy {
            fn get(
                &mut self,
                key: String,
            ) -> Result<Option<String>, $label::wasi::config::store::Error> {
                Ok(ConfigPolicy::get(self, &key).map(str::to_string))
            }

            fn get_all(
                &mut self,
            ) -> Result<Vec<(String, String)>, $label::wasi::config::store::Error> {
                Ok(self.all().map(|(k, v)| (k.to_string(), v.to_string())).collect())
            }
        }
    )*};
}

labels! {
    draft: "wit/wasi/config@0.2.0-draft",
    spin: "wit/wasi/config@0.2.0-draft-2024-09-27",
    rc1: "wit/wasi/config@0.2.0-rc.1",
}
