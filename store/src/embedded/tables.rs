//! The embedded store's file: its three tables and the writes that keep
//! them consistent within one transaction.
//!
//! - `entries`: stored key (`namespace}key`) → expiry (8 bytes, big-endian
//!   milliseconds since the epoch, 0 for none) followed by the value;
//! - `expiry`: deadline (8 bytes, big-endian) followed by the stored key →
//!   `()`, in deadline order, for the sweeper;
//! - `sizes`: namespace encoding → (entries, bytes of keys and values).

use std::time::{SystemTime, UNIX_EPOCH};

use redb::{ReadableTable, Table, TableDefinition, WriteTransaction};

use crate::error::ErrorKind;
pub(super) use crate::namespace::join;

pub(super) const ENTRIES: TableDefinition<&[u8], &[u8]> = TableDefinition::new("entries");
pub(super) const EXPIRY: TableDefinition<&[u8], ()> = TableDefinition::new("expiry");
pub(super) const SIZES: TableDefinition<&str, (u64, u64)> = TableDefinition::new("sizes");

/// The byte after `}` that ends a namespace in stored keys: every key of a
/// namespace lies in `namespace}` .. `namespace~`.
const AFTER_BRACE: u8 = b'~';

macro_rules! engine_errors {
    ($($error:ty),*) => {$(
        impl From<$error> for ErrorKind {
            fn from(error: $error) -> ErrorKind {
                ErrorKind::Backend(error.to_string())
            }
        }
    )*};
}
engine_errors!(
    redb::Error,
    redb::DatabaseError,
    redb::TransactionError,
    redb::TableError,
    redb::StorageError,
    redb::CommitError
);

/// Milliseconds since the epoch, on this machine's clock.
pub(super) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// Whether an entry expiring at `expires` (0: never) is live at `now`.
pub(super) fn is_live(expires: u64, now: u64) -> bool {
    expires == 0 || expires > now
}

/// The range of stored keys of the namespace encoded as `ns`: from
/// `ns}` (included) to `ns~` (excluded).
pub(super) fn bounds(ns: &str) -> (Vec<u8>, Vec<u8>) {
    let start = join(ns, b"");
    let mut end = start.clone();
    if let Some(last) = end.last_mut() {
        *last = AFTER_BRACE;
    }
    (start, end)
}

/// A stored key split into its namespace encoding and key.
fn split(full: &[u8]) -> Result<(&str, &[u8]), ErrorKind> {
    let brace = full
        .iter()
        .position(|&b| b == b'}')
        .ok_or_else(|| corrupt("a stored key without its namespace"))?;
    let ns = std::str::from_utf8(&full[..brace]).map_err(|_| corrupt("a namespace"))?;
    Ok((ns, &full[brace + 1..]))
}

fn corrupt(what: &str) -> ErrorKind {
    ErrorKind::Backend(format!("the store's file holds a malformed entry ({what})"))
}

/// An entry's expiry and value.
pub(super) fn decode(raw: &[u8]) -> Result<(u64, &[u8]), ErrorKind> {
    match raw.split_first_chunk::<8>() {
        Some((expires, value)) => Ok((u64::from_be_bytes(*expires), value)),
        None => Err(corrupt("an entry shorter than its header")),
    }
}

fn encode(expires: u64, value: &[u8]) -> Vec<u8> {
    let mut raw = Vec::with_capacity(8 + value.len());
    raw.extend_from_slice(&expires.to_be_bytes());
    raw.extend_from_slice(value);
    raw
}

/// The key of an entry's row in `expiry`.
pub(super) fn expiry_key(deadline: u64, full: &[u8]) -> Vec<u8> {
    let mut key = Vec::with_capacity(8 + full.len());
    key.extend_from_slice(&deadline.to_be_bytes());
    key.extend_from_slice(full);
    key
}

fn signed(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The tables of one write transaction, and whether it changed anything
/// (a transaction that did not is not committed, which saves a sync).
pub(super) struct Tables<'t> {
    entries: Table<'t, &'static [u8], &'static [u8]>,
    expiry: Table<'t, &'static [u8], ()>,
    sizes: Table<'t, &'static str, (u64, u64)>,
    pub(super) now: u64,
    pub(super) dirty: bool,
}

