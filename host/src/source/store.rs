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
//!   the name it is served by (the runtime names a plugin after its file);
//!   NAME is a [`PluginName`], HEX a digest: no other string becomes a
//!   path here.
//!
//! Every file is written to a temporary name (`.tmp-RANDOM`, in the
//! directory of its final name) and renamed into place only once its
//! bytes are checked ([`Staged`]); what fails a check is removed, never
//! kept. Components are copied and hashed in chunks, never read whole.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::name::PluginName;
use crate::runtime::Sha256Digest;

/// The chunk files are read and copied in.
const CHUNK: usize = 64 << 10;

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

    /// The (small) blob with `digest`, if the store holds it intact and it
    /// has at most `max` bytes. A damaged entry is removed.
    pub fn blob(&self, digest: &Sha256Digest, max: u64) -> Option<Vec<u8>> {
        let path = self.blob_path(digest);
        if std::fs::metadata(&path).ok()?.len() > max {
            return None;
        }
        let bytes = std::fs::read(&path).ok()?;
        if Sha256Digest::of(&bytes) != *digest {
            tracing::warn!(path = %path.display(), "damaged blob in the source store; removed");
            let _ = std::fs::remove_file(&path);
            return None;
        }
        Some(bytes)
    }

    /// Whether the store holds the blob `digest` intact (hashed in chunks;
    /// blocking). A damaged entry is removed.
    pub fn has_blob(&self, digest: &Sha256Digest) -> bool {
        let path = self.blob_path(digest);
        match hash_file(&path) {
            Ok(actual) if actual == *digest => true,
            Ok(_) => {
                tracing::warn!(path = %path.display(), "damaged blob in the source store; removed");
                let _ = std::fs::remove_file(&path);
                false
            }
            Err(_) => false,
        }
    }

    /// A temporary file for a blob being fetched, and the file to write
    /// it through; [`Staged::keep`] moves it into place, dropping it
    /// removes it.
    pub async fn stage(&self) -> std::io::Result<(Staged, tokio::fs::File)> {
        let dir = self.dir.join("blobs").join("sha256");
        tokio::fs::create_dir_all(&dir).await?;
        let path = dir.join(temp_name()?);
        let file = tokio::fs::File::create(&path).await?;
        let staged = Staged {
            path,
            blobs: self.clone(),
        };
        Ok((staged, file))
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
    /// copied from the blob if it is not there yet (blocking).
    pub fn plugin_file(
        &self,
        digest: &Sha256Digest,
        name: &PluginName,
    ) -> std::io::Result<PathBuf> {
        let path = self
            .plugins_dir()
            .join(digest.to_string())
            .join(name.file_name());
        if hash_file(&path).is_ok_and(|actual| actual == *digest) {
            return Ok(path);
        }
        self.copy_blob(digest, &path)?;
        Ok(path)
    }

    /// Copies the blob `digest` to `target` (through a temporary file beside
    /// it, renamed once the copy's digest is checked), in chunks (blocking).
    pub fn copy_blob(&self, digest: &Sha256Digest, target: &Path) -> std::io::Result<()> {
        let mut source = std::fs::File::open(self.blob_path(digest)).map_err(|e| {
            std::io::Error::new(e.kind(), format!("the blob {digest} is not in the store"))
        })?;
        through_temp(target, |out| {
            if hash_chunks(&mut source, |chunk| out.write_all(chunk))? != *digest {
                let _ = std::fs::remove_file(self.blob_path(digest));
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("the stored blob {digest} is damaged; removed"),
                ));
            }
            Ok(())
        })
    }
}

/// A blob being fetched, in a temporary file of the store.
#[derive(Debug)]
pub struct Staged {
    path: PathBuf,
    blobs: Store,
}

impl Staged {
    /// Moves the checked bytes written through `file` into place as the
    /// blob `digest`.
    pub async fn keep(
        mut self,
        mut file: tokio::fs::File,
        digest: &Sha256Digest,
    ) -> std::io::Result<()> {
        tokio::io::AsyncWriteExt::flush(&mut file).await?;
        file.sync_all().await?;
        drop(file);
        tokio::fs::rename(&self.path, self.blobs.blob_path(digest)).await?;
        self.path = PathBuf::new();
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.path.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// A fresh temporary file name: `.tmp-` and 16 random hex digits.
fn temp_name() -> std::io::Result<String> {
    let mut suffix = [0u8; 8];
    getrandom::fill(&mut suffix).map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(format!(".tmp-{}", hex::encode(suffix)))
}

/// The SHA-256 of the file at `path`, read in chunks.
fn hash_file(path: &Path) -> std::io::Result<Sha256Digest> {
    hash_chunks(&mut std::fs::File::open(path)?, |_| Ok(()))
}

/// Reads `source` to its end in chunks, handing each to `sink`; returns
/// the SHA-256 of what it read.
fn hash_chunks(
    source: &mut impl std::io::Read,
    mut sink: impl FnMut(&[u8]) -> std::io::Result<()>,
) -> std::io::Result<Sha256Digest> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = source.read(&mut buf)?;
        if n == 0 {
            return Ok(Sha256Digest(hasher.finalize().into()));
        }
        hasher.update(&buf[..n]);
        sink(&buf[..n])?;
    }
}

/// Writes `bytes` to a temporary file beside `path` and renames it there.
fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    through_temp(path, |file| file.write_all(bytes))
}

/// Creates a temporary file beside `path`, lets `write` fill it, and
/// renames it to `path` once written and synced; removes it on any error.
fn through_temp(
    path: &Path,
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(temp_name()?);
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        write(&mut file)?;
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
        assert_eq!(store.blob(&digest, 100), None);
        store.put_blob(&digest, b"component").unwrap();
        assert_eq!(store.blob(&digest, 100).as_deref(), Some(&b"component"[..]));
        assert_eq!(store.blob(&digest, 3), None, "over the bound");
        assert!(store.has_blob(&digest));
        let name = PluginName::parse("echo").unwrap();
        let file = store.plugin_file(&digest, &name).unwrap();
        assert!(file.ends_with(format!("{digest}/echo.wasm")));
        assert_eq!(std::fs::read(&file).unwrap(), b"component");
        std::fs::write(store.blob_path(&digest), b"damaged").unwrap();
        assert!(!store.has_blob(&digest));
        assert!(!store.blob_path(&digest).exists());
        store.record("oci://r/a:v1", "sha256:00").unwrap();
        assert_eq!(store.resolved("oci://r/a:v1").as_deref(), Some("sha256:00"));
        assert_eq!(store.resolved("oci://r/a:v2"), None);
    }

    #[tokio::test]
    async fn a_staged_blob_is_kept_only_when_told_and_leaves_nothing_otherwise() {
        use tokio::io::AsyncWriteExt as _;
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let digest = Sha256Digest::of(b"abc");
        let (staged, mut file) = store.stage().await.unwrap();
        file.write_all(b"ab").await.unwrap();
        drop((staged, file));
        let blobs = dir.path().join("sources/blobs/sha256");
        assert_eq!(
            std::fs::read_dir(&blobs).unwrap().count(),
            0,
            "dropped: removed"
        );
        let (staged, mut file) = store.stage().await.unwrap();
        file.write_all(b"abc").await.unwrap();
        staged.keep(file, &digest).await.unwrap();
        assert!(store.has_blob(&digest));
        assert_eq!(
            std::fs::read_dir(&blobs).unwrap().count(),
            1,
            "no temporary left"
        );
    }
}
