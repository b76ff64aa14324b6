//! A component written with plain wit-bindgen against the vendored WASI
//! state interfaces (`wit/wasi/` at the repository's root, referenced, never
//! copied): wasi:keyvalue@0.2.0-draft2, wasi:config@0.2.0-rc.1 and
//! wasi:logging@0.1.0-draft. The host serves each exported function as a
//! tool; the tests of issue 45 (`host/tests/all/keyvalue.rs`) call them.
//!
//! A store error comes back as the tool's error text, naming the operation
//! and the WIT variant (`access-denied`, `no-such-store`, `other: TEXT`), so
//! a test sees which variant the host returned.

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
        path: [
            "../../../wit/wasi/keyvalue@0.2.0-draft2",
            "../../../wit/wasi/config@0.2.0-rc.1",
            "../../../wit/wasi/logging@0.1.0-draft",
            "wit",
        ],
        world: "test:kvnotes/kvnotes",
        // The wasi:* interfaces are generated here too (no crate binds them).
        generate_all,
    });
}

use bindings::wasi::config::store as config;
use bindings::wasi::keyvalue::atomics::{self, Cas, CasError};
use bindings::wasi::keyvalue::batch;
use bindings::wasi::keyvalue::store::{self, Bucket};
use bindings::wasi::logging::logging::{self, Level};

/// The bucket of the notes tool.
const NOTES: &str = "notes";
/// The counter key of the notes tool; note N is under `note-N`.
const NOTE_COUNT: &str = "count";
/// Compare-and-swap attempts before `cas-append` gives up.
const CAS_ATTEMPTS: u32 = 1000;

/// A store error as `OPERATION: VARIANT`.
fn failed(operation: &str) -> impl FnOnce(store::Error) -> String + '_ {
    move |error| {
        let variant = match error {
            store::Error::NoSuchStore => "no-such-store".to_string(),
            store::Error::AccessDenied => "access-denied".to_string(),
            store::Error::Other(text) => format!("other: {text}"),
        };
        format!("{operation}: {variant}")
    }
}

/// Opens `bucket`.
fn open(bucket: &str) -> Result<Bucket, String> {
    store::open(bucket).map_err(failed(&format!("open({bucket:?})")))
}

/// A stored value as text.
fn text(value: Vec<u8>) -> Result<String, String> {
    String::from_utf8(value).map_err(|e| format!("the value is not UTF-8: {e}"))
}

/// A config error as `get: VARIANT: TEXT`.
fn config_failed(operation: &str) -> impl FnOnce(config::Error) -> String + '_ {
    move |error| match error {
        config::Error::Upstream(text) => format!("{operation}: upstream: {text}"),
        config::Error::Io(text) => format!("{operation}: io: {text}"),
    }
}

struct KvNotes;

impl bindings::Guest for KvNotes {
    fn increment(bucket: String, key: String, delta: i64) -> Result<i64, String> {
        let bucket = open(&bucket)?;
        atomics::increment(&bucket, &key, delta).map_err(failed("increment"))
    }

    fn put(bucket: String, key: String, value: String) -> Result<(), String> {
        open(&bucket)?
            .set(&key, value.as_bytes())
            .map_err(failed("set"))
    }

    fn put_sized(bucket: String, key: String, size: u32) -> Result<(), String> {
        let value = vec![b'x'; size as usize];
        open(&bucket)?.set(&key, &value).map_err(failed("set"))
    }

    fn get(bucket: String, key: String) -> Result<Option<String>, String> {
        let value = open(&bucket)?.get(&key).map_err(failed("get"))?;
        value.map(text).transpose()
    }

    fn exists(bucket: String, key: String) -> Result<bool, String> {
        open(&bucket)?.exists(&key).map_err(failed("exists"))
    }

    fn delete(bucket: String, key: String) -> Result<(), String> {
        open(&bucket)?.delete(&key).map_err(failed("delete"))
    }

