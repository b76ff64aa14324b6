//! The embedded store's operations. A read is one read transaction on a
//! snapshot (blocking: `mod.rs` runs it on tokio's blocking threads); a
//! write works on the tables of the writer's transaction (`writer.rs`),
//! one write after another, which makes increment and compare-and-swap
//! atomic. A write fails with its own error (not an integer, overflow)
//! before it changes anything.

use std::ops::Bound;
use std::time::Duration;

use redb::{Database, ReadableDatabase};

use super::tables::{self, ENTRIES, EXPIRY, SIZES, Tables, decode, is_live, join, now_ms};
use super::writer;
use crate::backend::{Cursor, Page, Size, Swap, Window, parse_counter, ttl_millis};
use crate::error::ErrorKind;

/// The deadline of an entry set now with `ttl` (0: none).
fn deadline(now: u64, ttl: Option<Duration>) -> u64 {
    ttl.map_or(0, |ttl| now.saturating_add(ttl_millis(ttl)))
}

pub(super) fn create_tables(db: &Database) -> Result<(), ErrorKind> {
    let txn = db.begin_write()?;
    txn.open_table(ENTRIES)?;
    txn.open_table(EXPIRY)?;
    txn.open_table(SIZES)?;
    txn.commit()?;
    Ok(())
}

pub(super) fn get_many(
    db: &Database,
    ns: &str,
    keys: &[Vec<u8>],
) -> Result<Vec<Option<Vec<u8>>>, ErrorKind> {
    let txn = db.begin_read()?;
    let entries = txn.open_table(ENTRIES)?;
    let now = now_ms();
    keys.iter()
        .map(|key| -> Result<Option<Vec<u8>>, ErrorKind> {
            match entries.get(join(ns, key).as_slice())? {
                Some(raw) => {
                    let (expires, value) = decode(raw.value())?;
                    Ok(is_live(expires, now).then(|| value.to_vec()))
                }
                None => Ok(None),
            }
        })
        .collect()
}

pub(super) fn exists(db: &Database, ns: &str, key: &[u8]) -> Result<bool, ErrorKind> {
    let txn = db.begin_read()?;
    let entries = txn.open_table(ENTRIES)?;
    match entries.get(join(ns, key).as_slice())? {
        Some(raw) => Ok(is_live(decode(raw.value())?.0, now_ms())),
        None => Ok(false),
    }
}

pub(super) fn set_many(
    t: &mut Tables<'_>,
    ns: &str,
    entries: &[(Vec<u8>, Vec<u8>)],
    ttl: Option<Duration>,
) -> Result<(), ErrorKind> {
    let expires = deadline(t.now, ttl);
    entries
        .iter()
        .try_for_each(|(key, value)| t.put(ns, key, value, expires))
}

pub(super) fn delete_many(
    t: &mut Tables<'_>,
    ns: &str,
    keys: &[Vec<u8>],
) -> Result<u64, ErrorKind> {
    let mut live = 0;
    for key in keys {
        if t.remove(ns, key)? == Some(true) {
            live += 1;
        }
    }
    Ok(live)
}

pub(super) fn list(
    db: &Database,
    ns: &str,
    after: Option<&[u8]>,
    limit: usize,
) -> Result<Page, ErrorKind> {
    let txn = db.begin_read()?;
    let entries = txn.open_table(ENTRIES)?;
    let now = now_ms();
    let (start, end) = tables::bounds(ns);
    let after = after.map(|key| join(ns, key));
    let lower = match &after {
        Some(after) => Bound::Excluded(after.as_slice()),
        None => Bound::Included(start.as_slice()),
    };
    // Expired entries not yet swept are skipped, but only so many: a page
    // ends early (with a cursor) rather than read without bound.
    let budget = limit.saturating_mul(4).saturating_add(1000);
    let (mut keys, mut last, mut more) = (Vec::new(), None, false);
    for (examined, item) in entries
        .range::<&[u8]>((lower, Bound::Excluded(end.as_slice())))?
        .enumerate()
    {
        if keys.len() == limit || examined == budget {
            more = true;
            break;
        }
        let (full, raw) = item?;
        let key = full.value().get(start.len()..).unwrap_or_default().to_vec();
        if is_live(decode(raw.value())?.0, now) {
            keys.push(key.clone());
        }
        last = Some(key);
    }
    let next = if more {
        last.map(Cursor::from_bytes)
    } else {
        None
    };
    Ok(Page { keys, next })
}

