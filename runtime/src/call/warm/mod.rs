//! Instances kept between calls. Three kinds, each owned by one loaded
//! generation of its plugin ([`PluginIdle`]; dropping the generation, on a
//! reload, a policy change or a removal, drops them):
//!
//! - *warm* ones, with `reuse_instances = N`: an instance that returned
//!   cleanly serves the plugin's next calls, any client's, up to N calls;
//! - *session* ones, with `reuse_instances = "session"`: an instance serves
//!   the calls of one client only ([`Session`]), and goes when that client
//!   does;
//! - *ready* ones ([`Limits::ready_instances`](crate::policy::limits::Limits)):
//!   fresh, never-used instances made ahead of time, off the call path, so
//!   that a call with a fresh instance does not wait for instantiation.
//!
//! All of them hold slots of the engine's pooling allocator, so they are
//! bounded twice (per plugin, and at most [`Idle::capacity_for`] in all),
//! and a fresh instantiation that finds the slots taken drops the oldest
//! kept one and tries again ([`IdlePool::evict_oldest`]): kept instances
//! never keep a call from running. Instances a call is done with are
//! dropped off the response path ([`Idle::retire`]), and counted until
//! they are gone, so that an instantiation that finds no free slot can
//! wait for them.

use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use tokio::sync::Notify;
use wasmtime::Store;
use wasmtime::component::Instance;

use crate::call::sandbox::CallState;
use crate::call::session::{Session, SessionEnds};

/// How long a call that found every instance slot held waits before it
/// tries again, if no instance it could be told of has been dropped.
pub(crate) const RECHECK: std::time::Duration = std::time::Duration::from_millis(5);

/// An instance and its store, between two calls.
pub(crate) struct Warm {
    /// The store, holding the instance's memory and WASI state.
    pub store: Store<CallState>,
    /// The instance.
    pub instance: Instance,
    /// The calls it has served.
    pub served: u32,
}

/// Whom a kept instance may serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Serves {
    /// Any call of its plugin (`reuse_instances = N`).
    Anyone,
    /// The calls of one session only.
    Session(u64),
    /// Any call, as a fresh instance: it has served none.
    Ready,
}

struct Entry<T> {
    plugin: u64,
    serves: Serves,
    item: T,
}

struct Kept<T> {
    /// Oldest first.
    entries: VecDeque<Entry<T>>,
    /// The plugin generations still loaded: a ready instance made for one
    /// that is gone is dropped, never kept.
    live: HashSet<u64>,
}

/// The kept instances of every plugin, oldest first (generic over what an
/// instance is, for the tests).
pub struct Idle<T = Warm> {
    kept: Mutex<Kept<T>>,
    capacity: usize,
    next_key: AtomicU64,
    /// Instances being dropped off the response path, or made ready off
    /// the call path: each holds slots it will soon free, or hand over to
    /// the pool, where a call may evict it.
    in_transit: AtomicUsize,
    landed: Notify,
}

/// The runtime's pool of kept instances.
pub type IdlePool = Idle<Warm>;

impl<T> std::fmt::Debug for Idle<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdlePool")
            .field("idle", &self.len())
            .field("capacity", &self.capacity)
            .finish()
    }
}

impl<T> Idle<T> {
    /// A pool keeping at most `capacity` instances in all.
    pub fn new(capacity: usize) -> Arc<Self> {
        Arc::new(Idle {
            kept: Mutex::new(Kept {
                entries: VecDeque::new(),
                live: HashSet::new(),
            }),
            capacity,
            next_key: AtomicU64::new(0),
            in_transit: AtomicUsize::new(0),
            landed: Notify::new(),
        })
    }

    /// The capacity for an engine with `slots` instance slots: half of
    /// them, so that most of the pool always goes to running calls.
    pub fn capacity_for(slots: u32) -> usize {
        (slots as usize / 2).max(1)
    }

