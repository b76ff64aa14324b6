//! Warm instances: with a plugin's `reuse_instances` policy, an instance
//! that returned cleanly is kept idle to serve the plugin's next calls, up
//! to that many calls, then dropped. Idle instances hold slots of the
//! engine's pooling allocator, so they are bounded twice (at most the
//! plugin's concurrency each, at most [`Idle::capacity_for`] in all) and a
//! fresh instantiation that finds the slots taken drops the oldest idle one
//! and tries again ([`IdlePool::evict_oldest`]): idle instances never keep
//! a call from running. Each belongs to one loaded generation of its plugin
//! ([`PluginIdle`]); dropping the generation (a reload, a removal) drops
//! its idle instances.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use wasmtime::Store;
use wasmtime::component::Instance;

use super::sandbox::CallState;

/// An instance and its store, between two calls.
pub(crate) struct Warm {
    /// The store, holding the instance's memory and WASI state.
    pub store: Store<CallState>,
    /// The instance.
    pub instance: Instance,
    /// The calls it has served.
    pub served: u32,
}

/// The idle instances of every plugin, oldest first (generic over what an
/// instance is, for the tests).
pub struct Idle<T = Warm> {
    idle: Mutex<VecDeque<(u64, T)>>,
    capacity: usize,
    next_key: AtomicU64,
}

/// The runtime's pool of idle warm instances.
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
    /// A pool keeping at most `capacity` idle instances in all.
    pub fn new(capacity: usize) -> Arc<Self> {
        Arc::new(Idle {
            idle: Mutex::new(VecDeque::new()),
            capacity,
            next_key: AtomicU64::new(0),
        })
    }

    /// The capacity for an engine with `slots` instance slots: half of
    /// them, so that most of the pool always goes to running calls.
    pub fn capacity_for(slots: u32) -> usize {
        (slots as usize / 2).max(1)
    }

    /// The idle instances, in all.
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<(u64, T)>> {
        self.idle.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The handle of one loaded plugin whose instances serve at most
    /// `reuse` calls each (0: one, never kept) and of which at most `keep`
    /// are idle at once.
    pub(crate) fn plugin(self: &Arc<Self>, reuse: u32, keep: usize) -> PluginIdle<T> {
        PluginIdle {
            key: self.next_key.fetch_add(1, Ordering::Relaxed),
            reuse,
            keep: keep.min(self.capacity),
            pool: self.clone(),
        }
    }

    /// Drops the oldest idle instance, freeing its slots; `false` if none
    /// is idle.
    pub(crate) fn evict_oldest(&self) -> bool {
        let evicted = self.lock().pop_front();
        // Dropped here, outside the lock: freeing an instance resets its
        // memory.
        evicted.is_some()
    }
}

/// One loaded plugin's share of the [`IdlePool`].
pub(crate) struct PluginIdle<T = Warm> {
    key: u64,
    reuse: u32,
    keep: usize,
    pool: Arc<Idle<T>>,
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
    pub(crate) fn pool(&self) -> &Idle<T> {
        &self.pool
    }

    /// Whether an instance that has served `served` calls may serve more.
    pub(crate) fn would_keep(&self, served: u32) -> bool {
        served < self.reuse
    }

    /// The plugin's most recently idle instance, if any.
    pub(crate) fn take(&self) -> Option<T> {
        if self.reuse <= 1 {
            return None;
        }
        let mut idle = self.pool.lock();
        let at = idle.iter().rposition(|(key, _)| *key == self.key)?;
        idle.remove(at).map(|(_, warm)| warm)
    }

    /// Keeps `warm`, which has just served its `served`-th call cleanly,
    /// for the next call, unless it has served its `reuse` calls or the
    /// plugin's idle instances are at their bound (then it is dropped); when
    /// the pool is at its bound, its oldest idle instance is dropped to make
    /// room.
    pub(crate) fn keep(&self, warm: T, served: u32) {
        if !self.would_keep(served) {
            return;
        }
        let mut dropped = None;
        {
            let mut idle = self.pool.lock();
            if idle.iter().filter(|(key, _)| *key == self.key).count() >= self.keep {
                dropped = Some(warm);
            } else {
                if idle.len() >= self.pool.capacity {
                    dropped = idle.pop_front().map(|(_, oldest)| oldest);
                }
                idle.push_back((self.key, warm));
            }
        }
        drop(dropped);
    }
}

impl<T> Drop for PluginIdle<T> {
    /// The plugin's generation is gone: so are its idle instances.
    fn drop(&mut self) {
        let mut mine = Vec::new();
        {
            let mut idle = self.pool.lock();
            let mut kept = VecDeque::with_capacity(idle.len());
            for (key, warm) in idle.drain(..) {
                if key == self.key {
                    mine.push(warm);
                } else {
                    kept.push_back((key, warm));
                }
            }
            *idle = kept;
        }
        drop(mine);
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
}
