//! Stage `cache`: what loading keeps on disk between runs, beside the
//! compile cache's directory, so that a warm start neither compiles nor
//! lists a plugin again. `load` asks it by a plugin file's digest and
//! stores what it compiled; `catalog` lists the cached tool lists
//! (`tool_lists`) while plugins still compile. Every entry has the layout
//! `entry` gives it. Data flows from `load` into the cache and back to
//! `load` and `catalog` on the next start; nothing here runs a guest.
//!
//! This file is the compile cache itself; beside it: `entry` (the stamped
//! file format), `file_digests` (each file's SHA-256), `incremental`
//! (Cranelift's per-function code) and `tool_lists`.
//!
//! The compile cache: compiled components kept on disk, so a plugin is
//! compiled once per version of its file, engine configuration and wasmtime.
//!
//! Entries are named after their key, the SHA-256 of the `.wasm` file's
//! BLAKE3 digest, the engine's [`Engine::precompile_compatibility_hash`]
//! and the wasmtime version. wasmtime trusts what it deserializes (it is
//! machine code), so every entry is the serialized component followed by a
//! stamp with its key and the BLAKE3 digest of the serialized component,
//! checked whole before wasmtime sees it; a corrupt, truncated, mislabelled
//! or incompatible entry is logged, deleted and recompiled, never loaded.
//! Entries are written to a temporary file and renamed into place, so
//! readers never see half of one. On Linux an entry is mapped, not read:
//! it is checked in a mapping of the open file, and wasmtime maps that same
//! open file (not the path again), so the code it runs is the code checked,
//! without copying tens of megabytes on every start.
//! The directory must belong to the current user and be writable by no one
//! else; it is created with mode 0700.

pub(crate) mod entry;
pub(crate) mod file_digests;
pub(crate) mod incremental;
pub(crate) mod tool_lists;

use std::fmt;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

use crate::cache::entry::{Format, Stamp};

/// A SHA-256 digest: of a plugin file, or a cache key.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Sha256Digest(pub [u8; 32]);

impl Sha256Digest {
    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        Sha256Digest(Sha256::digest(bytes).into())
    }

    /// Parses 64 hexadecimal digits (either case).
    pub fn from_hex(text: &str) -> Result<Self, NotADigest> {
        let mut out = [0u8; 32];
        hex::decode_to_slice(text, &mut out)
            .map(|()| Sha256Digest(out))
            .map_err(|_| NotADigest(text.to_string()))
    }
}

/// Text that is not 64 hexadecimal digits (the text).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a SHA-256 digest (64 hexadecimal digits)")]
pub struct NotADigest(pub String);

/// Why a compile cache entry is discarded (logged, then recompiled).
#[derive(Debug, thiserror::Error)]
enum EntryProblem {
    /// The file cannot be read (or its size known).
    #[error("cannot read it: {0}")]
    Read(#[source] std::io::Error),
    /// Its size does not fit in memory.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    #[error("too large to map")]
    TooLarge,
    /// The mapping failed.
    #[cfg(target_os = "linux")]
    #[error("cannot map it: {0}")]
    Map(#[source] rustix::io::Errno),
    /// The kernel mapped it at address 0.
    #[cfg(target_os = "linux")]
    #[error("mapped at null")]
    Null,
    /// Its stamp does not check out.
    #[error(transparent)]
    Entry(#[from] entry::EntryError),
    /// wasmtime did not take it.
    #[error("wasmtime refused it: {0:#}")]
    Refused(#[source] wasmtime::Error),
}

impl fmt::Display for Sha256Digest {
    // Every call's audit line shows the digest: encoded on the stack, not
    // through a `String` built a character at a time.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = [0u8; 64];
        hex::encode_to_slice(self.0, &mut text).map_err(|_| fmt::Error)?;
        f.write_str(std::str::from_utf8(&text).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Sha256Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sha256Digest({self})")
    }
}

/// The version of the `wasmtime` crate, recorded by the build script.
pub const WASMTIME_VERSION: &str = env!("MCP_WASM_HOST_WASMTIME_VERSION");

/// Changes whenever the entry layout or the key's inputs change.
const FORMAT: u32 = 3;
/// The compile cache's entries: the stamp goes last, so that the file
/// starts with the serialized component wasmtime maps.
const ENTRY: Format = Format {
    magic: b"MWHCWASM",
    version: FORMAT,
    stamp: Stamp::Last,
};

/// Why the cache directory cannot be used. The server then runs without a
/// cache.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// No cache directory was given and none could be derived.
    #[error("no cache directory: set XDG_CACHE_HOME or HOME, or pass --cache-dir (or --no-cache)")]
    NoDefaultDir,
    /// The directory could not be created or examined.
    #[error("{}: cannot use the cache directory: {source}", path.display())]
    Io {
        /// The directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The path exists and is not a directory.
    #[error("{}: the cache path is not a directory", path.display())]
    NotADirectory {
        /// The path.
        path: PathBuf,
    },
    /// The directory belongs to another user.
    #[error(
        "{}: the cache directory belongs to uid {owner}, not to this user (uid {me}); refusing to load compiled code from it",
        path.display()
    )]
    NotOwned {
        /// The directory.
        path: PathBuf,
        /// Its owner.
        owner: u32,
        /// The current (effective) user.
        me: u32,
    },
    /// Others may write into the directory.
    #[error(
        "{}: the cache directory is group- or world-writable (mode {mode:o}); refusing to load compiled code from it (chmod 700 it)",
        path.display()
    )]
    Writable {
        /// The directory.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
}

/// A directory of compiled components.
#[derive(Debug)]
pub struct CompileCache {
    dir: PathBuf,
}

/// What a lookup found.
#[derive(Debug)]
enum Lookup {
    /// No entry.
    Miss,
    /// A valid entry.
    Hit(Component),
    /// An entry that must not be used (already logged and deleted).
    Discarded,
}

/// Bytes of a serialized component whose entry header checked out: the
/// only input [`deserialize`] accepts.
struct Verified<'a>(&'a [u8]);

