//! Resource subscriptions: the URIs a client watches, and
//! `notifications/resources/updated` for each of them when the plugin that
//! serves it is reloaded, replaced or removed (a plugin's resources can only
//! change with its file). Up to 2025-11-25 a session subscribes with
//! `resources/subscribe`; at 2026-07-28 a `subscriptions/listen` stream
//! names its URIs (`resourceSubscriptions`).
//!
//! Everything here is bounded by `[server]` keys ([`ServedBounds`]): the
//! length of one URI, the URIs one session or stream watches, the bytes
//! every watched URI of the server holds together, and the listen streams
//! open at once. Finding which plugin serves each watched URI, after every
//! change of the catalog, runs on the blocking pool.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rmcp::RoleServer;
use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::Peer;
use tokio_util::sync::{CancellationToken, DropGuard};

use super::audience::Audience;
use super::fanout::{Notices, Transition};
use super::shared_state::{SharedState, StateStore, store_failed};
pub use crate::config::ServedBounds;
use crate::runtime::store::StoreError;
use crate::runtime::units::bytes;
use crate::runtime::{Runtime, Sha256Digest};

/// The largest `_meta` a `subscriptions/listen` request may carry: rmcp
/// keeps the request's `_meta` for as long as the stream is open, so a
/// larger one is refused rather than held for hours.
pub const MAX_LISTEN_META_BYTES: usize = 64 << 10;

/// What one watched URI costs besides its bytes (its map entry and string
/// header), counted against `max_watched_size`.
pub const ENTRY_OVERHEAD: usize = 64;

/// Why a URI, a subscription or a listen stream is refused; each names the
/// `[server]` key that raises its bound.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// A URI longer than `max_uri_size`.
    #[error(
        "the URI is {len} bytes, over the limit of {} (`[server] max_uri_size`)",
        bytes(*max as u64)
    )]
    UriTooLong {
        /// Its length in bytes.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// More URIs than `max_subscriptions` for one session or stream.
    #[error(
        "{what} may watch at most {max} resources (`[server] max_subscriptions`); it asked for {asked}"
    )]
    TooManyUris {
        /// "this session" or "a listen stream".
        what: &'static str,
        /// How many it would watch.
        asked: usize,
        /// The limit.
        max: usize,
    },
    /// The server's watched URIs fill `max_watched_size`.
    #[error(
        "the URIs every client watches fill the server's limit of {} (`[server] max_watched_size`); try again when some subscriptions have ended",
        bytes(*max as u64)
    )]
    Full {
        /// The limit in bytes.
        max: usize,
    },
    /// A listen request's `_meta` over [`MAX_LISTEN_META_BYTES`].
    #[error(
        "the request's _meta is {len} bytes; a subscriptions/listen stream keeps at most {}",
        bytes(*max as u64)
    )]
    MetaTooLarge {
        /// Its size as JSON.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// As many listen streams as `max_listen_streams` are open.
    #[error(
        "the server has its maximum of {max} subscriptions/listen streams open (`[server] max_listen_streams`); try again when one has closed"
    )]
    TooManyStreams {
        /// The limit.
        max: usize,
    },
}

