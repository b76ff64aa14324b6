//! Reading a WIT package and choosing one of its worlds.

use std::path::{Path, PathBuf};

use wit_bindgen_core::wit_parser::{PackageId, Resolve, WorldId};

/// The WIT did not parse or has no such world.
#[derive(Debug, thiserror::Error)]
#[error("cannot read the WIT in {dir}: {message}")]
pub struct WitError {
    /// The WIT directory.
    pub dir: PathBuf,
    /// What the parser said.
    pub message: String,
}

/// The package at `wit_dir`, resolved, and its world `world`.
pub fn load(wit_dir: &Path, world: &str) -> Result<(Resolve, WorldId), WitError> {
    let (resolve, package) = package(wit_dir)?;
    let world_id = resolve
        .select_world(&[package], Some(world))
        .map_err(|e| WitError::new(wit_dir, &e))?;
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The repository's `wit/` directory.
    pub(crate) fn repo_wit() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../wit")
    }

    #[test]
    fn an_unknown_world_is_an_error_naming_the_directory() {
        let err = load(&repo_wit(), "no-such-world").unwrap_err();
        assert!(err.to_string().contains("wit"), "{err}");
        assert!(err.message.contains("no-such-world"), "{err}");
    }
}
