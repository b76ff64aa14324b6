//! The incremental compilation cache: the machine code of single functions,
//! which Cranelift looks up by a digest of each function before compiling
//! it, kept in a subdirectory of the compile cache. A new component whose
//! functions were compiled before (another Python plugin: the same
//! interpreter) then compiles only what is new.
//!
//! Cranelift trusts what it is given (it is machine code), so every entry
//! carries a header with its key and the BLAKE3 digest of its payload,
//! checked on every read; a corrupt, truncated or mislabelled entry is
//! logged and deleted, and Cranelift compiles the function again. Entries
//! are written to a temporary file and renamed into place. The store is
//! bounded: once it holds more than its cap, the entries used least
//! recently (by modification time, which a hit refreshes) are deleted until
//! it holds three quarters of it.

use std::borrow::Cow;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use sha2::{Digest as _, Sha256};

use crate::cache::entry::{self, Format, HEADER_LEN, Stamp};
use crate::cache::{CacheError, CompileCache, WASMTIME_VERSION, private_dir};

/// Changes whenever the entry layout or the key's inputs change.
const FORMAT: u32 = 1;
/// The store's entries.
const ENTRY: Format = Format {
    magic: b"MWHCINCR",
    version: FORMAT,
    stamp: Stamp::First,
};

/// The default bound of the store's size, in bytes: room for the functions
/// of several interpreters (a Python component's take about 40 MB).
pub const DEFAULT_CAP: u64 = 512 << 20;

/// Cranelift's compiled functions on disk.
#[derive(Debug)]
pub struct IncrementalStore {
    dir: PathBuf,
    cap: u64,
    /// Bytes the store holds, counted on the first insert of this process
    /// (a lookup never needs it), then kept up to date by this process's
    /// inserts and evictions. Other processes sharing the directory are
    /// seen at the next eviction, which counts again.
    size: Mutex<Option<u64>>,
}

impl PartialEq for IncrementalStore {
    fn eq(&self, other: &Self) -> bool {
        self.dir == other.dir && self.cap == other.cap
    }
}

impl Eq for IncrementalStore {}

impl IncrementalStore {
    /// The store kept beside the compiled components of `cache`, in its
    /// subdirectory `incremental`, under the same checks, holding at most
    /// about `cap` bytes.
    pub fn beside(cache: &CompileCache, cap: u64) -> Result<Self, CacheError> {
        Self::open(&cache.dir().join("incremental"), cap)
    }

