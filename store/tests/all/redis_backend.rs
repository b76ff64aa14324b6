//! What only the Redis backend has: a server that goes away mid-use and
//! comes back, a password that logs in and shows nowhere, and a layout of
//! a few keys per namespace that no operation scans the keyspace for.

use std::time::{Duration, Instant};

use futures::future::join_all;
use mcp_wasm_host_store::{ErrorKind, Namespace, Op, Password, RedisConfig, Store, StoreError};

use crate::server::Server;

/// How long past its timeout an operation may still end and pass: a bound
/// that only an operation which never ends (no timeout at all) can cross,
/// not a measure of how quickly it ends, which a loaded machine stretches.
const SLACK: Duration = Duration::from_secs(30);

/// Asserts a failure names the Redis store on `port` and the operation,
/// and says the store could not answer.
fn assert_clear(err: &StoreError, op: Op, port: u16) {
    assert_eq!(err.op, op, "{err}");
    let text = err.to_string();
    assert!(
        text.starts_with(&format!(
            "{op} on the redis store at 127.0.0.1:{port} failed: "
        )),
        "{text}"
    );
    assert!(
        matches!(err.kind, ErrorKind::Timeout(_) | ErrorKind::Unavailable(_)),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_stops_fails_operations_within_their_timeout_then_recovers() {
    let Some(mut server) = Server::start().await else {
        return;
    };
    let port = server.port();
    let timeout = Duration::from_millis(1000);
    let store = server.store().with_timeout(timeout);
    let ns = Namespace::plugin("counter", "default").unwrap();
    store.set(&ns, "k", "before", None).await.unwrap();
    let mut subscription = store.subscribe(&ns, "changes").await.unwrap();

    // Stopped while 16 increments are in flight: each ends, done or
    // failed, within its timeout.
    let started = Instant::now();
    let in_flight = join_all((0..16).map(|_| store.increment(&ns, "n", 1)));
    let (results, ()) = tokio::join!(in_flight, server.kill());
    assert!(
        started.elapsed() < timeout + SLACK,
        "{:?}",
        started.elapsed()
    );
    for result in results {
        if let Err(err) = result {
            assert_clear(&err, Op::Increment, port);
        }
    }

    // While it is down, every operation fails clearly, in time.
    for op in [Op::Get, Op::Set, Op::CompareAndSwap, Op::List, Op::Publish] {
        let started = Instant::now();
        let err = match op {
            Op::Get => store.get(&ns, "k").await.map(drop),
            Op::Set => store.set(&ns, "k", "v", None).await,
            Op::CompareAndSwap => store
                .compare_and_swap(&ns, "k", None, "v", None)
                .await
                .map(drop),
            Op::List => store.list(&ns, None, 10).await.map(drop),
            _ => store.publish(&ns, "changes", "lost").await,
        }
        .unwrap_err();
        assert!(
            started.elapsed() < timeout + SLACK,
            "{op}: {:?}",
            started.elapsed()
        );
        assert_clear(&err, op, port);
    }
    // The subscription says it may have missed messages.
    let gap = tokio::time::timeout(Duration::from_secs(10), subscription.next())
        .await
        .expect("the subscription reports the lost connection")
        .expect("the subscription is open")
        .unwrap_err();
    assert_eq!(gap.op, Op::Receive);
    assert!(matches!(gap.kind, ErrorKind::MissedMessages(_)), "{gap}");

    // Back: operations succeed again (the server kept nothing: no
    // persistence), and so does the subscription.
    server.restart().await;
    let deadline = Instant::now() + Duration::from_secs(20);
    while let Err(err) = store.set(&ns, "k", "after", None).await {
        assert!(Instant::now() < deadline, "never recovered: {err}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        store.get(&ns, "k").await.unwrap().as_deref(),
        Some(&b"after"[..])
    );
    assert_eq!(store.increment(&ns, "n", 1).await.unwrap(), 1);
    loop {
        store.publish(&ns, "changes", "again").await.unwrap();
        match tokio::time::timeout(Duration::from_millis(200), subscription.next()).await {
            Ok(Some(Ok(message))) => {
                assert_eq!(message, b"again");
                break;
            }
            Ok(other) => panic!("{other:?}"),
            Err(_) => assert!(Instant::now() < deadline, "the subscription never resumed"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_server_times_out_then_answers_again() {
    let Some(server) = Server::start().await else {
        return;
    };
    let timeout = Duration::from_millis(500);
    let store = server.store().with_timeout(timeout);
    let ns = Namespace::plugin("slow", "default").unwrap();
    store.set(&ns, "k", "v", None).await.unwrap();
    server.signal("STOP");
    for op in [Op::Get, Op::Increment] {
        let started = Instant::now();
        let err = match op {
            Op::Get => store.get(&ns, "k").await.map(drop),
            _ => store.increment(&ns, "n", 1).await.map(drop),
        }
        .unwrap_err();
        let took = started.elapsed();
        assert!(took >= timeout && took < timeout + SLACK, "{op}: {took:?}");
        assert_eq!(err.kind, ErrorKind::Timeout(timeout), "{err}");
        assert_clear(&err, op, server.port());
    }
    server.signal("CONT");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        match store.get(&ns, "k").await {
            Ok(value) => {
                assert_eq!(value.as_deref(), Some(&b"v"[..]));
                break;
            }
            Err(err) => assert!(Instant::now() < deadline, "never answered again: {err}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_logs_in_and_shows_nowhere() {
    let secret = "s3cret-Pa55-for-the-test";
    let Some(server) = Server::start_with(Some(secret)).await else {
        return;
    };
    let ns = Namespace::plugin("p", "b").unwrap();
    let store = server.store();
    store.set(&ns, "k", "v", None).await.unwrap();
    assert!(!format!("{store:?}").contains(secret));

    let wrong = "wrong-Pa55-for-the-test";
    let config = RedisConfig::new("127.0.0.1", server.port()).password(Password::new(wrong));
    assert!(!format!("{config:?}").contains(wrong));
    let store = Store::redis(config)
        .unwrap()
        .with_timeout(Duration::from_secs(3));
    let err = store.get(&ns, "k").await.unwrap_err();
    let text = err.to_string();
    assert!(!text.contains(wrong) && !text.contains(secret), "{text}");
    assert!(
        text.starts_with("get on the redis store at 127.0.0.1:"),
        "{text}"
    );
    assert!(!format!("{err:?}").contains(wrong));

    let anonymous = Store::redis(RedisConfig::new("127.0.0.1", server.port()))
        .unwrap()
        .with_timeout(Duration::from_secs(3));
    let err = anonymous.get(&ns, "k").await.unwrap_err();
    assert!(!err.to_string().contains(secret), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_namespace_is_four_keys_and_nothing_scans_the_keyspace() {
    let Some(server) = Server::start().await else {
        return;
    };
    let client = redis::Client::open(format!("redis://127.0.0.1:{}/", server.port())).unwrap();
    let mut admin = client.get_multiplexed_async_connection().await.unwrap();
    let store = server.store();
    let ns = Namespace::plugin("a:b", "*").unwrap();
    store
        .set(&ns, "k", "v", Some(Duration::from_secs(60)))
        .await
        .unwrap();
    store.set(&ns, "k2", "v", None).await.unwrap();
    redis::cmd("CONFIG")
        .arg(&["RESETSTAT"])
        .exec_async(&mut admin)
        .await
        .unwrap();
    for n in 0..50 {
        store.set(&ns, format!("key-{n}"), "v", None).await.unwrap();
    }
    let mut cursor = None;
    loop {
        let page = store.list(&ns, cursor.as_ref(), 7).await.unwrap();
        match page.next {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    store.size(&ns).await.unwrap();
    store.get_many(&ns, &["k", "k2"]).await.unwrap();
    store.delete_many(&ns, &["k2", "key-1"]).await.unwrap();
    store.increment(&ns, "n", 1).await.unwrap();
    let stats: String = redis::cmd("INFO")
        .arg("commandstats")
        .query_async(&mut admin)
        .await
        .unwrap();
    for scan in [
        "cmdstat_keys:",
        "cmdstat_scan:",
        "cmdstat_hscan:",
        "cmdstat_hgetall:",
    ] {
        assert!(!stats.contains(scan), "{scan} ran:\n{stats}");
    }
    assert!(stats.contains("cmdstat_evalsha:"), "{stats}");
    // The test may scan; the store never does.
    let mut keys: Vec<String> = redis::cmd("KEYS")
        .arg("*")
        .query_async(&mut admin)
        .await
        .unwrap();
    keys.sort();
    assert_eq!(
        keys,
        [
            "mwh1{p:a%3Ab:%2A}b",
            "mwh1{p:a%3Ab:%2A}h",
            "mwh1{p:a%3Ab:%2A}i",
            "mwh1{p:a%3Ab:%2A}x"
        ]
    );
    store.drop_namespace(&ns).await.unwrap();
    let left: Vec<String> = redis::cmd("KEYS")
        .arg("*")
        .query_async(&mut admin)
        .await
        .unwrap();
    assert!(left.is_empty(), "{left:?}");
}

/// `Store::follow` hears each message, is told of the gap when the server
/// goes away, and hears messages again once it is back, without its
/// caller doing anything.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_follower_hears_the_gap_of_a_restart_and_follows_again() {
    use mcp_wasm_host_store::Heard;
    let Some(mut server) = Server::start().await else {
        return;
    };
    let store = server.store().with_timeout(Duration::from_millis(1000));
    let ns = Namespace::plugin("follow", "default").unwrap();
    let (sender, mut heard) = tokio::sync::mpsc::unbounded_channel::<Result<Vec<u8>, String>>();
    let follower = {
        let store = store.clone();
        let ns = ns.clone();
        tokio::spawn(async move {
            store
                .follow(&ns, b"changes", "the test's topic", |heard| {
                    let _ = sender.send(match heard {
                        Heard::Message(bytes) => Ok(bytes.to_vec()),
                        Heard::Gap(e) => Err(e.to_string()),
                    });
                })
                .await
        })
    };
    // publish_until_heard(MESSAGE): publishes until the follower hears it
    // (it subscribes in its own time); what it hears is in order.
    async fn publish_until_heard(
        store: &Store,
        ns: &Namespace,
        heard: &mut tokio::sync::mpsc::UnboundedReceiver<Result<Vec<u8>, String>>,
        message: &[u8],
    ) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let _ = store.publish(ns, "changes", message).await;
            match tokio::time::timeout(Duration::from_millis(200), heard.recv()).await {
                Ok(Some(Ok(got))) if got == message => return,
                Ok(Some(Ok(got))) => panic!("heard {got:?} before {message:?}"),
                Ok(Some(Err(gap))) => panic!("a gap before {message:?}: {gap}"),
                Ok(None) => panic!("the follower stopped"),
                Err(_) => assert!(Instant::now() < deadline, "never heard {message:?}"),
            }
        }
    }
    publish_until_heard(&store, &ns, &mut heard, b"first").await;

    server.kill().await;
    let gap = tokio::time::timeout(Duration::from_secs(10), heard.recv())
        .await
        .expect("the follower is told of the gap")
        .expect("the follower runs");
    assert!(gap.is_err(), "{gap:?}");

    server.restart().await;
    // Whatever it was told while the server was down (more gaps), the next
    // message it hears is the one published once it is back.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let _ = store.publish(&ns, "changes", "again").await;
        match tokio::time::timeout(Duration::from_millis(200), heard.recv()).await {
            Ok(Some(Ok(got))) => {
                assert_eq!(got, b"again");
                break;
            }
            Ok(Some(Err(_))) | Err(_) => {
                assert!(
                    Instant::now() < deadline,
                    "the follower never followed again"
                )
            }
            Ok(None) => panic!("the follower stopped"),
        }
    }
    assert!(!follower.is_finished());
    follower.abort();
}
