//! Instances kept between calls. Three kinds, each owned by one loaded
//! generation of its plugin ([`PluginIdle`]; dropping the generation, on a
//! reload, a policy change or a removal, drops them):
//!
//! - *warm* ones, with `reuse_instances = N`: an instance that returned
//!   cleanly serves the plugin's next calls, any client's, up to N calls;
//! - *session* ones, with `reuse_instances = "session"`: an instance serves
//!   the calls of one client only ([`Session`]), and goes when that client
//!   does;
//! - *ready* ones ([`Limits::ready_instances`](super::limits::Limits)):
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

use super::sandbox::CallState;
use super::session::{Session, SessionEnds};

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
mod tests {
    use super::*;

    /// An idle "instance" that counts its drops.
    struct Probe {
        id: u32,
        drops: Arc<AtomicU64>,
    }

    impl Drop for Probe {
        fn drop(&mut self) {
            self.drops.fetch_add(1, Ordering::Relaxed);
        }
    }

    struct Fixture {
        drops: Arc<AtomicU64>,
    }

    impl Fixture {
        fn new() -> Self {
            Fixture {
                drops: Arc::default(),
            }
        }

        fn probe(&self, id: u32) -> Probe {
            Probe {
                id,
                drops: self.drops.clone(),
            }
        }

        fn dropped(&self) -> u64 {
            self.drops.load(Ordering::Relaxed)
        }
    }

    fn id(probe: Option<Probe>) -> Option<u32> {
        probe.map(|p| p.id)
    }

    #[test]
    fn a_plugin_takes_back_only_its_own_instances_newest_first() {
        let f = Fixture::new();
        let pool = Idle::new(8);
        let (a, b) = (pool.plugin(10, 4), pool.plugin(10, 4));
        a.keep(f.probe(1), 1);
        b.keep(f.probe(2), 1);
        a.keep(f.probe(3), 1);
        assert_eq!(id(a.take()), Some(3));
        assert_eq!(id(a.take()), Some(1));
        assert_eq!(id(a.take()), None);
        assert_eq!(id(b.take()), Some(2));
        assert_eq!(pool.len(), 0);
    }

    #[test]
    fn an_instance_that_served_its_calls_or_finds_no_room_is_dropped() {
        let f = Fixture::new();
        let pool = Idle::new(8);
        let a = pool.plugin(3, 2);
        a.keep(f.probe(1), 3);
        assert_eq!((pool.len(), f.dropped()), (0, 1), "served its 3 calls");
        a.keep(f.probe(2), 2);
        a.keep(f.probe(3), 1);
        a.keep(f.probe(4), 1);
        assert_eq!((pool.len(), f.dropped()), (2, 2), "the plugin keeps 2");
        let off = pool.plugin(0, 4);
        off.keep(f.probe(5), 1);
        assert_eq!((pool.len(), f.dropped()), (2, 3), "reuse off keeps none");
        assert!(off.take().is_none());
    }

    #[test]
    fn a_full_pool_drops_its_oldest_instance_to_keep_a_new_one() {
        let f = Fixture::new();
        let pool = Idle::new(2);
        let (a, b) = (pool.plugin(10, 4), pool.plugin(10, 4));
        a.keep(f.probe(1), 1);
        b.keep(f.probe(2), 1);
        b.keep(f.probe(3), 1);
        assert_eq!((pool.len(), f.dropped()), (2, 1));
        assert_eq!(id(a.take()), None, "the oldest, a's, went");
        assert!(pool.evict_oldest());
        assert_eq!(f.dropped(), 2, "b's older one went");
        assert_eq!(id(b.take()), Some(3));
        assert!(!pool.evict_oldest(), "nothing left to evict");
    }

    #[test]
    fn dropping_a_plugin_version_drops_its_idle_instances_only() {
        let f = Fixture::new();
        let pool = Idle::new(8);
        let (old, other) = (pool.plugin(10, 4), pool.plugin(10, 4));
        old.keep(f.probe(1), 1);
        other.keep(f.probe(2), 1);
        old.keep(f.probe(3), 1);
        drop(old);
        assert_eq!((pool.len(), f.dropped()), (1, 2));
        assert_eq!(id(other.take()), Some(2));
    }

    #[test]
    fn the_pool_takes_half_the_engines_slots() {
        assert_eq!(IdlePool::capacity_for(256), 128);
        assert_eq!(IdlePool::capacity_for(1), 1);
        assert_eq!(IdlePool::capacity_for(0), 1);
    }

