//! The store outside WebAssembly (a plugin's unit tests): in memory, one per
//! thread, every bucket granted. Keys are listed in pages of
//! [`PAGE`] so that the paging of [`super::Keys`] is exercised too.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ops::Bound;

use super::Fault;

/// Keys in one page of `list_keys`.
const PAGE: usize = 2;

thread_local! {
    /// Bucket name → key → value.
    static BUCKETS: RefCell<BTreeMap<String, BTreeMap<String, Vec<u8>>>> =
        const { RefCell::new(BTreeMap::new()) };
}

/// An open bucket: its name.
#[derive(Debug)]
pub(super) struct Bucket(String);

/// Why a swap did not happen.
#[derive(Debug)]
pub(super) enum SwapError {
    /// The key changed since the cas read it: a cas of its value now.
    Conflict(Cas),
    /// The store failed (memory never does: the variant is the host's).
    #[allow(dead_code)]
    Store(Fault),
}

/// A compare-and-swap begun: the key and the value it saw.
#[derive(Debug)]
pub(super) struct Cas {
    bucket: String,
    key: String,
    seen: Option<Vec<u8>>,
}

pub(super) fn open(name: &str) -> Result<Bucket, Fault> {
    Ok(Bucket(name.to_owned()))
}

fn with<T>(bucket: &str, f: impl FnOnce(&mut BTreeMap<String, Vec<u8>>) -> T) -> T {
    BUCKETS.with_borrow_mut(|buckets| f(buckets.entry(bucket.to_owned()).or_default()))
}

impl Bucket {
    pub(super) fn get(&self, key: &str) -> Result<Option<Vec<u8>>, Fault> {
        Ok(with(&self.0, |b| b.get(key).cloned()))
    }

    pub(super) fn set(&self, key: &str, value: &[u8]) -> Result<(), Fault> {
        with(&self.0, |b| b.insert(key.to_owned(), value.to_vec()));
        Ok(())
    }

    pub(super) fn delete(&self, key: &str) -> Result<(), Fault> {
        with(&self.0, |b| b.remove(key));
        Ok(())
    }

    pub(super) fn exists(&self, key: &str) -> Result<bool, Fault> {
        Ok(with(&self.0, |b| b.contains_key(key)))
    }

    /// One page of keys after `cursor` (the last key of the page before).
    pub(super) fn list_keys(
        &self,
        cursor: Option<String>,
    ) -> Result<(Vec<String>, Option<String>), Fault> {
        Ok(with(&self.0, |b| {
            let after = cursor.map_or(Bound::Unbounded, Bound::Excluded);
            let mut rest = b
                .range::<String, _>((after, Bound::Unbounded))
                .map(|(k, _)| k);
            let keys: Vec<String> = rest.by_ref().take(PAGE).cloned().collect();
            let next = rest.next().and(keys.last().cloned());
            (keys, next)
        }))
    }

    pub(super) fn increment(&self, key: &str, delta: i64) -> Result<i64, Fault> {
        with(&self.0, |b| {
            let now = match b.get(key) {
                None => 0,
                Some(v) => std::str::from_utf8(v)
                    .ok()
                    .and_then(|v| v.parse::<i64>().ok())
                    .ok_or_else(|| Fault::Other("the value is not a decimal integer".into()))?,
            };
            let new = now
                .checked_add(delta)
                .ok_or_else(|| Fault::Other("the sum overflows a 64-bit integer".into()))?;
            b.insert(key.to_owned(), new.to_string().into_bytes());
            Ok(new)
        })
    }

    pub(super) fn cas(&self, key: &str) -> Result<Cas, Fault> {
        Ok(Cas {
            bucket: self.0.clone(),
            key: key.to_owned(),
            seen: self.get(key)?,
        })
    }
}

impl Cas {
    pub(super) fn current(&self) -> Result<Option<Vec<u8>>, Fault> {
        Ok(self.seen.clone())
    }

    pub(super) fn swap(self, value: &[u8]) -> Result<(), SwapError> {
        with(&self.bucket.clone(), |b| {
            if b.get(&self.key) == self.seen.as_ref() {
                b.insert(self.key, value.to_vec());
                Ok(())
            } else {
                let seen = b.get(&self.key).cloned();
                Err(SwapError::Conflict(Cas { seen, ..self }))
            }
        })
    }
}
