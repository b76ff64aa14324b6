//! The seam between the [`crate::Store`] handle and an engine: the trait
//! each backend implements, and the values its operations return. The
//! handle checks arguments and bounds every call by its timeout; a backend
//! only does the work.

use std::fmt;
use std::time::Duration;

use crate::error::{ErrorKind, StoreName};
use crate::namespace::Namespace;
use crate::pubsub::Subscription;

/// One page of a namespace's keys, in ascending byte order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// At most the page size asked for. A page may be shorter (even empty)
    /// while `next` is set, when expired entries took its place.
    pub keys: Vec<Vec<u8>>,
    /// Where the next page starts, when more keys may follow.
    pub next: Option<Cursor>,
}

/// Where a listing goes on: the page continues after this key. Keys added
/// after it while a listing goes on are seen; none is listed twice.
#[derive(Clone, PartialEq, Eq)]
pub struct Cursor(Vec<u8>);

impl Cursor {
    /// A cursor from the bytes [`Cursor::as_bytes`] gave.
    pub fn from_bytes(bytes: Vec<u8>) -> Cursor {
        Cursor(bytes)
    }

    /// The cursor's bytes (the last key of the page before), for a caller
    /// that hands the cursor out and takes it back.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

impl fmt::Debug for Cursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Cursor({:?})", String::from_utf8_lossy(&self.0))
    }
}

/// What a compare-and-swap did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Swap {
    /// The value was as expected and has been replaced.
    Swapped,
    /// The value was not as expected; nothing changed.
    Conflict {
        /// The value the store holds (`None`: no live entry).
        current: Option<Vec<u8>>,
    },
}

/// A fixed window counter after a hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// The hits counted in the current window, this one included.
    pub count: u64,
    /// When the window ends and the count starts again.
    pub resets_in: Duration,
}

/// What a namespace holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Size {
    /// Its entries.
    pub keys: u64,
    /// The bytes of its keys and values together.
    pub bytes: u64,
}

/// An engine behind the store. Keys come checked (length) and values
/// owned, so that a backend may move them to another thread.
#[async_trait::async_trait]
pub(crate) trait Backend: Send + Sync + fmt::Debug {
    fn name(&self) -> &StoreName;
    async fn get_many(
        &self,
        ns: &Namespace,
        keys: Vec<Vec<u8>>,
    ) -> Result<Vec<Option<Vec<u8>>>, ErrorKind>;
    async fn exists(&self, ns: &Namespace, key: Vec<u8>) -> Result<bool, ErrorKind>;
    async fn set_many(
        &self,
        ns: &Namespace,
        entries: Vec<(Vec<u8>, Vec<u8>)>,
        ttl: Option<Duration>,
    ) -> Result<(), ErrorKind>;
    /// How many of `keys` had a live entry.
    async fn delete_many(&self, ns: &Namespace, keys: Vec<Vec<u8>>) -> Result<u64, ErrorKind>;
    async fn list(
        &self,
        ns: &Namespace,
        after: Option<Vec<u8>>,
        limit: usize,
    ) -> Result<Page, ErrorKind>;
    async fn increment(&self, ns: &Namespace, key: Vec<u8>, delta: i64) -> Result<i64, ErrorKind>;
    async fn compare_and_swap(
        &self,
        ns: &Namespace,
        key: Vec<u8>,
        expected: Option<Vec<u8>>,
        new: Vec<u8>,
        ttl: Option<Duration>,
    ) -> Result<Swap, ErrorKind>;
    async fn count_in_window(
        &self,
        ns: &Namespace,
        key: Vec<u8>,
        window: Duration,
        amount: u32,
    ) -> Result<Window, ErrorKind>;
    async fn size(&self, ns: &Namespace) -> Result<Size, ErrorKind>;
    async fn drop_namespace(&self, ns: &Namespace) -> Result<(), ErrorKind>;
    async fn publish(
        &self,
        ns: &Namespace,
        topic: Vec<u8>,
        message: Vec<u8>,
    ) -> Result<(), ErrorKind>;
    async fn subscribe(&self, ns: &Namespace, topic: Vec<u8>) -> Result<Subscription, ErrorKind>;
}

/// A time to live in whole milliseconds, at least 1 (a shorter one would
/// mean "no expiry" to some engines) and at most about a century.
pub(crate) fn ttl_millis(ttl: Duration) -> u64 {
    const CENTURY_MS: u64 = 100 * 365 * 24 * 3600 * 1000;
    u64::try_from(ttl.as_millis())
        .unwrap_or(CENTURY_MS)
        .clamp(1, CENTURY_MS)
}

/// Reads a stored counter as Redis does (`string2ll`): an optional `-`,
/// then digits without a leading zero (`0` alone is fine, `-0` is not), in
/// the 64-bit range. Both backends accept exactly the same values.
pub(crate) fn parse_counter(bytes: &[u8]) -> Option<i64> {
    let digits = bytes.strip_prefix(b"-").unwrap_or(bytes);
    let canonical = match digits {
        [] => false,
        [b'0'] => digits.len() == bytes.len(),
        [first, ..] => *first != b'0' && digits.iter().all(u8::is_ascii_digit),
    };
    if !canonical || bytes.len() > 20 {
        return None;
    }
    std::str::from_utf8(bytes).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_read_as_redis_reads_them() {
        for (text, value) in [
            ("0", Some(0)),
            ("7", Some(7)),
            ("-12", Some(-12)),
            ("9223372036854775807", Some(i64::MAX)),
            ("-9223372036854775808", Some(i64::MIN)),
            ("9223372036854775808", None),
            ("-0", None),
            ("007", None),
            ("+5", None),
            (" 5", None),
            ("5 ", None),
            ("", None),
            ("-", None),
            ("1e3", None),
        ] {
            assert_eq!(parse_counter(text.as_bytes()), value, "{text:?}");
        }
    }

    #[test]
    fn a_time_to_live_is_at_least_a_millisecond() {
        assert_eq!(ttl_millis(Duration::from_micros(10)), 1);
        assert_eq!(ttl_millis(Duration::from_millis(1500)), 1500);
        assert_eq!(ttl_millis(Duration::MAX), 100 * 365 * 24 * 3600 * 1000);
    }
}
