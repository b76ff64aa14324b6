//! Looking at one plugin file without serving it: which version of our world
//! its component targets, what it imports and exports, and what loading it
//! gives (its tools, under its policy) or why it does not load.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use wasmtime::Engine;

use crate::cache::Sha256Digest;
use crate::catalog::Catalog;
use crate::definitions::output::ToolInfo;
use crate::error::LoadError;
use crate::load::bindings::SUPPORTED_VERSIONS;
use crate::load::compile::Compiled;
use crate::load::generic::{GenericSummary, LeftOut};
use crate::load::plugin::plugin_name;
use crate::policy::Policy;
use crate::runtime::Runtime;

/// The interface a plugin exports, without its version.
pub const TOOLS_INTERFACE: &str = "mcp-wasm-host:plugin/tools";
/// The world a plugin targets, without its version.
pub const WORLD: &str = "mcp-wasm-host:plugin/plugin";

/// What one plugin file declares and what loading it gives. Everything that
/// could be read is filled in even when the file does not load.
#[derive(Debug)]
pub struct Inspection {
    /// The file.
    pub path: PathBuf,
    /// The plugin's name: the file stem.
    pub plugin: String,
    /// The file compiled as a component, so its imports and exports were
    /// read.
    pub compiled: bool,
    /// The SHA-256 of the file (the digest a policy's `sha256` pins and
    /// each call's receipt names), once it compiled.
    pub sha256: Option<Sha256Digest>,
    /// Which version of our world the component targets; `None` when it
    /// does not export `TOOLS_INTERFACE` (or is no component).
    pub world: Option<WorldTarget>,
    /// The names the component imports (e.g. `wasi:filesystem/types@0.2.6`),
    /// sorted. Empty when the file is no valid component.
    pub imports: Vec<String>,
    /// The names the component exports, sorted.
    pub exports: Vec<String>,
    /// The policy its calls would run under, unless it cannot be built.
    pub policy: Option<Policy>,
    /// Its tools as the catalog would offer them were it the only plugin
    /// (names as the plugin gives them), sorted by name. Empty unless the
    /// plugin loaded.
    pub tools: Vec<ToolInfo>,
    /// What it serves besides tools (resources, templates, views,
    /// prompts), unless it did not load.
    pub served: crate::definitions::served::Served,
    /// Why it would not load; empty when it loads.
    pub errors: Vec<LoadError>,
    /// It exports none of our interfaces, so it is served as a generic
    /// component (once it compiled).
    pub generic: bool,
    /// As a generic component that loaded: each function served (its tool,
    /// WIT name and signature) and each left out, with why.
    pub generic_functions: Option<GenericSummary>,
    /// As a plugin (once it compiled, whether or not it loads): the
    /// functions it exports beside our world, which are not served, and why.
    pub left_out: Vec<LeftOut>,
}

impl Inspection {
    /// An inspection of `path` that has read nothing yet.
    pub(crate) fn new(path: &Path, plugin: &str) -> Self {
        Inspection {
            path: path.to_owned(),
            plugin: plugin.to_string(),
            compiled: false,
            sha256: None,
            world: None,
            imports: Vec::new(),
            exports: Vec::new(),
            policy: None,
            tools: Vec::new(),
            served: Default::default(),
            errors: Vec::new(),
            generic: false,
            generic_functions: None,
            left_out: Vec::new(),
        }
    }

    /// Fills in the component's imports, exports and world.
    pub(crate) fn read_component(&mut self, engine: &Engine, compiled: &Compiled) {
        self.compiled = true;
        self.sha256 = Some(compiled.digest);
        let ty = compiled.component.component_type();
        self.imports = ty.imports(engine).map(|(n, _)| n.to_string()).collect();
        self.exports = ty.exports(engine).map(|(n, _)| n.to_string()).collect();
        self.imports.sort();
        self.exports.sort();
        self.world = self
            .exports
            .iter()
            .find_map(|e| WorldTarget::from_export(e));
        self.generic = crate::load::generic::is_generic(&compiled.component, engine);
        if !self.generic {
            self.left_out = crate::load::generic::beside_our_world(&compiled.component, engine);
        }
    }

    /// The file loads: no errors.
    pub fn loads(&self) -> bool {
        self.errors.is_empty()
    }
}

/// The version of our world a component was built against, read from its
/// export of `TOOLS_INTERFACE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorldTarget {
    /// The package version, e.g. `0.1.0`; `None` for an unversioned export.
    pub version: Option<String>,
    /// This host can serve that version: it is semver-compatible with one
    /// of `SUPPORTED_VERSIONS` (same major version, and for 0.x the same
    /// minor version), which is how wasmtime matches the export.
    pub supported: bool,
}

