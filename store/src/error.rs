//! What a failed store operation says: which store (by its file or its
//! server's address, never a password), which operation, and why.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// Which store an error or a log line is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreName {
    /// The embedded store, by its file.
    Embedded {
        /// The store's file.
        path: PathBuf,
    },
    /// A Valkey or Redis server, by its address and database (never its
    /// credentials).
    Redis {
        /// The server's host name or address.
        host: String,
        /// The server's port.
        port: u16,
        /// The database number (`SELECT`).
        db: i64,
    },
}

impl fmt::Display for StoreName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreName::Embedded { path } => write!(f, "embedded store at {}", path.display()),
            StoreName::Redis { host, port, db } => {
                if host.contains(':') {
                    write!(f, "redis store at [{host}]:{port}")?;
                } else {
                    write!(f, "redis store at {host}:{port}")?;
                }
                if *db != 0 {
                    write!(f, " (database {db})")?;
                }
                Ok(())
            }
        }
    }
}

/// An operation of the store, as errors name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Op {
    Open,
    Get,
    GetMany,
    Exists,
    Set,
    SetMany,
    Delete,
    DeleteMany,
    List,
    Increment,
    CompareAndSwap,
    CountInWindow,
    Size,
    DropNamespace,
    Publish,
    Subscribe,
    Receive,
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Op::Open => "open",
            Op::Get => "get",
            Op::GetMany => "get-many",
            Op::Exists => "exists",
            Op::Set => "set",
            Op::SetMany => "set-many",
            Op::Delete => "delete",
            Op::DeleteMany => "delete-many",
            Op::List => "list",
            Op::Increment => "increment",
            Op::CompareAndSwap => "compare-and-swap",
            Op::CountInWindow => "count-in-window",
            Op::Size => "size",
            Op::DropNamespace => "drop-namespace",
            Op::Publish => "publish",
            Op::Subscribe => "subscribe",
            Op::Receive => "receive",
        })
    }
}

/// Why an operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    /// The operation did not end within its time limit. A write that timed
    /// out may or may not have been applied.
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    /// The store could not be reached (connection refused, dropped, ...).
    #[error("the store is unreachable: {0}")]
    Unavailable(String),
    /// The store answered with an error, or its file could not be used.
    #[error("{0}")]
    Backend(String),
    /// `increment` or `count_in_window` found a value that is not a decimal
    /// 64-bit integer.
    #[error("the value is not a decimal 64-bit integer")]
    NotAnInteger,
    /// `increment` would leave the 64-bit range.
    #[error("the result would overflow a 64-bit integer")]
    Overflow,
    /// A key over [`crate::MAX_KEY_LEN`] bytes.
    #[error("the key is {len} bytes, over the store's limit of {max}")]
    KeyTooLong {
        /// The key's length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// An argument the store cannot take (named in the text).
    #[error("{0}")]
    InvalidArgument(String),
    /// A subscription lost messages: its connection dropped, or its reader
    /// fell behind. Messages published in the gap are not delivered again.
    #[error("messages were missed: {0}")]
    MissedMessages(String),
}

/// A failed operation on a store: `"{op} on the {store} failed: {kind}"`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{op} on the {store} failed: {kind}")]
pub struct StoreError {
    /// The store.
    pub store: StoreName,
    /// The operation.
    pub op: Op,
    /// Why it failed.
    pub kind: ErrorKind,
}

/// The error of a namespace that cannot be built (a part over
/// [`crate::MAX_NAME_LEN`] bytes).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the {part} name is {len} bytes, over the store's limit of {max}")]
pub struct NameError {
    /// Which part of the namespace (`plugin`, `bucket`, `session`, `user`).
    pub part: &'static str,
    /// Its length.
    pub len: usize,
    /// The limit.
    pub max: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_names_the_store_and_the_operation() {
        let err = StoreError {
            store: StoreName::Redis {
                host: "127.0.0.1".into(),
                port: 6390,
                db: 0,
            },
            op: Op::CompareAndSwap,
            kind: ErrorKind::Timeout(Duration::from_millis(250)),
        };
        assert_eq!(
            err.to_string(),
            "compare-and-swap on the redis store at 127.0.0.1:6390 failed: no answer within 250ms"
        );
        let embedded = StoreName::Embedded {
            path: "/var/lib/x/store.redb".into(),
        };
        assert_eq!(
            embedded.to_string(),
            "embedded store at /var/lib/x/store.redb"
        );
        let v6 = StoreName::Redis {
            host: "::1".into(),
            port: 1,
            db: 2,
        };
        assert_eq!(v6.to_string(), "redis store at [::1]:1 (database 2)");
    }
}
