//! The conformance suite: the same assertions against every backend
//! (`main.rs` runs each case on the embedded store and on a real
//! redis-server). Waits are on state (an entry gone, a message come),
//! polled, never a fixed sleep.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use mcp_wasm_host_store::{
    Cursor, ErrorKind, MAX_KEY_LEN, Namespace, Op, Size, Store, Swap, Window,
};

fn plugin(plugin: &str, bucket: &str) -> Namespace {
    Namespace::plugin(plugin, bucket).unwrap()
}

/// Polls until `key` has no live entry, for up to 20 s.
async fn until_gone(store: &Store, ns: &Namespace, key: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while store.exists(ns, key).await.unwrap() {
        assert!(Instant::now() < deadline, "{key} still there after 20 s");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

async fn get(store: &Store, ns: &Namespace, key: &str) -> Option<String> {
    let value = store.get(ns, key).await.unwrap()?;
    Some(String::from_utf8(value).unwrap())
}

async fn all_keys(store: &Store, ns: &Namespace, limit: usize) -> Vec<Vec<u8>> {
    let mut keys = Vec::new();
    let mut cursor: Option<Cursor> = None;
    loop {
        let page = store.list(ns, cursor.as_ref(), limit).await.unwrap();
        assert!(page.keys.len() <= limit);
        keys.extend(page.keys);
        match page.next {
            Some(next) => cursor = Some(next),
            None => return keys,
        }
    }
}

pub async fn values(store: &Store) {
    let ns = plugin("values", "default");
    assert_eq!(get(store, &ns, "k").await, None);
    assert!(!store.exists(&ns, "k").await.unwrap());
    store.set(&ns, "k", "v1", None).await.unwrap();
    assert_eq!(get(store, &ns, "k").await.as_deref(), Some("v1"));
    assert!(store.exists(&ns, "k").await.unwrap());
    store.set(&ns, "k", "", None).await.unwrap();
    assert_eq!(get(store, &ns, "k").await.as_deref(), Some(""));
    assert!(store.exists(&ns, "k").await.unwrap());
    store.set(&ns, "", "the empty key", None).await.unwrap();
    assert_eq!(get(store, &ns, "").await.as_deref(), Some("the empty key"));
    let odd_key = [0u8, 255, b'}', b'*', b'%', b':'];
    let odd_value = [255u8, 0, 1, b'\n'];
    store.set(&ns, odd_key, odd_value, None).await.unwrap();
    assert_eq!(
        store.get(&ns, odd_key).await.unwrap().as_deref(),
        Some(&odd_value[..])
    );
    assert!(store.delete(&ns, "k").await.unwrap());
    assert!(!store.delete(&ns, "k").await.unwrap());
    assert_eq!(get(store, &ns, "k").await, None);
    assert!(!store.exists(&ns, "k").await.unwrap());
}

pub async fn expiry(store: &Store) {
    let ns = plugin("expiry", "default");
    // Long enough that a busy machine reads the entry before it expires.
    let short = Some(Duration::from_secs(3));
    store.set(&ns, "brief", "1", short).await.unwrap();
    store.set(&ns, "kept", "2", short).await.unwrap();
    // Set again without a time to live: it no longer expires.
    store.set(&ns, "kept", "3", None).await.unwrap();
    store
        .set(&ns, "long", "4", Some(Duration::from_secs(3600)))
        .await
        .unwrap();
    assert_eq!(get(store, &ns, "brief").await.as_deref(), Some("1"));
    until_gone(store, &ns, "brief").await;
    assert_eq!(get(store, &ns, "brief").await, None);
    assert_eq!(get(store, &ns, "kept").await.as_deref(), Some("3"));
    assert_eq!(get(store, &ns, "long").await.as_deref(), Some("4"));
    assert_eq!(
        all_keys(store, &ns, 10).await,
        [b"kept".to_vec(), b"long".to_vec()]
    );
    assert_eq!(store.get_many(&ns, &[b"brief"]).await.unwrap(), [None]);
    // Deleting an expired entry finds nothing live.
    assert!(!store.delete(&ns, "brief").await.unwrap());
    // An expired entry is absent for the atomic operations too.
    store.set(&ns, "n", "41", short).await.unwrap();
    until_gone(store, &ns, "n").await;
    assert_eq!(store.increment(&ns, "n", 1).await.unwrap(), 1);
    store.set(&ns, "c", "old", short).await.unwrap();
    until_gone(store, &ns, "c").await;
    let swap = store
        .compare_and_swap(&ns, "c", None, "new", None)
        .await
        .unwrap();
    assert_eq!(swap, Swap::Swapped);
}

pub async fn listing(store: &Store) {
    let ns = plugin("listing", "default");
    let empty = store.list(&ns, None, 10).await.unwrap();
    assert!(empty.keys.is_empty() && empty.next.is_none(), "{empty:?}");
    let names: Vec<String> = (0..25).rev().map(|n| format!("k{n:02}")).collect();
    for name in &names {
        store.set(&ns, name, "v", None).await.unwrap();
    }
    let first = store.list(&ns, None, 10).await.unwrap();
    assert_eq!(first.keys.len(), 10);
    let second = store.list(&ns, first.next.as_ref(), 10).await.unwrap();
    assert_eq!(second.keys.len(), 10);
    let third = store.list(&ns, second.next.as_ref(), 10).await.unwrap();
    assert_eq!(third.keys.len(), 5);
    assert_eq!(third.next, None);
    let listed: Vec<Vec<u8>> = [first.keys, second.keys, third.keys].concat();
    let mut sorted: Vec<Vec<u8>> = names.iter().map(|n| n.as_bytes().to_vec()).collect();
    sorted.sort();
    assert_eq!(listed, sorted, "every key once, in byte order");
    // A page of exactly the remaining keys says there is no more.
    let exact = store.list(&ns, None, 25).await.unwrap();
    assert_eq!((exact.keys.len(), exact.next), (25, None));
    // A limit of 0 is brought to 1.
    assert_eq!(store.list(&ns, None, 0).await.unwrap().keys, [b"k00"]);
    // The cursor's own key may go: the listing continues after it.
    let page = store.list(&ns, None, 3).await.unwrap();
    assert!(store.delete(&ns, "k02").await.unwrap());
    let rest = store.list(&ns, page.next.as_ref(), 2).await.unwrap();
    assert_eq!(rest.keys, [b"k03", b"k04"]);
    // Cursors can be handed out as bytes and taken back.
    let again = Cursor::from_bytes(page.next.unwrap().as_bytes().to_vec());
    assert_eq!(
        store.list(&ns, Some(&again), 1).await.unwrap().keys,
        [b"k03"]
    );
}

pub async fn counters(store: &Store) {
    let ns = plugin("counters", "default");
    assert_eq!(store.increment(&ns, "n", 5).await.unwrap(), 5);
    assert_eq!(store.increment(&ns, "n", -7).await.unwrap(), -2);
    assert_eq!(get(store, &ns, "n").await.as_deref(), Some("-2"));
    store.set(&ns, "text", "abc", None).await.unwrap();
    let err = store.increment(&ns, "text", 1).await.unwrap_err();
    assert_eq!((err.op, err.kind), (Op::Increment, ErrorKind::NotAnInteger));
    assert_eq!(get(store, &ns, "text").await.as_deref(), Some("abc"));
    for not_canonical in ["007", "+5", " 5", "-0", ""] {
        store.set(&ns, "odd", not_canonical, None).await.unwrap();
        let err = store.increment(&ns, "odd", 1).await.unwrap_err();
        assert_eq!(err.kind, ErrorKind::NotAnInteger, "{not_canonical:?}");
    }
    store
        .set(&ns, "big", i64::MAX.to_string(), None)
        .await
        .unwrap();
    let err = store.increment(&ns, "big", 1).await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Overflow);
    assert_eq!(store.increment(&ns, "big", -1).await.unwrap(), i64::MAX - 1);
    store.set(&ns, "small", "-9", None).await.unwrap();
    assert_eq!(
        store.increment(&ns, "small", i64::MIN + 9).await.unwrap(),
        i64::MIN
    );
}

pub async fn concurrent_increments(store: &Store) {
    let ns = plugin("concurrent", "default");
    // Increments that fail (not an integer) run among the others and
    // change nothing of theirs.
    store.set(&ns, "text", "abc", None).await.unwrap();
    let failing: Vec<_> = (0..16)
        .map(|_| {
            let (store, ns) = (store.clone(), ns.clone());
            tokio::spawn(async move { store.increment(&ns, "text", 1).await.unwrap_err().kind })
        })
        .collect();
    let tasks: Vec<_> = (0..16)
        .map(|_| {
            let (store, ns) = (store.clone(), ns.clone());
            tokio::spawn(async move {
                let mut seen = Vec::new();
                for _ in 0..10 {
                    seen.push(store.increment(&ns, "n", 1).await.unwrap());
                }
                seen
            })
        })
        .collect();
    let mut seen = BTreeSet::new();
    for task in tasks {
        for value in task.await.unwrap() {
            assert!(seen.insert(value), "{value} returned twice");
        }
    }
    assert_eq!(seen, (1..=160).collect::<BTreeSet<i64>>());
    assert_eq!(get(store, &ns, "n").await.as_deref(), Some("160"));
    for task in failing {
        assert_eq!(task.await.unwrap(), ErrorKind::NotAnInteger);
    }
    assert_eq!(get(store, &ns, "text").await.as_deref(), Some("abc"));
}

pub async fn compare_and_swap(store: &Store) {
    let ns = plugin("cas", "default");
    let cas = |expected: Option<&'static str>, new: &'static str| {
        let (store, ns) = (store.clone(), ns.clone());
        async move {
            store
                .compare_and_swap(&ns, "k", expected.map(str::as_bytes), new, None)
                .await
                .unwrap()
        }
    };
    let conflict = |current: Option<&str>| Swap::Conflict {
        current: current.map(|c| c.as_bytes().to_vec()),
    };
    assert_eq!(cas(None, "1").await, Swap::Swapped);
    assert_eq!(cas(None, "x").await, conflict(Some("1")));
    assert_eq!(cas(Some("1"), "2").await, Swap::Swapped);
    assert_eq!(cas(Some("1"), "3").await, conflict(Some("2")));
    assert_eq!(cas(Some(""), "3").await, conflict(Some("2")));
    assert_eq!(get(store, &ns, "k").await.as_deref(), Some("2"));
    assert!(store.delete(&ns, "k").await.unwrap());
    assert_eq!(cas(Some("2"), "4").await, conflict(None));
    // The empty value is a value, not an absence.
    assert_eq!(cas(None, "").await, Swap::Swapped);
    assert_eq!(cas(None, "5").await, conflict(Some("")));
    assert_eq!(cas(Some(""), "6").await, Swap::Swapped);
    // A swap sets the time to live it is given.
    let swapped = store
        .compare_and_swap(
            &ns,
            "lease",
            None,
            "owner-a",
            Some(Duration::from_millis(1500)),
        )
        .await
        .unwrap();
    assert_eq!(swapped, Swap::Swapped);
    until_gone(store, &ns, "lease").await;
}

pub async fn compare_and_swap_races(store: &Store) {
    let ns = plugin("cas-races", "default");
    store.set(&ns, "n", "0", None).await.unwrap();
    let tasks: Vec<_> = (0..16)
        .map(|_| {
            let (store, ns) = (store.clone(), ns.clone());
            tokio::spawn(async move {
                let (mut swaps, mut conflicts) = (0, 0);
                while swaps < 5 {
                    let current = store.get(&ns, "n").await.unwrap().unwrap();
                    let n: u64 = String::from_utf8(current.clone()).unwrap().parse().unwrap();
                    let next = (n + 1).to_string();
                    match store
                        .compare_and_swap(&ns, "n", Some(current.as_slice()), next, None)
                        .await
                        .unwrap()
                    {
                        Swap::Swapped => swaps += 1,
                        Swap::Conflict { current } => {
                            assert!(current.is_some());
                            conflicts += 1;
                        }
                    }
                }
                conflicts
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    assert_eq!(get(store, &ns, "n").await.as_deref(), Some("80"));
}

pub async fn batches(store: &Store) {
    let ns = plugin("batches", "default");
    store
        .set_many(&ns, &[(b"a", b"1"), (b"b", b"2"), (b"c", b"3")], None)
        .await
        .unwrap();
    let values = store.get_many(&ns, &[b"a", b"x", b"c"]).await.unwrap();
    assert_eq!(values, [Some(b"1".to_vec()), None, Some(b"3".to_vec())]);
    assert_eq!(
        store.delete_many(&ns, &[b"a", b"x", b"b"]).await.unwrap(),
        2
    );
    let values = store.get_many(&ns, &[b"a", b"b", b"c"]).await.unwrap();
    assert_eq!(values, [None, None, Some(b"3".to_vec())]);
    let none: &[&[u8]] = &[];
    assert!(store.get_many(&ns, none).await.unwrap().is_empty());
    let no_entries: &[(&[u8], &[u8])] = &[];
    store.set_many(&ns, no_entries, None).await.unwrap();
    assert_eq!(store.delete_many(&ns, none).await.unwrap(), 0);
    // The same key twice in one batch: the last value wins.
    store
        .set_many(&ns, &[("d", "first"), ("d", "last")], None)
        .await
        .unwrap();
    assert_eq!(get(store, &ns, "d").await.as_deref(), Some("last"));
    assert_eq!(
        store.size(&ns).await.unwrap(),
        Size {
            keys: 2,
            bytes: 2 + 5
        }
    );
}

pub async fn window(store: &Store) {
    let ns = Namespace::limits();
    let span = Duration::from_secs(3);
    for expected in 1..=5 {
        let Window { count, resets_in } =
            store.count_in_window(&ns, "tool:x", span, 1).await.unwrap();
        assert_eq!(count, expected);
        assert!(
            resets_in <= span && resets_in > Duration::ZERO,
            "{resets_in:?}"
        );
    }
    let Window { count, .. } = store
        .count_in_window(&ns, "tool:x", span, 10)
        .await
        .unwrap();
    assert_eq!(count, 15);
    // Another key has its own window.
    let other = store.count_in_window(&ns, "tool:y", span, 1).await.unwrap();
    assert_eq!(other.count, 1);
    until_gone(store, &ns, "tool:x").await;
    let fresh = store.count_in_window(&ns, "tool:x", span, 1).await.unwrap();
    assert_eq!(fresh.count, 1);
    store.set(&ns, "text", "abc", None).await.unwrap();
    let err = store
        .count_in_window(&ns, "text", span, 1)
        .await
        .unwrap_err();
    assert_eq!(
        (err.op, err.kind),
        (Op::CountInWindow, ErrorKind::NotAnInteger)
    );
}

pub async fn sizes(store: &Store) {
    let ns = plugin("sizes", "default");
    let size = |keys, bytes| Size { keys, bytes };
    assert_eq!(store.size(&ns).await.unwrap(), size(0, 0));
    store.set(&ns, "ab", "123", None).await.unwrap();
    assert_eq!(store.size(&ns).await.unwrap(), size(1, 5));
    store.set(&ns, "ab", "1", None).await.unwrap();
    assert_eq!(store.size(&ns).await.unwrap(), size(1, 3));
    store.set(&ns, "c", "", None).await.unwrap();
    assert_eq!(store.size(&ns).await.unwrap(), size(2, 4));
    assert_eq!(store.increment(&ns, "n", 10).await.unwrap(), 10);
    assert_eq!(store.size(&ns).await.unwrap(), size(3, 7));
    assert_eq!(store.increment(&ns, "n", 90).await.unwrap(), 100);
    assert_eq!(store.size(&ns).await.unwrap(), size(3, 8));
    assert!(store.delete(&ns, "ab").await.unwrap());
    assert_eq!(store.size(&ns).await.unwrap(), size(2, 5));
    store.drop_namespace(&ns).await.unwrap();
    assert_eq!(store.size(&ns).await.unwrap(), size(0, 0));
}

/// Namespaces a naive encoding (names joined by `:`, say) would confuse.
fn lookalikes() -> Vec<Namespace> {
    vec![
        Namespace::plugin("a:b", "c").unwrap(),
        Namespace::plugin("a", "b:c").unwrap(),
        Namespace::plugin("a}b", "c").unwrap(),
        Namespace::plugin("a", "b}c").unwrap(),
        Namespace::plugin("a%3Ab", "c").unwrap(),
        Namespace::plugin("*", "*").unwrap(),
        Namespace::plugin("a", "[bc]").unwrap(),
        Namespace::plugin("a", "?").unwrap(),
        Namespace::plugin("", "").unwrap(),
        Namespace::plugin("", "\u{0}").unwrap(),
        Namespace::plugin("é", "").unwrap(),
        Namespace::session("a", "b", "c").unwrap(),
        Namespace::user("a", "b", "c").unwrap(),
        Namespace::plugin("a", "b").unwrap(),
        Namespace::tasks(),
        Namespace::sessions(),
    ]
}

pub async fn isolation(store: &Store) {
    let all = lookalikes();
    for (n, ns) in all.iter().enumerate() {
        store.set(ns, "k", n.to_string(), None).await.unwrap();
        store.set(ns, format!("own-{n}"), "", None).await.unwrap();
        // Keys that spell another namespace's layout.
        store.set(ns, "c}k", "x", None).await.unwrap();
    }
    for (n, ns) in all.iter().enumerate() {
        assert_eq!(get(store, ns, "k").await, Some(n.to_string()), "{ns:?}");
        let keys = all_keys(store, ns, 2).await;
        let own = format!("own-{n}").into_bytes();
        assert_eq!(keys, [b"c}k".to_vec(), b"k".to_vec(), own], "{ns:?}");
        assert_eq!(store.size(ns).await.unwrap().keys, 3, "{ns:?}");
    }
    store.drop_namespace(&all[0]).await.unwrap();
    assert!(all_keys(store, &all[0], 10).await.is_empty());
    for (n, ns) in all.iter().enumerate().skip(1) {
        assert_eq!(get(store, ns, "k").await, Some(n.to_string()), "{ns:?}");
    }
}

pub async fn publish_subscribe(store: &Store) {
    let ns = Namespace::notifications();
    let elsewhere = Namespace::tasks();
    let mut first = store.subscribe(&ns, "list-changed").await.unwrap();
    let mut second = store.subscribe(&ns, "list-changed").await.unwrap();
    let mut other_topic = store.subscribe(&ns, "task-status").await.unwrap();
    let mut other_ns = store.subscribe(&elsewhere, "list-changed").await.unwrap();
    store.publish(&ns, "list-changed", "tools").await.unwrap();
    store.publish(&ns, "task-status", "t1").await.unwrap();
    store
        .publish(&elsewhere, "list-changed", "x")
        .await
        .unwrap();
    for (subscription, expected) in [
        (&mut first, "tools"),
        (&mut second, "tools"),
        (&mut other_topic, "t1"),
        (&mut other_ns, "x"),
    ] {
        let message = tokio::time::timeout(Duration::from_secs(10), subscription.next())
            .await
            .expect("a message within 10 s")
            .expect("the subscription is open")
            .unwrap();
        assert_eq!(message, expected.as_bytes());
    }
    // Messages keep their order, and a dropped subscriber does not stop
    // the others.
    drop(second);
    for n in 0..20 {
        store
            .publish(&ns, "list-changed", n.to_string())
            .await
            .unwrap();
    }
    for n in 0..20 {
        let message = first.next().await.unwrap().unwrap();
        assert_eq!(message, n.to_string().as_bytes());
    }
}

pub async fn key_limits(store: &Store) {
    let ns = plugin("limits", "default");
    let long = vec![b'k'; MAX_KEY_LEN + 1];
    let err = store.get(&ns, &long).await.unwrap_err();
    assert_eq!(err.op, Op::Get);
    assert!(matches!(err.kind, ErrorKind::KeyTooLong { .. }), "{err}");
    assert!(
        err.to_string()
            .starts_with(&format!("get on the {} failed: ", store.name())),
        "{err}"
    );
    let err = store
        .set_many(&ns, &[(&b"k"[..], &b"v"[..]), (&long[..], &b"v"[..])], None)
        .await
        .unwrap_err();
    assert_eq!(err.op, Op::SetMany);
    assert_eq!(
        get(store, &ns, "k").await,
        None,
        "nothing of a refused batch is written"
    );
    store.set(&ns, &long[1..], "fits", None).await.unwrap();
    assert_eq!(
        store.get(&ns, &long[1..]).await.unwrap().as_deref(),
        Some(&b"fits"[..])
    );
}
