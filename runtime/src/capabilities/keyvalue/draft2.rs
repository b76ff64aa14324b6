//! `wasi:keyvalue@0.2.0-draft2` (upstream's `main`, Spin): `store`,
//! `atomics` (increment and compare-and-swap) and `batch`, on the
//! label-neutral operations of [`super::ops`]. Keys are listed by a string
//! cursor: the last key of the page before.

use wasmtime::component::{Linker, Resource};

use super::ops::{Bucket, Cas, KvError};
use super::{KvData, KvView};

#[allow(missing_docs, clippy::all)]
mod bindings {
    wasmtime::component::bindgen!({
        path: "wit/wasi/keyvalue@0.2.0-draft2",
        world: "wasi:keyvalue/imports",
        imports: { default: async | trappable },
        with: {
            "wasi:keyvalue/store.bucket": crate::capabilities::keyvalue::Bucket,
            "wasi:keyvalue/atomics.cas": crate::capabilities::keyvalue::Cas,
        },
    });
}

use bindings::wasi::keyvalue::{atomics, batch, store};

link_label!();

shared_functions! {
    async fn list_keys(
        &mut self,
        bucket: Resource<Bucket>,
        cursor: Option<String>,
    ) -> Outcome<store::KeyResponse> {
        let bucket = self.bucket(&bucket)?;
        let after = cursor.map(String::into_bytes);
        Ok(match self.state.list(&bucket, after).await {
            Ok((keys, next)) => Ok(store::KeyResponse {
                keys,
                cursor: next.map(|c| String::from_utf8_lossy(&c).into_owned()),
            }),
            Err(e) => Err(e.into()),
        })
    }
}

impl atomics::Host for KvView<'_> {
    async fn increment(
        &mut self,
        bucket: Resource<Bucket>,
        key: String,
        delta: i64,
    ) -> Outcome<i64> {
        let bucket = self.bucket(&bucket)?;
        Ok(self
            .state
            .increment(&bucket, &key, delta)
            .await
            .map_err(Into::into))
    }

    async fn swap(
        &mut self,
        cas: Resource<Cas>,
        value: Vec<u8>,
    ) -> wasmtime::Result<Result<(), atomics::CasError>> {
        let cas = self.table.delete(cas)?;
        Ok(match self.state.swap(&cas, &value).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(now)) => Err(atomics::CasError::CasFailed(self.table.push(now)?)),
            Err(e) => Err(atomics::CasError::StoreError(e.into())),
        })
    }
}

impl atomics::HostCas for KvView<'_> {
    async fn new(&mut self, bucket: Resource<Bucket>, key: String) -> Outcome<Resource<Cas>> {
        let bucket = self.bucket(&bucket)?;
        match self.state.cas(&bucket, key).await {
            Ok(cas) => Ok(Ok(self.table.push(cas)?)),
            Err(e) => Ok(Err(e.into())),
        }
    }

    async fn current(&mut self, cas: Resource<Cas>) -> Outcome<Option<Vec<u8>>> {
        Ok(Ok(self.table.get(&cas)?.current.clone()))
    }

    async fn drop(&mut self, cas: Resource<Cas>) -> wasmtime::Result<()> {
        self.table.delete(cas)?;
        Ok(())
    }
}