    /// The kept instances, in all.
    pub(crate) fn len(&self) -> usize {
        self.lock().entries.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept<T>> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The handle of one loaded plugin whose instances serve at most
    /// `reuse` calls each (0: one, never kept) and of which at most `keep`
    /// are kept at once.
    pub(crate) fn plugin(self: &Arc<Self>, reuse: u32, keep: usize) -> PluginIdle<T> {
        let key = self.next_key.fetch_add(1, Ordering::Relaxed);
        self.lock().live.insert(key);
        PluginIdle {
            key,
            reuse,
            keep: keep.min(self.capacity),
            pool: self.clone(),
            refilling: Arc::default(),
        }
    }

    /// Drops the oldest kept instance, freeing its slots; `false` if none
    /// is kept.
    pub(crate) fn evict_oldest(&self) -> bool {
        let evicted = self.lock().entries.pop_front();
        // Dropped here, outside the lock: freeing an instance resets its
        // memory.
        evicted.is_some()
    }

    /// Whether an instance is being dropped off the response path (its
    /// slots will be free soon) or made ready (it will soon be kept, where
    /// a call may evict it, or dropped).
    pub(crate) fn in_transit(&self) -> bool {
        self.in_transit.load(Ordering::Acquire) > 0
    }

    /// Waits until an instance may have given its slots back: one in
    /// transit ([`Idle::in_transit`]) lands, or, with none in transit,
    /// another lands or [`RECHECK`] passes (not every instance's end is
    /// announced: a load's listing instance, a cancelled call's). For a
    /// call that found every slot held.
    pub(crate) async fn released(&self) {
        let notified = self.landed.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if self.in_transit() {
            notified.await;
        } else {
            let _ = tokio::time::timeout(RECHECK, notified).await;
        }
    }

    fn depart(&self) {
        self.in_transit.fetch_add(1, Ordering::AcqRel);
    }

    fn land(&self) {
        self.in_transit.fetch_sub(1, Ordering::AcqRel);
        self.landed.notify_waiters();
    }

    fn drop_session(&self, session: u64) {
        let mine: VecDeque<Entry<T>> = {
            let mut kept = self.lock();
            let (mine, others) = kept
                .entries
                .drain(..)
                .partition(|e| e.serves == Serves::Session(session));
            kept.entries = others;
            mine
        };
        drop(mine);
    }
}

impl<T> Idle<T> {
    /// Drops `item`, an instance a call is done with (or several), on another task, so
    /// that freeing it (resetting its memory, releasing its slots) is off
    /// the path of the call's response. Until it is gone it counts as in
    /// transit ([`Idle::landed`]). Outside a tokio runtime it is dropped
    /// here.
    pub(crate) fn retire<U: Send + 'static>(self: &Arc<Self>, item: U)
    where
        T: Send + 'static,
    {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return drop(item);
        };
        self.depart();
        let pool = self.clone();
        runtime.spawn(async move {
            drop(item);
            pool.land();
        });
    }
}

/// One loaded plugin's share of the [`IdlePool`].
pub(crate) struct PluginIdle<T = Warm> {
    key: u64,
    reuse: u32,
    keep: usize,
    pool: Arc<Idle<T>>,
    /// Ready instances being made.
    refilling: Arc<AtomicU32>,
}

impl<T> std::fmt::Debug for PluginIdle<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginIdle")
            .field("reuse", &self.reuse)
            .field("keep", &self.keep)
            .finish_non_exhaustive()
    }
}

impl<T> PluginIdle<T> {
    /// The runtime-wide pool.
    pub(crate) fn pool(&self) -> &Arc<Idle<T>> {
        &self.pool
    }

    /// Whether an instance that has served `served` calls may serve more.
    pub(crate) fn would_keep(&self, served: u32) -> bool {
        served < self.reuse
    }

    fn take_where(&self, serves: Serves) -> Option<T> {
        let mut kept = self.pool.lock();
        let at = kept
            .entries
            .iter()
            .rposition(|e| e.plugin == self.key && e.serves == serves)?;
        kept.entries.remove(at).map(|e| e.item)
    }

    /// The plugin's most recently idle instance that serves anyone, if any.
    pub(crate) fn take(&self) -> Option<T> {
        if self.reuse <= 1 {
            return None;
        }
        self.take_where(Serves::Anyone)
    }

    /// The plugin's instance that serves `session`, if one is kept.
    pub(crate) fn take_session(&self, session: &Session) -> Option<T> {
        self.take_where(Serves::Session(session.id()))
    }

    /// The plugin's ready instances.
    pub(crate) fn ready(&self) -> usize {
        let kept = self.pool.lock();
        kept.entries
            .iter()
            .filter(|e| e.plugin == self.key && e.serves == Serves::Ready)
            .count()
    }

    /// One of the plugin's ready instances (fresh, never used), if any.
    pub(crate) fn take_ready(&self) -> Option<T> {
        self.take_where(Serves::Ready)
    }

    /// Keeps `warm`, which has just served its `served`-th call cleanly,
    /// for the next call, unless it has served its `reuse` calls or the
    /// plugin's idle instances are at their bound (then it is let go); when
    /// the pool is at its bound, its oldest kept instance is let go to make
    /// room. Returns the instances it let go.
    pub(crate) fn keep(&self, warm: T, served: u32) -> Vec<T> {
        if !self.would_keep(served) {
            return vec![warm];
        }
        let mut dropped = None;
        {
            let mut kept = self.pool.lock();
            let mine = kept
                .entries
                .iter()
                .filter(|e| e.plugin == self.key && e.serves == Serves::Anyone)
                .count();
            if mine >= self.keep {
                dropped = Some(warm);
            } else {
                if kept.entries.len() >= self.pool.capacity {
                    dropped = kept.entries.pop_front().map(|e| e.item);
                }
                kept.entries.push_back(Entry {
                    plugin: self.key,
                    serves: Serves::Anyone,
                    item: warm,
                });
            }
        }
        dropped.into_iter().collect()
    }

