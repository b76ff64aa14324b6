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
//! from loading. `[profiles.NAME]` sections name the parts of the catalog
//! that connections bound to them are served ([`profiles`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use crate::runtime::capabilities::{Grants, ResolveCtx};
use crate::runtime::{Policies, Policy, PolicyError, Sha256Digest};
use crate::source::PluginName;
use profiles::{ProfileMap, ProfileSpec};
use section::{SectionSpec, apply, check_section};
use server::ServerSpec;

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
    #[serde(default)]
    profiles: BTreeMap<String, ProfileSpec>,
}

/// A loaded policy file.
#[derive(Debug, Clone)]
pub struct Config {
    path: PathBuf,
    base: PathBuf,
    server: ServerSpec,
    defaults: SectionSpec,
    plugins: BTreeMap<String, SectionSpec>,
    profiles: ProfileMap,
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
            profiles: ProfileMap::new(),
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
        spec.server
            .check()
            .map_err(|(k, p)| invalid(format!("server.{k}"), &p))?;
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
        let mut profiles = ProfileMap::new();
        for (name, profile) in &spec.profiles {
            let profile = profile.check(name).map_err(|(k, p)| invalid(k, &p))?;
            profiles.insert(name.clone(), Arc::new(profile));
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
            profiles,
            max_memory,
            builtin: false,
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

    /// The profiles (`[profiles.NAME]`) by name.
    pub fn profiles(&self) -> &ProfileMap {
        &self.profiles
    }

    /// The engine's per-instance memory ceiling this file was checked against.
    pub fn max_memory(&self) -> u64 {
        self.max_memory
    }

    /// The file's directory, which relative paths in it start from.
    pub fn base_dir(&self) -> &Path {
        &self.base
    }
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

    fn tool_clash(&self) -> mcp_wasm_host_runtime::ToolClash {
        Config::tool_clash(self)
    }
}

mod oauth;
pub mod profiles;
mod section;
mod server;
mod sources;
mod store;

pub use oauth::OAuthSettings;
pub use profiles::{Profile, Profiles};
pub use server::{ServedBounds, SessionSettings, TaskSettings};
pub use store::{StoreChoice, default_state_dir};

#[cfg(test)]
mod tests;

#[cfg(test)]
mod documentation;