impl fmt::Debug for Verified<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Verified({} bytes)", self.0.len())
    }
}

impl CompileCache {
    /// The user's cache directory for this program, by the XDG rule:
    /// `$XDG_CACHE_HOME/mcp-wasm-host` if that variable holds an absolute
    /// path, else `$HOME/.cache/mcp-wasm-host` (on Windows,
    /// `%LOCALAPPDATA%\mcp-wasm-host\cache`).
    pub fn default_dir() -> Option<PathBuf> {
        let absolute = |var: &str| {
            std::env::var_os(var)
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
        };
        if cfg!(windows) {
            return absolute("LOCALAPPDATA").map(|p| p.join("mcp-wasm-host").join("cache"));
        }
        absolute("XDG_CACHE_HOME")
            .or_else(|| absolute("HOME").map(|home| home.join(".cache")))
            .map(|base| base.join("mcp-wasm-host"))
    }

    /// Opens the cache in `dir`, creating it (mode 0700) if needed. An
    /// existing directory must belong to the current user and be writable
    /// by no one else.
    pub fn open(dir: &Path) -> Result<Self, CacheError> {
        private_dir(dir)?;
        Ok(CompileCache {
            dir: dir.to_owned(),
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The key of the component compiled by `engine` from a plugin file,
    /// from the file's BLAKE3 digest (several times faster than SHA-256,
    /// and every start hashes every plugin file; one hash of the file
    /// serves the keys of both compilers' code).
    pub(super) fn key_of_digest(engine: &Engine, file: &blake3::Hash) -> Sha256Digest {
        let mut hasher = ShaHasher(Sha256::new());
        hasher.0.update(b"mcp-wasm-host compile cache\0");
        FORMAT.hash(&mut hasher);
        WASMTIME_VERSION.hash(&mut hasher);
        engine.precompile_compatibility_hash().hash(&mut hasher);
        hasher.0.update(file.as_bytes());
        Sha256Digest(hasher.0.finalize().into())
    }

    /// The file of the entry `key`.
    pub fn entry_path(&self, key: &Sha256Digest) -> PathBuf {
        self.dir.join(format!("{key}.cwasm"))
    }

    /// The component stored under `key`, if there is a valid one. An entry
    /// that fails its checks or that wasmtime refuses is logged as a
    /// warning and deleted.
    #[tracing::instrument(skip(self, engine))]
    pub(crate) fn get(
        &self,
        engine: &Engine,
        key: &Sha256Digest,
        plugin: &str,
    ) -> Option<Component> {
        match self.lookup(engine, key, plugin) {
            Lookup::Hit(component) => Some(component),
            Lookup::Miss | Lookup::Discarded => None,
        }
    }

    fn lookup(&self, engine: &Engine, key: &Sha256Digest, plugin: &str) -> Lookup {
        let path = self.entry_path(key);
        let file = match std::fs::File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Lookup::Miss,
            Err(e) => {
                tracing::warn!(
                    plugin,
                    "{}: cannot read the cache entry: {e}",
                    path.display()
                );
                return Lookup::Miss;
            }
        };
        let problem = match load_checked(engine, file, key) {
            Ok(component) => return Lookup::Hit(component),
            Err(problem) => problem,
        };
        tracing::warn!(
            plugin,
            "{}: discarding the compile cache entry ({problem}); recompiling",
            path.display()
        );
        if let Err(e) = std::fs::remove_file(&path) {
            tracing::warn!(
                plugin,
                "{}: cannot delete the cache entry: {e}",
                path.display()
            );
        }
        Lookup::Discarded
    }

    /// Deletes the entry `key`, if there is one (quick code that optimized
    /// code now replaces). A failure is logged.
    pub fn remove(&self, key: &Sha256Digest, plugin: &str) {
        let path = self.entry_path(key);
        if let Err(e) = std::fs::remove_file(&path)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(
                plugin,
                "{}: cannot delete the cache entry: {e}",
                path.display()
            );
        }
    }

    /// Stores `component` under `key`: written to a temporary file in the
    /// directory and renamed into place. A failure is logged; the plugin
    /// still runs.
    #[tracing::instrument(skip(self, component))]
    pub(crate) fn put(&self, key: &Sha256Digest, component: &Component, plugin: &str) {
        let payload = match component.serialize() {
            Ok(payload) => payload,
            Err(e) => {
                tracing::warn!(plugin, "cannot serialize the compiled component: {e:#}");
                return;
            }
        };
        let path = self.entry_path(key);
        if let Err(e) = entry::write_atomically(ENTRY, &path, &key.0, &payload) {
            tracing::warn!(
                plugin,
                "{}: cannot write the cache entry: {e}",
                path.display()
            );
        }
    }
}

/// Makes sure `dir` is a directory only this user may write into: creates
/// it (mode 0700) if needed, and refuses an existing one that belongs to
/// another user or that others may write into.
pub(super) fn private_dir(dir: &Path) -> Result<(), CacheError> {
    let io = |source| CacheError::Io {
        path: dir.to_owned(),
        source,
    };
    if !dir.exists() {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir).map_err(io)?;
    }
    let meta = std::fs::metadata(dir).map_err(io)?;
    if !meta.is_dir() {
        return Err(CacheError::NotADirectory {
            path: dir.to_owned(),
        });
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let me = rustix::process::geteuid().as_raw();
        if meta.uid() != me {
            return Err(CacheError::NotOwned {
                path: dir.to_owned(),
                owner: meta.uid(),
                me,
            });
        }
        if meta.mode() & 0o022 != 0 {
            return Err(CacheError::Writable {
                path: dir.to_owned(),
                mode: meta.mode() & 0o7777,
            });
        }
    }
    Ok(())
}