/// Why a subscription was not made: refused, or the replicas' shared
/// store failed.
#[derive(Debug, thiserror::Error)]
pub enum Failed {
    /// Over a bound.
    #[error(transparent)]
    Refused(#[from] Refused),
    /// The session's shared state could not be written.
    #[error("the session's shared subscriptions cannot be saved: {0}")]
    Store(StoreError),
}

impl From<Failed> for rmcp::ErrorData {
    fn from(failed: Failed) -> Self {
        match failed {
            Failed::Refused(refused) => refused.into(),
            Failed::Store(e) => store_failed(&e),
        }
    }
}

/// The JSON-RPC error of a refusal: a URI or list over its bound is the
/// request's (`-32602`); a full server is the server's (`-32603`).
impl From<Refused> for rmcp::ErrorData {
    fn from(refused: Refused) -> Self {
        match refused {
            Refused::UriTooLong { .. }
            | Refused::TooManyUris { .. }
            | Refused::MetaTooLarge { .. } => {
                rmcp::ErrorData::invalid_params(refused.to_string(), None)
            }
            Refused::Full { .. } | Refused::TooManyStreams { .. } => {
                rmcp::ErrorData::internal_error(refused.to_string(), None)
            }
        }
    }
}

impl ServedBounds {
    /// Refuses a URI longer than `max_uri_size`.
    pub fn check_uri(&self, uri: &str) -> Result<(), Refused> {
        if uri.len() > self.max_uri_bytes {
            return Err(Refused::UriTooLong {
                len: uri.len(),
                max: self.max_uri_bytes,
            });
        }
        Ok(())
    }
}

/// What the server's watched URIs and listen streams hold, against their
/// bounds. Cheap to clone; clones share the counts.
#[derive(Debug, Clone)]
pub struct WatchBudget {
    bounds: ServedBounds,
    bytes: Arc<AtomicUsize>,
    streams: Arc<AtomicUsize>,
}

impl WatchBudget {
    /// An empty budget under `bounds`.
    pub fn new(bounds: ServedBounds) -> Self {
        WatchBudget {
            bounds,
            bytes: Arc::default(),
            streams: Arc::default(),
        }
    }

    /// The bounds.
    pub fn bounds(&self) -> &ServedBounds {
        &self.bounds
    }

    /// Takes `n` bytes, or says the budget is full.
    fn take(&self, n: usize) -> Result<(), Refused> {
        let max = self.bounds.max_watched_bytes;
        self.bytes
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
                held.checked_add(n).filter(|&total| total <= max)
            })
            .map(drop)
            .map_err(|_| Refused::Full { max })
    }

    fn give_back(&self, n: usize) {
        self.bytes.fetch_sub(n, Ordering::AcqRel);
    }

    /// Counts one more open listen stream until the guard is dropped, or
    /// says the server has its maximum open.
    pub fn open_stream(&self) -> Result<StreamGuard, Refused> {
        let max = self.bounds.max_listen_streams;
        self.streams
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |open| {
                (open < max).then_some(open + 1)
            })
            .map_err(|_| Refused::TooManyStreams { max })?;
        let open = self.streams.load(Ordering::Acquire);
        tracing::info!("a subscriptions/listen stream opened; {open} open");
        Ok(StreamGuard(self.streams.clone()))
    }

    /// The bytes the watched URIs hold now, and the open streams.
    pub fn held(&self) -> (usize, usize) {
        (
            self.bytes.load(Ordering::Acquire),
            self.streams.load(Ordering::Acquire),
        )
    }
}

/// One open listen stream, counted until dropped.
#[derive(Debug)]
pub struct StreamGuard(Arc<AtomicUsize>);

impl Drop for StreamGuard {
    fn drop(&mut self) {
        let open = self.0.fetch_sub(1, Ordering::AcqRel) - 1;
        tracing::info!("a subscriptions/listen stream closed; {open} open");
        crate::memory::release_soon();
    }
}

/// Watched URIs, each with the version of the plugin that served it when
/// last seen; their bytes are held in the server's [`WatchBudget`] until
/// they are removed or this is dropped.
#[derive(Debug)]
pub struct Watched {
    uris: HashMap<String, Option<Sha256Digest>>,
    budget: WatchBudget,
    /// "this session" or "a listen stream", for refusals.
    what: &'static str,
    /// Plugin versions another replica was heard to stop serving (at most
    /// [`RETIRED`]): a replica that still serves one has not applied the
    /// change yet, and its serving it is no news to the client.
    retired: VecDeque<Sha256Digest>,
}

/// How many retired plugin versions a watcher remembers.
const RETIRED: usize = 64;

