//! Where a Valkey/Redis store is and how to log in: an address from a
//! `redis://` URL (which may not hold a password), a password handed over
//! separately, which nothing prints, and for `rediss://` the certificates
//! of TLS: whom to trust and, for a server that asks, the client's own.

use std::fmt;
use std::time::Duration;

/// A password for the server. It has no `Display`, and its `Debug` shows
/// nothing of it.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

impl Password {
    /// Wraps a password (from a secret reference, say).
    pub fn new(password: impl Into<String>) -> Password {
        Password(password.into())
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(..)")
    }
}

/// A `redis://` URL the store cannot use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// Not a URL.
    #[error("the store URL does not parse: {0}")]
    Malformed(String),
    /// A scheme other than `redis://`, `rediss://` or Valkey's.
    #[error(
        "the store URL's scheme is {0:?}: use redis://, or rediss:// for TLS (valkey:// and valkeys:// too)"
    )]
    Scheme(String),
    /// A TLS setting for a URL that is not `rediss://`.
    #[error("TLS settings need a rediss:// (or valkeys://) store URL")]
    NotTls,
    /// A password written into the URL.
    #[error(
        "the store URL holds a password: give it as a secret reference instead, so it stays out of the configuration"
    )]
    PasswordInUrl,
    /// A path that is not a database number.
    #[error("the store URL's path {0:?} is not a database number")]
    Database(String),
}

/// The TLS of a `rediss://` store: the certificates (PEM) to trust instead
/// of the webpki roots, and the client's certificate and key for a server
/// that authenticates its clients. The key has no `Display`, and its
/// `Debug` shows nothing of it.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Tls {
    pub(crate) roots: Option<Vec<u8>>,
    pub(crate) identity: Option<(Vec<u8>, Vec<u8>)>,
}

impl fmt::Debug for Tls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tls")
            .field("roots", &self.roots.as_ref().map(|_| ".."))
            .field("identity", &self.identity.as_ref().map(|_| ".."))
            .finish()
    }
}

/// How to reach a Valkey or Redis server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedisConfig {
    pub(crate) host: String,
    pub(crate) port: u16,
    pub(crate) db: i64,
    pub(crate) username: Option<String>,
    pub(crate) password: Option<Password>,
    pub(crate) tls: Option<Tls>,
    pub(crate) connect_timeout: Duration,
}

impl RedisConfig {
    /// The server at `host:port`, database 0, no login.
    pub fn new(host: impl Into<String>, port: u16) -> RedisConfig {
        RedisConfig {
            host: host.into(),
            port,
            db: 0,
            username: None,
            password: None,
            tls: None,
            connect_timeout: Duration::from_secs(2),
        }
    }

    /// Reads `redis://[user@]host[:port][/db]` (or `valkey://`; the port
    /// defaults to 6379), or `rediss://` (`valkeys://`) for TLS, checked
    /// against the webpki roots unless [`RedisConfig::trust`] says
    /// otherwise. A password in the URL is refused.
    pub fn from_url(url: &str) -> Result<RedisConfig, ConfigError> {
        let parsed = url::Url::parse(url).map_err(|e| ConfigError::Malformed(e.to_string()))?;
        let tls = match parsed.scheme() {
            "redis" | "valkey" => None,
            "rediss" | "valkeys" => Some(Tls::default()),
            scheme => return Err(ConfigError::Scheme(scheme.to_owned())),
        };
        if parsed.password().is_some() {
            return Err(ConfigError::PasswordInUrl);
        }
        let host = match parsed.host() {
            Some(url::Host::Ipv6(addr)) => addr.to_string(),
            Some(host) => host.to_string(),
            None => return Err(ConfigError::Malformed("no host".into())),
        };
        let mut config = RedisConfig::new(host, parsed.port().unwrap_or(6379));
        config.tls = tls;
        if !parsed.username().is_empty() {
            config.username = Some(parsed.username().to_owned());
        }
        let path = parsed.path().trim_start_matches('/');
        if !path.is_empty() {
            config.db = path
                .parse()
                .map_err(|_| ConfigError::Database(path.to_owned()))?;
        }
        Ok(config)
    }