    #[test]
    fn a_session_takes_back_only_its_own_instance_and_keeps_one_per_plugin() {
        let f = Fixture::new();
        let pool = Idle::new(8);
        let a = pool.plugin(u32::MAX, 4);
        let (s1, s2) = (Session::new(), Session::new());
        drop(a.keep_for_session(f.probe(1), 1, &s1));
        drop(a.keep_for_session(f.probe(2), 1, &s2));
        assert_eq!(
            id(a.take()),
            None,
            "a session's instance serves no one else"
        );
        assert_eq!(id(a.take_ready()), None);
        drop(a.keep_for_session(f.probe(3), 1, &s1));
        assert_eq!(f.dropped(), 1, "s1 has one already: the second is let go");
        assert_eq!(id(a.take_session(&s2)), Some(2));
        assert_eq!(id(a.take_session(&s2)), None);
        assert_eq!(id(a.take_session(&s1)), Some(1));
    }

    #[test]
    fn a_session_that_ends_drops_its_instances_only() {
        let f = Fixture::new();
        let pool = Idle::new(8);
        let (a, b) = (pool.plugin(u32::MAX, 4), pool.plugin(u32::MAX, 4));
        let (s1, s2) = (Session::new(), Session::new());
        drop(a.keep_for_session(f.probe(1), 1, &s1));
        drop(b.keep_for_session(f.probe(2), 1, &s1));
        drop(a.keep_for_session(f.probe(3), 1, &s2));
        drop(s1);
        assert_eq!((pool.len(), f.dropped()), (1, 2));
        assert_eq!(id(a.take_session(&s2)), Some(3));
    }

    #[test]
    fn a_plugins_session_instances_are_bounded_least_recently_kept_first() {
        let f = Fixture::new();
        let pool = Idle::new(8);
        let a = pool.plugin(u32::MAX, 2);
        let sessions: Vec<Session> = (0..3).map(|_| Session::new()).collect();
        for (n, s) in sessions.iter().enumerate() {
            drop(a.keep_for_session(f.probe(n as u32), 1, s));
        }
        assert_eq!((pool.len(), f.dropped()), (2, 1));
        assert_eq!(id(a.take_session(&sessions[0])), None, "the oldest went");
        assert_eq!(id(a.take_session(&sessions[2])), Some(2));
    }

    #[test]
    fn ready_instances_are_taken_once_and_never_kept_past_their_want() {
        let f = Fixture::new();
        let pool = Idle::new(8);
        let a = pool.plugin(0, 4);
        let refills = a.refills(2);
        assert_eq!(refills.len(), 2);
        assert!(a.refills(2).is_empty(), "two are being made");
        for (n, refill) in refills.into_iter().enumerate() {
            assert!(refill.wanted());
            refill.put(f.probe(n as u32));
        }
        assert_eq!(a.ready(), 2);
        assert!(a.refills(2).is_empty(), "two are ready");
        assert!(id(a.take_ready()).is_some());
        assert_eq!(a.refills(2).len(), 1);
        assert!(a.take().is_none(), "a ready instance is no warm one");
        assert!(id(a.take_ready()).is_some());
        assert_eq!(id(a.take_ready()), None, "each is taken once");
        assert_eq!(f.dropped(), 2);
    }

    #[test]
    fn a_ready_instance_made_for_a_dropped_generation_is_dropped() {
        let f = Fixture::new();
        let pool = Idle::new(8);
        let old = pool.plugin(0, 4);
        let mut refills = old.refills(2);
        let late = refills.pop().unwrap();
        refills.pop().unwrap().put(f.probe(1));
        assert_eq!(old.ready(), 1);
        drop(old);
        assert_eq!((pool.len(), f.dropped()), (0, 1), "its ready one went");
        assert!(!late.wanted());
        late.put(f.probe(2));
        assert_eq!((pool.len(), f.dropped()), (0, 2), "a late one is refused");
    }

    #[test]
    fn ready_instances_count_in_the_pool_and_never_push_out_kept_ones() {
        let f = Fixture::new();
        let pool = Idle::new(2);
        let (a, b) = (pool.plugin(10, 4), pool.plugin(0, 4));
        drop(a.keep(f.probe(1), 1));
        drop(a.keep(f.probe(2), 1));
        let refill = b.refills(1).into_iter().next().unwrap();
        refill.put(f.probe(3));
        assert_eq!((pool.len(), f.dropped()), (2, 1), "no room: dropped");
        assert!(pool.evict_oldest());
        b.refills(1).into_iter().for_each(|r| r.put(f.probe(4)));
        assert_eq!(pool.len(), 2, "a ready one takes a free place");
        drop(a.keep(f.probe(5), 1));
        assert_eq!(f.dropped(), 3, "and a kept one may push out the oldest");
    }

    #[tokio::test]
    async fn a_retired_instance_is_counted_until_it_is_gone() {
        let f = Fixture::new();
        let pool: Arc<Idle<Probe>> = Idle::new(2);
        pool.retire(f.probe(1));
        assert!(pool.in_transit());
        pool.released().await;
        assert!(!pool.in_transit());
        assert_eq!(f.dropped(), 1);
    }
}
