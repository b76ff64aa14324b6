//! The content-addressed store of fetched plugins, inside the cache
//! directory the compile cache uses (`sources/` there).
//!
//! - `blobs/sha256/HEX`: a manifest, a component or a signature payload,
//!   named by the SHA-256 of its bytes; checked again whenever it is read,
//!   so a damaged entry is refetched, never used.
//! - `refs/HEX.json`: what a tag last resolved to (`{"reference", "digest"}`),
//!   named by the SHA-256 of the reference; read only when the registry
//!   cannot be reached.
//! - `plugins/HEX/NAME.wasm`: a component as the runtime loads it, under
//!   the name it is served by (the runtime names a plugin after its file).
//!
//! Every file is written to a temporary name and renamed into place.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::runtime::Sha256Digest;

/// The store's directory.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
}

/// What a tag resolved to, as the store keeps it.
#[derive(Debug, Serialize, Deserialize)]
struct RefRecord {
    reference: String,
    digest: String,
}

impl Store {
    /// The store under `cache_dir` (created on first write).
    pub fn new(cache_dir: &Path) -> Self {
        Store {
            dir: cache_dir.join("sources"),
        }
    }

    /// The directory the served copies of components are in.
    pub fn plugins_dir(&self) -> PathBuf {
        self.dir.join("plugins")
    }

    fn blob_path(&self, digest: &Sha256Digest) -> PathBuf {
        self.dir
            .join("blobs")
            .join("sha256")
            .join(digest.to_string())
    }

    /// The blob with `digest`, if the store holds it intact. A damaged
    /// entry is removed.
    pub fn blob(&self, digest: &Sha256Digest) -> Option<Vec<u8>> {
        let path = self.blob_path(digest);
        let bytes = std::fs::read(&path).ok()?;
        if Sha256Digest::of(&bytes) != *digest {
            tracing::warn!(path = %path.display(), "damaged blob in the source store; removed");
            let _ = std::fs::remove_file(&path);
            return None;
        }
        Some(bytes)
    }

    /// Keeps `bytes` (already checked to have `digest`).
    pub fn put_blob(&self, digest: &Sha256Digest, bytes: &[u8]) -> std::io::Result<()> {
        write_atomic(&self.blob_path(digest), bytes)
    }

    fn ref_path(&self, reference: &str) -> PathBuf {
        let key = Sha256Digest::of(reference.as_bytes());
        self.dir.join("refs").join(format!("{key}.json"))
    }

    /// The digest `reference` last resolved to, if recorded.
    pub fn resolved(&self, reference: &str) -> Option<String> {
        let text = std::fs::read(self.ref_path(reference)).ok()?;
        let record: RefRecord = serde_json::from_slice(&text).ok()?;
        (record.reference == reference).then_some(record.digest)
    }

    /// Records that `reference` resolved to `digest`.
    pub fn record(&self, reference: &str, digest: &str) -> std::io::Result<()> {
        let record = RefRecord {
            reference: reference.to_string(),
            digest: digest.to_string(),
        };
        let json = serde_json::to_vec(&record).map_err(std::io::Error::other)?;
        write_atomic(&self.ref_path(reference), &json)
    }

    /// The component with `digest` as the file `plugins/HEX/NAME.wasm`,
    /// written from the blob if it is not there yet.
    pub fn plugin_file(&self, digest: &Sha256Digest, name: &str) -> std::io::Result<PathBuf> {
        let path = self
            .plugins_dir()
            .join(digest.to_string())
            .join(format!("{name}.wasm"));
        if std::fs::read(&path).is_ok_and(|b| Sha256Digest::of(&b) == *digest) {
            return Ok(path);
        }
        let bytes = self.blob(digest).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::NotFound, "the blob is not in the store")
        })?;
        write_atomic(&path, &bytes)?;
        Ok(path)
    }
}

/// Writes `bytes` to a temporary file beside `path` and renames it there.
fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut suffix = [0u8; 8];
    getrandom::fill(&mut suffix).map_err(|e| std::io::Error::other(e.to_string()))?;
    let tmp = dir.join(format!(".tmp-{}", hex::encode(suffix)));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_are_checked_when_read_and_refs_are_remembered() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let digest = Sha256Digest::of(b"component");
        assert_eq!(store.blob(&digest), None);
        store.put_blob(&digest, b"component").unwrap();
        assert_eq!(store.blob(&digest).as_deref(), Some(&b"component"[..]));
        let file = store.plugin_file(&digest, "echo").unwrap();
        assert!(file.ends_with(format!("{digest}/echo.wasm")));
        std::fs::write(store.blob_path(&digest), b"damaged").unwrap();
        assert_eq!(store.blob(&digest), None);
        assert!(!store.blob_path(&digest).exists());
        store.record("oci://r/a:v1", "sha256:00").unwrap();
        assert_eq!(store.resolved("oci://r/a:v1").as_deref(), Some("sha256:00"));
        assert_eq!(store.resolved("oci://r/a:v2"), None);
    }
}
