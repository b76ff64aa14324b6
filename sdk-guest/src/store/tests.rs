//! The store API over the in-memory store of native builds, and its errors.
#![allow(clippy::unwrap_used)]

use super::*;
use crate::{ToolError, tool, tool_router};

#[test]
fn values_round_trip_and_delete() {
    let bucket = Bucket::open("round-trip").unwrap();
    assert_eq!(bucket.name(), "round-trip");
    assert_eq!(bucket.get("k").unwrap(), None);
    assert!(!bucket.exists("k").unwrap());
    bucket.set("k", "text").unwrap();
    bucket.set("bytes", [0xff, 0]).unwrap();
    assert_eq!(bucket.get_string("k").unwrap().as_deref(), Some("text"));
    assert!(bucket.exists("k").unwrap());
    assert_eq!(bucket.get("bytes").unwrap(), Some(vec![0xff, 0]));
    let error = bucket.get_string("bytes").unwrap_err();
    assert!(matches!(&error, Error::Other { message, .. } if message.contains("not UTF-8")));
    bucket.delete("k").unwrap();
    bucket.delete("k").unwrap();
    assert_eq!(bucket.get("k").unwrap(), None);
    // Another bucket is another namespace.
    assert_eq!(Bucket::open("other").unwrap().get("bytes").unwrap(), None);
}

#[test]
fn keys_walk_every_page() {
    let bucket = Bucket::open("pages").unwrap();
    assert_eq!(bucket.keys().count(), 0);
    // More keys than one native page holds, and a page boundary exactly.
    for n in [1, 2, 5, 6] {
        let names: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
        for name in &names {
            bucket.set(name, "").unwrap();
        }
        let keys: Vec<String> = bucket.keys().collect::<Result<_, _>>().unwrap();
        assert_eq!(keys, names);
    }
}

#[test]
fn increment_counts_from_zero_and_refuses_text() {
    let bucket = Bucket::open("counts").unwrap();
    assert_eq!(bucket.increment("n", 1).unwrap(), 1);
    assert_eq!(bucket.increment("n", 41).unwrap(), 42);
    assert_eq!(bucket.increment("n", -50).unwrap(), -8);
    assert_eq!(bucket.get_string("n").unwrap().as_deref(), Some("-8"));
    bucket.set("t", "x").unwrap();
    let error = bucket.increment("t", 1).unwrap_err();
    assert_eq!(
        error.to_string(),
        "key-value bucket \"counts\": increment \"t\": the value is not a decimal integer"
    );
}

#[test]
fn update_retries_when_another_writer_wins() {
    let bucket = Bucket::open("update").unwrap();
    let mut calls = 0;
    let written = bucket
        .update("list", |old| {
            calls += 1;
            if calls == 1 {
                // Another call writes the key between the read and the swap.
                Bucket::open("update").unwrap().set("list", "a").unwrap();
            }
            let mut value = old.unwrap_or_default().to_vec();
            value.push(b'b');
            value
        })
        .unwrap();
    assert_eq!(calls, 2);
    assert_eq!(written, b"ab");
    assert_eq!(bucket.get("list").unwrap(), Some(b"ab".to_vec()));
}

#[test]
fn update_gives_up_after_its_attempts() {
    let bucket = Bucket::open("contended").unwrap();
    let mut calls = 0;
    let error = bucket
        .update("k", |_| {
            calls += 1;
            bucket.increment("k", 1).unwrap();
            Vec::new()
        })
        .unwrap_err();
    assert_eq!(calls, UPDATE_ATTEMPTS);
    assert_eq!(
        error,
        Error::Contended {
            bucket: "contended".into(),
            key: "k".into()
        }
    );
}

#[test]
fn access_denied_is_a_denial_naming_the_policy_key() {
    let error = Error::new("notes", || "open".into(), Fault::AccessDenied);
    assert_eq!(error.bucket(), "notes");
    let tool_error = ToolError::from(error);
    let ToolError::Denied(message) = &tool_error else {
        panic!("{tool_error:?} should be a denial");
    };
    assert!(
        message.contains("`[plugins.<this plugin>.keyvalue] buckets = [\"notes\"]`"),
        "{message}"
    );
}

#[test]
fn other_faults_fail_with_the_operation_and_the_hosts_reason() {
    let reason = "value of 9 bytes is over plugins.p.keyvalue.max_value_size (8 B)";
    let error = Error::new("b", || "set \"k\"".into(), Fault::Other(reason.into()));
    assert_eq!(
        ToolError::from(error),
        ToolError::Failed(format!("key-value bucket \"b\": set \"k\": {reason}"))
    );
    let error = Error::new("b", || "open".into(), Fault::NoSuchStore);
    assert!(matches!(ToolError::from(error), ToolError::Failed(m) if m.contains("no store")));
}

/// Adds a note; how many there are.
#[tool]
fn add_note(
    /// The note.
    text: String,
) -> Result<String, ToolError> {
    let notes = Bucket::open("tool-notes")?;
    let n = notes.increment("count", 1)?;
    notes.set(&format!("note-{n}"), text)?;
    Ok(format!("{n} notes"))
}

#[test]
fn question_mark_works_in_a_tool() {
    let router = tool_router![add_note];
    let out = router.call("add_note", r#"{"text":"a"}"#).unwrap();
    assert_eq!(out.content()[0].as_text(), Some("1 notes"));
    let out = router.call("add_note", r#"{"text":"b"}"#).unwrap();
    assert_eq!(out.content()[0].as_text(), Some("2 notes"));
    let notes = Bucket::open("tool-notes").unwrap();
    assert_eq!(notes.get_string("note-2").unwrap().as_deref(), Some("b"));
}
