//! Environment variables: explicit `NAME = value` pairs and names passed
//! through from the server's own environment. Nothing else is visible.

use wasmtime_wasi::WasiCtxBuilder;

/// The environment section of a plugin's policy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvPolicy {
    /// Variables set to fixed values.
    pub vars: Vec<(String, String)>,
    /// Names copied from the server's environment when set there.
    pub passthrough: Vec<String>,
}

impl EnvPolicy {
    /// The variables the guest sees: pass-through values first, then the
    /// explicit ones (which win on a clash).
    pub fn resolve(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = self
            .passthrough
            .iter()
            .filter_map(|name| std::env::var(name).ok().map(|v| (name.clone(), v)))
            .filter(|(name, _)| !self.vars.iter().any(|(n, _)| n == name))
            .collect();
        out.extend(self.vars.iter().cloned());
        out
    }

    /// Sets the variables in a call's WASI context.
    pub fn apply(&self, resolved: &[(String, String)], wasi: &mut WasiCtxBuilder) {
        wasi.envs(resolved);
    }

    /// Tells a denied guest's user how a variable is granted.
    pub fn hint(section: &str) -> String {
        format!(
            "to grant an environment variable set it in `[{section}.env]` (NAME = \"value\") or list its name in `{section}.env_passthrough`"
        )
    }
}
