//! Telling whether a file was written: its size and modification time.

use std::path::Path;
use std::time::SystemTime;

/// Size and modification time of a file: two equal stamps taken apart mean
/// nobody wrote to it in between.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    /// The size in bytes.
    pub len: u64,
    /// The last modification.
    pub modified: Option<SystemTime>,
}

impl FileStamp {
    /// The stamp of the file at `path`, or `None` if it is not a regular
    /// file (missing, a directory, unreadable).
    pub fn of(path: &Path) -> Option<FileStamp> {
        let meta = std::fs::metadata(path).ok()?;
        meta.is_file().then(|| FileStamp {
            len: meta.len(),
            modified: meta.modified().ok(),
        })
    }
}