    /// Keeps `warm`, which has just served its `served`-th call cleanly, for
    /// `session`'s next call of the plugin, and for no one else's. A session
    /// keeps at most one instance of a plugin: if it already has one (two
    /// of its calls ran at once), `warm` is dropped. When the plugin's
    /// session instances are at its bound, or the pool at its bound, the
    /// least recently kept one goes to make room. Returns the instances it
    /// let go.
    pub(crate) fn keep_for_session(&self, warm: T, served: u32, session: &Session) -> Vec<T>
    where
        T: Send + 'static,
    {
        if !self.would_keep(served) {
            return vec![warm];
        }
        session.joined(self.pool.clone());
        let serves = Serves::Session(session.id());
        let mut dropped = Vec::new();
        {
            let mut kept = self.pool.lock();
            if kept
                .entries
                .iter()
                .any(|e| e.plugin == self.key && e.serves == serves)
            {
                dropped.push(warm);
            } else {
                let plugin_sessions =
                    |e: &Entry<T>| e.plugin == self.key && matches!(e.serves, Serves::Session(_));
                if kept.entries.iter().filter(|e| plugin_sessions(e)).count() >= self.keep
                    && let Some(at) = kept.entries.iter().position(plugin_sessions)
                {
                    dropped.extend(kept.entries.remove(at).map(|e| e.item));
                }
                if kept.entries.len() >= self.pool.capacity {
                    dropped.extend(kept.entries.pop_front().map(|e| e.item));
                }
                kept.entries.push_back(Entry {
                    plugin: self.key,
                    serves,
                    item: warm,
                });
            }
        }
        dropped
    }

    /// How many ready instances to start making so that the plugin has
    /// `want` ready or being made; they count as being made from now until
    /// each is handed to its [`Refill::put`].
    pub(crate) fn refills(&self, want: u32) -> Vec<Refill<T>> {
        let ready = self.ready();
        let making = self.refilling.load(Ordering::Acquire) as usize;
        let missing = (want as usize).saturating_sub(ready + making);
        (0..missing)
            .map(|_| {
                self.refilling.fetch_add(1, Ordering::AcqRel);
                self.pool.depart();
                Refill {
                    plugin: self.key,
                    pool: Arc::downgrade(&self.pool),
                    refilling: self.refilling.clone(),
                    want: want as usize,
                }
            })
            .collect()
    }
}

/// The right to add one ready instance to a plugin's share of the pool,
/// held while it is made off the call path.
pub(crate) struct Refill<T = Warm> {
    plugin: u64,
    pool: Weak<Idle<T>>,
    refilling: Arc<AtomicU32>,
    want: usize,
}

impl<T> Refill<T> {
    /// Whether the plugin generation it is for is still loaded (making an
    /// instance for one that is gone is wasted).
    pub(crate) fn wanted(&self) -> bool {
        self.pool
            .upgrade()
            .is_some_and(|pool| pool.lock().live.contains(&self.plugin))
    }

    /// Keeps `item`, a fresh instance that has served no call, as one of
    /// the plugin's ready instances; dropped instead if the plugin
    /// generation is gone, it has its ready instances already, or the pool
    /// is full (a ready instance never pushes out a kept one).
    pub(crate) fn put(self, item: T) {
        let Some(pool) = self.pool.upgrade() else {
            return;
        };
        let refused = {
            let mut kept = pool.lock();
            let ready = kept
                .entries
                .iter()
                .filter(|e| e.plugin == self.plugin && e.serves == Serves::Ready)
                .count();
            if !kept.live.contains(&self.plugin)
                || ready >= self.want
                || kept.entries.len() >= pool.capacity
            {
                Some(item)
            } else {
                kept.entries.push_back(Entry {
                    plugin: self.plugin,
                    serves: Serves::Ready,
                    item,
                });
                None
            }
        };
        drop(refused);
    }
}

impl<T> Drop for Refill<T> {
    fn drop(&mut self) {
        self.refilling.fetch_sub(1, Ordering::AcqRel);
        if let Some(pool) = self.pool.upgrade() {
            pool.land();
        }
    }
}

impl<T> Drop for PluginIdle<T> {
    /// The plugin's generation is gone: so are its kept instances, and a
    /// ready one still being made is dropped when it is done.
    fn drop(&mut self) {
        let mine: VecDeque<Entry<T>> = {
            let mut kept = self.pool.lock();
            kept.live.remove(&self.key);
            let (mine, others) = kept.entries.drain(..).partition(|e| e.plugin == self.key);
            kept.entries = others;
            mine
        };
        drop(mine);
    }
}

impl<T: Send> SessionEnds for Idle<T> {
    fn end_session(&self, session: u64) {
        self.drop_session(session);
    }
}

#[cfg(test)]
mod tests;