    /// Opens the store in `dir`, creating it (mode 0700) if needed; an
    /// existing directory must belong to the current user and be writable
    /// by no one else. It holds at most about `cap` bytes.
    pub fn open(dir: &Path, cap: u64) -> Result<Self, CacheError> {
        private_dir(dir)?;
        Ok(IncrementalStore {
            dir: dir.to_owned(),
            cap,
            size: Mutex::new(None),
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The digest an entry is named and labelled by: of Cranelift's key,
    /// the format and the wasmtime version.
    fn name(key: &[u8]) -> [u8; 32] {
        let mut hasher = Sha256::new();
        hasher.update(b"mcp-wasm-host incremental cache\0");
        hasher.update(FORMAT.to_le_bytes());
        hasher.update(WASMTIME_VERSION.as_bytes());
        hasher.update([0]);
        hasher.update(key);
        hasher.finalize().into()
    }

    /// The file of the entry named `name`: in one of 256 subdirectories.
    fn entry_path(&self, name: &[u8; 32]) -> PathBuf {
        let hex = hex::encode(name);
        self.dir.join(&hex[..2]).join(&hex[2..])
    }

    /// The payload stored under `key`, if there is a valid entry.
    fn lookup(&self, key: &[u8]) -> Option<Vec<u8>> {
        let name = Self::name(key);
        let path = self.entry_path(&name);
        let mut file = match std::fs::File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => {
                tracing::warn!("{}: cannot read the cache entry: {e}", path.display());
                return None;
            }
        };
        let mut bytes = Vec::new();
        if let Err(e) = file.read_to_end(&mut bytes) {
            tracing::warn!("{}: cannot read the cache entry: {e}", path.display());
            return None;
        }
        match entry::verify(ENTRY, &bytes, &name).map(<[u8]>::len) {
            Ok(len) => {
                // Refreshes the entry's age, which eviction goes by; a
                // failure only makes it look older.
                let _ = file.set_modified(std::time::SystemTime::now());
                bytes.drain(..bytes.len() - len);
                Some(bytes)
            }
            Err(problem) => {
                tracing::warn!(
                    "{}: discarding the incremental cache entry ({problem}); compiling the function again",
                    path.display()
                );
                if let Err(e) = std::fs::remove_file(&path) {
                    tracing::warn!("{}: cannot delete the cache entry: {e}", path.display());
                }
                None
            }
        }
    }

    /// Stores `payload` under `key`; false if it could not be written.
    fn store(&self, key: &[u8], payload: &[u8]) -> bool {
        let len = (HEADER_LEN + payload.len()) as u64;
        if len > self.cap / 4 {
            return false;
        }
        let name = Self::name(key);
        let path = self.entry_path(&name);
        if let Err(e) =
            create_shard(&path).and_then(|()| entry::write_atomically(ENTRY, &path, &name, payload))
        {
            tracing::warn!("{}: cannot write the cache entry: {e}", path.display());
            return false;
        }
        let mut size = self.size.lock().unwrap_or_else(|e| e.into_inner());
        let total = match *size {
            Some(total) => total + len,
            // The first insert counts what is there (this entry included).
            None => self.entries().iter().map(|e| e.len).sum(),
        };
        *size = Some(if total > self.cap {
            self.evict(self.cap / 4 * 3)
        } else {
            total
        });
        true
    }

    /// Every entry in the store.
    fn entries(&self) -> Vec<Entry> {
        let mut found = Vec::new();
        let Ok(shards) = std::fs::read_dir(&self.dir) else {
            return found;
        };
        for shard in shards.flatten() {
            let Ok(files) = std::fs::read_dir(shard.path()) else {
                continue;
            };
            for file in files.flatten() {
                let Ok(meta) = file.metadata() else { continue };
                if !meta.is_file() {
                    continue;
                }
                found.push(Entry {
                    path: file.path(),
                    len: meta.len(),
                    used: meta.modified().unwrap_or(std::time::UNIX_EPOCH),
                });
            }
        }
        found
    }

    /// Deletes the entries used least recently until the store holds at
    /// most `target` bytes; returns what it then holds.
    #[tracing::instrument(skip(self), fields(dir = %self.dir.display()))]
    fn evict(&self, target: u64) -> u64 {
        let mut entries = self.entries();
        let mut total: u64 = entries.iter().map(|e| e.len).sum();
        entries.sort_by_key(|e| e.used);
        let mut removed = 0usize;
        for entry in entries {
            if total <= target {
                break;
            }
            if std::fs::remove_file(&entry.path).is_ok() {
                total -= entry.len;
                removed += 1;
            }
        }
        tracing::debug!(removed, bytes = total, "evicted incremental cache entries");
        total
    }
}

impl wasmtime::CacheStore for IncrementalStore {
    fn get(&self, key: &[u8]) -> Option<Cow<'_, [u8]>> {
        self.lookup(key).map(Cow::Owned)
    }

    fn insert(&self, key: &[u8], value: Vec<u8>) -> bool {
        self.store(key, &value)
    }
}

/// One file of the store.
struct Entry {
    path: PathBuf,
    len: u64,
    used: std::time::SystemTime,
}

/// Creates the subdirectory `path` goes in (mode 0700), if needed.
fn create_shard(path: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(path.parent().unwrap_or(Path::new(".")))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use wasmtime::CacheStore as _;

    fn store(cap: u64) -> (tempfile::TempDir, IncrementalStore) {
        let tmp = tempfile::tempdir().unwrap();
        let store = IncrementalStore::open(&tmp.path().join("incremental"), cap).unwrap();
        (tmp, store)
    }

    #[test]
    fn entries_round_trip() {
        let (_tmp, store) = store(DEFAULT_CAP);
        assert_eq!(store.get(b"key"), None);
        assert!(store.insert(b"key", b"compiled code".to_vec()));
        assert_eq!(store.get(b"key").as_deref(), Some(&b"compiled code"[..]));
        assert_eq!(store.get(b"other key"), None);
        // Written by rename: no temporary file is left behind.
        let files: Vec<_> = store.entries().into_iter().map(|e| e.path).collect();
        assert_eq!(
            files,
            vec![store.entry_path(&IncrementalStore::name(b"key"))]
        );
    }

    #[test]
    fn damaged_entries_are_refused_and_deleted() {
        let (_tmp, store) = store(DEFAULT_CAP);
        let path = |key: &[u8]| store.entry_path(&IncrementalStore::name(key));
        for key in [&b"flipped"[..], b"truncated", b"header", b"empty"] {
            assert!(store.insert(key, vec![7u8; 1000]));
        }
        let mut bytes = std::fs::read(path(b"flipped")).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(path(b"flipped"), &bytes).unwrap();
        let bytes = std::fs::read(path(b"truncated")).unwrap();
        std::fs::write(path(b"truncated"), &bytes[..bytes.len() - 1]).unwrap();
        std::fs::write(path(b"header"), &bytes[..HEADER_LEN - 1]).unwrap();
        std::fs::write(path(b"empty"), b"").unwrap();
        for key in [&b"flipped"[..], b"truncated", b"header", b"empty"] {
            assert_eq!(store.get(key), None, "{}", String::from_utf8_lossy(key));
            assert!(!path(key).exists(), "{}", String::from_utf8_lossy(key));
        }
    }

    #[test]
    fn mislabelled_entries_are_refused() {
        let (_tmp, store) = store(DEFAULT_CAP);
        assert!(store.insert(b"one", b"code of one".to_vec()));
        assert!(store.insert(b"two", b"code of two".to_vec()));
        let one = store.entry_path(&IncrementalStore::name(b"one"));
        let two = store.entry_path(&IncrementalStore::name(b"two"));
        // A valid entry of another key, moved into place.
        std::fs::rename(&one, &two).unwrap();
        assert_eq!(store.get(b"two"), None);
        assert_eq!(store.get(b"one"), None);
        assert!(!two.exists());
    }

    #[test]
    fn the_store_keeps_below_its_cap_dropping_the_least_recently_used() {
        let entry = (HEADER_LEN + 1000) as u64;
        let (_tmp, store) = store(entry * 10);
        let past = |secs| std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs);
        for i in 0..10u64 {
            assert!(store.insert(&i.to_le_bytes(), vec![i as u8; 1000]));
            // Ages set explicitly: 0 is the oldest, 9 the newest.
            let path = store.entry_path(&IncrementalStore::name(&i.to_le_bytes()));
            let file = std::fs::File::options().write(true).open(path).unwrap();
            file.set_modified(past(1_000_000 + i)).unwrap();
        }
        // A hit makes entry 0 the most recently used.
        assert!(store.get(&0u64.to_le_bytes()).is_some());
        // The eleventh entry goes over the cap: the store drops to three
        // quarters of it (7 entries), losing the oldest: 1, 2, 3 and 4.
        assert!(store.insert(&10u64.to_le_bytes(), vec![10; 1000]));
        let total: u64 = store.entries().iter().map(|e| e.len).sum();
        assert_eq!(total, entry * 7);
        for i in 0..=10u64 {
            let kept = store.get(&i.to_le_bytes()).is_some();
            assert_eq!(kept, !(1..=4).contains(&i), "entry {i}");
        }
        // An entry larger than a quarter of the cap is not stored.
        assert!(!store.insert(b"large", vec![0; 3000]));
    }

    #[cfg(unix)]
    #[test]
    fn open_refuses_a_shared_directory() {
        use std::os::unix::fs::PermissionsExt;
        let (_tmp, store) = store(DEFAULT_CAP);
        let mode = std::fs::metadata(store.dir()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        std::fs::set_permissions(store.dir(), std::fs::Permissions::from_mode(0o770)).unwrap();
        let e = IncrementalStore::open(store.dir(), DEFAULT_CAP).unwrap_err();
        assert!(matches!(e, CacheError::Writable { .. }), "{e}");
    }
}
