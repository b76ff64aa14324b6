//! A plugin file hashed without being held: its BLAKE3 digest, computed
//! as it is read in small pieces, and the file's stamp around the read. A
//! warm start needs no more of a plugin file than that (its compiled code
//! and its SHA-256 come from the compile cache, keyed by the digest), and
//! reading an 18.8 MB file into fresh memory costs more than hashing it:
//! in a new process, reading the Python example whole and hashing it took
//! 15 ms, streaming it through a 256 KiB buffer into the hasher 5.7 ms. A
//! first load's preview (which hashes every file to find its cached tool
//! list) hands its [`FileHash`] to the file's load.

use std::io::Read as _;
use std::path::Path;

use crate::load::stamp::FileStamp;

/// The size of the buffer a file is read through.
const PIECE: usize = 256 << 10;

/// A plugin file's digest, and its stamp around the read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileHash {
    /// The BLAKE3 digest of its bytes.
    pub file: blake3::Hash,
    /// The file's stamp, the same before and after the read.
    pub stamp: Option<FileStamp>,
}

impl FileHash {
    /// Reads the file at `path` through a small buffer into the hasher;
    /// `None` if it cannot be read or changed while it was read.
    pub(crate) fn of(path: &Path) -> Option<FileHash> {
        let stamp = FileStamp::of(path);
        let mut file = std::fs::File::open(path).ok()?;
        let mut hasher = blake3::Hasher::new();
        let mut piece = vec![0; PIECE];
        loop {
            match file.read(&mut piece) {
                Ok(0) => break,
                Ok(n) => {
                    hasher.update(&piece[..n]);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        }
        if FileStamp::of(path) != stamp {
            return None;
        }
        Some(FileHash {
            file: hasher.finalize(),
            stamp,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_digest_is_blake3s_of_the_whole_file_across_pieces() {
        let dir = tempfile::tempdir().unwrap();
        for len in [0, 1, PIECE - 1, PIECE, PIECE + 1, 3 * PIECE + 7] {
            let path = dir.path().join(format!("{len}.wasm"));
            let bytes: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            std::fs::write(&path, &bytes).unwrap();
            let hashed = FileHash::of(&path).unwrap();
            assert_eq!(hashed.file, blake3::hash(&bytes), "{len} bytes");
            assert_eq!(hashed.stamp, FileStamp::of(&path));
        }
        assert!(FileHash::of(&dir.path().join("missing.wasm")).is_none());
    }
}
