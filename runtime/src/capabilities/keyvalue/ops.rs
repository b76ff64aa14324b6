//! One call's keyvalue state and the operations every label's host
//! functions share: opening a bucket (the grant and the namespace), each
//! store operation (its quotas, its time limit, its error), counted against
//! the call's `max_operations`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_wasm_host_store::{Namespace, Size, Store, StoreError, Swap};

use super::quota::key;
use super::{BucketScope, KeyvaluePolicy, Owner};
use crate::capabilities::{CallCtx, CallHooks};
use crate::error::clip;
use crate::state::StateStore;
use crate::state::owner::SESSION_DATA_TTL;
use crate::units::{bytes, count};

/// A bucket a guest opened: its name and where its data lives.
#[derive(Debug, Clone)]
pub struct Bucket {
    pub(super) name: Arc<str>,
    pub(super) namespace: Namespace,
    /// Its scope is a session's: writes carry [`SESSION_DATA_TTL`].
    pub(super) session_scoped: bool,
}

/// A compare-and-swap in progress (`wasi:keyvalue/atomics.cas`): the value
/// seen when it began, which the swap expects.
#[derive(Debug, Clone)]
pub struct Cas {
    pub(super) bucket: Bucket,
    pub(super) key: String,
    pub(super) current: Option<Vec<u8>>,
}

/// What an operation failed with, before a label's bindings turn it into
/// that label's `error`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KvError {
    /// The policy grants no such bucket (told in the call's denials).
    AccessDenied,
    /// Anything else, in words (a quota naming its key, the store failing
    /// naming the store).
    Other(String),
}

/// The longest bucket name a denial quotes.
const QUOTED: usize = 128;

/// One call's keyvalue state.
pub struct KvState {
    plugin: Arc<str>,
    tool: Arc<str>,
    /// `plugins.NAME`, for the keys errors name.
    section: Arc<str>,
    config_file: Arc<str>,
    policy: KeyvaluePolicy,
    store: StateStore,
    owner: Owner,
    deadline: Instant,
    /// Store operations made so far.
    operations: u64,
    /// What the policy refused, naming the key that would grant it.
    pub(super) denials: Vec<String>,
    /// The `@0.2.0-draft` cursors handed out: a cursor is an index here.
    pub(super) cursors: Vec<Vec<u8>>,
}

impl std::fmt::Debug for KvState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KvState")
            .field("plugin", &self.plugin)
            .field("tool", &self.tool)
            .field("operations", &self.operations)
            .finish_non_exhaustive()
    }
}

impl CallHooks for KvState {
    fn denials(&self) -> Vec<String> {
        self.denials.clone()
    }
}

impl KvState {
    pub(super) fn new(policy: &KeyvaluePolicy, call: &CallCtx<'_>) -> KvState {
        KvState {
            plugin: call.plugin.clone(),
            tool: call.tool.clone(),
            section: call.section.clone(),
            config_file: call.config_file.clone(),
            policy: policy.clone(),
            store: call.store.clone(),
            owner: call.owner.clone(),
            deadline: call.deadline,
            operations: 0,
            denials: Vec::new(),
            cursors: Vec::new(),
        }
    }

    /// `plugins.NAME.keyvalue.KEY`.
    fn key_name(&self, key: &str) -> String {
        format!("{}.keyvalue.{key}", self.section)
    }

    /// Refuses the call's guest something, and says which key would grant
    /// it (in the call's denials and the server log).
    fn deny(&mut self, what: String) -> KvError {
        tracing::warn!(plugin = %self.plugin, tool = %self.tool, "{what}");
        if self.denials.len() < 16 {
            self.denials.push(what);
        }
        KvError::AccessDenied
    }

