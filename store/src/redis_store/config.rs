//! Where a Valkey/Redis store is and how to log in: an address from a
//! `redis://` URL (which may not hold a password) and a password handed
//! over separately, which nothing prints.

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
    /// A scheme other than `redis://` or `valkey://`.
    #[error(
        "the store URL's scheme is {0:?}: use redis:// or valkey:// (TLS, rediss://, is not built in yet)"
    )]
    Scheme(String),
    /// A password written into the URL.
    #[error(
        "the store URL holds a password: give it as a secret reference instead, so it stays out of the configuration"
    )]
    PasswordInUrl,
    /// A path that is not a database number.
    #[error("the store URL's path {0:?} is not a database number")]
    Database(String),
}

/// How to reach a Valkey or Redis server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedisConfig {
    pub(crate) host: String,
    pub(crate) port: u16,
    pub(crate) db: i64,
    pub(crate) username: Option<String>,
    pub(crate) password: Option<Password>,
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
            connect_timeout: Duration::from_secs(2),
        }
    }

    /// Reads `redis://[user@]host[:port][/db]` (or `valkey://`; the port
    /// defaults to 6379). A password in the URL is refused.
    pub fn from_url(url: &str) -> Result<RedisConfig, ConfigError> {
        let parsed = url::Url::parse(url).map_err(|e| ConfigError::Malformed(e.to_string()))?;
        if !matches!(parsed.scheme(), "redis" | "valkey") {
            return Err(ConfigError::Scheme(parsed.scheme().to_owned()));
        }
        if parsed.password().is_some() {
            return Err(ConfigError::PasswordInUrl);
        }
        let host = match parsed.host() {
            Some(url::Host::Ipv6(addr)) => addr.to_string(),
            Some(host) => host.to_string(),
            None => return Err(ConfigError::Malformed("no host".into())),
        };
        let mut config = RedisConfig::new(host, parsed.port().unwrap_or(6379));
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
            RedisConfig::from_url("rediss://h"),
            Err(ConfigError::Scheme(_))
        ));
        assert!(matches!(
            RedisConfig::from_url("redis://h/x"),
            Err(ConfigError::Database(_))
        ));
        let with = RedisConfig::new("h", 1).password(Password::new("hunter2"));
        assert!(!format!("{with:?}").contains("hunter2"));
    }
}