/// The digest of the plugin serving `uri` now, if any.
fn server_of(runtime: &Runtime, uri: &str) -> Option<Sha256Digest> {
    runtime.catalog().resource_plugin(uri).map(|p| p.digest)
}

impl Watched {
    /// Nothing watched yet, for `what` ("this session", "a listen stream").
    pub fn new(budget: WatchBudget, what: &'static str) -> Self {
        Watched {
            uris: HashMap::new(),
            budget,
            what,
            retired: VecDeque::new(),
        }
    }

    /// Watches every URI of `uris` (not yet served by anything: the first
    /// [`Watched::refresh`] notes who serves them), or refuses the whole
    /// list and watches nothing.
    pub fn with_all(
        budget: WatchBudget,
        what: &'static str,
        uris: &[String],
    ) -> Result<Self, Refused> {
        let bounds = budget.bounds().clone();
        if uris.len() > bounds.max_subscriptions {
            return Err(Refused::TooManyUris {
                what,
                asked: uris.len(),
                max: bounds.max_subscriptions,
            });
        }
        let mut watched = Watched::new(budget, what);
        for uri in uris {
            watched.add(uri, None)?;
        }
        Ok(watched)
    }

    /// Watches `uri`, served now by `server`; refused when the URI is too
    /// long, the session or stream watches the most it may, or the server's
    /// budget is full.
    pub fn add(&mut self, uri: &str, server: Option<Sha256Digest>) -> Result<(), Refused> {
        let bounds = self.budget.bounds();
        bounds.check_uri(uri)?;
        if let Some(seen) = self.uris.get_mut(uri) {
            *seen = server;
            return Ok(());
        }
        if self.uris.len() >= bounds.max_subscriptions {
            return Err(Refused::TooManyUris {
                what: self.what,
                asked: self.uris.len() + 1,
                max: bounds.max_subscriptions,
            });
        }
        self.budget.take(uri.len() + ENTRY_OVERHEAD)?;
        self.uris.insert(uri.to_owned(), server);
        Ok(())
    }

    /// Stops watching `uri`.
    pub fn remove(&mut self, uri: &str) {
        if self.uris.remove(uri).is_some() {
            self.budget.give_back(uri.len() + ENTRY_OVERHEAD);
        }
        if self.uris.is_empty() {
            // Return the table's memory too.
            self.uris.shrink_to_fit();
        }
    }

    /// How many URIs are watched.
    pub fn len(&self) -> usize {
        self.uris.len()
    }

    /// Whether nothing is watched.
    pub fn is_empty(&self) -> bool {
        self.uris.is_empty()
    }

    /// The watched URIs whose serving plugin changed since last seen.
    /// A URI this replica still serves from a version another replica
    /// stopped serving is not one: this replica lags behind a change the
    /// client was told of. Matches every watched URI: call it off the
    /// async workers ([`refresh`]).
    pub fn updated(&mut self, runtime: &Runtime) -> Vec<String> {
        let mut updated = Vec::new();
        for (uri, seen) in &mut self.uris {
            let now = server_of(runtime, uri);
            let lags = now.is_some_and(|d| self.retired.contains(&d));
            if now != *seen && !lags {
                *seen = now;
                updated.push(uri.clone());
            }
        }
        updated.sort();
        updated
    }

    /// The watched URIs served by a plugin version another replica
    /// stopped serving (`transitions`); each is noted as served by the
    /// version that replica serves now, so that this replica's own reload
    /// to that version, later, is not announced again.
    pub fn moved(&mut self, transitions: &[Transition]) -> Vec<String> {
        for t in transitions {
            if let Some(to) = t.to {
                // Served again (a rollback): news again when it comes back.
                self.retired.retain(|d| *d != to);
            }
            if !self.retired.contains(&t.from) {
                if self.retired.len() >= RETIRED {
                    self.retired.pop_front();
                }
                self.retired.push_back(t.from);
            }
        }
        let mut updated = Vec::new();
        for (uri, seen) in &mut self.uris {
            let Some(at) = *seen else { continue };
            if let Some(t) = transitions.iter().find(|t| t.from == at) {
                *seen = t.to;
                updated.push(uri.clone());
            }
        }
        updated.sort();
        updated
    }
}

