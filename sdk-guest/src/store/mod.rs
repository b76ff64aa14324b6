//! Remembering things between calls: a small key-value API over the
//! standard `wasi:keyvalue@0.2.0-draft2` the host serves.
//!
//! Each call runs in a fresh instance, so a tool keeps what it must remember
//! in a **bucket** of the host's store: a file under the server's state
//! directory, or Valkey/Redis. The policy grants buckets by name, per plugin,
//! and nothing else opens:
//!
//! ```toml
//! [plugins.notes.keyvalue]
//! buckets = ["default"]
//! ```
//!
//! ```
//! use mcp_wasm_sdk::prelude::*;
//! use mcp_wasm_sdk::store::Bucket;
//!
//! /// Count the calls of this tool, across calls and restarts.
//! #[tool]
//! fn count() -> Result<String, ToolError> {
//!     let calls = Bucket::open("default")?.increment("calls", 1)?;
//!     Ok(format!("called {calls} times"))
//! }
//! # assert_eq!(count(), Ok("called 1 times".into()));
//! # assert_eq!(count(), Ok("called 2 times".into()));
//! ```
//!
//! A plugin that never calls this module does not import `wasi:keyvalue`
//! (the linker drops what is unused), so it needs no grant and loads on
//! hosts without a store.
//!
//! Every [`Error`] converts into a [`ToolError`](crate::ToolError) with `?`:
//! a bucket the policy does not grant becomes
//! [`ToolError::Denied`](crate::ToolError::Denied), with a message naming
//! the policy key that grants it. A value over one of the host's quotas is
//! refused with a message naming that quota's key.
//!
//! Outside WebAssembly (in unit tests) the store is in memory, one per
//! thread, and every bucket opens.

#[cfg(not(target_arch = "wasm32"))]
mod native;
#[cfg(target_arch = "wasm32")]
mod wasm;

#[cfg(test)]
mod tests;

use std::fmt;

#[cfg(not(target_arch = "wasm32"))]
use native as imp;
#[cfg(target_arch = "wasm32")]
use wasm as imp;

/// How many times [`Bucket::update`] tries before it gives up to other
/// writers of the same key. Each try costs the host two store operations
/// (of `max_operations` per call).
pub const UPDATE_ATTEMPTS: u32 = 64;

/// What the host's store answered, before the SDK adds its context.
// The in-memory store of native builds never denies and has no missing
// stores.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
#[derive(Debug)]
enum Fault {
    NoSuchStore,
    AccessDenied,
    Other(String),
}

/// Why a store operation failed.
///
/// It converts into a [`ToolError`](crate::ToolError) with `?`:
/// [`Error::AccessDenied`] into `Denied`, the others into `Failed`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The policy does not grant this plugin the bucket: add it to
    /// `[plugins.NAME.keyvalue] buckets` in the server's policy.
    AccessDenied {
        /// The bucket's name.
        bucket: String,
    },
    /// The host has no store for the bucket.
    NoSuchStore {
        /// The bucket's name.
        bucket: String,
    },
    /// The operation failed: the host's reason (a quota names its policy
    /// key, e.g. `plugins.NAME.keyvalue.max_value_size`), or a value that is
    /// not what the SDK was asked to read.
    Other {
        /// The bucket's name.
        bucket: String,
        /// What failed and why.
        message: String,
    },
    /// [`Bucket::update`] lost to other writers of the key
    /// [`UPDATE_ATTEMPTS`] times in a row.
    Contended {
        /// The bucket's name.
        bucket: String,
        /// The key.
        key: String,
    },
}

impl Error {
    /// The name of the bucket the operation was on.
    pub fn bucket(&self) -> &str {
        match self {
            Self::AccessDenied { bucket }
            | Self::NoSuchStore { bucket }
            | Self::Other { bucket, .. }
            | Self::Contended { bucket, .. } => bucket,
        }
    }

    /// The error of `operation` on `bucket`.
    fn new(bucket: &str, operation: impl FnOnce() -> String, fault: Fault) -> Self {
        let bucket = bucket.to_owned();
        match fault {
            Fault::AccessDenied => Self::AccessDenied { bucket },
            Fault::NoSuchStore => Self::NoSuchStore { bucket },
            Fault::Other(reason) => Self::Other {
                bucket,
                message: format!("{}: {reason}", operation()),
            },
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::AccessDenied { bucket } => write!(
                f,
                "this plugin may not open the key-value bucket {bucket:?}: the server's policy \
                 grants it with `[plugins.<this plugin>.keyvalue] buckets = [{bucket:?}]`"
            ),
            Self::NoSuchStore { bucket } => {
                write!(
                    f,
                    "the host has no store for the key-value bucket {bucket:?}"
                )
            }
            Self::Other { bucket, message } => {
                write!(f, "key-value bucket {bucket:?}: {message}")
            }
            Self::Contended { bucket, key } => write!(
                f,
                "key-value bucket {bucket:?}: {key:?} changed under {UPDATE_ATTEMPTS} updates \
                 in a row (other calls are writing it)"
            ),
        }
    }
}

impl std::error::Error for Error {}

/// A bucket of the host's key-value store: keys (strings) with values
/// (bytes), kept across calls and restarts.
#[derive(Debug)]
pub struct Bucket {
    name: String,
    raw: imp::Bucket,
}

