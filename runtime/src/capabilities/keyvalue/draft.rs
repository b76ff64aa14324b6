//! `wasi:keyvalue@0.2.0-draft` (wasmtime's `wasmtime-wasi-keyvalue`,
//! wasmCloud): `store`, `atomics` (an unsigned increment) and `batch`, on
//! the label-neutral operations of [`super::ops`]. Its cursors are numbers:
//! each names a page boundary the call handed out, valid for the rest of
//! that call.

use wasmtime::component::{Linker, Resource};

use super::ops::{Bucket, KvError};
use super::{KvData, KvView};

#[allow(missing_docs, clippy::all)]
mod bindings {
    wasmtime::component::bindgen!({
        path: "wit/wasi/keyvalue@0.2.0-draft",
        world: "wasi:keyvalue/imports",
        imports: { default: async | trappable },
        with: {
            "wasi:keyvalue/store.bucket": crate::capabilities::keyvalue::Bucket,
        },
    });
}

use bindings::wasi::keyvalue::{atomics, batch, store};

link_label!();

shared_functions! {
    async fn list_keys(
        &mut self,
        bucket: Resource<Bucket>,
        cursor: Option<u64>,
    ) -> Outcome<store::KeyResponse> {
        let bucket = self.bucket(&bucket)?;
        let after = match cursor {
            None => None,
            Some(n) => match usize::try_from(n)
                .ok()
                .and_then(|n| self.state.cursors.get(n))
            {
                Some(after) => Some(after.clone()),
                None => {
                    return Ok(Err(store::Error::Other(format!(
                        "cursor {n} was not handed out by this call (a cursor of wasi:keyvalue@0.2.0-draft lasts one call)"
                    ))));
                }
            },
        };
        Ok(match self.state.list(&bucket, after).await {
            Ok((keys, next)) => {
                let cursor = next.map(|c| {
                    self.state.cursors.push(c);
                    self.state.cursors.len() as u64 - 1
                });
                Ok(store::KeyResponse { keys, cursor })
            }
            Err(e) => Err(e.into()),
        })
    }
}

impl atomics::Host for KvView<'_> {
    async fn increment(
        &mut self,
        bucket: Resource<Bucket>,
        key: String,
        delta: u64,
    ) -> Outcome<u64> {
        let bucket = self.bucket(&bucket)?;
        let Ok(delta) = i64::try_from(delta) else {
            return Ok(Err(store::Error::Other(format!(
                "an increment of {delta} is over the largest the store counts by ({})",
                i64::MAX
            ))));
        };
        Ok(match self.state.increment(&bucket, &key, delta).await {
            Ok(value) => u64::try_from(value).map_err(|_| {
                store::Error::Other(format!(
                    "the counter {key:?} holds {value}, which this label's unsigned result cannot carry"
                ))
            }),
            Err(e) => Err(e.into()),
        })
    }
}