impl Watched {
    /// Takes the session's shared subscriptions (`uris`, each with the
    /// hex digest of the plugin that served it when subscribed): a URI
    /// subscribed through another replica is watched from the version it
    /// was subscribed at; one unsubscribed there is dropped. A URI over a
    /// bound is skipped (it was checked where it was subscribed).
    pub fn sync(&mut self, uris: &std::collections::BTreeMap<String, Option<String>>) {
        let gone: Vec<String> = self
            .uris
            .keys()
            .filter(|u| !uris.contains_key(*u))
            .cloned()
            .collect();
        for uri in gone {
            self.remove(&uri);
        }
        for (uri, digest) in uris {
            if self.uris.contains_key(uri) {
                continue;
            }
            let server = digest
                .as_deref()
                .and_then(|d| Sha256Digest::from_hex(d).ok());
            if let Err(e) = self.add(uri, server) {
                tracing::debug!("a subscription of another replica is not watched here: {e}");
            }
        }
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        let held: usize = self.uris.keys().map(|u| u.len() + ENTRY_OVERHEAD).sum();
        self.budget.give_back(held);
    }
}

/// [`Watched::updated`] on the blocking pool: matching many long URIs
/// against many templates must not hold an async worker.
pub async fn refresh(watched: &Arc<Mutex<Watched>>, runtime: &Arc<Runtime>) -> Vec<String> {
    let (watched, runtime) = (watched.clone(), runtime.clone());
    tokio::task::spawn_blocking(move || {
        watched
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .updated(&runtime)
    })
    .await
    .unwrap_or_default()
}

/// The watched URIs to announce as updated after a change: those whose
/// plugin version another replica stopped serving since `cursor`
/// ([`Watched::moved`]), then those whose plugin changed here
/// ([`refresh`]; not to a version another replica stopped serving, which
/// this replica serves only because it has not applied that change yet).
pub async fn changed_uris(
    watched: &Arc<Mutex<Watched>>,
    runtime: &Arc<Runtime>,
    notices: &Notices,
    cursor: &mut u64,
) -> Vec<String> {
    let heard = notices.heard(cursor);
    let mut updated = if heard.is_empty() {
        Vec::new()
    } else {
        watched
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .moved(&heard)
    };
    updated.extend(refresh(watched, runtime).await);
    updated.sort();
    updated.dedup();
    updated
}

/// One session's `resources/subscribe` subscriptions. Cheap to clone;
/// clones share them.
#[derive(Debug, Clone)]
pub struct Subscriptions {
    watched: Arc<Mutex<Watched>>,
    /// Ends the notifying task when the last clone is dropped (the
    /// session's handler is gone): a task that only looked when the
    /// plugins changed would otherwise outlive its session, holding its
    /// peer, as long as they never did.
    watcher: Arc<OnceLock<DropGuard>>,
    /// The session's state shared by the replicas, if it has one.
    link: Arc<OnceLock<Arc<dyn StateStore>>>,
    /// Who may hear of which URI (the session's profiles).
    audience: Audience,
}

impl Subscriptions {
    /// No subscriptions yet; they will count against `budget`, and be
    /// told to `audience` only.
    pub fn new(budget: WatchBudget, audience: Audience) -> Self {
        Subscriptions {
            watched: Arc::new(Mutex::new(Watched::new(budget, "this session"))),
            watcher: Arc::default(),
            link: Arc::default(),
            audience,
        }
    }

    /// Who the session's notifications are for.
    pub fn audience(&self) -> &Audience {
        &self.audience
    }

