//! `[server] store`: where the state store is (the plugins' buckets; issue
//! 46 puts tasks, limits and sessions there too). `"embedded"`, the
//! default, is one file under the state directory; `{ redis = "redis://…"
//! }` is a Valkey or Redis server that replicas share. A password comes
//! from a secret reference (`password_env` or `password_file`), never from
//! the policy file or the URL. `rediss://` is TLS: checked against the
//! webpki roots, or the certificates of `ca_file`; `client_cert_file` and
//! `client_key_file` for a server that authenticates its clients.

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
    ca_file: Option<PathBuf>,
    client_cert_file: Option<PathBuf>,
    client_key_file: Option<PathBuf>,
    timeout: Option<humantime_serde::Serde<Duration>>,
}

impl RedisSpec {
    /// The TLS keys that are set, by name.
    fn tls_keys(&self) -> impl Iterator<Item = &'static str> {
        [
            ("ca_file", self.ca_file.is_some()),
            ("client_cert_file", self.client_cert_file.is_some()),
            ("client_key_file", self.client_key_file.is_some()),
        ]
        .into_iter()
        .filter_map(|(key, set)| set.then_some(key))
    }
}

/// Reads `file` (relative to `base`) for the key `key`.
fn read(base: &Path, file: &Path, key: &str) -> Result<Vec<u8>, (String, String)> {
    let path = base.join(file);
    std::fs::read(&path).map_err(|e| {
        (
            format!("store.{key}"),
            format!("cannot read {}: {e}", path.display()),
        )
    })
}

/// Checks that `pem` holds at least one certificate, for the key `key`.
fn certificates(pem: Vec<u8>, key: &str) -> Result<Vec<u8>, (String, String)> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    let mut count = 0;
    for certificate in CertificateDer::pem_slice_iter(&pem) {
        certificate.map_err(|e| (format!("store.{key}"), format!("not PEM certificates: {e}")))?;
        count += 1;
    }
    if count == 0 {
        return Err((
            format!("store.{key}"),
            "holds no PEM certificate (-----BEGIN CERTIFICATE-----)".into(),
        ));
    }
    Ok(pem)
}

/// Checks that `pem` holds a private key, for `store.client_key_file`,
/// without saying anything of it.
fn private_key(pem: Vec<u8>) -> Result<Vec<u8>, (String, String)> {
    use rustls::pki_types::PrivateKeyDer;
    use rustls::pki_types::pem::PemObject;
    match PrivateKeyDer::from_pem_slice(&pem) {
        Ok(_) => Ok(pem),
        Err(_) => Err((
            "store.client_key_file".into(),
            "holds no PEM private key (PKCS#8, PKCS#1 or SEC1)".into(),
        )),
    }
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
                let config = RedisConfig::from_url(&spec.redis)
                    .map_err(|e| ("store.redis".to_string(), e.to_string()))?;
                if let Some(key) = spec.tls_keys().next()
                    && !config.is_tls()
                {
                    return Err((
                        format!("store.{key}"),
                        "TLS settings need a rediss:// store URL".into(),
                    ));
                }
                if spec.client_cert_file.is_some() != spec.client_key_file.is_some() {
                    return Err((
                        "store".into(),
                        "set both `client_cert_file` and `client_key_file`, or neither".into(),
                    ));
                }
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
        let tls = |e: mcp_wasm_host_runtime::store::ConfigError| {
            ("store.redis".to_string(), e.to_string())
        };
        if let Some(file) = &spec.ca_file {
            let roots = certificates(read(base, file, "ca_file")?, "ca_file")?;
            config = config.trust(roots).map_err(tls)?;
        }
        if let (Some(cert), Some(key)) = (&spec.client_cert_file, &spec.client_key_file) {
            let chain = certificates(read(base, cert, "client_cert_file")?, "client_cert_file")?;
            let key = private_key(read(base, key, "client_key_file")?)?;
            config = config.identity(chain, key).map_err(tls)?;
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
    fn tls_settings_need_rediss_and_readable_pem() {
        let (key, problem) = spec(r#"store = { redis = "redis://h", ca_file = "ca.pem" }"#)
            .check()
            .unwrap_err();
        assert_eq!(
            (key.as_str(), problem.contains("rediss://")),
            ("store.ca_file", true)
        );
        let (key, _) = spec(r#"store = { redis = "rediss://h", client_key_file = "k.pem" }"#)
            .check()
            .unwrap_err();
        assert_eq!(key, "store");
        assert!(
            spec(r#"store = { redis = "rediss://h:6380" }"#)
                .check()
                .is_ok()
        );

        let dir = tempfile::tempdir().unwrap();
        let ca = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        std::fs::write(dir.path().join("ca.pem"), ca.cert.pem()).unwrap();
        std::fs::write(dir.path().join("key.pem"), ca.signing_key.serialize_pem()).unwrap();
        std::fs::write(dir.path().join("junk.pem"), "hunter2").unwrap();
        let all = spec(
            r#"store = { redis = "rediss://h", ca_file = "ca.pem", client_cert_file = "ca.pem", client_key_file = "key.pem" }"#,
        );
        assert!(all.check().is_ok());
        let StoreChoice::Redis(config, _) = all.choice(dir.path()).unwrap() else {
            panic!("a redis store");
        };
        assert!(!format!("{config:?}").contains("PRIVATE KEY"), "{config:?}");
        for (text, key) in [
            (r#"ca_file = "junk.pem""#, "store.ca_file"),
            (r#"ca_file = "missing.pem""#, "store.ca_file"),
            (
                r#"client_cert_file = "ca.pem", client_key_file = "junk.pem""#,
                "store.client_key_file",
            ),
        ] {
            let s = spec(&format!(r#"store = {{ redis = "rediss://h", {text} }}"#));
            let (got, problem) = s.choice(dir.path()).unwrap_err();
            assert_eq!(got, key, "{text}: {problem}");
            assert!(!problem.contains("hunter2"), "{problem}");
        }
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
