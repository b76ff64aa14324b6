//! Environment variables: explicit `NAME = value` pairs and names passed
//! through from the server's own environment. Nothing else is visible.
//! Pass-through values are read when the policy is resolved (when the plugin
//! loads), never printed, and never part of the `inspect` report.

use std::collections::BTreeMap;

use serde::de::MapAccess;
use serde_json::{Value, json};
use wasmtime_wasi::WasiCtxBuilder;

use super::{
    CallCtx, Capability, CapabilityError, KeyProblem, Others, Redaction, Report, ResolveCtx, Scope,
    granted_per_plugin,
};
use crate::load::imports::ImportKind;

/// The `env` and `env_passthrough` keys of a section as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvSpec {
    vars: BTreeMap<String, String>,
    passthrough: Vec<String>,
}

/// The environment section of a plugin's policy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvPolicy {
    /// Variables set to fixed values.
    pub vars: Vec<(String, String)>,
    /// Names copied from the server's environment when set there.
    pub passthrough: Vec<String>,
    /// What the guest sees, pass-through values included.
    resolved: Resolved,
}

/// The variables a guest sees; its `Debug` shows names only, since
/// pass-through values may be secrets.
#[derive(Clone, Default, PartialEq, Eq)]
struct Resolved(Vec<(String, String)>);

impl std::fmt::Debug for Resolved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|(k, _)| k))
            .finish()
    }
}

impl EnvPolicy {
    /// A policy setting `vars` and passing `passthrough` through, with the
    /// pass-through values read now.
    pub fn new(vars: Vec<(String, String)>, passthrough: Vec<String>) -> Self {
        let mut resolved: Vec<(String, String)> = passthrough
            .iter()
            .filter_map(|name| std::env::var(name).ok().map(|v| (name.clone(), v)))
            .filter(|(name, _)| !vars.iter().any(|(n, _)| n == name))
            .collect();
        resolved.extend(vars.iter().cloned());
        EnvPolicy {
            vars,
            passthrough,
            resolved: Resolved(resolved),
        }
    }

    /// The variables the guest sees: pass-through values first, then the
    /// explicit ones (which win on a clash).
    pub fn resolved(&self) -> &[(String, String)] {
        &self.resolved.0
    }
}

impl Capability for EnvPolicy {
    const NAME: &'static str = "env";
    const KEYS: &'static [&'static str] = &["env", "env_passthrough"];
    type Spec = EnvSpec;
    type State = ();

    fn parse_key<'de, A: MapAccess<'de>>(
        spec: &mut Self::Spec,
        key: &str,
        map: &mut A,
    ) -> Result<(), A::Error> {
        if key == "env" {
            spec.vars = map.next_value()?;
        } else {
            spec.passthrough = map.next_value()?;
        }
        Ok(())
    }

    fn check(spec: &Self::Spec, scope: Scope) -> Result<(), KeyProblem> {
        granted_per_plugin::<Self>(spec, scope)?;
        for var in spec.vars.keys().chain(&spec.passthrough) {
            if var.is_empty() || var.contains('=') || var.contains('\0') {
                return Err(KeyProblem::new(
                    "env",
                    format!("{var:?} is not a valid variable name"),
                ));
            }
        }
        Ok(())
    }

    fn resolve(
        _defaults: &Self::Spec,
        spec: Option<&Self::Spec>,
        _ctx: &ResolveCtx<'_>,
        _others: &Others<'_>,
    ) -> Result<Self, KeyProblem> {
        let Some(spec) = spec else {
            return Ok(EnvPolicy::default());
        };
        let vars = spec
            .vars
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Ok(EnvPolicy::new(vars, spec.passthrough.clone()))
    }

    fn state(&self, _call: &CallCtx<'_>) {}

    /// Sets the variables in the instance's WASI context.
    fn configure(&self, wasi: &mut WasiCtxBuilder) -> Result<(), CapabilityError> {
        wasi.envs(self.resolved());
        Ok(())
    }
}

/// The environment adds nothing to redaction: a pass-through value is the
/// guest's to see (a secret the guest must not hold is a `secrets` entry).
impl Redaction for EnvPolicy {}

impl Report for EnvPolicy {
    fn denied_hint(&self, section: &str) -> Option<String> {
        Some(format!(
            "to grant an environment variable set it in `[{section}.env]` (NAME = \"value\") or list its name in `{section}.env_passthrough`"
        ))
    }

    /// Names and explicit values; never a pass-through value.
    fn inspect_json(&self) -> Vec<(&'static str, Value)> {
        // Every field, so that a new one cannot be left out of the report
        // unnoticed; `resolved` holds pass-through values, never shown.
        let EnvPolicy {
            vars,
            passthrough,
            resolved: _,
        } = self;
        vec![(
            "env",
            json!({
                "vars": vars.iter().cloned().collect::<BTreeMap<_, _>>(),
                "passthrough": passthrough,
            }),
        )]
    }

    /// Names and explicit values; never a pass-through value.
    fn inspect_lines(&self) -> Vec<(&'static str, String)> {
        let EnvPolicy {
            vars,
            passthrough,
            resolved: _,
        } = self;
        let mut env: Vec<String> = vars.iter().map(|(k, v)| format!("{k} = {v:?}")).collect();
        env.extend(
            passthrough
                .iter()
                .map(|k| format!("{k} (passed through from the server's environment)")),
        );
        if env.is_empty() {
            return vec![("env", "none".to_string())];
        }
        env.into_iter()
            .enumerate()
            .map(|(n, e)| (if n == 0 { "env" } else { "" }, e))
            .collect()
    }

    fn import_note(_policy: Option<&Self>, kind: ImportKind) -> Option<String> {
        (kind == ImportKind::Environment).then(|| {
            "reads environment variables — only those the policy sets or passes through".to_string()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_values_win_and_pass_through_values_are_never_shown() {
        // PATH is set in any test environment.
        let path = std::env::var("PATH").unwrap();
        let env = EnvPolicy::new(
            vec![("HOME".into(), "/guest".into())],
            vec!["PATH".into(), "HOME".into(), "SURELY_UNSET_VARIABLE".into()],
        );
        assert_eq!(
            env.resolved(),
            [
                ("PATH".to_string(), path.clone()),
                ("HOME".to_string(), "/guest".to_string())
            ]
        );
        let shown = format!("{env:?} {:?} {:?}", env.inspect_json(), env.inspect_lines());
        assert!(!shown.contains(&path), "{shown}");
    }
}