    /// Links the session to its state shared by the replicas, and starts
    /// the task that notifies it: a subscription made through another
    /// replica reaches this copy when the next change comes.
    pub fn link(
        &self,
        store: Arc<dyn StateStore>,
        runtime: &Arc<Runtime>,
        notices: &Notices,
        peer: Peer<RoleServer>,
    ) {
        self.adopt(Some(store));
        self.watch(runtime, notices, peer);
    }

    /// Keeps `store` as the session's shared state if none is kept yet.
    /// Each request of a shared session carries it, so that a subscription
    /// is shared even when it comes before `notifications/initialized`
    /// was handled here (rmcp handles that notification concurrently with
    /// the request after it, as a takeover does).
    fn adopt(&self, store: Option<Arc<dyn StateStore>>) {
        if let Some(store) = store {
            let _ = self.link.set(store);
        }
    }

    /// The session's shared state, if it has one.
    pub fn shared(&self) -> Option<&Arc<dyn StateStore>> {
        self.link.get()
    }

    /// Subscribes the session of `peer` to `uri`, here and, for a session
    /// the replicas share (`store`, the request's link), on every replica;
    /// the first subscription starts the task that notifies it.
    pub async fn subscribe(
        &self,
        runtime: &Arc<Runtime>,
        notices: &Notices,
        peer: Peer<RoleServer>,
        uri: &str,
        store: Option<Arc<dyn StateStore>>,
    ) -> Result<(), Failed> {
        self.adopt(store);
        self.watched
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .budget
            .bounds()
            .check_uri(uri)?;
        let server = runtime.resource_plugin(uri).await.map(|p| p.digest);
        self.watched
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .add(uri, server)?;
        // Whether the URI is in view now, so that its going away is told
        // only if it was.
        self.audience.hears(&runtime.catalog(), uri);
        self.watch(runtime, notices, peer);
        if let Some(store) = self.link.get() {
            let digest = server.map(|d| hex::encode(d.0));
            let uri = uri.to_owned();
            let edit = move |state: &mut SharedState| {
                state.uris.insert(uri.clone(), digest.clone());
            };
            store.update(&edit).await.map_err(Failed::Store)?;
        }
        Ok(())
    }

    /// Starts (once) the task that notifies the session of `peer` when
    /// the plugin serving a watched URI changes.
    fn watch(&self, runtime: &Arc<Runtime>, notices: &Notices, peer: Peer<RoleServer>) {
        self.watcher.get_or_init(|| {
            // The task holds the URIs weakly: when the session's handler is
            // dropped, they go back to the budget at once.
            let (watched, runtime) = (Arc::downgrade(&self.watched), runtime.clone());
            let notices = notices.clone();
            // Read at each change: a takeover's link may come after.
            let link = self.link.clone();
            let audience = self.audience.clone();
            let mut changes = notices.subscribe();
            changes.mark_unchanged();
            let mut cursor = notices.cursor();
            let ended = CancellationToken::new();
            let session_ended = ended.clone();
            tokio::spawn(async move {
                loop {
                    tokio::select! {
                        () = session_ended.cancelled() => break,
                        changed = changes.changed() => if changed.is_err() { break },
                    }
                    if peer.is_transport_closed() {
                        break;
                    }
                    let Some(watched) = watched.upgrade() else {
                        break;
                    };
                    if let Some(link) = link.get() {
                        match link.load().await {
                            Ok(Some(state)) => {
                                watched
                                    .lock()
                                    .unwrap_or_else(PoisonError::into_inner)
                                    .sync(&state.uris);
                                // Unsubscribed through another replica:
                                // no longer judged here either.
                                audience.retain(|uri| state.uris.contains_key(uri));
                            }
                            Ok(None) => break,
                            Err(e) => tracing::warn!(
                                "cannot read the session's shared subscriptions; notifying those this replica knows: {e}"
                            ),
                        }
                    }
                    let updated = changed_uris(&watched, &runtime, &notices, &mut cursor).await;
                    let catalog = runtime.catalog();
                    for uri in updated.into_iter().filter(|u| audience.hears(&catalog, u)) {
                        tracing::debug!(%uri, "a subscribed resource's plugin changed");
                        let param = ResourceUpdatedNotificationParam::new(uri);
                        if let Err(e) = peer.notify_resource_updated(param).await {
                            tracing::debug!("cannot send notifications/resources/updated: {e}");
                        }
                    }
                }
            });
            ended.drop_guard()
        });
    }