    /// Opens the bucket `name`, if the policy grants it, in the namespace
    /// of its scope's owner.
    pub fn open(&mut self, name: &str) -> Result<Bucket, KvError> {
        let quoted = clip(format!("{name:?}"), QUOTED);
        let Some(granted) = self.policy.buckets.iter().find(|b| ***b == *name).cloned() else {
            let what = if self.policy.grants_any() {
                format!(
                    "plugin {:?} may not open bucket {quoted}: it is not among `{}` in {}",
                    self.plugin,
                    self.key_name("buckets"),
                    self.config_file
                )
            } else {
                format!(
                    "plugin {:?} may not open bucket {quoted}: no bucket is granted (grant it with `{} = [{quoted}]` in {})",
                    self.plugin,
                    self.key_name("buckets"),
                    self.config_file
                )
            };
            return Err(self.deny(what));
        };
        let (plugin, scope) = (self.plugin.clone(), self.policy.scope);
        let namespace = match scope {
            BucketScope::Plugin => Namespace::plugin(&plugin, &granted),
            BucketScope::Session => match self.owner.session() {
                Some(session) => Namespace::session(&plugin, &granted, session.key()),
                None => {
                    let what = format!(
                        "plugin {:?} may not open bucket {quoted}: its `{}` is \"session\" and this request has no session (a stateless HTTP request)",
                        self.plugin,
                        self.key_name("scope")
                    );
                    return Err(self.deny(what));
                }
            },
            BucketScope::User => match self.owner.user() {
                Some(user) => Namespace::user(&plugin, &granted, user),
                None => {
                    let what = format!(
                        "plugin {:?} may not open bucket {quoted}: its `{}` is \"user\" and this caller is not authenticated (the server's [server.oauth] authenticates users)",
                        self.plugin,
                        self.key_name("scope")
                    );
                    return Err(self.deny(what));
                }
            },
        };
        let namespace = namespace.map_err(|e| KvError::Other(e.to_string()))?;
        Ok(Bucket {
            name: granted,
            namespace,
            session_scoped: scope == BucketScope::Session,
        })
    }

