//! `[server] store`: where the state store is (the plugins' buckets; issue
//! 46 puts tasks, limits and sessions there too). `"embedded"`, the
//! default, is one file under the state directory; `{ redis = "redis://…"
//! }` is a Valkey or Redis server that replicas share. A password comes
//! from a secret reference (`password_env` or `password_file`), never from
//! the policy file or the URL.

use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_wasm_host_runtime::store::{Password, RedisConfig};
use serde::Deserialize;

/// `[server] store` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(super) enum StoreSpec {
    /// `"embedded"`.
    Named(String),
    /// `{ redis = "redis://host:port/db", … }`.
    Redis(RedisSpec),
}

/// `[server] store = { redis = … }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RedisSpec {
    redis: String,
    username: Option<String>,
    password_env: Option<String>,
    password_file: Option<PathBuf>,
    timeout: Option<humantime_serde::Serde<Duration>>,
}

/// Where the state store is.
#[derive(Debug, Clone)]
pub enum StoreChoice {
    /// The embedded file under the state directory.
    Embedded,
    /// A Valkey/Redis server, and how long one operation may take (none:
    /// the store's default).
    Redis(RedisConfig, Option<Duration>),
}

impl StoreSpec {
    /// Refuses a value the server could not use, naming its key below
    /// `server.store`.
    pub(super) fn check(&self) -> Result<(), (String, String)> {
        match self {
            StoreSpec::Named(name) if name == "embedded" => Ok(()),
            StoreSpec::Named(name) => Err((
                "store".into(),
                format!(
                    "{name:?} is no store: write \"embedded\" (the default) or {{ redis = \"redis://host:6379/0\" }}"
                ),
            )),
            StoreSpec::Redis(spec) => {
                RedisConfig::from_url(&spec.redis)
                    .map_err(|e| ("store.redis".to_string(), e.to_string()))?;
                if spec.password_env.is_some() && spec.password_file.is_some() {
                    return Err((
                        "store".into(),
                        "set one of `password_env` and `password_file`, not both".into(),
                    ));
                }
                if spec.timeout.is_some_and(|t| t.is_zero()) {
                    return Err(("store.timeout".into(), "must be longer than zero".into()));
                }
                Ok(())
            }
        }
    }

    /// The store, with its password read from where the spec points
    /// (`base`: the policy file's directory), or the key whose value
    /// cannot be used and why.
    pub(super) fn choice(&self, base: &Path) -> Result<StoreChoice, (String, String)> {
        let StoreSpec::Redis(spec) = self else {
            return Ok(StoreChoice::Embedded);
        };
        let mut config = RedisConfig::from_url(&spec.redis)
            .map_err(|e| ("store.redis".to_string(), e.to_string()))?;
        if let Some(user) = &spec.username {
            config = config.username(user.clone());
        }
        if let Some(var) = &spec.password_env {
            let password = std::env::var(var).map_err(|_| {
                (
                    "store.password_env".to_string(),
                    format!("the variable {var} is not set"),
                )
            })?;
            config = config.password(Password::new(password));
        }
        if let Some(file) = &spec.password_file {
            let path = base.join(file);
            let password = std::fs::read_to_string(&path).map_err(|e| {
                (
                    "store.password_file".to_string(),
                    format!("cannot read {}: {e}", path.display()),
                )
            })?;
            config = config.password(Password::new(password.trim_end_matches(['\n', '\r'])));
        }
        Ok(StoreChoice::Redis(config, spec.timeout.map(|t| *t)))
    }
}

/// The default state directory: `$MCP_WASM_HOST_STATE_DIR` is read by the
/// flag; this is `$XDG_STATE_HOME/mcp-wasm-host`, else
/// `~/.local/state/mcp-wasm-host` (`%LOCALAPPDATA%\mcp-wasm-host\state` on
/// Windows).
pub fn default_state_dir() -> Option<PathBuf> {
    let absolute = |var: &str| {
        std::env::var_os(var)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    if cfg!(windows) {
        return absolute("LOCALAPPDATA").map(|p| p.join("mcp-wasm-host").join("state"));
    }
    absolute("XDG_STATE_HOME")
        .or_else(|| absolute("HOME").map(|home| home.join(".local").join("state")))
        .map(|base| base.join("mcp-wasm-host"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(toml_text: &str) -> StoreSpec {
        #[derive(Deserialize)]
        struct Server {
            store: StoreSpec,
        }
        toml::from_str::<Server>(toml_text).unwrap().store
    }

    #[test]
    fn a_store_is_embedded_or_a_redis_url_without_a_password() {
        assert!(spec(r#"store = "embedded""#).check().is_ok());
        let (key, problem) = spec(r#"store = "sqlite""#).check().unwrap_err();
        assert_eq!(key, "store");
        assert!(problem.contains("\"embedded\""), "{problem}");
        let (key, problem) = spec(r#"store = { redis = "redis://:hunter2@h:6379" }"#)
            .check()
            .unwrap_err();
        assert_eq!(key, "store.redis");
        assert!(
            !problem.contains("hunter2") && problem.contains("secret"),
            "{problem}"
        );
        assert!(
            spec(r#"store = { redis = "redis://h:6379/2", timeout = "2s" }"#)
                .check()
                .is_ok()
        );
        let (key, _) =
            spec(r#"store = { redis = "redis://h", password_env = "A", password_file = "b" }"#)
                .check()
                .unwrap_err();
        assert_eq!(key, "store");
    }

    #[test]
    fn a_password_comes_from_its_reference() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("pw"), "s3cret\n").unwrap();
        let s = spec(r#"store = { redis = "redis://h:1/0", password_file = "pw" }"#);
        let StoreChoice::Redis(config, None) = s.choice(dir.path()).unwrap() else {
            panic!("a redis store");
        };
        assert!(!format!("{config:?}").contains("s3cret"));
        let s = spec(
            r#"store = { redis = "redis://h:1/0", password_env = "MCP_WASM_HOST_NO_SUCH_VAR" }"#,
        );
        let (key, problem) = s.choice(dir.path()).unwrap_err();
        assert_eq!(key, "store.password_env");
        assert!(problem.contains("MCP_WASM_HOST_NO_SUCH_VAR"));
    }
}