    /// Unsubscribes the session from `uri`, here and, for a session the
    /// replicas share (`store`, the request's link), on every replica.
    pub async fn unsubscribe(
        &self,
        uri: &str,
        store: Option<Arc<dyn StateStore>>,
    ) -> Result<(), Failed> {
        self.adopt(store);
        self.watched
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(uri);
        self.audience.forget(uri);
        if let Some(store) = self.link.get() {
            let uri = uri.to_owned();
            let edit = move |state: &mut SharedState| {
                state.uris.remove(&uri);
            };
            store.update(&edit).await.map_err(Failed::Store)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(max_subscriptions: usize, max_watched_bytes: usize) -> WatchBudget {
        WatchBudget::new(ServedBounds {
            max_uri_bytes: 100,
            max_subscriptions,
            max_watched_bytes,
            max_listen_streams: 2,
        })
    }

    #[test]
    fn each_bound_refuses_with_its_key_and_nothing_is_kept_from_a_refused_list() {
        let b = budget(3, 10 * (ENTRY_OVERHEAD + 10));
        let uri = |i: usize| format!("a://{i:06}");
        let mut one = Watched::new(b.clone(), "this session");
        let long = format!("a://{}", "x".repeat(100));
        let e = one.add(&long, None).unwrap_err();
        assert!(e.to_string().contains("`[server] max_uri_size`"), "{e}");
        for i in 0..3 {
            one.add(&uri(i), None).unwrap();
        }
        // The same URI again costs nothing more.
        one.add(&uri(0), None).unwrap();
        let e = one.add(&uri(3), None).unwrap_err();
        assert!(
            e.to_string().contains("`[server] max_subscriptions`"),
            "{e}"
        );
        assert_eq!(b.held().0, 3 * (ENTRY_OVERHEAD + 10));

        let four: Vec<String> = (0..4).map(uri).collect();
        let e = Watched::with_all(b.clone(), "a listen stream", &four).unwrap_err();
        assert!(matches!(e, Refused::TooManyUris { asked: 4, .. }), "{e}");
        assert_eq!(b.held().0, 3 * (ENTRY_OVERHEAD + 10), "nothing kept");

        // The server-wide budget: 10 entries fit, the 11th does not.
        let mut others = Vec::new();
        for s in 0..3 {
            let list: Vec<String> = (0..3).map(|i| uri(10 * s + i + 100)).collect();
            match Watched::with_all(b.clone(), "a listen stream", &list) {
                Ok(w) => others.push(w),
                Err(e) => {
                    assert!(e.to_string().contains("`[server] max_watched_size`"), "{e}");
                    assert_eq!(s, 2);
                }
            }
        }
        assert_eq!(others.len(), 2);
        assert_eq!(b.held().0, 9 * (ENTRY_OVERHEAD + 10));
        // Everything comes back when the watchers go.
        one.remove(&uri(0));
        assert_eq!(b.held().0, 8 * (ENTRY_OVERHEAD + 10));
        drop((one, others));
        assert_eq!(b.held().0, 0);
    }

    #[test]
    fn listen_streams_are_counted_until_they_close() {
        let b = budget(1, 1000);
        let first = b.open_stream().unwrap();
        let second = b.open_stream().unwrap();
        let e = b.open_stream().unwrap_err();
        assert!(
            e.to_string().contains("`[server] max_listen_streams`"),
            "{e}"
        );
        drop(first);
        let third = b.open_stream().unwrap();
        drop((second, third));
        assert_eq!(b.held().1, 0);
    }
}
