//! The one store seam of mcp-wasm-host: every feature that keeps state
//! (wasi:keyvalue, tasks, limits, sessions) keeps it through a [`Store`].
//! It has an embedded default (one redb file under a state directory) and
//! Valkey/Redis for replicas that share their state; it builds no
//! replication or consensus of its own. `docs/store.md` describes the
//! seam: its namespaces, the semantics of each operation, the backends.
//!
//! A [`Store`] is a cheap handle (clone it freely). Every operation takes a
//! [`Namespace`] built by the store from typed parts, is bounded by the
//! handle's timeout ([`Store::with_timeout`]), and fails with a
//! [`StoreError`] naming the store and the operation.

mod backend;
mod embedded;
mod error;
mod namespace;
mod pubsub;
mod redis_store;

use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

pub use backend::{Cursor, Page, Size, Swap, Window};
pub use error::{ErrorKind, NameError, Op, StoreError, StoreName};
pub use namespace::{MAX_NAME_LEN, Namespace, decode as decode_namespace};
pub use pubsub::{Heard, Subscription};
pub use redis_store::{ConfigError, Password, RedisConfig, Tls};

use backend::Backend;

/// The longest key the store takes, in bytes (a caller's quota is usually
/// lower).
pub const MAX_KEY_LEN: usize = 8 * 1024;

/// The most keys one page of [`Store::list`] returns.
pub const MAX_PAGE: usize = 1000;

/// The time limit of an operation when the caller gives none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// A handle on a store. Cloning it is cheap; clones share the backend.
#[derive(Debug, Clone)]
pub struct Store {
    backend: Arc<dyn Backend>,
    timeout: Duration,
}

impl Store {
    /// Opens (or creates) the embedded store in `state_dir`: the file
    /// `store.redb` there, which one process at a time may hold open.
    pub async fn embedded(state_dir: &Path) -> Result<Store, StoreError> {
        let backend = embedded::Embedded::open(state_dir).await?;
        Ok(Store::over(Arc::new(backend)))
    }

    /// A store on a Valkey or Redis server. It connects on first use, so a
    /// server that is down now fails the operations, not this call, and
    /// the store recovers when the server is back. Call it within a tokio
    /// runtime (as [`Store::embedded`], which starts tasks of its own).
    pub fn redis(config: RedisConfig) -> Result<Store, StoreError> {
        let backend = redis_store::Redis::new(config)?;
        Ok(Store::over(Arc::new(backend)))
    }

