//! A component written with plain wit-bindgen against the vendored
//! wasi:keyvalue@0.2.0-draft (`wit/wasi/` at the repository's root,
//! referenced, never copied): the label whose counters are u64 and whose
//! key listing pages with a u64 cursor. The host serves each exported
//! function as a tool; `host/tests/all/keyvalue.rs` calls them.

// Only a wasm32 build has anything in it: the exports carry the component
// model's names, which a native linker cannot export.
#![cfg(target_family = "wasm")]

#[allow(
    unsafe_code,
    unused_qualifications,
    missing_debug_implementations,
    missing_docs,
    clippy::all
)]
mod bindings {
    wit_bindgen::generate!({
        path: ["../../../wit/wasi/keyvalue@0.2.0-draft", "wit"],
        world: "test:kvdraft/kvdraft",
        // The wasi:* interfaces are generated here too (no crate binds them).
        generate_all,
    });
}

use bindings::wasi::keyvalue::store::{self, Bucket};
use bindings::wasi::keyvalue::{atomics, batch};

/// A store error as `OPERATION: VARIANT` (the variant as the WIT names it).
fn failed(operation: &str) -> impl FnOnce(store::Error) -> String + '_ {
    move |error| match error {
        store::Error::NoSuchStore => format!("{operation}: no-such-store"),
        store::Error::AccessDenied => format!("{operation}: access-denied"),
        store::Error::Other(text) => format!("{operation}: other: {text}"),
    }
}

/// Opens `bucket`.
fn open(bucket: &str) -> Result<Bucket, String> {
    store::open(bucket).map_err(failed("open"))
}

struct KvDraft;

impl bindings::Guest for KvDraft {
    fn increment(bucket: String, key: String, delta: u64) -> Result<u64, String> {
        atomics::increment(&open(&bucket)?, &key, delta).map_err(failed("increment"))
    }

    fn put(bucket: String, key: String, value: String) -> Result<(), String> {
        open(&bucket)?
            .set(&key, value.as_bytes())
            .map_err(failed("set"))
    }

    fn get(bucket: String, key: String) -> Result<Option<String>, String> {
        let value = open(&bucket)?.get(&key).map_err(failed("get"))?;
        value
            .map(String::from_utf8)
            .transpose()
            .map_err(|e| format!("the value is not UTF-8: {e}"))
    }

    fn delete(bucket: String, key: String) -> Result<(), String> {
        open(&bucket)?.delete(&key).map_err(failed("delete"))
    }

    fn keys(bucket: String) -> Result<Vec<String>, String> {
        let bucket = open(&bucket)?;
        let mut keys = Vec::new();
        let mut cursor: Option<u64> = None;
        loop {
            let page = bucket.list_keys(cursor).map_err(failed("list-keys"))?;
            keys.extend(page.keys);
            match page.cursor {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        keys.sort();
        Ok(keys)
    }

    fn put_many(bucket: String, entries: Vec<(String, String)>) -> Result<(), String> {
        let entries: Vec<(String, Vec<u8>)> = entries
            .into_iter()
            .map(|(k, v)| (k, v.into_bytes()))
            .collect();
        batch::set_many(&open(&bucket)?, &entries).map_err(failed("set-many"))
    }
}

// The generated export glue is unsafe code (the workspace denies it elsewhere).
#[allow(unsafe_code)]
mod export {
    use super::{KvDraft, bindings};
    bindings::export!(KvDraft with_types_in bindings);
}
