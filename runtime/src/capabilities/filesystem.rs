//! Filesystem access: directories mounted into the guest, read-only unless
//! the policy says `write = true`. Nothing else of the host's filesystem is
//! reachable; wasmtime-wasi resolves every guest path inside a mount with
//! cap-std, which refuses `..`, absolute paths and symlinks that lead out.

use std::path::PathBuf;

use serde::Deserialize;
use serde::de::MapAccess;
use serde_json::{Value, json};
use wasmtime_wasi::{FsPerms, WasiCtxBuilder};

use super::{
    CallCtx, Capability, CapabilityError, KeyProblem, Others, Redaction, Report, ResolveCtx, Scope,
    granted_per_plugin,
};
use crate::load::imports::ImportKind;

/// One `[[plugins.NAME.mounts]]` entry as written: `host` is relative to the
/// policy file's directory until resolved.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MountSpec {
    host: PathBuf,
    guest: String,
    #[serde(default)]
    write: bool,
}

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
    /// The mounts, as `inspect` and hints show them: `/data (read-only)`.
    fn granted(&self) -> String {
        if self.mounts.is_empty() {
            return "no directories".to_string();
        }
        self.mounts
            .iter()
            .map(|m| format!("{} ({})", m.guest, access(m.write)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn access(write: bool) -> &'static str {
    if write { "read-write" } else { "read-only" }
}

impl Capability for FilesystemPolicy {
    const NAME: &'static str = "filesystem";
    const KEYS: &'static [&'static str] = &["mounts"];
    type Spec = Vec<MountSpec>;
    type State = ();

    fn parse_key<'de, A: MapAccess<'de>>(
        spec: &mut Self::Spec,
        _key: &str,
        map: &mut A,
    ) -> Result<(), A::Error> {
        *spec = map.next_value()?;
        Ok(())
    }

    fn check(spec: &Self::Spec, scope: Scope) -> Result<(), KeyProblem> {
        granted_per_plugin::<Self>(spec, scope)?;
        match spec.iter().position(|m| !m.guest.starts_with('/')) {
            Some(i) => Err(KeyProblem::new(
                format!("mounts[{i}].guest"),
                format!(
                    "the guest path {:?} must be absolute (start with /)",
                    spec[i].guest
                ),
            )),
            None => Ok(()),
        }
    }

    /// Canonicalizes each host directory; a missing one is an error.
    fn resolve(
        _defaults: &Self::Spec,
        spec: Option<&Self::Spec>,
        ctx: &ResolveCtx<'_>,
        _others: &Others<'_>,
    ) -> Result<Self, KeyProblem> {
        let mut mounts = Vec::new();
        for (i, m) in spec.into_iter().flatten().enumerate() {
            let key = || format!("mounts[{i}].host");
            let joined = ctx.base.join(&m.host);
            let host = joined.canonicalize().map_err(|e| {
                KeyProblem::new(
                    key(),
                    format!(
                        "{} does not exist or cannot be opened: {e}",
                        joined.display()
                    ),
                )
            })?;
            if !host.is_dir() {
                return Err(KeyProblem::new(
                    key(),
                    format!("{} is not a directory", host.display()),
                ));
            }
            mounts.push(Mount {
                host,
                guest: m.guest.clone(),
                write: m.write,
            });
        }
        Ok(FilesystemPolicy { mounts })
    }

    fn state(&self, _call: &CallCtx<'_>) {}

    /// Opens the mounts in the instance's WASI context.
    fn configure(&self, wasi: &mut WasiCtxBuilder) -> Result<(), CapabilityError> {
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
}

/// Mounted paths are the guest's to see: nothing to redact.
impl Redaction for FilesystemPolicy {}

impl Report for FilesystemPolicy {
    fn denied_hint(&self, section: &str) -> Option<String> {
        Some(format!(
            "the sandbox grants {}; to grant a directory add `[[{section}.mounts]]` with `host = \"/host/dir\"`, `guest = \"/guest/dir\"` and `write = true` for writing",
            self.granted()
        ))
    }

    fn inspect_json(&self) -> Vec<(&'static str, Value)> {
        let FilesystemPolicy { mounts } = self;
        let mounts = mounts.iter().map(|m| {
            // Every field, so that a new one cannot be left out unnoticed.
            let Mount { host, guest, write } = m;
            json!({
                "guest": guest,
                "host": host.display().to_string(),
                "write": write,
            })
        });
        vec![("mounts", mounts.collect())]
    }

    fn inspect_lines(&self) -> Vec<(&'static str, String)> {
        let FilesystemPolicy { mounts } = self;
        if mounts.is_empty() {
            return vec![("mounts", "none".to_string())];
        }
        mounts
            .iter()
            .enumerate()
            .map(|(n, m)| {
                let Mount { host, guest, write } = m;
                (
                    if n == 0 { "mounts" } else { "" },
                    format!("{guest} -> {} ({})", host.display(), access(*write)),
                )
            })
            .collect()
    }

    fn import_note(policy: Option<&Self>, kind: ImportKind) -> Option<String> {
        if kind != ImportKind::Filesystem {
            return None;
        }
        let granted = match policy.map(|p| &p.mounts) {
            Some(m) if !m.is_empty() => format!(
                "this policy mounts {}",
                m.iter()
                    .map(|m| m.guest.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Some(_) => "this policy mounts nothing".to_string(),
            None => "no policy".to_string(),
        };
        Some(format!(
            "requests filesystem access — granted only through mounts ({granted})"
        ))
    }
}
