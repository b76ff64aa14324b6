//! Plugin names claimed by something other than the plugins directory
//! (the policy file's `source` keys, for one): a file whose plugin would
//! take a claimed name loads only from a path the claim lists, so a file
//! in the directory can never silently stand in for a claimed plugin, nor
//! the other way round. Files under the managed directory (where claimed
//! plugins are kept) are served only while a claim lists them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The claimed names.
#[derive(Debug, Clone, Default)]
pub struct NameClaims {
    managed: Option<PathBuf>,
    names: BTreeMap<String, Claim>,
}

/// One claim.
#[derive(Debug, Clone)]
struct Claim {
    owner: String,
    paths: BTreeSet<PathBuf>,
}

impl NameClaims {
    /// No claims yet; files under `managed` are served only while claimed.
    pub fn new(managed: Option<PathBuf>) -> Self {
        NameClaims {
            managed,
            names: BTreeMap::new(),
        }
    }

    /// Claims `name` for `owner` (in messages, e.g. a policy key), to be
    /// loaded only from `paths`.
    pub fn claim(&mut self, name: &str, owner: String, paths: BTreeSet<PathBuf>) {
        self.names.insert(name.to_string(), Claim { owner, paths });
    }

    /// Why the file at `path` may not be loaded as the plugin `name`.
    pub fn refusal(&self, name: &str, path: &Path) -> Option<String> {
        let claim = self.names.get(name)?;
        (!claim.paths.contains(path)).then(|| {
            format!(
                "the plugin name {name:?} is taken by {}; rename the file or the policy section",
                claim.owner
            )
        })
    }

    /// Whether `name` is claimed.
    pub fn is_claimed(&self, name: &str) -> bool {
        self.names.contains_key(name)
    }

    /// Whether a plugin `name` loaded from `path` may keep serving.
    pub fn keeps(&self, name: &str, path: &Path) -> bool {
        match self.names.get(name) {
            Some(claim) => claim.paths.contains(path),
            None => !self.managed.as_ref().is_some_and(|m| path.starts_with(m)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claimed_name_loads_only_from_its_paths() {
        let mut claims = NameClaims::new(Some(PathBuf::from("/cache/sources/plugins")));
        let served = PathBuf::from("/cache/sources/plugins/ab/echo.wasm");
        claims.claim(
            "echo",
            "`plugins.echo.source`".into(),
            BTreeSet::from([served.clone()]),
        );
        assert_eq!(claims.refusal("echo", &served), None);
        let e = claims
            .refusal("echo", Path::new("plugins/echo.wasm"))
            .unwrap();
        assert!(
            e.contains("`plugins.echo.source`") && e.contains("\"echo\""),
            "{e}"
        );
        assert_eq!(
            claims.refusal("other", Path::new("plugins/other.wasm")),
            None
        );
        assert!(claims.keeps("echo", &served));
        assert!(!claims.keeps("echo", Path::new("plugins/echo.wasm")));
        assert!(claims.keeps("other", Path::new("plugins/other.wasm")));
        assert!(!claims.keeps("gone", Path::new("/cache/sources/plugins/cd/gone.wasm")));
    }
}
