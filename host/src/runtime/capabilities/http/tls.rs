//! The certificates outbound https trusts: the Mozilla roots of
//! webpki-roots, plus those of the policy's `ca_file` (a PEM bundle, for a
//! private CA), with ring as rustls's provider.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

/// A TLS client configuration and the file of extra roots it came from.
#[derive(Clone)]
pub struct Trust {
    ca_file: Option<PathBuf>,
    config: Option<Arc<rustls::ClientConfig>>,
}

impl std::fmt::Debug for Trust {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trust")
            .field("ca_file", &self.ca_file)
            .finish()
    }
}

impl PartialEq for Trust {
    fn eq(&self, other: &Self) -> bool {
        self.ca_file == other.ca_file
    }
}

impl Eq for Trust {}

fn webpki() -> rustls::RootCertStore {
    rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.into(),
    }
}

fn build(roots: rustls::RootCertStore) -> Result<Arc<rustls::ClientConfig>, String> {
    rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map(|b| Arc::new(b.with_root_certificates(roots).with_no_client_auth()))
        .map_err(|e| format!("cannot set up TLS: {e}"))
}

impl Default for Trust {
    /// The Mozilla roots only (built once per process).
    fn default() -> Self {
        static SHARED: OnceLock<Option<Arc<rustls::ClientConfig>>> = OnceLock::new();
        Trust {
            ca_file: None,
            config: SHARED.get_or_init(|| build(webpki()).ok()).clone(),
        }
    }
}

impl Trust {
    /// The Mozilla roots and every certificate in the PEM file `path`.
    pub fn with_roots(path: &Path) -> Result<Self, String> {
        let text =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let mut roots = webpki();
        let mut added = 0;
        for cert in CertificateDer::pem_slice_iter(&text) {
            let cert =
                cert.map_err(|e| format!("{}: not a PEM certificate bundle: {e}", path.display()))?;
            roots
                .add(cert)
                .map_err(|e| format!("{}: a certificate cannot be a root: {e}", path.display()))?;
            added += 1;
        }
        if added == 0 {
            return Err(format!("{} holds no PEM certificate", path.display()));
        }
        Ok(Trust {
            ca_file: Some(path.to_owned()),
            config: Some(build(roots)?),
        })
    }

    /// The extra roots' file, if any.
    pub fn ca_file(&self) -> Option<&Path> {
        self.ca_file.as_deref()
    }

    /// The client configuration, if TLS could be set up.
    pub fn config(&self) -> Option<Arc<rustls::ClientConfig>> {
        self.config.clone()
    }
}
