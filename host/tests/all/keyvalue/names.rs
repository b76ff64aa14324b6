//! The host builds the namespace: no bucket or key name a guest picks
//! (separators, escapes, glob characters, empty or over-long names) reaches
//! another plugin's data, or another bucket's of the same plugin.

use serde_json::{Value, json};

use super::{KVNOTES, serve_in, value};

/// Bucket names that are granted to both plugins: each holds a separator a
/// naive `plugin:bucket:key` or `plugin/bucket/key` layout would split on.
const GRANTED: [&str; 4] = ["default", "a", "a:b", "a/b"];

/// Bucket names no policy granted: opening each is denied.
fn ungranted() -> Vec<String> {
    vec![
        "../x".into(),
        "../bob/default".into(),
        "*".into(),
        "".into(),
        "default/..".into(),
        "default\0".into(),
        "b".repeat(2000),
    ]
}

/// Keys that try to leave their bucket or plugin.
fn tricky_keys() -> Vec<String> {
    vec![
        "k".into(),
        "../bob/default/k".into(),
        "../../bob/default/k".into(),
        "bob:default:k".into(),
        ":k".into(),
        "/k".into(),
        "b:c".into(),
        "b/c".into(),
        "*".into(),
        "?".into(),
        "[a-z]*".into(),
        "%2e%2e%2fk".into(),
        "\\k".into(),
        "".into(),
        "k\0".into(),
        "k".repeat(2000),
    ]
}

#[test]
fn no_bucket_or_key_name_reaches_another_plugins_data_or_another_bucket() {
    // One server, two plugins built from the same component ("alice" and
    // "bob"), each granted the same bucket names.
    let dir = tempfile::tempdir().unwrap();
    let mut components = Vec::new();
    for name in ["alice", "bob"] {
        let path = dir.path().join(format!("{name}.wasm"));
        std::fs::copy(KVNOTES, &path).unwrap();
        components.push(path.to_str().unwrap().to_string());
    }
    let buckets = serde_json::to_string(&GRANTED).unwrap();
    let policy = format!(
        "[plugins.alice.keyvalue]\nbuckets = {buckets}\n[plugins.bob.keyvalue]\nbuckets = {buckets}\n"
    );
    let components: Vec<&str> = components.iter().map(String::as_str).collect();
    let (mut server, _plugins) = serve_in(&components, &policy, Some(&dir.path().join("state")));
    // Two plugins with the same tool names: each is served as PLUGIN.TOOL.
    let tool_of = |plugin: &str, tool: &str| format!("{plugin}.{tool}");

    // Alice writes under every tricky key of every granted bucket.
    let mut written = 0;
    for bucket in GRANTED {
        for key in tricky_keys() {
            let put = tool_of("alice", "put");
            let call = server.call(
                &put,
                json!({"bucket": bucket, "key": key, "value": "alice"}),
            );
            if call["result"]["isError"] != json!(true) {
                written += 1;
            }
        }
    }
    assert!(
        written > GRANTED.len(),
        "alice could write most of her keys"
    );

    // Bob sees none of it, in any bucket, by any name.
    for bucket in GRANTED {
        let listed = value(
            &mut server,
            &tool_of("bob", "keys"),
            json!({"bucket": bucket}),
        );
        assert_eq!(listed, json!([]), "bob's bucket {bucket:?} is empty");
        for key in tricky_keys() {
            let got = server.call(
                &tool_of("bob", "get"),
                json!({"bucket": bucket, "key": key}),
            );
            assert_ne!(
                got["result"]["structuredContent"]["result"],
                json!("alice"),
                "bob read alice's {bucket:?}/{key:?}"
            );
        }
    }

    // Within alice's own data, a key with a separator never lands in
    // another bucket: "a" + "b:c" is not "a:b" + "c", nor "a/b" + "c".
    for (bucket, key) in [("a:b", "c"), ("a/b", "c"), ("a", "b"), ("default", "a:b:c")] {
        let got = value(
            &mut server,
            &tool_of("alice", "get"),
            json!({"bucket": bucket, "key": key}),
        );
        assert_eq!(
            got,
            Value::Null,
            "alice's {bucket:?}/{key:?} was never written"
        );
    }

    // Names no policy granted are denied, whatever they hold.
    for bucket in ungranted() {
        for plugin in ["alice", "bob"] {
            let error = server.call_err(
                &tool_of(plugin, "put"),
                json!({"bucket": bucket, "key": "k", "value": plugin}),
            );
            assert!(
                error.contains("access-denied")
                    && error.contains(&format!("plugins.{plugin}.keyvalue.buckets")),
                "{plugin} opening {:?}: {error}",
                &bucket[..bucket.len().min(40)]
            );
        }
    }

    // Bob's own writes stay his, and alice's stay hers.
    server.call_ok(
        &tool_of("bob", "put"),
        json!({"bucket": "default", "key": "k", "value": "bob"}),
    );
    let got = value(
        &mut server,
        &tool_of("alice", "get"),
        json!({"bucket": "default", "key": "k"}),
    );
    assert_eq!(got, json!("alice"));
    let got = value(
        &mut server,
        &tool_of("bob", "get"),
        json!({"bucket": "default", "key": "k"}),
    );
    assert_eq!(got, json!("bob"));
    let got = value(
        &mut server,
        &tool_of("bob", "keys"),
        json!({"bucket": "default"}),
    );
    assert_eq!(got, json!(["k"]));
}
