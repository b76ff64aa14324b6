//! The store in WebAssembly: the host's `wasi:keyvalue@0.2.0-draft2`
//! (`store` and `atomics`), through the bindings in
//! `__private::bindings::keyvalue`. The imports are in the component only if
//! the plugin calls them.

use super::Fault;

use crate::__private::bindings::keyvalue::wasi::keyvalue::{atomics, store};

/// An open bucket.
#[derive(Debug)]
pub(super) struct Bucket(store::Bucket);

/// Why a swap did not happen.
#[derive(Debug)]
pub(super) enum SwapError {
    /// The key changed since the cas read it: a cas of its value now.
    Conflict(Cas),
    /// The store failed.
    Store(Fault),
}

/// A compare-and-swap begun.
#[derive(Debug)]
pub(super) struct Cas(atomics::Cas);

impl From<store::Error> for Fault {
    fn from(error: store::Error) -> Self {
        match error {
            store::Error::NoSuchStore => Self::NoSuchStore,
            store::Error::AccessDenied => Self::AccessDenied,
            store::Error::Other(text) => Self::Other(text),
        }
    }
}

pub(super) fn open(name: &str) -> Result<Bucket, Fault> {
    Ok(Bucket(store::open(name)?))
}

impl Bucket {
    pub(super) fn get(&self, key: &str) -> Result<Option<Vec<u8>>, Fault> {
        Ok(self.0.get(key)?)
    }

    pub(super) fn set(&self, key: &str, value: &[u8]) -> Result<(), Fault> {
        Ok(self.0.set(key, value)?)
    }

    pub(super) fn delete(&self, key: &str) -> Result<(), Fault> {
        Ok(self.0.delete(key)?)
    }

    pub(super) fn exists(&self, key: &str) -> Result<bool, Fault> {
        Ok(self.0.exists(key)?)
    }

    /// One page of keys after `cursor`, and the cursor of the next.
    pub(super) fn list_keys(
        &self,
        cursor: Option<String>,
    ) -> Result<(Vec<String>, Option<String>), Fault> {
        let page = self.0.list_keys(cursor.as_deref())?;
        Ok((page.keys, page.cursor))
    }

    pub(super) fn increment(&self, key: &str, delta: i64) -> Result<i64, Fault> {
        Ok(atomics::increment(&self.0, key, delta)?)
    }

    pub(super) fn cas(&self, key: &str) -> Result<Cas, Fault> {
        Ok(Cas(atomics::Cas::new(&self.0, key)?))
    }
}

impl Cas {
    pub(super) fn current(&self) -> Result<Option<Vec<u8>>, Fault> {
        Ok(self.0.current()?)
    }

    pub(super) fn swap(self, value: &[u8]) -> Result<(), SwapError> {
        atomics::swap(self.0, value).map_err(|error| match error {
            atomics::CasError::CasFailed(now) => SwapError::Conflict(Cas(now)),
            atomics::CasError::StoreError(e) => SwapError::Store(e.into()),
        })
    }
}
