//! What only the embedded store has: a file that survives reopening, held
//! by one process at a time, readable by its owner only, swept of expired
//! entries in the background.

use std::time::{Duration, Instant};

use mcp_wasm_host_store::{ErrorKind, Namespace, Op, Size, Store, StoreName};

/// Opens the store in `dir`, waiting (up to 10 s) for a closing handle's
/// last work (a sweep in flight) to let go of the file.
async fn reopen(dir: &std::path::Path) -> Store {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match Store::embedded(dir).await {
            Ok(store) => return store,
            Err(err) if Instant::now() < deadline => {
                eprintln!("not yet: {err}");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(err) => panic!("{err}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_was_written_survives_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let ns = Namespace::user("notes", "default", "alice").unwrap();
    {
        let store = Store::embedded(dir.path()).await.unwrap();
        store.set(&ns, "note-1", "buy milk", None).await.unwrap();
        store
            .set(&ns, "draft", "x", Some(Duration::from_secs(3600)))
            .await
            .unwrap();
        assert_eq!(store.increment(&ns, "count", 2).await.unwrap(), 2);
    }
    let store = reopen(dir.path()).await;
    assert_eq!(
        store.get(&ns, "note-1").await.unwrap().as_deref(),
        Some(&b"buy milk"[..])
    );
    assert!(store.exists(&ns, "draft").await.unwrap());
    assert_eq!(store.increment(&ns, "count", 1).await.unwrap(), 3);
    assert_eq!(
        store.size(&ns).await.unwrap(),
        Size {
            keys: 3,
            bytes: (6 + 8) + (5 + 1) + (5 + 1)
        }
    );
}

#[tokio::test]
async fn one_process_at_a_time_holds_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let _first = Store::embedded(dir.path()).await.unwrap();
    let err = Store::embedded(dir.path()).await.unwrap_err();
    assert_eq!(err.op, Op::Open);
    assert_eq!(
        err.store,
        StoreName::Embedded {
            path: dir.path().join("store.redb")
        }
    );
    assert!(matches!(err.kind, ErrorKind::Backend(_)), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("store.redb") && text.contains("another process"),
        "{text}"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn the_file_is_its_owners_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let _store = Store::embedded(&state).await.unwrap();
    let mode = std::fs::metadata(state.join("store.redb"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expired_entries_are_swept_from_the_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::embedded(dir.path()).await.unwrap();
    let ns = Namespace::tasks();
    store
        .set(&ns, "task-1", "done", Some(Duration::from_millis(200)))
        .await
        .unwrap();
    store.set(&ns, "task-2", "working", None).await.unwrap();
    assert_eq!(store.size(&ns).await.unwrap().keys, 2);
    let deadline = Instant::now() + Duration::from_secs(20);
    while store.size(&ns).await.unwrap().keys != 1 {
        assert!(
            Instant::now() < deadline,
            "the expired task was never swept"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        store.size(&ns).await.unwrap(),
        Size {
            keys: 1,
            bytes: 6 + 7
        }
    );
}
