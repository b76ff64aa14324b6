//! Cosign-compatible signatures made with a key pair: ECDSA P-256 over
//! SHA-256 of a "simple signing" payload that names the signed manifest's
//! digest, as `cosign sign --key` writes them. The public keys are PEM
//! SPKI (`cosign.pub`); the private keys this host writes and reads are
//! unencrypted PKCS#8 PEM (`keygen`).
//!
//! The signatures live in the same repository under the tag
//! `sha256-HEX.sig` (HEX: the signed manifest's digest), one layer of
//! media type [`PAYLOAD_MEDIA_TYPE`] per signature, the base64 DER
//! signature in the layer's [`SIGNATURE_ANNOTATION`]. No transparency log
//! is consulted.

use std::path::{Path, PathBuf};

use p256::ecdsa::signature::{Signer as _, Verifier as _};
use p256::ecdsa::{Signature, SigningKey, VerifyingKey};
use p256::pkcs8::{
    DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey, LineEnding,
};
use serde_json::{Value, json};

/// The media type of a signature layer.
pub const PAYLOAD_MEDIA_TYPE: &str = "application/vnd.dev.cosign.simplesigning.v1+json";
/// The annotation that holds a layer's signature.
pub const SIGNATURE_ANNOTATION: &str = "dev.cosignproject.cosign/signature";
/// The payload's `critical.type`.
const PAYLOAD_TYPE: &str = "cosign container image signature";

/// Errors reading keys or making signatures.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// The key file cannot be read.
    #[error("{}: cannot read the key: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not a key of the expected kind.
    #[error("{}: not {what}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What it should be.
        what: &'static str,
    },
    /// A key file cannot be written.
    #[error("{}: cannot write the key: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// No randomness for a new key.
    #[error("cannot make a key: {0}")]
    Random(String),
}

/// A public key signatures are checked with, and the file it came from.
#[derive(Debug, Clone)]
pub struct PublicKey {
    /// The file (for messages).
    pub path: PathBuf,
    key: VerifyingKey,
}

impl PublicKey {
    /// Reads a PEM SPKI P-256 public key (`cosign.pub`).
    pub fn read(path: &Path) -> Result<Self, KeyError> {
        let text = std::fs::read_to_string(path).map_err(|source| KeyError::Read {
            path: path.to_owned(),
            source,
        })?;
        let key = VerifyingKey::from_public_key_pem(&text).map_err(|_| KeyError::Format {
            path: path.to_owned(),
            what: "a PEM P-256 public key (-----BEGIN PUBLIC KEY-----, as cosign.pub)",
        })?;
        Ok(PublicKey {
            path: path.to_owned(),
            key,
        })
    }

    /// Whether `signature` (base64 of DER, as in the annotation) is this
    /// key's over `payload`.
    pub fn verifies(&self, payload: &[u8], signature_b64: &str) -> bool {
        use base64::Engine as _;
        let Ok(der) = base64::engine::general_purpose::STANDARD.decode(signature_b64.trim()) else {
            return false;
        };
        let Ok(signature) = Signature::from_der(&der) else {
            return false;
        };
        self.key.verify(payload, &signature).is_ok()
    }
}

/// A private key that signs.
#[derive(Debug)]
pub struct PrivateKey {
    key: SigningKey,
}

impl PrivateKey {
    /// Reads an unencrypted PKCS#8 PEM P-256 private key.
    pub fn read(path: &Path) -> Result<Self, KeyError> {
        let text = std::fs::read_to_string(path).map_err(|source| KeyError::Read {
            path: path.to_owned(),
            source,
        })?;
        let key = SigningKey::from_pkcs8_pem(&text).map_err(|_| KeyError::Format {
            path: path.to_owned(),
            what: "an unencrypted PKCS#8 PEM P-256 private key (-----BEGIN PRIVATE KEY-----; `mcp-wasm-host keygen` writes one)",
        })?;
        Ok(PrivateKey { key })
    }

    /// A new random key.
    pub fn generate() -> Result<Self, KeyError> {
        loop {
            let mut bytes = [0u8; 32];
            getrandom::fill(&mut bytes).map_err(|e| KeyError::Random(e.to_string()))?;
            // Out of range (about 2^-32 of the time): draw again.
            if let Ok(key) = SigningKey::from_slice(&bytes) {
                return Ok(PrivateKey { key });
            }
        }
    }