pub(super) fn increment(
    t: &mut Tables<'_>,
    ns: &str,
    key: &[u8],
    delta: i64,
) -> Result<i64, ErrorKind> {
    let (value, expires) = match t.live(ns, key)? {
        Some((expires, value)) => (
            parse_counter(&value).ok_or(ErrorKind::NotAnInteger)?,
            expires,
        ),
        None => (0, 0),
    };
    let value = value.checked_add(delta).ok_or(ErrorKind::Overflow)?;
    t.put(ns, key, value.to_string().as_bytes(), expires)?;
    Ok(value)
}

pub(super) fn compare_and_swap(
    t: &mut Tables<'_>,
    ns: &str,
    key: &[u8],
    expected: Option<&[u8]>,
    new: &[u8],
    ttl: Option<Duration>,
) -> Result<Swap, ErrorKind> {
    let current = t.live(ns, key)?.map(|(_, value)| value);
    if current.as_deref() != expected {
        return Ok(Swap::Conflict { current });
    }
    let expires = deadline(t.now, ttl);
    t.put(ns, key, new, expires)?;
    Ok(Swap::Swapped)
}

pub(super) fn count_in_window(
    t: &mut Tables<'_>,
    ns: &str,
    key: &[u8],
    window: Duration,
    amount: u32,
) -> Result<Window, ErrorKind> {
    let (count, expires) = match t.live(ns, key)? {
        Some((expires, value)) => {
            let count = parse_counter(&value).ok_or(ErrorKind::NotAnInteger)?;
            let count = count
                .checked_add(i64::from(amount))
                .ok_or(ErrorKind::Overflow)?;
            let expires = if expires == 0 {
                deadline(t.now, Some(window))
            } else {
                expires
            };
            (count, expires)
        }
        None => (i64::from(amount), deadline(t.now, Some(window))),
    };
    t.put(ns, key, count.to_string().as_bytes(), expires)?;
    Ok(Window {
        count: u64::try_from(count).unwrap_or(0),
        resets_in: Duration::from_millis(expires.saturating_sub(t.now)),
    })
}

pub(super) fn size(db: &Database, ns: &str) -> Result<Size, ErrorKind> {
    let txn = db.begin_read()?;
    let sizes = txn.open_table(SIZES)?;
    let (keys, bytes) = sizes.get(ns)?.map(|g| g.value()).unwrap_or((0, 0));
    Ok(Size { keys, bytes })
}

pub(super) fn drop_namespace(t: &mut Tables<'_>, ns: &str) -> Result<(), ErrorKind> {
    t.drop_namespace(ns)
}

/// Removes up to `max` entries whose time has come; how many.
pub(super) fn sweep(db: &Database, max: usize) -> Result<usize, ErrorKind> {
    let due = {
        let txn = db.begin_read()?;
        let expiry = txn.open_table(EXPIRY)?;
        let end = now_ms().saturating_add(1).to_be_bytes();
        expiry
            .range::<&[u8]>(..end.as_slice())?
            .take(max)
            .map(|row| row.map(|(key, _)| key.value().to_vec()))
            .collect::<Result<Vec<_>, _>>()?
    };
    if due.is_empty() {
        return Ok(0);
    }
    writer::write_now(db, |t| {
        due.iter().try_for_each(|row| t.expire(row))?;
        Ok(due.len())
    })
}
