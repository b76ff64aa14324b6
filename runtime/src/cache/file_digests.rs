//! The SHA-256 of each plugin file, remembered beside the compile cache by
//! the file's BLAKE3 digest, so that a warm start hashes a plugin file once
//! (BLAKE3, on every core, for its compile cache key) instead of twice: the
//! SHA-256 of an 18.8 MB Python plugin alone took about 10 ms of its start.
//!
//! An entry is `KEY.sha256` in the compile cache's directory (whose owner
//! and mode [`crate::cache::CompileCache::open`] checked), with the layout
//! `entry` gives every cache: a stamp naming its key and the BLAKE3 digest
//! of its 32-byte payload, written atomically and checked whole on every
//! read. Its key is derived from the file's BLAKE3 digest, so an entry
//! vouches for a SHA-256 only of the very bytes that hash to it: trusting it
//! is trusting BLAKE3's collision resistance and the cache directory, which
//! the compiled code beside it already relies on. A pinned `sha256` is
//! checked against it as against a digest just computed.

use std::path::{Path, PathBuf};

use crate::cache::Sha256Digest;
use crate::cache::entry::{self, Format, Stamp};

/// The entries' layout (see `entry`): the stamp first.
const FORMAT: Format = Format {
    magic: b"MWHSHA25",
    version: 1,
    stamp: Stamp::First,
};

/// The entry key of the file whose BLAKE3 digest is `file`.
fn key(file: &blake3::Hash) -> [u8; 32] {
    let mut hasher = blake3::Hasher::new_derive_key("mcp-wasm-host 2026 plugin file SHA-256");
    hasher.update(file.as_bytes());
    *hasher.finalize().as_bytes()
}

fn entry_path(dir: &Path, key: &[u8; 32]) -> PathBuf {
    dir.join(format!("{}.sha256", hex::encode(key)))
}

/// The remembered SHA-256 of the file whose BLAKE3 digest is `file`, if the
/// cache in `dir` holds a valid entry for it. An entry that fails its checks
/// is logged and deleted.
pub(crate) fn get(dir: &Path, file: &blake3::Hash, plugin: &str) -> Option<Sha256Digest> {
    let key = key(file);
    let path = entry_path(dir, &key);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            tracing::warn!(
                plugin,
                "{}: cannot read the file digest: {e}",
                path.display()
            );
            return None;
        }
    };
    let problem = match entry::verify(FORMAT, &bytes, &key) {
        Ok(payload) => match <[u8; 32]>::try_from(payload) {
            Ok(digest) => return Some(Sha256Digest(digest)),
            Err(_) => format!("a payload of {} bytes, not 32", payload.len()),
        },
        Err(problem) => problem.to_string(),
    };
    tracing::warn!(
        plugin,
        "{}: discarding the remembered file digest ({problem})",
        path.display()
    );
    if let Err(e) = std::fs::remove_file(&path) {
        tracing::warn!(plugin, "{}: cannot delete it: {e}", path.display());
    }
    None
}

/// Remembers `sha256` as the SHA-256 of the file whose BLAKE3 digest is
/// `file`. A failure is logged; the next start hashes the file again.
pub(crate) fn put(dir: &Path, file: &blake3::Hash, sha256: &Sha256Digest, plugin: &str) {
    let key = key(file);
    let path = entry_path(dir, &key);
    if let Err(e) = entry::write_atomically(FORMAT, &path, &key, &sha256.0) {
        tracing::warn!(
            plugin,
            "{}: cannot write the file digest: {e}",
            path.display()
        );
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_digest_round_trips_and_a_damaged_or_swapped_entry_is_discarded() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let (file, other) = (blake3::hash(b"file"), blake3::hash(b"other file"));
        let sha = Sha256Digest::of(b"file");
        assert_eq!(get(dir, &file, "p"), None);
        put(dir, &file, &sha, "p");
        assert_eq!(get(dir, &file, "p"), Some(sha));
        assert_eq!(get(dir, &other, "p"), None);
        // Another file's entry under this file's name: refused and deleted.
        put(dir, &other, &Sha256Digest::of(b"other file"), "p");
        std::fs::rename(entry_path(dir, &key(&other)), entry_path(dir, &key(&file))).unwrap();
        assert_eq!(get(dir, &file, "p"), None);
        assert!(!entry_path(dir, &key(&file)).exists());
        // A flipped byte in the remembered digest.
        put(dir, &file, &sha, "p");
        let path = entry_path(dir, &key(&file));
        let mut bytes = std::fs::read(&path).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(get(dir, &file, "p"), None);
        assert!(!path.exists());
        // A payload of another length, stamped as if valid.
        entry::write_atomically(FORMAT, &path, &key(&file), &[0; 31]).unwrap();
        assert_eq!(get(dir, &file, "p"), None);
        assert!(!path.exists());
    }
}
