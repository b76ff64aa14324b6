//! A plugin file read once: its bytes, their BLAKE3 digest and the file's
//! stamp around the read. A first load's preview (which reads and hashes
//! every file to find its cached tool list) hands what it read to the
//! file's load, within a budget of bytes, so that a start reads and hashes
//! each plugin file once, not twice: reading the 18.8 MB Python example
//! into fresh memory alone takes 3 to 11 ms.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use super::stamp::FileStamp;

/// How many bytes of plugin files the previews of one load may keep for
/// the loads; beyond it, a load reads its file again (as every reload
/// does). Bounds what a directory of many large plugins holds at once.
pub(super) const KEEP_BUDGET: u64 = 128 << 20;

/// A plugin file as read once.
pub(crate) struct FileRead {
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Their BLAKE3 digest.
    pub file: blake3::Hash,
    /// The file's stamp, the same before and after the read.
    pub stamp: Option<FileStamp>,
}

impl std::fmt::Debug for FileRead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileRead")
            .field("bytes", &self.bytes.len())
            .field("file", &self.file)
            .field("stamp", &self.stamp)
            .finish()
    }
}

impl FileRead {
    /// Reads the file at `path` and hashes it; `None` if it cannot be read
    /// or changed while it was read.
    pub(super) fn of(path: &Path) -> Option<FileRead> {
        let stamp = FileStamp::of(path);
        let bytes = std::fs::read(path).ok()?;
        if FileStamp::of(path) != stamp {
            return None;
        }
        let file = super::entry::digest(&bytes);
        Some(FileRead { bytes, file, stamp })
    }
}

/// What the previews of one load may still keep.
#[derive(Debug)]
pub(super) struct KeepBudget(AtomicU64);

impl KeepBudget {
    /// A budget of `bytes`.
    pub(super) fn new(bytes: u64) -> Self {
        KeepBudget(AtomicU64::new(bytes))
    }

    /// Takes `len` bytes from the budget if that many are left.
    pub(super) fn take(&self, len: usize) -> bool {
        self.0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(len as u64)
            })
            .is_ok()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_budget_gives_out_no_more_than_it_holds() {
        let budget = KeepBudget::new(10);
        assert!(budget.take(6));
        assert!(!budget.take(5));
        assert!(budget.take(4));
        assert!(!budget.take(1));
        assert!(budget.take(0));
    }

    #[test]
    fn a_read_has_the_files_bytes_digest_and_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.wasm");
        std::fs::write(&path, b"\0asm bytes").unwrap();
        let read = FileRead::of(&path).unwrap();
        assert_eq!(read.bytes, b"\0asm bytes");
        assert_eq!(read.file, blake3::hash(b"\0asm bytes"));
        assert_eq!(read.stamp, FileStamp::of(&path));
        assert!(FileRead::of(&dir.path().join("missing.wasm")).is_none());
    }
}