    /// Writes the private key (PKCS#8 PEM, mode 0600) to `private` and its
    /// public key (SPKI PEM, as `cosign.pub`) to `public`.
    pub fn write(&self, private: &Path, public: &Path) -> Result<(), KeyError> {
        let secret = self
            .key
            .to_pkcs8_pem(LineEnding::LF)
            .map_err(|e| KeyError::Random(e.to_string()))?;
        let public_pem = self
            .key
            .verifying_key()
            .to_public_key_pem(LineEnding::LF)
            .map_err(|e| KeyError::Random(e.to_string()))?;
        write_new(private, secret.as_bytes(), true)?;
        write_new(public, public_pem.as_bytes(), false)
    }

    /// The base64 DER signature of `payload`.
    pub fn sign(&self, payload: &[u8]) -> String {
        use base64::Engine as _;
        let signature: Signature = self.key.sign(payload);
        base64::engine::general_purpose::STANDARD.encode(signature.to_der().as_bytes())
    }
}

/// Creates `path` (refusing to overwrite one) with `bytes`.
fn write_new(path: &Path, bytes: &[u8], private: bool) -> Result<(), KeyError> {
    use std::io::Write as _;
    let err = |source| KeyError::Write {
        path: path.to_owned(),
        source,
    };
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    #[cfg(not(unix))]
    let _ = private;
    let mut file = options.open(path).map_err(err)?;
    file.write_all(bytes).map_err(err)
}

/// The simple signing payload cosign signs for the manifest `digest` of
/// the image `repository` (`REGISTRY/REPO`).
pub fn payload(repository: &str, digest: &str) -> Vec<u8> {
    let value = json!({
        "critical": {
            "identity": {"docker-reference": repository},
            "image": {"docker-manifest-digest": digest},
            "type": PAYLOAD_TYPE,
        },
        "optional": null,
    });
    value.to_string().into_bytes()
}

/// Whether `payload` is a simple signing payload for the manifest `digest`.
pub fn payload_names(payload: &[u8], digest: &str) -> bool {
    let Ok(value) = serde_json::from_slice::<Value>(payload) else {
        return false;
    };
    let critical = &value["critical"];
    critical["type"] == PAYLOAD_TYPE && critical["image"]["docker-manifest-digest"] == digest
}

/// The tag the signatures of the manifest `digest` live under.
pub fn signature_tag(digest: &str) -> String {
    format!("{}.sig", digest.replacen(':', "-", 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_verifies_with_its_key_only_and_over_its_payload_only() {
        let dir = tempfile::tempdir().unwrap();
        let (a_key, a_pub) = (dir.path().join("a.key"), dir.path().join("a.pub"));
        let (b_key, b_pub) = (dir.path().join("b.key"), dir.path().join("b.pub"));
        PrivateKey::generate()
            .unwrap()
            .write(&a_key, &a_pub)
            .unwrap();
        PrivateKey::generate()
            .unwrap()
            .write(&b_key, &b_pub)
            .unwrap();
        let e = PrivateKey::generate()
            .unwrap()
            .write(&a_key, &a_pub)
            .unwrap_err();
        assert!(e.to_string().contains("a.key"), "{e}");
        let signer = PrivateKey::read(&a_key).unwrap();
        let digest = format!("sha256:{}", "ab".repeat(32));
        let payload = payload("127.0.0.1:5000/echo", &digest);
        assert!(payload_names(&payload, &digest));
        assert!(!payload_names(&payload, "sha256:00"));
        let signature = signer.sign(&payload);
        assert!(
            PublicKey::read(&a_pub)
                .unwrap()
                .verifies(&payload, &signature)
        );
        assert!(
            !PublicKey::read(&b_pub)
                .unwrap()
                .verifies(&payload, &signature)
        );
        assert!(
            !PublicKey::read(&a_pub)
                .unwrap()
                .verifies(b"other", &signature)
        );
        assert!(
            !PublicKey::read(&a_pub)
                .unwrap()
                .verifies(&payload, "not base64!")
        );
        let e = PublicKey::read(&a_key).unwrap_err().to_string();
        assert!(e.contains("PUBLIC KEY"), "{e}");
        assert_eq!(
            signature_tag(&digest),
            format!("sha256-{}.sig", "ab".repeat(32))
        );
    }
}
