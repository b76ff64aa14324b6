//! The certificates outbound https trusts: the Mozilla roots of
//! webpki-roots, plus those of the policy's `ca_file` (a PEM bundle, for a
//! private CA), with ring as rustls's provider.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

/// Why the roots of a `ca_file` cannot be trusted, or TLS set up.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// The file cannot be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a PEM bundle.
    #[error("{path}: not a PEM certificate bundle: {source}")]
    NotPem {
        /// The file.
        path: PathBuf,
        /// The PEM reader's error.
        source: rustls::pki_types::pem::Error,
    },
    /// A certificate rustls will not take as a root.
    #[error("{path}: a certificate cannot be a root: {source}")]
    NotRoot {
        /// The file.
        path: PathBuf,
        /// rustls's error.
        source: rustls::Error,
    },
    /// The file holds no certificate.
    #[error("{0} holds no PEM certificate")]
    Empty(PathBuf),
    /// rustls refused the configuration.
    #[error("cannot set up TLS: {0}")]
    Setup(#[source] rustls::Error),
}

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

fn build(roots: rustls::RootCertStore) -> Result<Arc<rustls::ClientConfig>, TlsError> {
    rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map(|b| Arc::new(b.with_root_certificates(roots).with_no_client_auth()))
        .map_err(TlsError::Setup)
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
    pub fn with_roots(path: &Path) -> Result<Self, TlsError> {
        let text = std::fs::read(path).map_err(|source| TlsError::Read {
            path: path.to_owned(),
            source,
        })?;
        let mut roots = webpki();
        let mut added = 0;
        for cert in CertificateDer::pem_slice_iter(&text) {
            let cert = cert.map_err(|source| TlsError::NotPem {
                path: path.to_owned(),
                source,
            })?;
            roots.add(cert).map_err(|source| TlsError::NotRoot {
                path: path.to_owned(),
                source,
            })?;
            added += 1;
        }
        if added == 0 {
            return Err(TlsError::Empty(path.to_owned()));
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
