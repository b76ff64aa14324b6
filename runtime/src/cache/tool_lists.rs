//! The tool-list cache: each plugin's tool list as it was last loaded, kept
//! beside the compile cache, so that a server lists a plugin's tools while
//! the plugin is still compiling.
//!
//! An entry is keyed by the plugin file's BLAKE3 digest and a fingerprint
//! of what in its effective policy can change its list (its limits and its
//! grants, as their debug text, which never holds a secret's value; and this
//! host's version). A plugin whose grants rewrite what leaves it (secrets,
//! which are redacted from its list) is never cached: its list depends on
//! the secrets' values, which no entry may record in any form.
//!
//! Entries live in the compile cache's directory (whose owner and mode
//! [`crate::cache::CompileCache::open`] checked), as `KEY.tools`: a header
//! with its key and the BLAKE3 digest of its JSON payload (the layout
//! `entry` gives both caches), written to a temporary file and renamed
//! into place. A corrupt, truncated or swapped
//! entry is logged, deleted and ignored. A list served from here is only
//! ever a preview: once the plugin has loaded, its own list replaces it
//! (with `list_changed` if they differ).

use std::path::{Path, PathBuf};

use crate::cache::entry::{self, Format, Stamp};
use crate::cache::{Sha256Digest, WASMTIME_VERSION};
use crate::definitions::output::ToolInfo;
use crate::load::plugin::Plugin;
use crate::policy::Policy;

/// The entries' layout (see `entry`): the stamp first.
const FORMAT: Format = Format {
    magic: b"MWHTOOLS",
    version: 1,
    stamp: Stamp::First,
};

/// A directory of cached tool lists.
#[derive(Debug, Clone)]
pub(crate) struct ToolLists {
    dir: PathBuf,
}

/// What an entry records: the plugin's tools as its plugin lists them
/// (under their own names, before the catalog's naming rule).
pub(crate) type Listed = Vec<ToolInfo>;

/// The list an entry records for `plugin`, just loaded.
pub(crate) fn of(plugin: &Plugin) -> Listed {
    (0..plugin.tools.len())
        .map(|i| plugin.tool_info(i, plugin.tools[i].name.clone()))
        .collect()
}

impl ToolLists {
    /// The cache in `dir`: the compile cache's directory, already checked.
    pub(crate) fn new(dir: &Path) -> Self {
        ToolLists {
            dir: dir.to_owned(),
        }
    }

    /// The key of the list of the plugin file whose bytes hash to `file`,
    /// loaded under `policy`; `None` when its list must not be cached.
    pub(crate) fn key(file: &blake3::Hash, policy: &Policy) -> Option<Sha256Digest> {
        if policy.grants.rewrites_outbound() {
            return None;
        }
        let mut hasher = blake3::Hasher::new();
        hasher.update(b"mcp-wasm-host tool list\0");
        hasher.update(&FORMAT.version.to_le_bytes());
        for part in [
            env!("CARGO_PKG_VERSION"),
            WASMTIME_VERSION,
            &format!("{:?}", policy.limits),
            &format!("{:?}", policy.grants),
        ] {
            hasher.update(&(part.len() as u64).to_le_bytes());
            hasher.update(part.as_bytes());
        }
        hasher.update(file.as_bytes());
        Some(Sha256Digest(*hasher.finalize().as_bytes()))
    }

    /// The directory (the compile cache's).
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    fn entry_path(&self, key: &Sha256Digest) -> PathBuf {
        self.dir.join(format!("{key}.tools"))
    }

    /// The list stored under `key`, if there is a valid one. An entry that
    /// fails its checks is logged as a warning and deleted.
    pub(crate) fn get(&self, key: &Sha256Digest, plugin: &str) -> Option<Listed> {
        let path = self.entry_path(key);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => {
                tracing::warn!(plugin, "{}: cannot read the tool list: {e}", path.display());
                return None;
            }
        };
        let problem = match entry::verify(FORMAT, &bytes, &key.0) {
            Ok(payload) => match serde_json::from_slice::<Listed>(payload) {
                Ok(list) => return Some(list),
                Err(e) => format!("unreadable: {e}"),
            },
            Err(problem) => problem.to_string(),
        };
        tracing::warn!(
            plugin,
            "{}: discarding the cached tool list ({problem})",
            path.display()
        );
        if let Err(e) = std::fs::remove_file(&path) {
            tracing::warn!(plugin, "{}: cannot delete it: {e}", path.display());
        }
        None
    }

    /// Stores `list` under `key`, atomically. A failure is logged; the
    /// plugin is served all the same.
    pub(crate) fn put(&self, key: &Sha256Digest, list: &Listed, plugin: &str) {
        let path = self.entry_path(key);
        let written = serde_json::to_vec(list)
            .map_err(std::io::Error::other)
            .and_then(|payload| entry::write_atomically(FORMAT, &path, &key.0, &payload));
        if let Err(e) = written {
            tracing::warn!(
                plugin,
                "{}: cannot write the tool list: {e}",
                path.display()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::definitions::output::{TaskSupport, ToolHints};

    fn list() -> Listed {
        let mut schema = serde_json::Map::new();
        schema.insert("type".into(), "object".into());
        vec![ToolInfo {
            name: "count".into(),
            plugin: "p".into(),
            title: Some("Count".into()),
            description: "Counts.".into(),
            input_schema: schema,
            output_schema: None,
            hints: ToolHints::default(),
            icons: Vec::new(),
            task_support: TaskSupport::Optional,
            view: None,
        }]
    }

    #[test]
    fn a_list_round_trips_and_a_damaged_or_swapped_entry_is_discarded() {
        let tmp = tempfile::tempdir().unwrap();
        let lists = ToolLists::new(tmp.path());
        let policy = Policy::default();
        let key = ToolLists::key(&blake3::hash(b"file"), &policy).unwrap();
        let other = ToolLists::key(&blake3::hash(b"other file"), &policy).unwrap();
        assert_ne!(key, other);
        assert_eq!(lists.get(&key, "p"), None);
        lists.put(&key, &list(), "p");
        assert_eq!(lists.get(&key, "p"), Some(list()));
        // Another key's entry under this key's name: refused and deleted.
        lists.put(&other, &list(), "p");
        std::fs::rename(lists.entry_path(&other), lists.entry_path(&key)).unwrap();
        assert_eq!(lists.get(&key, "p"), None);
        assert!(!lists.entry_path(&key).exists());
        // A flipped byte in the payload.
        lists.put(&key, &list(), "p");
        let mut bytes = std::fs::read(lists.entry_path(&key)).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(lists.entry_path(&key), &bytes).unwrap();
        assert_eq!(lists.get(&key, "p"), None);
        assert!(!lists.entry_path(&key).exists());
    }

    #[test]
    fn the_key_follows_the_limits_and_is_stable() {
        let file = blake3::hash(b"file");
        let policy = Policy::default();
        assert_eq!(
            ToolLists::key(&file, &policy),
            ToolLists::key(&file, &policy.clone())
        );
        let mut tighter = policy.clone();
        tighter.limits.max_tools = 1;
        assert_ne!(
            ToolLists::key(&file, &policy),
            ToolLists::key(&file, &tighter)
        );
    }
}
