//! Reading a WIT package and choosing one of its worlds.

use std::path::{Path, PathBuf};

use wit_bindgen_core::wit_parser::{PackageId, Resolve, WorldId};

use crate::state;

/// The WIT did not parse or has no such world.
#[derive(Debug, thiserror::Error)]
#[error("cannot read the WIT in {dir}: {message}")]
pub struct WitError {
    /// The WIT directory.
    pub dir: PathBuf,
    /// What the parser said.
    pub message: String,
}

/// The package at `wit_dir`, resolved, and its world `world`: for the plugin
/// WIT, with the state imports the SDKs' store API calls
/// ([`crate::state`]).
pub fn load(wit_dir: &Path, world: &str) -> Result<(Resolve, WorldId), WitError> {
    let (mut resolve, package) = package(wit_dir)?;
    let world_id = resolve
        .select_world(&[package], Some(world))
        .map_err(|e| WitError::new(wit_dir, &e))?;
    if state::applies(&resolve, package) {
        state::add(&mut resolve, world_id).map_err(|e| WitError::new(wit_dir, &e))?;
    }
    Ok((resolve, world_id))
}

/// The package at `wit_dir`, resolved.
pub fn package(wit_dir: &Path) -> Result<(Resolve, PackageId), WitError> {
    let mut resolve = Resolve::default();
    let (package, _) = resolve
        .push_path(wit_dir)
        .map_err(|e| WitError::new(wit_dir, &e))?;
    Ok((resolve, package))
}

impl WitError {
    /// What went wrong reading the WIT in `dir`.
    pub fn new(dir: &Path, error: &dyn std::fmt::Display) -> Self {
        WitError {
            dir: dir.to_path_buf(),
            message: chain(error),
        }
    }
}

/// An error and its causes on one line (anyhow's alternate form).
pub fn chain(error: &dyn std::fmt::Display) -> String {
    format!("{error:#}")
}

/// The plugin WIT this tool carries: the contract of its SDK release, so a
/// project needs no checkout of the repository to build against it.
pub mod embedded {
    use std::path::{Path, PathBuf};

    /// `wit/plugin.wit` as the crate was built with it.
    pub const PLUGIN_WIT: &str =
        include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/wit/plugin.wit"));

    /// Writing it out failed.
    #[derive(Debug, thiserror::Error)]
    #[error("cannot write {}: {source}", .path.display())]
    pub struct WriteError {
        /// The file or directory.
        pub path: PathBuf,
        /// Why.
        pub source: std::io::Error,
    }

    /// The version of the WIT package (`package mcp-wasm-host:plugin@X;`).
    pub fn package_version() -> &'static str {
        PLUGIN_WIT
            .lines()
            .find_map(|line| line.trim().strip_prefix("package mcp-wasm-host:plugin@"))
            .and_then(|rest| rest.strip_suffix(';'))
            .unwrap_or("unknown")
    }

    /// Writes `dir/plugin.wit` (making `dir`).
    pub fn write(dir: &Path) -> Result<(), WriteError> {
        let failed = |path: &Path| {
            let path = path.to_path_buf();
            move |source| WriteError { path, source }
        };
        std::fs::create_dir_all(dir).map_err(failed(dir))?;
        let file = dir.join("plugin.wit");
        std::fs::write(&file, PLUGIN_WIT).map_err(failed(&file))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The repository's `wit/` directory.
    pub(crate) fn repo_wit() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../wit")
    }

    #[test]
    fn the_embedded_wit_is_the_repositorys_and_names_its_version() {
        let repo = std::fs::read_to_string(repo_wit().join("plugin.wit")).unwrap();
        assert_eq!(embedded::PLUGIN_WIT, repo);
        let version = embedded::package_version();
        assert!(
            repo.contains(&format!("package mcp-wasm-host:plugin@{version};")),
            "{version}"
        );
        let dir = tempfile::tempdir().unwrap();
        embedded::write(&dir.path().join("w")).unwrap();
        load(&dir.path().join("w"), "plugin-full").unwrap();
    }

    #[test]
    fn an_unknown_world_is_an_error_naming_the_directory() {
        let err = load(&repo_wit(), "no-such-world").unwrap_err();
        assert!(err.to_string().contains("wit"), "{err}");
        assert!(err.message.contains("no-such-world"), "{err}");
    }
}
