//! The embedded store: one redb file (`store.redb`) under the state
//! directory, with expiry swept every second and publish/subscribe within
//! the process.
//!
//! redb is pure Rust (so the static musl build needs no C toolchain), ACID
//! with a checksummed two-phase commit (a crash leaves the last commit),
//! and MVCC: reads run on a snapshot beside the one writer, whose
//! transactions make increment and compare-and-swap atomic. Each write is
//! synced before it returns; the writes waiting together share one
//! transaction and one sync (`writer.rs`). The file is locked: one process
//! at a time.

mod ops;
mod tables;
mod writer;

use std::path::Path;
use std::sync::{Arc, Weak};
use std::time::Duration;

use redb::Database;
use tokio::task::JoinHandle;

use crate::backend::{Backend, Page, Size, Swap, Window};
use crate::error::{ErrorKind, Op, StoreError, StoreName};
use crate::namespace::Namespace;
use crate::pubsub::{Hub, Subscription};

/// The store's file name in the state directory.
pub(crate) const FILE: &str = "store.redb";

/// How often expired entries are removed, and at most how many at a time.
const SWEEP_EVERY: Duration = Duration::from_secs(1);
const SWEEP_MAX: usize = 10_000;

pub(crate) struct Embedded {
    db: Arc<Database>,
    name: StoreName,
    writer: writer::Writer,
    hub: Hub,
    sweeper: JoinHandle<()>,
}

impl std::fmt::Debug for Embedded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedded")
            .field("name", &self.name)
            .finish()
    }
}

impl Drop for Embedded {
    fn drop(&mut self) {
        self.sweeper.abort();
    }
}

impl Embedded {
    pub(crate) async fn open(state_dir: &Path) -> Result<Embedded, StoreError> {
        let path = state_dir.join(FILE);
        let name = StoreName::Embedded { path: path.clone() };
        let dir = state_dir.to_path_buf();
        let opened = tokio::task::spawn_blocking(move || open_file(&dir, &path))
            .await
            .map_err(|e| ErrorKind::Backend(format!("opening failed: {e}")))
            .and_then(|opened| opened);
        let started = opened.and_then(|db| {
            let db = Arc::new(db);
            Ok((writer::Writer::start(db.clone())?, db))
        });
        let (writer, db) = match started {
            Ok(started) => started,
            Err(kind) => {
                return Err(StoreError {
                    store: name,
                    op: Op::Open,
                    kind,
                });
            }
        };
        let sweeper = tokio::spawn(sweep_forever(Arc::downgrade(&db), name.clone()));
        Ok(Embedded {
            db,
            name,
            writer,
            hub: Hub::default(),
            sweeper,
        })
    }

    /// Runs `work` on a blocking thread.
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Database) -> Result<T, ErrorKind> + Send + 'static,
    ) -> Result<T, ErrorKind> {
        let db = self.db.clone();
        tokio::task::spawn_blocking(move || work(&db))
            .await
            .map_err(|e| ErrorKind::Backend(format!("the store's worker failed: {e}")))?
    }
}

fn open_file(dir: &Path, path: &Path) -> Result<Database, ErrorKind> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    // Only its owner may list or enter a new state directory.
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir).map_err(|e| {
        ErrorKind::Backend(format!(
            "cannot create the state directory {}: {e}",
            dir.display()
        ))
    })?;
    // redb caches up to 1 GiB of the file by default: the host bounds its
    // own memory, so the cache is the store's share of it.
    let db = redb::Builder::new()
        .set_cache_size(CACHE_BYTES)
        .create(path)
        .map_err(|e| match e {
            redb::DatabaseError::DatabaseAlreadyOpen => ErrorKind::Backend(
                "another process has it open (one server per state directory)".into(),
            ),
            other => other.into(),
        })?;
    restrict(path)?;
    ops::create_tables(&db)?;
    Ok(db)
}

/// The most memory redb's page cache takes (its default is 1 GiB).
pub(crate) const CACHE_BYTES: usize = 64 * 1024 * 1024;

/// The file holds the plugins' and the users' data: its owner only.
#[cfg(unix)]
fn restrict(path: &Path) -> Result<(), ErrorKind> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| ErrorKind::Backend(format!("cannot make the file private: {e}")))
}

#[cfg(not(unix))]
fn restrict(_: &Path) -> Result<(), ErrorKind> {
    Ok(())
}