impl WorldTarget {
    /// The target that the export named `name` implies, if it is ours.
    pub fn from_export(name: &str) -> Option<Self> {
        let (interface, version) = match name.split_once('@') {
            Some((i, v)) => (i, Some(v)),
            None => (name, None),
        };
        if interface != TOOLS_INTERFACE {
            return None;
        }
        Some(WorldTarget {
            version: version.map(str::to_string),
            supported: version.is_some_and(|v| SUPPORTED_VERSIONS.iter().any(|s| compatible(v, s))),
        })
    }

    /// The world's full name, e.g. `mcp-wasm-host:plugin/plugin@0.1.0`.
    pub fn world(&self) -> String {
        match &self.version {
            Some(v) => format!("{WORLD}@{v}"),
            None => WORLD.to_string(),
        }
    }
}

/// Whether a component built against WIT package version `version` links
/// with a host whose bindings are `host`: equal, or semver-compatible the
/// way wasmtime resolves names (`1.2.3` ~ `1.x.y`, `0.1.3` ~ `0.1.y`,
/// `0.0.z` and pre-releases only when equal).
pub fn compatible(version: &str, host: &str) -> bool {
    fn key(v: &str) -> Option<String> {
        let mut parts = v.split('.');
        let (major, minor, patch) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some()
            || [major, minor, patch]
                .iter()
                .any(|p| p.parse::<u64>().is_err())
        {
            return None; // a pre-release or build suffix, or not semver
        }
        match (major, minor) {
            ("0", "0") => None,
            ("0", minor) => Some(format!("0.{minor}")),
            (major, _) => Some(major.to_string()),
        }
    }
    version == host || key(version).is_some_and(|k| Some(k) == key(host))
}

impl Runtime {
    /// Inspects the plugin file at `path` without adding it to the catalog:
    /// resolves its policy, compiles it, reads its imports, exports and
    /// world, and loads it the way [`Runtime::load_files`] does (linking it
    /// and listing and validating its tools in a throwaway instance). Never
    /// fails as a whole: whatever could be read is filled in and every
    /// reason it would not load is in [`Inspection::errors`].
    #[tracing::instrument(skip(self), fields(path = %path.display()))]
    pub async fn inspect(&self, path: &Path) -> Inspection {
        let loader = &self.loader;
        let name: Arc<str> = plugin_name(path).into();
        let mut inspection = Inspection::new(path, &name);
        let policy = loader.policy(&*self.policies(), &name, path);
        let compiled = loader.compile(path, policy.as_ref().ok()).await;
        if let Ok(compiled) = &compiled {
            inspection.read_component(compiled.component.engine(), compiled);
        }
        match policy {
            Ok(p) => inspection.policy = Some(p),
            Err(e) => inspection.errors.push(e),
        }
        match compiled {
            Ok(compiled) => {
                if let Some(policy) = &inspection.policy {
                    let loaded = loader
                        .instantiate(name, Arc::new(policy.clone()), path, &compiled)
                        .await;
                    match loaded {
                        Ok(plugin) => {
                            inspection.served = plugin.served.clone();
                            inspection.generic_functions = plugin.generic.clone();
                            // Alone, a plugin's names (checked at load) are
                            // never qualified, so no tool is left out.
                            let (catalog, _) = Catalog::build(vec![Arc::new(plugin)]);
                            inspection.tools = catalog.tools().to_vec();
                        }
                        Err(e) => inspection.errors.push(e),
                    }
                }
            }
            Err(e) => inspection.errors.push(e),
        }
        inspection
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_match_the_way_wasmtime_links_them() {
        assert!(compatible("0.1.0", "0.1.0"));
        assert!(compatible("0.1.7", "0.1.0"));
        assert!(!compatible("0.2.0", "0.1.0"));
        assert!(!compatible("1.0.0", "0.1.0"));
        assert!(compatible("1.4.0", "1.0.2"));
        assert!(!compatible("0.0.2", "0.0.1"));
        assert!(!compatible("0.1.0-rc.1", "0.1.0"));
        assert!(!compatible("junk", "0.1.0"));
    }

    #[test]
    fn the_tools_export_names_the_world() {
        let w = WorldTarget::from_export("mcp-wasm-host:plugin/tools@0.1.3").unwrap();
        assert_eq!(w.world(), "mcp-wasm-host:plugin/plugin@0.1.3");
        assert!(w.supported);
        let w = WorldTarget::from_export("mcp-wasm-host:plugin/tools@0.2.0").unwrap();
        assert!(w.supported);
        let w = WorldTarget::from_export("mcp-wasm-host:plugin/tools@0.3.0").unwrap();
        assert!(!w.supported);
        assert_eq!(WorldTarget::from_export("wasi:cli/run@0.2.6"), None);
    }
}