impl Bucket {
    /// Opens the bucket `name`, if the server's policy grants it to this
    /// plugin (`[plugins.NAME.keyvalue] buckets`); else
    /// [`Error::AccessDenied`].
    pub fn open(name: &str) -> Result<Self, Error> {
        let raw = imp::open(name).map_err(|f| Error::new(name, || "open".into(), f))?;
        Ok(Self {
            name: name.to_owned(),
            raw,
        })
    }

    /// The bucket's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Makes the error of `operation` on `key` from the host's fault.
    fn error<'s>(
        &'s self,
        operation: &'static str,
        key: &'s str,
    ) -> impl FnOnce(Fault) -> Error + 's {
        move |fault| Error::new(&self.name, || format!("{operation} {key:?}"), fault)
    }

    /// The value of `key`, if it has one.
    pub fn get(&self, key: &str) -> Result<Option<Vec<u8>>, Error> {
        self.raw.get(key).map_err(self.error("get", key))
    }

    /// The value of `key` as text, if it has one; [`Error::Other`] if it is
    /// not UTF-8.
    pub fn get_string(&self, key: &str) -> Result<Option<String>, Error> {
        self.get(key)?
            .map(String::from_utf8)
            .transpose()
            .map_err(|_| self.error("get", key)(Fault::Other("the value is not UTF-8".into())))
    }

    /// Sets `key` to `value` (bytes or text).
    pub fn set(&self, key: &str, value: impl AsRef<[u8]>) -> Result<(), Error> {
        self.raw
            .set(key, value.as_ref())
            .map_err(self.error("set", key))
    }

    /// Deletes `key` (nothing happens if it has no value).
    pub fn delete(&self, key: &str) -> Result<(), Error> {
        self.raw.delete(key).map_err(self.error("delete", key))
    }

    /// Whether `key` has a value.
    pub fn exists(&self, key: &str) -> Result<bool, Error> {
        self.raw.exists(key).map_err(self.error("exists", key))
    }

    /// Adds `delta` to the number held in `key` (0 if it has no value), in
    /// one atomic step, and returns the new number.
    pub fn increment(&self, key: &str, delta: i64) -> Result<i64, Error> {
        self.raw
            .increment(key, delta)
            .map_err(self.error("increment", key))
    }

    /// Every key of the bucket, read from the host page by page as the
    /// iterator advances. It yields one error and stops if a page fails.
    ///
    /// ```
    /// # use mcp_wasm_sdk::store::{Bucket, Error};
    /// # fn main() -> Result<(), Error> {
    /// let bucket = Bucket::open("default")?;
    /// bucket.set("a", "1")?;
    /// let keys: Vec<String> = bucket.keys().collect::<Result<_, _>>()?;
    /// # assert_eq!(keys, ["a"]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn keys(&self) -> Keys<'_> {
        Keys {
            bucket: self,
            page: Vec::new().into_iter(),
            cursor: None,
            done: false,
        }
    }

    /// Replaces the value of `key` with `change(current value)`, atomically:
    /// if another call writes the key in between, it reads the key again and
    /// calls `change` again (up to [`UPDATE_ATTEMPTS`] times). Returns the
    /// value it wrote.
    ///
    /// ```
    /// # use mcp_wasm_sdk::store::{Bucket, Error};
    /// # fn main() -> Result<(), Error> {
    /// let notes = Bucket::open("default")?;
    /// let text = notes.update("log", |old| {
    ///     let mut text = old.unwrap_or_default().to_vec();
    ///     text.extend_from_slice(b"one more line\n");
    ///     text
    /// })?;
    /// # assert_eq!(text, b"one more line\n");
    /// # Ok(())
    /// # }
    /// ```
    pub fn update(
        &self,
        key: &str,
        mut change: impl FnMut(Option<&[u8]>) -> Vec<u8>,
    ) -> Result<Vec<u8>, Error> {
        let mut cas = self.raw.cas(key).map_err(self.error("update", key))?;
        for _ in 0..UPDATE_ATTEMPTS {
            let current = cas.current().map_err(self.error("update", key))?;
            let value = change(current.as_deref());
            match cas.swap(&value) {
                Ok(()) => return Ok(value),
                Err(imp::SwapError::Conflict(now)) => cas = now,
                Err(imp::SwapError::Store(fault)) => return Err(self.error("update", key)(fault)),
            }
        }
        Err(Error::Contended {
            bucket: self.name.clone(),
            key: key.to_owned(),
        })
    }
}

/// The keys of a [`Bucket`], from [`Bucket::keys`].
#[derive(Debug)]
pub struct Keys<'a> {
    bucket: &'a Bucket,
    page: std::vec::IntoIter<String>,
    cursor: Option<String>,
    done: bool,
}

impl Iterator for Keys<'_> {
    type Item = Result<String, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(key) = self.page.next() {
                return Some(Ok(key));
            }
            if self.done {
                return None;
            }
            match self.bucket.raw.list_keys(self.cursor.take()) {
                Ok((keys, cursor)) => {
                    self.done = cursor.is_none();
                    self.cursor = cursor;
                    self.page = keys.into_iter();
                }
                Err(fault) => {
                    self.done = true;
                    let bucket = &self.bucket.name;
                    return Some(Err(Error::new(bucket, || "list keys".into(), fault)));
                }
            }
        }
    }
}