impl<'t> Tables<'t> {
    pub(super) fn open(txn: &'t WriteTransaction) -> Result<Tables<'t>, ErrorKind> {
        Ok(Tables {
            entries: txn.open_table(ENTRIES)?,
            expiry: txn.open_table(EXPIRY)?,
            sizes: txn.open_table(SIZES)?,
            now: now_ms(),
            dirty: false,
        })
    }

    /// A live entry's expiry and value.
    pub(super) fn live(&self, ns: &str, key: &[u8]) -> Result<Option<(u64, Vec<u8>)>, ErrorKind> {
        let Some(raw) = self.entries.get(join(ns, key).as_slice())? else {
            return Ok(None);
        };
        let (expires, value) = decode(raw.value())?;
        Ok(is_live(expires, self.now).then(|| (expires, value.to_vec())))
    }

    /// Sets an entry, expiring at `expires` (0: never).
    pub(super) fn put(
        &mut self,
        ns: &str,
        key: &[u8],
        value: &[u8],
        expires: u64,
    ) -> Result<(), ErrorKind> {
        let full = join(ns, key);
        let old = match self
            .entries
            .insert(full.as_slice(), encode(expires, value).as_slice())?
        {
            Some(raw) => Some(decode(raw.value()).map(|(e, v)| (e, v.len()))?),
            None => None,
        };
        self.dirty = true;
        if let Some((old_expires, _)) = old
            && old_expires != 0
        {
            self.expiry
                .remove(expiry_key(old_expires, &full).as_slice())?;
        }
        if expires != 0 {
            self.expiry
                .insert(expiry_key(expires, &full).as_slice(), ())?;
        }
        match old {
            None => self.adjust(ns, 1, signed(key.len()) + signed(value.len())),
            Some((_, old_len)) => self.adjust(ns, 0, signed(value.len()) - signed(old_len)),
        }
    }

    /// Removes an entry: `None` if there was none, else whether it was live.
    pub(super) fn remove(&mut self, ns: &str, key: &[u8]) -> Result<Option<bool>, ErrorKind> {
        let full = join(ns, key);
        let old = match self.entries.remove(full.as_slice())? {
            Some(raw) => decode(raw.value()).map(|(e, v)| (e, v.len()))?,
            None => return Ok(None),
        };
        self.dirty = true;
        let (expires, len) = old;
        if expires != 0 {
            self.expiry.remove(expiry_key(expires, &full).as_slice())?;
        }
        self.adjust(ns, -1, -(signed(key.len()) + signed(len)))?;
        Ok(Some(is_live(expires, self.now)))
    }

    /// Removes the entry an `expiry` row names, if it still expires then.
    pub(super) fn expire(&mut self, row: &[u8]) -> Result<(), ErrorKind> {
        self.expiry.remove(row)?;
        self.dirty = true;
        let Some((deadline, full)) = row.split_first_chunk::<8>() else {
            return Err(corrupt("an expiry row shorter than its deadline"));
        };
        let deadline = u64::from_be_bytes(*deadline);
        let expires = match self.entries.get(full)? {
            Some(raw) => decode(raw.value())?.0,
            None => return Ok(()),
        };
        if expires == deadline {
            let (ns, key) = split(full)?;
            let (ns, key) = (ns.to_owned(), key.to_vec());
            self.remove(&ns, &key)?;
        }
        Ok(())
    }

    /// Removes every entry of a namespace.
    pub(super) fn drop_namespace(&mut self, ns: &str) -> Result<(), ErrorKind> {
        let (start, end) = bounds(ns);
        let mut expiring = Vec::new();
        for item in self.entries.range(start.as_slice()..end.as_slice())? {
            let (full, raw) = item?;
            let (expires, _) = decode(raw.value())?;
            if expires != 0 {
                expiring.push(expiry_key(expires, full.value()));
            }
        }
        self.entries
            .retain_in(start.as_slice()..end.as_slice(), |_, _| false)?;
        for row in expiring {
            self.expiry.remove(row.as_slice())?;
        }
        self.sizes.remove(ns)?;
        self.dirty = true;
        Ok(())
    }

    fn adjust(&mut self, ns: &str, keys: i64, bytes: i64) -> Result<(), ErrorKind> {
        let (old_keys, old_bytes) = self.sizes.get(ns)?.map(|g| g.value()).unwrap_or((0, 0));
        let keys = old_keys.saturating_add_signed(keys);
        let bytes = old_bytes.saturating_add_signed(bytes);
        if keys == 0 {
            self.sizes.remove(ns)?;
        } else {
            self.sizes.insert(ns, (keys, bytes))?;
        }
        Ok(())
    }
}