    /// Counts one operation and gives the store, bounded by the call's
    /// deadline.
    async fn begin(&mut self) -> Result<Store, KvError> {
        self.operations += 1;
        let max = self.policy.quotas.operations;
        if self.operations > max {
            return Err(KvError::Other(format!(
                "this call made more than {} store operations, the limit of `{}` (raise it in {})",
                count(max),
                self.key_name(key::MAX_OPERATIONS),
                self.config_file
            )));
        }
        let store = match self.store.get().await {
            Ok(store) => store,
            Err(why) => {
                tracing::warn!(plugin = %self.plugin, tool = %self.tool, "the state store is unavailable: {why}");
                return Err(KvError::Other(format!(
                    "the state store is unavailable: {why}"
                )));
            }
        };
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(KvError::Other(
                "the call's deadline passed before the store operation".into(),
            ));
        }
        // A tenth of what is left stays the guest's, to return the error
        // naming the store before the call's own deadline ends it.
        Ok(store.with_timeout(left.saturating_sub(left / 10).min(store.timeout())))
    }

    /// A store failure, as the guest reads it (naming the store and the
    /// operation) and the log records it.
    fn failed(&self, error: StoreError) -> KvError {
        tracing::warn!(plugin = %self.plugin, tool = %self.tool, error = %error, "a state store operation failed");
        KvError::Other(error.to_string())
    }

    fn check_key(&self, key: &str) -> Result<(), KvError> {
        let max = self.policy.quotas.key_size;
        if key.len() as u64 > max {
            return Err(self.over(
                key::MAX_KEY_SIZE,
                format!("a key of {}", bytes(key.len() as u64)),
                bytes(max),
            ));
        }
        Ok(())
    }

    fn check_value(&self, value: &[u8]) -> Result<(), KvError> {
        let max = self.policy.quotas.value_size;
        if value.len() as u64 > max {
            return Err(self.over(
                key::MAX_VALUE_SIZE,
                format!("a value of {}", bytes(value.len() as u64)),
                bytes(max),
            ));
        }
        Ok(())
    }

    fn check_batch(&self, n: usize) -> Result<(), KvError> {
        let max = self.policy.quotas.batch;
        if n as u64 > max {
            return Err(self.over(key::MAX_BATCH, format!("a batch of {n} keys"), count(max)));
        }
        Ok(())
    }

    /// `what` is over the quota `quota` of `limit`.
    fn over(&self, quota: &str, what: String, limit: String) -> KvError {
        KvError::Other(format!(
            "{what} is over the limit of {limit} set by `{}` (raise it in {})",
            self.key_name(quota),
            self.config_file
        ))
    }

    /// Admits writing `entries` (key, value length) into `bucket`: within
    /// `max_keys` and `max_bytes` once written. The namespace's counts are
    /// read first; only when the writes might not fit are the old values
    /// read to tell new keys and replaced bytes apart. Concurrent writes may
    /// each be admitted against the same counts.
    async fn admit(
        &mut self,
        store: &Store,
        bucket: &Bucket,
        entries: &[(&str, usize)],
    ) -> Result<(), KvError> {
        let Size { keys, bytes: held } = store
            .size(&bucket.namespace)
            .await
            .map_err(|e| self.failed(e))?;
        let q = self.policy.quotas;
        let added: u64 = entries.iter().map(|(k, v)| (k.len() + v) as u64).sum();
        if keys + entries.len() as u64 <= q.keys && held + added <= q.bytes {
            return Ok(());
        }
        let names: Vec<&str> = entries.iter().map(|(k, _)| *k).collect();
        let old = store
            .get_many(&bucket.namespace, &names)
            .await
            .map_err(|e| self.failed(e))?;
        let new_keys = old.iter().filter(|v| v.is_none()).count() as u64;
        let old_bytes: u64 = entries
            .iter()
            .zip(&old)
            .filter_map(|((k, _), v)| v.as_ref().map(|v| (k.len() + v.len()) as u64))
            .sum();
        if keys + new_keys > q.keys {
            return Err(self.over(
                key::MAX_KEYS,
                format!(
                    "bucket {:?} holding {} keys",
                    &*bucket.name,
                    count(keys + new_keys)
                ),
                count(q.keys),
            ));
        }
        let after = (held + added).saturating_sub(old_bytes);
        if after > q.bytes && added > old_bytes {
            return Err(self.over(
                key::MAX_BYTES,
                format!("bucket {:?} holding {}", &*bucket.name, bytes(after)),
                bytes(q.bytes),
            ));
        }
        Ok(())
    }

    fn ttl(bucket: &Bucket) -> Option<Duration> {
        bucket.session_scoped.then_some(SESSION_DATA_TTL)
    }

    /// Records a session-scoped write, for the session's end.
    fn wrote(&self, store: &Store, bucket: &Bucket) {
        if let (true, Some(session)) = (bucket.session_scoped, self.owner.session()) {
            session.wrote(store, &bucket.namespace);
        }
    }

    /// The value of `key`.
    pub async fn get(&mut self, bucket: &Bucket, key: &str) -> Result<Option<Vec<u8>>, KvError> {
        self.check_key(key)?;
        let store = self.begin().await?;
        store
            .get(&bucket.namespace, key)
            .await
            .map_err(|e| self.failed(e))
    }

    /// Sets `key` to `value`.
    pub async fn set(&mut self, bucket: &Bucket, key: &str, value: &[u8]) -> Result<(), KvError> {
        self.check_key(key)?;
        self.check_value(value)?;
        let store = self.begin().await?;
        self.admit(&store, bucket, &[(key, value.len())]).await?;
        store
            .set(&bucket.namespace, key, value, Self::ttl(bucket))
            .await
            .map_err(|e| self.failed(e))?;
        self.wrote(&store, bucket);
        Ok(())
    }

    /// Deletes `key`.
    pub async fn delete(&mut self, bucket: &Bucket, key: &str) -> Result<(), KvError> {
        self.check_key(key)?;
        let store = self.begin().await?;
        store
            .delete(&bucket.namespace, key)
            .await
            .map(drop)
            .map_err(|e| self.failed(e))
    }

    /// Whether `key` has a value.
    pub async fn exists(&mut self, bucket: &Bucket, key: &str) -> Result<bool, KvError> {
        self.check_key(key)?;
        let store = self.begin().await?;
        store
            .exists(&bucket.namespace, key)
            .await
            .map_err(|e| self.failed(e))
    }

    /// One page of keys after `after`, and where the next begins.
    pub async fn list(
        &mut self,
        bucket: &Bucket,
        after: Option<Vec<u8>>,
    ) -> Result<(Vec<String>, Option<Vec<u8>>), KvError> {
        let store = self.begin().await?;
        let after = after.map(mcp_wasm_host_store::Cursor::from_bytes);
        let page = store
            .list(
                &bucket.namespace,
                after.as_ref(),
                mcp_wasm_host_store::MAX_PAGE,
            )
            .await
            .map_err(|e| self.failed(e))?;
        let keys = page
            .keys
            .into_iter()
            .map(|k| String::from_utf8_lossy(&k).into_owned())
            .collect();
        Ok((keys, page.next.map(|c| c.as_bytes().to_vec())))
    }

    /// Adds `delta` to the counter `key`.
    pub async fn increment(
        &mut self,
        bucket: &Bucket,
        key: &str,
        delta: i64,
    ) -> Result<i64, KvError> {
        self.check_key(key)?;
        let store = self.begin().await?;
        // A counter is at most 20 digits and a sign.
        self.admit(&store, bucket, &[(key, 21)]).await?;
        let value = store
            .increment(&bucket.namespace, key, delta)
            .await
            .map_err(|e| self.failed(e))?;
        self.wrote(&store, bucket);
        Ok(value)
    }

    /// Begins a compare-and-swap of `key`.
    pub async fn cas(&mut self, bucket: &Bucket, key: String) -> Result<Cas, KvError> {
        let current = self.get(bucket, &key).await?;
        Ok(Cas {
            bucket: bucket.clone(),
            key,
            current,
        })
    }

    /// Swaps `cas`'s key to `value` if it still holds what the cas saw;
    /// otherwise the cas of what it holds now.
    pub async fn swap(&mut self, cas: &Cas, value: &[u8]) -> Result<Result<(), Cas>, KvError> {
        self.check_value(value)?;
        let store = self.begin().await?;
        self.admit(&store, &cas.bucket, &[(&cas.key, value.len())])
            .await?;
        let swapped = store
            .compare_and_swap(
                &cas.bucket.namespace,
                &cas.key,
                cas.current.as_deref(),
                value,
                Self::ttl(&cas.bucket),
            )
            .await
            .map_err(|e| self.failed(e))?;
        self.wrote(&store, &cas.bucket);
        Ok(match swapped {
            Swap::Swapped => Ok(()),
            Swap::Conflict { current } => Err(Cas {
                current,
                ..cas.clone()
            }),
        })
    }

    /// The values of `keys`, in order.
    pub async fn get_many(
        &mut self,
        bucket: &Bucket,
        keys: &[String],
    ) -> Result<Vec<Option<Vec<u8>>>, KvError> {
        self.check_batch(keys.len())?;
        keys.iter().try_for_each(|k| self.check_key(k))?;
        let store = self.begin().await?;
        store
            .get_many(&bucket.namespace, keys)
            .await
            .map_err(|e| self.failed(e))
    }

    /// Sets every key of `entries` at once.
    pub async fn set_many(
        &mut self,
        bucket: &Bucket,
        entries: &[(String, Vec<u8>)],
    ) -> Result<(), KvError> {
        self.check_batch(entries.len())?;
        for (k, v) in entries {
            self.check_key(k)?;
            self.check_value(v)?;
        }
        let store = self.begin().await?;
        let sizes: Vec<(&str, usize)> =
            entries.iter().map(|(k, v)| (k.as_str(), v.len())).collect();
        self.admit(&store, bucket, &sizes).await?;
        store
            .set_many(&bucket.namespace, entries, Self::ttl(bucket))
            .await
            .map_err(|e| self.failed(e))?;
        self.wrote(&store, bucket);
        Ok(())
    }

    /// Deletes every key of `keys` at once.
    pub async fn delete_many(&mut self, bucket: &Bucket, keys: &[String]) -> Result<(), KvError> {
        self.check_batch(keys.len())?;
        keys.iter().try_for_each(|k| self.check_key(k))?;
        let store = self.begin().await?;
        store
            .delete_many(&bucket.namespace, keys)
            .await
            .map(drop)
            .map_err(|e| self.failed(e))
    }
}