/// The component in the entry `file`, if the entry checks out: mapped,
/// checked in the mapping, and handed to wasmtime as the same open file.
#[cfg(target_os = "linux")]
fn load_checked(
    engine: &Engine,
    file: std::fs::File,
    key: &Sha256Digest,
) -> Result<Component, EntryProblem> {
    let mapped = Mapped::of(&file)?;
    verify(mapped.bytes(), key)?;
    drop(mapped);
    deserialize_file(engine, Checked(file)).map_err(EntryProblem::Refused)
}

/// The component in the entry `file`, if the entry checks out: read whole,
/// checked, and copied by wasmtime.
#[cfg(not(target_os = "linux"))]
fn load_checked(
    engine: &Engine,
    mut file: std::fs::File,
    key: &Sha256Digest,
) -> Result<Component, EntryProblem> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(EntryProblem::Read)?;
    let payload = verify(&bytes, key)?;
    deserialize(engine, payload).map_err(EntryProblem::Refused)
}

/// A read-only mapping of a whole file.
#[cfg(target_os = "linux")]
struct Mapped {
    ptr: std::ptr::NonNull<u8>,
    len: usize,
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
impl Mapped {
    fn of(file: &std::fs::File) -> Result<Self, EntryProblem> {
        let len = file.metadata().map_err(EntryProblem::Read)?.len();
        let len = usize::try_from(len).map_err(|_| EntryProblem::TooLarge)?;
        if len < entry::HEADER_LEN {
            return Err(entry::EntryError::Truncated(len).into());
        }
        // SAFETY: a new shared, read-only mapping of `len` bytes of an open
        // file, at an address the kernel picks: it aliases no Rust object.
        let ptr = unsafe {
            rustix::mm::mmap(
                std::ptr::null_mut(),
                len,
                rustix::mm::ProtFlags::READ,
                rustix::mm::MapFlags::SHARED,
                file,
                0,
            )
        }
        .map_err(EntryProblem::Map)?;
        let ptr = std::ptr::NonNull::new(ptr.cast()).ok_or(EntryProblem::Null)?;
        Ok(Mapped { ptr, len })
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` is a live mapping of `len` readable bytes until
        // `drop`, and the returned slice borrows `self`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
impl Drop for Mapped {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `of`, unmapped once; no slice of it
        // outlives `self`.
        let _ = unsafe { rustix::mm::munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}

/// An open entry whose stamp checked out in a mapping of it: the only input
/// [`deserialize_file`] accepts.
#[cfg(target_os = "linux")]
struct Checked(std::fs::File);

/// Maps the checked entry's open file into a component, without copying.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn deserialize_file(engine: &Engine, checked: Checked) -> wasmtime::Result<Component> {
    use std::os::fd::AsRawFd as _;
    // wasmtime opens a path; `/proc/self/fd/N` opens the very file this
    // process holds open (the inode checked), whatever has been renamed
    // over the entry's name since.
    let path = format!("/proc/self/fd/{}", checked.0.as_raw_fd());
    // SAFETY: as for `deserialize` below: the file is an entry of a
    // directory only this user may write to, written by `put` from
    // `Component::serialize` and only ever replaced by rename (which makes
    // a new file: the one held open is unchanged); its stamp was checked
    // against this key (which covers the engine's compatibility hash and
    // the wasmtime version) over the whole contents of this same open file,
    // and wasmtime maps that file privately, ignoring the stamp after the
    // ELF image. Only a process of this user writing into the file in
    // place, which nothing here does, could change it after the check; such
    // a process could equally change this process's memory.
    let component = unsafe { Component::deserialize_file(engine, path) };
    drop(checked);
    component
}

/// Checks an entry read whole (see [`entry::verify`]).
fn verify<'a>(entry: &'a [u8], key: &Sha256Digest) -> Result<Verified<'a>, entry::EntryError> {
    entry::verify(ENTRY, entry, &key.0).map(Verified)
}

/// Turns checked bytes back into a component.
#[cfg_attr(target_os = "linux", allow(dead_code))]
#[allow(unsafe_code)]
fn deserialize(engine: &Engine, verified: Verified<'_>) -> wasmtime::Result<Component> {
    // SAFETY: `Component::deserialize` requires bytes produced by
    // `Component::serialize` of a compatible engine, unmodified since. Here:
    // - the bytes come from an entry in a directory `CompileCache::open`
    //   checked belongs to this user and is writable by no one else, and
    //   every entry is written by `CompileCache::put` from
    //   `Component::serialize`;
    // - `Verified` is only made by `verify`, which checked that the entry
    //   is the one for this key (the key covers the engine's compatibility
    //   hash and the wasmtime version) and that the payload's BLAKE3 digest matches
    //   the one written with it, so a corrupt, truncated or swapped entry is
    //   refused before this point;
    // - the bytes were read into memory once and checked there, and wasmtime
    //   copies them; nothing can change them between the check and the use;
    // - wasmtime itself also checks the version and engine configuration
    //   recorded in the artifact and fails (we then discard the entry) when
    //   they do not match.
    unsafe { Component::deserialize(engine, verified.0) }
}

/// Feeds whatever is hashed into a SHA-256, so `Hash` implementations (the
/// engine's compatibility hash) give a stable, collision-resistant digest.
struct ShaHasher(Sha256);

impl Hasher for ShaHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// Unused: the digest is read from the inner SHA-256.
    fn finish(&self) -> u64 {
        0
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn digests_round_trip_through_hex() {
        let d = Sha256Digest::of(b"abc");
        assert_eq!(
            d.to_string(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(Sha256Digest::from_hex(&d.to_string().to_uppercase()), Ok(d));
        assert!(Sha256Digest::from_hex("abc").is_err());
    }

    #[test]
    fn verify_refuses_damaged_entries() {
        let key = Sha256Digest::of(b"key");
        let payload = b"payload bytes".to_vec();
        // The serialized component first, its stamp last.
        let mut entry = payload.clone();
        entry.extend_from_slice(&entry::header(ENTRY, &key.0, &payload));
        assert_eq!(verify(&entry, &key).unwrap().0, &payload[..]);
        assert!(verify(&entry, &Sha256Digest::of(b"other")).is_err());
        assert!(verify(&entry[..entry.len() - 1], &key).is_err());
        assert!(verify(&entry[..10], &key).is_err());
        let mut flipped = entry.clone();
        flipped[0] ^= 0xff;
        assert!(
            verify(&flipped, &key)
                .unwrap_err()
                .to_string()
                .contains("checksum")
        );
        // A stamp first (the layout of format 2) is refused.
        let mut old = entry::header(ENTRY, &key.0, &payload);
        old.extend_from_slice(&payload);
        assert!(verify(&old, &key).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn open_creates_a_private_directory_and_refuses_shared_ones() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a/b");
        CompileCache::open(&dir).unwrap();
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = CompileCache::open(&dir).unwrap_err();
        assert!(matches!(e, CacheError::Writable { .. }), "{e}");
    }
}
