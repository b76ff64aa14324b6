//! The file format both caches share: a stamp (magic, format, the entry's
//! key, the BLAKE3 digest of its payload) before or after the payload,
//! written to a temporary file and renamed into place, and checked whole on
//! every read.

use std::io::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Which kind of entry, and which version of its layout.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Format {
    /// An entry of this kind starts with this.
    pub magic: &'static [u8; 8],
    /// Changes whenever the entry layout or the key's inputs change.
    pub version: u32,
    /// Where the stamp goes.
    pub stamp: Stamp,
}

/// Where an entry's stamp is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stamp {
    /// Before the payload.
    First,
    /// After the payload, so the payload starts the file (a compiled
    /// component wasmtime maps from the file as it is).
    Last,
}

/// Magic, format, key, payload digest.
pub(crate) const HEADER_LEN: usize = 8 + 4 + 32 + 32;

/// The BLAKE3 digest of `payload`; a large one is hashed on several
/// threads (the same digest as `blake3::hash`).
pub(crate) fn digest(payload: &[u8]) -> blake3::Hash {
    if payload.len() < 1 << 20 {
        return blake3::hash(payload);
    }
    blake3::Hasher::new().update_rayon(payload).finalize()
}

/// The stamp of the entry `key` holding `payload`.
pub(crate) fn header(format: Format, key: &[u8; 32], payload: &[u8]) -> Vec<u8> {
    let mut header = Vec::with_capacity(HEADER_LEN);
    header.extend_from_slice(format.magic);
    header.extend_from_slice(&format.version.to_le_bytes());
    header.extend_from_slice(key);
    header.extend_from_slice(digest(payload).as_bytes());
    header
}

/// What is wrong with a cache entry: it is discarded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum EntryError {
    /// Shorter than its stamp (its length).
    #[error("truncated: {0} bytes")]
    Truncated(usize),
    /// The magic is not this program's.
    #[error("not a cache entry of this program")]
    NotOurs,
    /// Another entry format.
    #[error("written by another version of this program")]
    OtherVersion,
    /// The entry of another key.
    #[error("its header names another key")]
    OtherKey,
    /// The payload does not match its digest.
    #[error("corrupt or truncated: its contents do not match its checksum")]
    Corrupt,
}

/// Checks an entry read whole: its magic and format, that it is the entry
/// of `key` (not another one copied or renamed), and the digest of its
/// payload. Returns the payload, or what is wrong.
pub(crate) fn verify<'a>(
    format: Format,
    entry: &'a [u8],
    key: &[u8; 32],
) -> Result<&'a [u8], EntryError> {
    if entry.len() < HEADER_LEN {
        return Err(EntryError::Truncated(entry.len()));
    }
    let (head, payload) = match format.stamp {
        Stamp::First => entry.split_at(HEADER_LEN),
        Stamp::Last => {
            let (payload, head) = entry.split_at(entry.len() - HEADER_LEN);
            (head, payload)
        }
    };
    if &head[..8] != format.magic {
        return Err(EntryError::NotOurs);
    }
    if head[8..12] != format.version.to_le_bytes() {
        return Err(EntryError::OtherVersion);
    }
    if head[12..44] != key[..] {
        return Err(EntryError::OtherKey);
    }
    if head[44..76] != *digest(payload).as_bytes() {
        return Err(EntryError::Corrupt);
    }
    Ok(payload)
}

/// Writes the entry `key` holding `payload` (and its stamp) to a temporary file (mode 0600)
/// in `path`'s directory and renames it to `path`, so readers never see
/// half of one.
pub(crate) fn write_atomically(
    format: Format,
    path: &Path,
    key: &[u8; 32],
    payload: &[u8],
) -> std::io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = dir.join(format!(
        ".{}.{}.{}.tmp",
        hex::encode(&key[..8]),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options.open(&tmp).and_then(|mut file| {
        let stamp = header(format, key, payload);
        match format.stamp {
            Stamp::First => {
                file.write_all(&stamp)?;
                file.write_all(payload)?;
            }
            Stamp::Last => {
                file.write_all(payload)?;
                file.write_all(&stamp)?;
            }
        }
        file.flush()
    });
    let renamed = written.and_then(|()| std::fs::rename(&tmp, path));
    if renamed.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    renamed
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_large_payload_has_the_digest_blake3_gives() {
        let payload: Vec<u8> = (0..3u32 << 20).map(|i| (i % 251) as u8).collect();
        assert_eq!(super::digest(&payload), blake3::hash(&payload));
    }
}
