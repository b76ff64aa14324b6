//! Unit tests of `runtime::warm`.
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