    fn over(backend: Arc<dyn Backend>) -> Store {
        Store {
            backend,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// The same store, with operations bounded by `timeout` instead.
    pub fn with_timeout(&self, timeout: Duration) -> Store {
        Store {
            backend: self.backend.clone(),
            timeout,
        }
    }

    /// Whether `other` is a handle on the same store (a clone of this one,
    /// whatever its timeout).
    pub fn same(&self, other: &Store) -> bool {
        std::ptr::addr_eq(Arc::as_ptr(&self.backend), Arc::as_ptr(&other.backend))
    }

    /// The time limit of each operation.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Which store this is, as errors and logs name it.
    pub fn name(&self) -> &StoreName {
        self.backend.name()
    }

    /// The value of a live entry.
    pub async fn get(
        &self,
        ns: &Namespace,
        key: impl AsRef<[u8]>,
    ) -> Result<Option<Vec<u8>>, StoreError> {
        let key = self.key(Op::Get, key.as_ref())?;
        let values = self
            .run(Op::Get, self.backend.get_many(ns, vec![key]))
            .await?;
        Ok(values.into_iter().next().flatten())
    }

    /// The values of live entries, in the order of `keys` (`None` where
    /// there is none).
    pub async fn get_many<K: AsRef<[u8]>>(
        &self,
        ns: &Namespace,
        keys: &[K],
    ) -> Result<Vec<Option<Vec<u8>>>, StoreError> {
        let keys = self.keys(Op::GetMany, keys)?;
        self.run(Op::GetMany, self.backend.get_many(ns, keys)).await
    }

    /// Whether a live entry exists.
    pub async fn exists(&self, ns: &Namespace, key: impl AsRef<[u8]>) -> Result<bool, StoreError> {
        let key = self.key(Op::Exists, key.as_ref())?;
        self.run(Op::Exists, self.backend.exists(ns, key)).await
    }

    /// Sets an entry. With a `ttl` it expires that long from now (whole
    /// milliseconds, at least one); without, it never expires, whatever it
    /// did before.
    pub async fn set(
        &self,
        ns: &Namespace,
        key: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
        ttl: Option<Duration>,
    ) -> Result<(), StoreError> {
        let key = self.key(Op::Set, key.as_ref())?;
        let entries = vec![(key, value.as_ref().to_vec())];
        self.run(Op::Set, self.backend.set_many(ns, entries, ttl))
            .await
    }

    /// Sets several entries at once, atomically, with one `ttl`.
    pub async fn set_many<K: AsRef<[u8]>, V: AsRef<[u8]>>(
        &self,
        ns: &Namespace,
        entries: &[(K, V)],
        ttl: Option<Duration>,
    ) -> Result<(), StoreError> {
        let entries = entries
            .iter()
            .map(|(key, value)| {
                let key = self.key(Op::SetMany, key.as_ref())?;
                Ok((key, value.as_ref().to_vec()))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        self.run(Op::SetMany, self.backend.set_many(ns, entries, ttl))
            .await
    }

    /// Deletes an entry; whether a live one was there.
    pub async fn delete(&self, ns: &Namespace, key: impl AsRef<[u8]>) -> Result<bool, StoreError> {
        let key = self.key(Op::Delete, key.as_ref())?;
        let deleted = self
            .run(Op::Delete, self.backend.delete_many(ns, vec![key]))
            .await?;
        Ok(deleted > 0)
    }

    /// Deletes several entries at once, atomically; how many live ones
    /// were there.
    pub async fn delete_many<K: AsRef<[u8]>>(
        &self,
        ns: &Namespace,
        keys: &[K],
    ) -> Result<u64, StoreError> {
        let keys = self.keys(Op::DeleteMany, keys)?;
        self.run(Op::DeleteMany, self.backend.delete_many(ns, keys))
            .await
    }

    /// One page of a namespace's live keys in ascending byte order, after
    /// `after` (from the start without), at most `limit` of them (1 to
    /// [`MAX_PAGE`]; others are brought into that range).
    pub async fn list(
        &self,
        ns: &Namespace,
        after: Option<&Cursor>,
        limit: usize,
    ) -> Result<Page, StoreError> {
        let after = after.map(|cursor| cursor.as_bytes().to_vec());
        let limit = limit.clamp(1, MAX_PAGE);
        self.run(Op::List, self.backend.list(ns, after, limit))
            .await
    }

    /// Adds `delta` to a counter atomically and returns the new value. A
    /// missing entry counts as 0; the entry keeps its expiry. The value is
    /// stored as decimal text (what `get` returns).
    pub async fn increment(
        &self,
        ns: &Namespace,
        key: impl AsRef<[u8]>,
        delta: i64,
    ) -> Result<i64, StoreError> {
        let key = self.key(Op::Increment, key.as_ref())?;
        self.run(Op::Increment, self.backend.increment(ns, key, delta))
            .await
    }

    /// Sets `new` (with `ttl`, as [`Store::set`]) only if the live value is
    /// `expected` (`None`: no live entry), atomically.
    pub async fn compare_and_swap(
        &self,
        ns: &Namespace,
        key: impl AsRef<[u8]>,
        expected: Option<&[u8]>,
        new: impl AsRef<[u8]>,
        ttl: Option<Duration>,
    ) -> Result<Swap, StoreError> {
        let key = self.key(Op::CompareAndSwap, key.as_ref())?;
        let work = self.backend.compare_and_swap(
            ns,
            key,
            expected.map(<[u8]>::to_vec),
            new.as_ref().to_vec(),
            ttl,
        );
        self.run(Op::CompareAndSwap, work).await
    }

    /// A fixed-window counter for rate limits: counts `amount` hits and
    /// returns the count of the current window. A window starts with the
    /// first hit after the last one ended and lasts `window`, on the
    /// store's clock (the server's, for Redis: replicas agree).
    pub async fn count_in_window(
        &self,
        ns: &Namespace,
        key: impl AsRef<[u8]>,
        window: Duration,
        amount: u32,
    ) -> Result<Window, StoreError> {
        let key = self.key(Op::CountInWindow, key.as_ref())?;
        let work = self.backend.count_in_window(ns, key, window, amount);
        self.run(Op::CountInWindow, work).await
    }

    /// How many entries and bytes (keys and values) a namespace holds,
    /// read from counts kept on every write (no scan). Entries that expired
    /// count until they are swept (an upper bound): the embedded store
    /// sweeps every second, Redis up to 16 on each set or delete and up to
    /// 1000 on this call.
    pub async fn size(&self, ns: &Namespace) -> Result<Size, StoreError> {
        self.run(Op::Size, self.backend.size(ns)).await
    }

    /// Deletes every entry of a namespace (a session's, when it ends).
    pub async fn drop_namespace(&self, ns: &Namespace) -> Result<(), StoreError> {
        self.run(Op::DropNamespace, self.backend.drop_namespace(ns))
            .await
    }

    /// Publishes a message to a topic of a namespace, to the subscriptions
    /// open now (in every process, on Redis).
    pub async fn publish(
        &self,
        ns: &Namespace,
        topic: impl AsRef<[u8]>,
        message: impl AsRef<[u8]>,
    ) -> Result<(), StoreError> {
        let topic = self.key(Op::Publish, topic.as_ref())?;
        let work = self.backend.publish(ns, topic, message.as_ref().to_vec());
        self.run(Op::Publish, work).await
    }

    /// Subscribes to a topic of a namespace: messages published after this
    /// returns reach the subscription (see [`Subscription::next`]).
    pub async fn subscribe(
        &self,
        ns: &Namespace,
        topic: impl AsRef<[u8]>,
    ) -> Result<Subscription, StoreError> {
        let topic = self.key(Op::Subscribe, topic.as_ref())?;
        self.run(Op::Subscribe, self.backend.subscribe(ns, topic))
            .await
    }

    fn error(&self, op: Op, kind: ErrorKind) -> StoreError {
        StoreError {
            store: self.name().clone(),
            op,
            kind,
        }
    }

    fn key(&self, op: Op, key: &[u8]) -> Result<Vec<u8>, StoreError> {
        if key.len() > MAX_KEY_LEN {
            return Err(self.error(
                op,
                ErrorKind::KeyTooLong {
                    len: key.len(),
                    max: MAX_KEY_LEN,
                },
            ));
        }
        Ok(key.to_vec())
    }

    fn keys<K: AsRef<[u8]>>(&self, op: Op, keys: &[K]) -> Result<Vec<Vec<u8>>, StoreError> {
        keys.iter().map(|key| self.key(op, key.as_ref())).collect()
    }

    async fn run<T>(
        &self,
        op: Op,
        work: impl Future<Output = Result<T, ErrorKind>>,
    ) -> Result<T, StoreError> {
        match tokio::time::timeout(self.timeout, work).await {
            Ok(done) => done.map_err(|kind| self.error(op, kind)),
            Err(_) => Err(self.error(op, ErrorKind::Timeout(self.timeout))),
        }
    }
}
