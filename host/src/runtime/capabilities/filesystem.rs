//! Filesystem access: directories mounted into the guest, read-only unless
//! the policy says `write = true`. Nothing else of the host's filesystem is
//! reachable; wasmtime-wasi resolves every guest path inside a mount with
//! cap-std, which refuses `..`, absolute paths and symlinks that lead out.

use std::path::PathBuf;

use wasmtime_wasi::{FsPerms, WasiCtxBuilder};

/// One host directory made visible to the guest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    /// The host directory, canonicalized.
    pub host: PathBuf,
    /// Where the guest sees it, e.g. `/data`.
    pub guest: String,
    /// The guest may create, write and delete files in it.
    pub write: bool,
}

/// The filesystem section of a plugin's policy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FilesystemPolicy {
    /// The mounts, in order.
    pub mounts: Vec<Mount>,
}

/// A mount that could not be opened.
#[derive(Debug, thiserror::Error)]
#[error("cannot open mount {} (guest path {guest}): {source}", host.display())]
pub struct MountError {
    /// The host directory.
    pub host: PathBuf,
    /// The guest path.
    pub guest: String,
    /// Why.
    pub source: wasmtime::Error,
}

impl FilesystemPolicy {
    /// Opens the mounts in a call's WASI context.
    pub fn apply(&self, wasi: &mut WasiCtxBuilder) -> Result<(), MountError> {
        for m in &self.mounts {
            let perms = if m.write {
                FsPerms::ReadWrite
            } else {
                FsPerms::ReadOnly
            };
            wasi.preopened_dir(&m.host, &m.guest, perms)
                .map_err(|source| MountError {
                    host: m.host.clone(),
                    guest: m.guest.clone(),
                    source,
                })?;
        }
        Ok(())
    }

    /// Tells a denied guest's user how access is granted.
    pub fn hint(&self, section: &str) -> String {
        let granted = if self.mounts.is_empty() {
            "no directories".to_string()
        } else {
            self.mounts
                .iter()
                .map(|m| {
                    format!(
                        "{} ({})",
                        m.guest,
                        if m.write { "read-write" } else { "read-only" }
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "the sandbox grants {granted}; to grant a directory add `[[{section}.mounts]]` with `host = \"/host/dir\"`, `guest = \"/guest/dir\"` and `write = true` for writing"
        )
    }
}
