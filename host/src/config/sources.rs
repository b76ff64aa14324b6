//! What the policy file says of plugin sources: each `[plugins.NAME]
//! source` with its pin, keys and size bound, and `[server]`'s fetch
//! settings, as the fetch (`crate::source`) takes them.

use crate::runtime::Sha256Digest;
use crate::source::limits::{Bound, DEFAULT_MAX_PLUGIN_SIZE, FetchTimeouts};
use crate::source::{PluginName, PluginSource, SignatureKeys, SourceRef};

use super::Config;

impl Config {
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
                    policy_file: self.path.clone(),
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
}
