//! Tests of the keyvalue capability: its policy's checks, and its
//! operations on a real embedded store (grants, namespaces, scopes,
//! quotas), as every label's host functions run them.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_wasm_host_store::Store;

use super::ops::KvError;
use super::*;
use crate::call::events::{CallEvents, NoEvents};
use crate::capabilities::{Grants, Scope};
use crate::policy::limits::Limits;
use crate::state::StateStore;

fn spec(text: &str) -> KeyvalueSpec {
    toml::from_str(text).unwrap()
}

fn policy(text: &str) -> KeyvaluePolicy {
    let spec = Some(spec(text));
    KeyvaluePolicy::check(&spec, Scope::Plugin).unwrap();
    let ctx = ResolveCtx {
        config_file: std::path::Path::new("mcp-wasm-host.toml"),
        base: std::path::Path::new("."),
        section: "plugins.p",
    };
    let grants = Grants::default();
    let others = Others::of::<KeyvaluePolicy>(&grants);
    KeyvaluePolicy::resolve(&None, Some(&spec), &ctx, &others).unwrap()
}

#[test]
fn a_policy_names_the_key_it_refuses() {
    for (text, key) in [
        (r#"buckets = [""]"#, "keyvalue.buckets[0]"),
        (r#"buckets = ["a", "a"]"#, "keyvalue.buckets[1]"),
        (r#"max_key_size = "9 KiB""#, "keyvalue.max_key_size"),
        (r#"max_value_size = "65 MiB""#, "keyvalue.max_value_size"),
        ("max_batch = 1001", "keyvalue.max_batch"),
        ("max_operations = 0", "keyvalue.max_operations"),
        ("max_keys = 0", "keyvalue.max_keys"),
    ] {
        let problem = KeyvaluePolicy::check(&Some(spec(text)), Scope::Plugin).unwrap_err();
        assert_eq!(problem.key, key, "{text}");
    }
    let long = format!("buckets = [\"{}\"]", "x".repeat(1025));
    let problem = KeyvaluePolicy::check(&Some(spec(&long)), Scope::Plugin).unwrap_err();
    assert_eq!(problem.key, "keyvalue.buckets[0]");
    assert!(
        toml::from_str::<KeyvalueSpec>("bucket = [\"a\"]").is_err(),
        "a typo is refused"
    );
    assert!(toml::from_str::<KeyvalueSpec>("scope = \"global\"").is_err());
    let defaults = KeyvaluePolicy::check(&Some(spec("buckets = [\"a\"]")), Scope::Defaults);
    assert!(defaults.is_err(), "buckets are granted per plugin");
    assert!(!KeyvaluePolicy::default().grants_any(), "deny by default");
}

/// A call of plugin `plugin` under `policy`, owned by `owner`, on `store`.
fn call(plugin: &str, policy: &KeyvaluePolicy, owner: Owner, store: &StateStore) -> KvState {
    let plugin: Arc<str> = plugin.into();
    let tool: Arc<str> = "t".into();
    let events: Arc<dyn CallEvents> = Arc::new(NoEvents);
    let grants = Arc::new(Grants::default());
    let section: Arc<str> = format!("plugins.{plugin}").into();
    let file: Arc<str> = "mcp-wasm-host.toml".into();
    KvState::new(
        policy,
        &CallCtx {
            plugin: &plugin,
            tool: &tool,
            events: &events,
            limits: &Limits::default(),
            grants: &grants,
            section: &section,
            config_file: &file,
            deadline: Instant::now() + Duration::from_secs(60),
            owner: &owner,
            store,
        },
    )
}

async fn embedded() -> (tempfile::TempDir, StateStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::embedded(dir.path()).await.unwrap();
    (dir, StateStore::new(store))
}

fn other(result: Result<impl std::fmt::Debug, KvError>) -> String {
    match result {
        Err(KvError::Other(text)) => text,
        other => panic!("expected an `other` error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_bucket_the_policy_does_not_grant_is_access_denied_naming_the_key() {
    let (_dir, store) = embedded().await;
    let mut none = call("p", &KeyvaluePolicy::default(), Owner::default(), &store);
    assert_eq!(none.open("default").unwrap_err(), KvError::AccessDenied);
    let told = none.denials.join("\n");
    assert!(
        told.contains("`plugins.p.keyvalue.buckets = [\"default\"]`"),
        "{told}"
    );

    let mut some = call("p", &policy(r#"buckets = ["a"]"#), Owner::default(), &store);
    assert!(some.open("a").is_ok());
    for name in ["b", "A", "a ", "", "../a", "*"] {
        assert_eq!(
            some.open(name).unwrap_err(),
            KvError::AccessDenied,
            "{name:?}"
        );
    }
    assert!(some.denials[0].contains("not among `plugins.p.keyvalue.buckets`"));
}

#[tokio::test]
async fn no_plugin_bucket_or_owner_name_reaches_another_ones_data() {
    let (_dir, store) = embedded().await;
    // Pairs whose naive joins (`plugin:bucket`, `plugin/bucket`) collide.
    let cases = [
        ("a:b", "c"),
        ("a", "b:c"),
        ("a", "b}c"),
        ("a}b", "c"),
        ("a%3Ab", "c"),
        ("a", "b%3Ac"),
        ("a/b", "c"),
        ("a", "b/c"),
        ("a*", "c"),
        ("a", "*"),
    ];
    for (i, (plugin, bucket)) in cases.iter().enumerate() {
        let p = policy(&format!("buckets = [{bucket:?}]"));
        let mut kv = call(plugin, &p, Owner::default(), &store);
        let b = kv.open(bucket).unwrap();
        kv.set(&b, "k", i.to_string().as_bytes()).await.unwrap();
    }
    for (i, (plugin, bucket)) in cases.iter().enumerate() {
        let p = policy(&format!("buckets = [{bucket:?}]"));
        let mut kv = call(plugin, &p, Owner::default(), &store);
        let b = kv.open(bucket).unwrap();
        assert_eq!(
            kv.get(&b, "k").await.unwrap(),
            Some(i.to_string().into_bytes())
        );
        assert_eq!(kv.list(&b, None).await.unwrap().0, vec!["k".to_string()]);
    }
}

#[tokio::test]
async fn each_session_and_each_user_has_its_own_data_and_one_without_is_denied() {
    let (_dir, store) = embedded().await;
    let sessions = policy(
        r#"buckets = ["s"]
scope = "session""#,
    );
    let (one, two) = (SessionState::new(), SessionState::new());
    let mut a = call("p", &sessions, Owner::new(Some(one.clone()), None), &store);
    let mut b = call("p", &sessions, Owner::new(Some(two), None), &store);
    let (ba, bb) = (a.open("s").unwrap(), b.open("s").unwrap());
    a.set(&ba, "k", b"one").await.unwrap();
    assert_eq!(b.get(&bb, "k").await.unwrap(), None);
    let mut stateless = call("p", &sessions, Owner::default(), &store);
    assert_eq!(stateless.open("s").unwrap_err(), KvError::AccessDenied);
    assert!(stateless.denials[0].contains("`plugins.p.keyvalue.scope` is \"session\""));

    // The session's end drops what it wrote.
    one.end();
    let mut after = call("p", &sessions, Owner::new(Some(one), None), &store);
    let b = after.open("s").unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while after.get(&b, "k").await.unwrap().is_some() {
        assert!(
            Instant::now() < deadline,
            "the ended session's data was never dropped"
        );
        tokio::task::yield_now().await;
    }

    let users = policy(
        r#"buckets = ["u"]
scope = "user""#,
    );
    let mut alice = call("p", &users, Owner::new(None, Some("alice".into())), &store);
    let mut bob = call("p", &users, Owner::new(None, Some("bob".into())), &store);
    let (ua, ub) = (alice.open("u").unwrap(), bob.open("u").unwrap());
    alice.set(&ua, "note", b"alice's").await.unwrap();
    assert_eq!(bob.get(&ub, "note").await.unwrap(), None);
    assert_eq!(bob.list(&ub, None).await.unwrap().0, Vec::<String>::new());
    let mut anonymous = call("p", &users, Owner::default(), &store);
    assert_eq!(anonymous.open("u").unwrap_err(), KvError::AccessDenied);
    assert!(anonymous.denials[0].contains("not authenticated"));
}

#[tokio::test]
async fn every_quota_is_enforced_and_named() {
    let (_dir, store) = embedded().await;
    let p = policy(
        r#"buckets = ["q"]
max_key_size = "8 B"
max_value_size = "16 B"
max_keys = 3
max_bytes = "24 B"
max_batch = 2
max_operations = 12"#,
    );
    let mut kv = call("p", &p, Owner::default(), &store);
    let b = kv.open("q").unwrap();
    let key_err = other(kv.set(&b, "123456789", b"v").await);
    assert!(
        key_err.contains("`plugins.p.keyvalue.max_key_size`"),
        "{key_err}"
    );
    let value_err = other(kv.set(&b, "k", &[b'x'; 17]).await);
    assert!(
        value_err.contains("`plugins.p.keyvalue.max_value_size`"),
        "{value_err}"
    );
    let batch = ["a".to_string(), "b".into(), "c".into()];
    let batch_err = other(kv.get_many(&b, &batch).await);
    assert!(
        batch_err.contains("`plugins.p.keyvalue.max_batch`"),
        "{batch_err}"
    );
    for k in ["a", "b", "c"] {
        kv.set(&b, k, b"1234").await.unwrap();
    }
    kv.set(&b, "a", b"12345").await.unwrap(); // a replaced key is no new key
    let keys_err = other(kv.set(&b, "d", b"1").await);
    assert!(
        keys_err.contains("`plugins.p.keyvalue.max_keys`"),
        "{keys_err}"
    );
    kv.delete(&b, "c").await.unwrap();
    let bytes_err = other(kv.set(&b, "d", &[b'x'; 16]).await);
    assert!(
        bytes_err.contains("`plugins.p.keyvalue.max_bytes`"),
        "{bytes_err}"
    );
    let mut ops = 0;
    let ops_err = loop {
        match kv.exists(&b, "a").await {
            Ok(_) => ops += 1,
            Err(e) => break other(Err::<(), _>(e)),
        }
    };
    assert!(
        ops_err.contains("`plugins.p.keyvalue.max_operations`"),
        "{ops_err}"
    );
    assert!(ops < 12);
}

#[tokio::test]
async fn without_a_store_an_operation_says_so() {
    let p = policy(r#"buckets = ["a"]"#);
    let mut kv = call("p", &p, Owner::default(), &StateStore::default());
    let b = kv.open("a").unwrap();
    let err = other(kv.get(&b, "k").await);
    assert!(err.contains("no state store"), "{err}");
    let failing = StateStore::on_first_use(|| async { Err("it is locked".to_string()) });
    let mut kv = call("p", &p, Owner::default(), &failing);
    let err = other(kv.get(&b, "k").await);
    assert!(err.contains("it is locked"), "{err}");
}

#[tokio::test]
async fn compare_and_swap_sees_a_concurrent_writer() {
    let (_dir, store) = embedded().await;
    let p = policy(r#"buckets = ["a"]"#);
    let mut kv = call("p", &p, Owner::default(), &store);
    let b = kv.open("a").unwrap();
    let cas = kv.cas(&b, "k".into()).await.unwrap();
    kv.set(&b, "k", b"theirs").await.unwrap();
    let now = kv.swap(&cas, b"mine").await.unwrap().unwrap_err();
    assert_eq!(now.current.as_deref(), Some(&b"theirs"[..]));
    assert!(kv.swap(&now, b"mine").await.unwrap().is_ok());
    assert_eq!(
        kv.get(&b, "k").await.unwrap().as_deref(),
        Some(&b"mine"[..])
    );
    assert_eq!(kv.increment(&b, "n", 2).await.unwrap(), 2);
    assert_eq!(kv.increment(&b, "n", -5).await.unwrap(), -3);
}