    fn keys(bucket: String) -> Result<Vec<String>, String> {
        let bucket = open(&bucket)?;
        let mut keys = Vec::new();
        let mut cursor = None;
        loop {
            let page = bucket
                .list_keys(cursor.as_deref())
                .map_err(failed("list-keys"))?;
            keys.extend(page.keys);
            match page.cursor {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        keys.sort();
        Ok(keys)
    }

    fn fill(bucket: String, prefix: String, count: u32, size: u32) -> Result<u32, String> {
        let bucket = open(&bucket)?;
        let value = vec![b'x'; size as usize];
        for n in 0..count {
            bucket
                .set(&format!("{prefix}{n}"), &value)
                .map_err(failed(&format!("set #{n}")))?;
        }
        Ok(count)
    }

    fn add_note(text: String) -> Result<u32, String> {
        let bucket = open(NOTES)?;
        let n = atomics::increment(&bucket, NOTE_COUNT, 1).map_err(failed("increment"))?;
        bucket
            .set(&format!("note-{n}"), text.as_bytes())
            .map_err(failed("set"))?;
        u32::try_from(n).map_err(|_| format!("note number {n} is out of range"))
    }

    fn notes() -> Result<Vec<String>, String> {
        let bucket = open(NOTES)?;
        let count = match bucket.get(NOTE_COUNT).map_err(failed("get"))? {
            // The counter is the store's: an s64 in its own encoding, read
            // back through increment by zero.
            Some(_) => atomics::increment(&bucket, NOTE_COUNT, 0).map_err(failed("increment"))?,
            None => 0,
        };
        let mut notes = Vec::new();
        for n in 1..=count {
            if let Some(note) = bucket.get(&format!("note-{n}")).map_err(failed("get"))? {
                notes.push(text(note)?);
            }
        }
        Ok(notes)
    }

    fn cas_append(bucket: String, key: String, suffix: String) -> Result<String, String> {
        let bucket = open(&bucket)?;
        for _ in 0..CAS_ATTEMPTS {
            let cas = Cas::new(&bucket, &key).map_err(failed("cas new"))?;
            let current = cas.current().map_err(failed("cas current"))?;
            let next = format!("{}{suffix}", text(current.unwrap_or_default())?);
            match atomics::swap(cas, next.as_bytes()) {
                Ok(()) => return Ok(next),
                Err(CasError::CasFailed(_)) => continue,
                Err(CasError::StoreError(error)) => return Err(failed("swap")(error)),
            }
        }
        Err(format!("swap failed {CAS_ATTEMPTS} times in a row"))
    }

    fn put_many(bucket: String, entries: Vec<(String, String)>) -> Result<(), String> {
        let bucket = open(&bucket)?;
        let entries: Vec<(String, Vec<u8>)> = entries
            .into_iter()
            .map(|(k, v)| (k, v.into_bytes()))
            .collect();
        batch::set_many(&bucket, &entries).map_err(failed("set-many"))
    }

    fn get_many(bucket: String, keys: Vec<String>) -> Result<Vec<Option<String>>, String> {
        let bucket = open(&bucket)?;
        let found = batch::get_many(&bucket, &keys).map_err(failed("get-many"))?;
        keys.iter()
            .map(|key| {
                let value = found
                    .iter()
                    .flatten()
                    .find(|(k, _)| k == key)
                    .map(|(_, v)| v.clone());
                value.map(text).transpose()
            })
            .collect()
    }

    fn delete_many(bucket: String, keys: Vec<String>) -> Result<(), String> {
        let bucket = open(&bucket)?;
        batch::delete_many(&bucket, &keys).map_err(failed("delete-many"))
    }

    fn config(key: String) -> Result<Option<String>, String> {
        config::get(&key).map_err(config_failed("get"))
    }

    fn config_all() -> Result<Vec<(String, String)>, String> {
        let mut all = config::get_all().map_err(config_failed("get-all"))?;
        all.sort();
        Ok(all)
    }

    fn log_message(level: String, message: String) -> Result<(), String> {
        let level = match level.as_str() {
            "trace" => Level::Trace,
            "debug" => Level::Debug,
            "info" => Level::Info,
            "warn" => Level::Warn,
            "error" => Level::Error,
            "critical" => Level::Critical,
            other => return Err(format!("unknown level {other:?}")),
        };
        logging::log(level, "notes-tool", &message);
        Ok(())
    }

    fn ping() -> String {
        "pong".into()
    }
}

// The generated export glue is unsafe code (the workspace denies it elsewhere).
#[allow(unsafe_code)]
mod export {
    use super::{KvNotes, bindings};
    bindings::export!(KvNotes with_types_in bindings);
}