async fn sweep_forever(db: Weak<Database>, name: StoreName) {
    let mut every = tokio::time::interval(SWEEP_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        let Some(db) = db.upgrade() else {
            return;
        };
        match tokio::task::spawn_blocking(move || ops::sweep(&db, SWEEP_MAX)).await {
            Ok(Ok(_)) => {}
            Ok(Err(kind)) => {
                tracing::warn!(store = %name, "sweeping expired entries failed: {kind}")
            }
            Err(e) => tracing::warn!(store = %name, "sweeping expired entries failed: {e}"),
        }
    }
}

#[async_trait::async_trait]
impl Backend for Embedded {
    fn name(&self) -> &StoreName {
        &self.name
    }

    async fn get_many(
        &self,
        ns: &Namespace,
        keys: Vec<Vec<u8>>,
    ) -> Result<Vec<Option<Vec<u8>>>, ErrorKind> {
        let ns = ns.encoded().to_owned();
        self.blocking(move |db| ops::get_many(db, &ns, &keys)).await
    }

    async fn exists(&self, ns: &Namespace, key: Vec<u8>) -> Result<bool, ErrorKind> {
        let ns = ns.encoded().to_owned();
        self.blocking(move |db| ops::exists(db, &ns, &key)).await
    }

    async fn set_many(
        &self,
        ns: &Namespace,
        entries: Vec<(Vec<u8>, Vec<u8>)>,
        ttl: Option<Duration>,
    ) -> Result<(), ErrorKind> {
        let ns = ns.encoded().to_owned();
        self.writer
            .write(move |t| ops::set_many(t, &ns, &entries, ttl))
            .await
    }

    async fn delete_many(&self, ns: &Namespace, keys: Vec<Vec<u8>>) -> Result<u64, ErrorKind> {
        let ns = ns.encoded().to_owned();
        self.writer
            .write(move |t| ops::delete_many(t, &ns, &keys))
            .await
    }

    async fn list(
        &self,
        ns: &Namespace,
        after: Option<Vec<u8>>,
        limit: usize,
    ) -> Result<Page, ErrorKind> {
        let ns = ns.encoded().to_owned();
        self.blocking(move |db| ops::list(db, &ns, after.as_deref(), limit))
            .await
    }

    async fn increment(&self, ns: &Namespace, key: Vec<u8>, delta: i64) -> Result<i64, ErrorKind> {
        let ns = ns.encoded().to_owned();
        self.writer
            .write(move |t| ops::increment(t, &ns, &key, delta))
            .await
    }

    async fn compare_and_swap(
        &self,
        ns: &Namespace,
        key: Vec<u8>,
        expected: Option<Vec<u8>>,
        new: Vec<u8>,
        ttl: Option<Duration>,
    ) -> Result<Swap, ErrorKind> {
        let ns = ns.encoded().to_owned();
        self.writer
            .write(move |t| ops::compare_and_swap(t, &ns, &key, expected.as_deref(), &new, ttl))
            .await
    }

    async fn count_in_window(
        &self,
        ns: &Namespace,
        key: Vec<u8>,
        window: Duration,
        amount: u32,
    ) -> Result<Window, ErrorKind> {
        let ns = ns.encoded().to_owned();
        self.writer
            .write(move |t| ops::count_in_window(t, &ns, &key, window, amount))
            .await
    }

    async fn size(&self, ns: &Namespace) -> Result<Size, ErrorKind> {
        let ns = ns.encoded().to_owned();
        self.blocking(move |db| ops::size(db, &ns)).await
    }

    async fn drop_namespace(&self, ns: &Namespace) -> Result<(), ErrorKind> {
        let ns = ns.encoded().to_owned();
        self.writer
            .write(move |t| ops::drop_namespace(t, &ns))
            .await
    }

    async fn publish(
        &self,
        ns: &Namespace,
        topic: Vec<u8>,
        message: Vec<u8>,
    ) -> Result<(), ErrorKind> {
        self.hub.publish(ns.stored_key(&topic), message);
        Ok(())
    }

    async fn subscribe(&self, ns: &Namespace, topic: Vec<u8>) -> Result<Subscription, ErrorKind> {
        Ok(self.hub.subscribe(self.name.clone(), ns.stored_key(&topic)))
    }
}