    /// Logs in with this password (and the URL's user, if any).
    pub fn password(mut self, password: Password) -> RedisConfig {
        self.password = Some(password);
        self
    }

    /// Whether the connection is TLS (`rediss://`).
    pub fn is_tls(&self) -> bool {
        self.tls.is_some()
    }

    /// Trusts the certificates of this PEM text (a private CA's, say)
    /// instead of the webpki roots. Only for `rediss://`.
    pub fn trust(mut self, roots_pem: Vec<u8>) -> Result<RedisConfig, ConfigError> {
        self.tls.as_mut().ok_or(ConfigError::NotTls)?.roots = Some(roots_pem);
        Ok(self)
    }

    /// Shows this certificate chain and proves it with this key (both PEM)
    /// to a server that authenticates its clients. Only for `rediss://`.
    pub fn identity(
        mut self,
        certificate_pem: Vec<u8>,
        key_pem: Vec<u8>,
    ) -> Result<RedisConfig, ConfigError> {
        self.tls.as_mut().ok_or(ConfigError::NotTls)?.identity = Some((certificate_pem, key_pem));
        Ok(self)
    }

    /// Logs in as this user (Redis ACL).
    pub fn username(mut self, username: impl Into<String>) -> RedisConfig {
        self.username = Some(username.into());
        self
    }

    /// Uses this database number.
    pub fn database(mut self, db: i64) -> RedisConfig {
        self.db = db;
        self
    }

    /// How long one attempt to connect may take (2 s by default).
    pub fn connect_timeout(mut self, timeout: Duration) -> RedisConfig {
        self.connect_timeout = timeout;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_gives_the_address_and_never_a_password() {
        let config = RedisConfig::from_url("redis://app@cache.internal:6380/2").unwrap();
        assert_eq!(
            (config.host.as_str(), config.port, config.db),
            ("cache.internal", 6380, 2)
        );
        assert_eq!(config.username.as_deref(), Some("app"));
        let config = RedisConfig::from_url("valkey://[::1]").unwrap();
        assert_eq!((config.host.as_str(), config.port), ("::1", 6379));
        assert_eq!(
            RedisConfig::from_url("redis://:hunter2@h:1"),
            Err(ConfigError::PasswordInUrl)
        );
        let err = RedisConfig::from_url("redis://u:hunter2@h:1").unwrap_err();
        assert!(!err.to_string().contains("hunter2"));
        assert!(matches!(
            RedisConfig::from_url("http://h"),
            Err(ConfigError::Scheme(_))
        ));
        assert!(matches!(
            RedisConfig::from_url("redis://h/x"),
            Err(ConfigError::Database(_))
        ));
        let with = RedisConfig::new("h", 1).password(Password::new("hunter2"));
        assert!(!format!("{with:?}").contains("hunter2"));
    }

    #[test]
    fn rediss_is_tls_and_only_tls_takes_certificates() {
        for url in ["rediss://h:6380/1", "valkeys://h"] {
            let config = RedisConfig::from_url(url).unwrap();
            assert!(config.is_tls(), "{url}");
            let config = config
                .trust(b"CA".to_vec())
                .unwrap()
                .identity(b"CERT".to_vec(), b"hunter2".to_vec())
                .unwrap();
            assert!(!format!("{config:?}").contains("hunter2"), "{config:?}");
        }
        let plain = RedisConfig::from_url("redis://h").unwrap();
        assert!(!plain.is_tls());
        assert_eq!(
            plain.clone().trust(b"CA".to_vec()),
            Err(ConfigError::NotTls)
        );
        assert_eq!(
            plain.identity(Vec::new(), Vec::new()),
            Err(ConfigError::NotTls)
        );
    }
}
