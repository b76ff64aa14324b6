//! The policy file's sources as a whole: their names claimed before
//! anything is fetched (so no file of the plugins directory stands in for
//! one meanwhile), every source fetched in parallel, and what the runtime
//! then loads.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::{Fetched, Fetcher, PluginSource, Request, SourceError};
use crate::runtime::NameClaims;

/// A plugin the policy file's `source` gave, ready to load.
#[derive(Debug, Clone)]
pub struct Sourced {
    /// The section's name, which it is served under.
    pub name: String,
    /// What was fetched.
    pub fetched: Fetched,
    /// The file the runtime loads.
    pub file: PathBuf,
}

/// What fetching every source of a policy file gave.
#[derive(Debug, Default)]
pub struct Resolution {
    /// The plugins that were fetched.
    pub sourced: Vec<Sourced>,
    /// The plugins whose source failed, and why.
    pub failed: Vec<(String, SourceError)>,
    /// The names the policy's sources take.
    pub claims: NameClaims,
}

impl Resolution {
    /// The files to load.
    pub fn files(&self) -> Vec<PathBuf> {
        self.sourced.iter().map(|s| s.file.clone()).collect()
    }

    /// The source a plugin file came from, if it is one of these.
    pub fn source_of(&self, file: &Path) -> Option<&Sourced> {
        self.sourced.iter().find(|s| s.file == file)
    }
}

/// The names the policy's sources take, before anything is fetched: each
/// may be served only from `keep_paths(name)` (the version already served,
/// if any) until its fetch is done, so no file of the plugins directory
/// stands in for it meanwhile.
pub fn pending_claims(
    fetcher: &Fetcher,
    sources: &[PluginSource],
    keep_paths: impl Fn(&str) -> BTreeSet<PathBuf>,
) -> NameClaims {
    let mut claims = NameClaims::new(Some(fetcher.store().plugins_dir()));
    for s in sources {
        claims.claim(s.name.as_str(), owner(s), keep_paths(s.name.as_str()));
    }
    claims
}

/// Who claims a sourced plugin's name, for messages.
fn owner(s: &PluginSource) -> String {
    format!(
        "`{}.source` ({}) in {}",
        s.section,
        s.source,
        s.policy_file.display()
    )
}

/// Fetches every source the policy file names (`sources`, in parallel), logging each
/// resolution (reference, digests, offline use). A source that fails
/// keeps its name claimed, with `keep_paths(name)` (the version already
/// served, if any) as the paths that may still serve it.
pub async fn resolve_all(
    fetcher: &Fetcher,
    sources: &[PluginSource],
    keep_paths: impl Fn(&str) -> BTreeSet<PathBuf>,
) -> Resolution {
    let fetched = futures::future::join_all(sources.iter().map(|s| fetch_one(fetcher, s))).await;
    let mut resolution = Resolution {
        claims: NameClaims::new(Some(fetcher.store().plugins_dir())),
        ..Resolution::default()
    };
    for (s, result) in sources.iter().zip(fetched) {
        let name = s.name.as_str();
        match result {
            Ok(sourced) => {
                resolution
                    .claims
                    .claim(name, owner(s), BTreeSet::from([sourced.file.clone()]));
                resolution.sourced.push(sourced);
            }
            Err(e) => {
                resolution.claims.claim(name, owner(s), keep_paths(name));
                resolution.failed.push((name.to_string(), e));
            }
        }
    }
    resolution
}

async fn fetch_one(fetcher: &Fetcher, s: &PluginSource) -> Result<Sourced, SourceError> {
    let fetched = fetcher
        .fetch(&Request {
            source: &s.source,
            pinned: s.sha256,
            pin_key: s.pin_key.clone(),
            keys: s.keys.as_ref(),
            max_size: s.max_size.clone(),
        })
        .await?;
    let store = fetcher.store().clone();
    let (digest, name) = (fetched.sha256, s.name.clone());
    let file = match tokio::task::spawn_blocking(move || store.plugin_file(&digest, &name)).await {
        Ok(written) => written,
        Err(join) => Err(std::io::Error::other(join)),
    }
    .map_err(|e| fetcher.store_error(e))?;
    let digest = fetched
        .manifest_digest
        .clone()
        .unwrap_or_else(|| format!("sha256:{}", fetched.sha256));
    if fetched.offline {
        tracing::warn!(
            plugin = s.name.as_str(),
            source = %s.source,
            digest,
            "the registry cannot be reached: using the cached copy of {} ({digest})",
            s.source
        );
    }
    tracing::info!(
        plugin = s.name.as_str(),
        source = %s.source,
        digest,
        sha256 = %fetched.sha256,
        signed_by = fetched.signed_by.as_ref().map(|p| p.display().to_string()),
        "plugin source resolved"
    );
    Ok(Sourced {
        name: s.name.to_string(),
        fetched,
        file,
    })
}
