//! Plugins fetched from elsewhere than the plugins directory (the policy
//! file's sources) swapped into the runtime: what a finished fetch gives
//! ([`SourcesUpdate`]) and the one way it is applied
//! ([`Runtime::apply_sources`]), at start and on every policy reload.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::catalog::claims::NameClaims;
use crate::catalog::lifecycle::LoadReport;
use crate::runtime::Runtime;

/// What fetching the policy's sources gave, ready to swap in.
#[derive(Debug, Default)]
pub struct SourcesUpdate {
    /// The fetched plugin files to load.
    pub files: Vec<PathBuf>,
    /// The plugin names the sources take once fetched (a source that failed
    /// keeps the version already served, if any).
    pub claims: NameClaims,
    /// What each file is, for messages (`plugin NAME (source REF)`).
    pub origins: BTreeMap<PathBuf, String>,
    /// How many sources failed to fetch (each logged already).
    pub failed: usize,
}

impl Runtime {
    /// Swaps fetched plugins in: the claims of `update` first, then its
    /// files loaded under the current policies. Clients get
    /// `list_changed` if the tools changed; a plugin whose source failed
    /// keeps the version already served, if any. Logs what did not load
    /// and one `plugin sources fetched` line.
    #[tracing::instrument(skip_all, fields(files = update.files.len()))]
    pub async fn apply_sources(&self, update: &SourcesUpdate) -> LoadReport {
        self.set_claims(update.claims.clone());
        let report = self.reload_files(&update.files).await;
        for failure in &report.failed {
            match update.origins.get(failure.path()) {
                Some(origin) => tracing::error!("skipped {origin}: {failure}"),
                None => tracing::error!("skipped plugin: {failure}"),
            }
        }
        for skipped in &report.skipped_tools {
            tracing::warn!("{skipped}");
        }
        tracing::info!(
            fetched = update.files.len(),
            failed = update.failed + report.failed.len(),
            tools = self.catalog().tools().len(),
            "plugin sources fetched"
        );
        report
    }

    /// The files of the plugins served under a claimed name (the fetched
    /// ones) that the current claims keep, so that a policy reload loads
    /// them again under the new policies while their sources are fetched.
    pub fn claimed_files(&self) -> Vec<PathBuf> {
        let claims = self.claims();
        self.catalog()
            .plugins()
            .iter()
            .filter(|p| claims.is_claimed(&p.name) && claims.keeps(&p.name, &p.path))
            .map(|p| p.path.clone())
            .collect()
    }
}
