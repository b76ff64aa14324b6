//! The quotas of `[plugins.NAME.keyvalue]`: an operation over one gets the
//! interface's `other` error naming the policy key, the call ends as
//! `isError`, and the same operation within the quota succeeds.

use serde_json::{Value, json};

use super::{KVNOTES, serve};

/// One quota: its key, its value in the policy, a call within it and a call
/// over it.
struct Quota {
    key: &'static str,
    setting: &'static str,
    within: (&'static str, Value),
    over: (&'static str, Value),
}

/// `n` entries `PREFIX0..` of one-byte values, for a batch.
fn entries(prefix: &str, n: usize) -> Value {
    (0..n)
        .map(|i| json!([format!("{prefix}{i}"), "v"]))
        .collect()
}

#[test]
fn an_operation_over_each_quota_is_refused_naming_its_key() {
    let b = "default";
    let table = [
        Quota {
            key: "max_key_size",
            setting: "\"16 B\"",
            within: (
                "put",
                json!({"bucket": b, "key": "k".repeat(16), "value": "v"}),
            ),
            over: (
                "put",
                json!({"bucket": b, "key": "k".repeat(17), "value": "v"}),
            ),
        },
        Quota {
            key: "max_value_size",
            setting: "\"64 B\"",
            within: ("put-sized", json!({"bucket": b, "key": "v", "size": 64})),
            over: ("put-sized", json!({"bucket": b, "key": "v", "size": 65})),
        },
        Quota {
            key: "max_value_size",
            setting: "\"1 KiB\"",
            within: ("put-sized", json!({"bucket": b, "key": "v", "size": 1024})),
            over: (
                "put-sized",
                json!({"bucket": b, "key": "w", "size": 4 << 20}),
            ),
        },
        Quota {
            key: "max_keys",
            setting: "3",
            within: (
                "fill",
                json!({"bucket": b, "prefix": "a", "count": 3, "size": 1}),
            ),
            over: (
                "fill",
                json!({"bucket": b, "prefix": "b", "count": 1, "size": 1}),
            ),
        },
        Quota {
            key: "max_bytes",
            setting: "\"200 B\"",
            within: (
                "fill",
                json!({"bucket": b, "prefix": "a", "count": 2, "size": 50}),
            ),
            over: (
                "fill",
                json!({"bucket": b, "prefix": "b", "count": 2, "size": 50}),
            ),
        },
        Quota {
            key: "max_batch",
            setting: "4",
            within: ("put-many", json!({"bucket": b, "entries": entries("a", 4)})),
            over: ("put-many", json!({"bucket": b, "entries": entries("b", 5)})),
        },
        Quota {
            key: "max_batch",
            setting: "4",
            within: (
                "get-many",
                json!({"bucket": b, "keys": ["a", "b", "c", "d"]}),
            ),
            over: (
                "get-many",
                json!({"bucket": b, "keys": ["a", "b", "c", "d", "e"]}),
            ),
        },
        Quota {
            key: "max_operations",
            setting: "20",
            within: (
                "fill",
                json!({"bucket": b, "prefix": "a", "count": 10, "size": 1}),
            ),
            over: (
                "fill",
                json!({"bucket": b, "prefix": "b", "count": 40, "size": 1}),
            ),
        },
    ];
    for Quota {
        key,
        setting,
        within,
        over,
    } in table
    {
        let policy =
            format!("[plugins.kvnotes.keyvalue]\nbuckets = [\"default\"]\n{key} = {setting}\n");
        let (mut server, _dir) = serve(&[KVNOTES], &policy);
        let (tool, arguments) = within;
        server.call_ok(tool, arguments);
        let (tool, arguments) = over;
        let error = server.call_err(tool, arguments.clone());
        let named = format!("plugins.kvnotes.keyvalue.{key}");
        assert!(
            error.contains(&named) && error.contains("other: "),
            "{tool} over {key} = {setting}: the WIT `other` error naming {named}, got: {error}"
        );
        assert!(
            !error.contains("trap") && !error.contains("panicked"),
            "{key}: an error, never a trap: {error}"
        );
        // The store still answers the plugin after the refusal.
        server.call_ok("exists", json!({"bucket": b, "key": "a0"}));
    }
}
