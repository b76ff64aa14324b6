//! What the labels' host functions share, as macros each label expands
//! over its own generated types.

/// The host functions both labels share word for word (their types are
/// each label's own): the error's conversion, `open`, the bucket's `get`,
/// `set`, `delete`, `exists` and `drop`, and `batch`. `$bucket_items` are
/// the label's own members of the bucket's impl (`list-keys`).
macro_rules! shared_functions {
    ($($bucket_items:item)*) => {
        impl From<KvError> for store::Error {
            fn from(e: KvError) -> Self {
                match e {
                    KvError::AccessDenied => store::Error::AccessDenied,
                    KvError::Other(text) => store::Error::Other(text),
                }
            }
        }

        type Outcome<T> = wasmtime::Result<Result<T, store::Error>>;

        impl store::Host for KvView<'_> {
            async fn open(&mut self, identifier: String) -> Outcome<Resource<Bucket>> {
                match self.state.open(&identifier) {
                    Ok(bucket) => Ok(Ok(self.table.push(bucket)?)),
                    Err(e) => Ok(Err(e.into())),
                }
            }
        }

        impl store::HostBucket for KvView<'_> {
            async fn get(&mut self, bucket: Resource<Bucket>, key: String) -> Outcome<Option<Vec<u8>>> {
                let bucket = self.bucket(&bucket)?;
                Ok(self.state.get(&bucket, &key).await.map_err(Into::into))
            }

            async fn set(&mut self, bucket: Resource<Bucket>, key: String, value: Vec<u8>) -> Outcome<()> {
                let bucket = self.bucket(&bucket)?;
                Ok(self.state.set(&bucket, &key, &value).await.map_err(Into::into))
            }

            async fn delete(&mut self, bucket: Resource<Bucket>, key: String) -> Outcome<()> {
                let bucket = self.bucket(&bucket)?;
                Ok(self.state.delete(&bucket, &key).await.map_err(Into::into))
            }

            async fn exists(&mut self, bucket: Resource<Bucket>, key: String) -> Outcome<bool> {
                let bucket = self.bucket(&bucket)?;
                Ok(self.state.exists(&bucket, &key).await.map_err(Into::into))
            }

            async fn drop(&mut self, bucket: Resource<Bucket>) -> wasmtime::Result<()> {
                self.table.delete(bucket)?;
                Ok(())
            }

            $($bucket_items)*
        }

        impl batch::Host for KvView<'_> {
            async fn get_many(
                &mut self,
                bucket: Resource<Bucket>,
                keys: Vec<String>,
            ) -> Outcome<Vec<Option<(String, Vec<u8>)>>> {
                let bucket = self.bucket(&bucket)?;
                Ok(match self.state.get_many(&bucket, &keys).await {
                    Ok(values) => Ok(keys
                        .into_iter()
                        .zip(values)
                        .map(|(k, v)| v.map(|v| (k, v)))
                        .collect()),
                    Err(e) => Err(e.into()),
                })
            }

            async fn set_many(
                &mut self,
                bucket: Resource<Bucket>,
                key_values: Vec<(String, Vec<u8>)>,
            ) -> Outcome<()> {
                let bucket = self.bucket(&bucket)?;
                Ok(self.state.set_many(&bucket, &key_values).await.map_err(Into::into))
            }

            async fn delete_many(&mut self, bucket: Resource<Bucket>, keys: Vec<String>) -> Outcome<()> {
                let bucket = self.bucket(&bucket)?;
                Ok(self.state.delete_many(&bucket, &keys).await.map_err(Into::into))
            }
        }
    };
}

/// Links a label's three interfaces.
macro_rules! link_label {
    () => {
        pub(super) fn link<T: Send + 'static>(
            linker: &mut Linker<T>,
            view: fn(&mut T) -> KvView<'_>,
        ) -> wasmtime::Result<()> {
            store::add_to_linker::<T, KvData>(linker, view)?;
            atomics::add_to_linker::<T, KvData>(linker, view)?;
            batch::add_to_linker::<T, KvData>(linker, view)
        }
    };
}
