//! `wasi:keyvalue`: named buckets in the state store, granted per plugin
//! (`[plugins.NAME.keyvalue] buckets = [...]`), deny by default. The host
//! builds every namespace from the plugin's name, the bucket and its scope's
//! owner (`scope = "plugin"`, `"session"` or `"user"`), so no bucket or key
//! name reaches another plugin's, session's or user's data. Quotas bound
//! what a namespace holds and what one call may do; an operation over one
//! gets the interface's `other` error naming the key, never a trap.
//!
//! One backend serves every label components import (`wit/wasi/`):
//! `@0.2.0-draft2` ([`draft2`]) and `@0.2.0-draft` ([`draft`]), over the
//! label-neutral operations of [`ops`].

#[macro_use]
mod shared;
mod draft;
mod draft2;
mod ops;
pub mod quota;

pub use crate::state::{Owner, SessionState};
pub use ops::{Bucket, Cas, KvState};
pub use quota::Quotas;

use std::sync::Arc;

use serde::Deserialize;
use serde::de::MapAccess;
use serde_json::{Value, json};
use wasmtime::component::{HasData, Linker};

use super::{
    CallCtx, Capability, CapsView, KeyProblem, Others, Redaction, Report, ResolveCtx, Scope,
    granted_per_plugin,
};
use crate::load::imports::ImportKind;
use crate::units::{bytes, count};

/// Whose data a bucket holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BucketScope {
    /// The plugin's, shared by all its callers.
    #[default]
    Plugin,
    /// One client session's own, dropped when the session ends.
    Session,
    /// One authenticated user's (OAuth subject's) own.
    User,
}

impl BucketScope {
    /// Its name in the policy.
    pub fn name(self) -> &'static str {
        match self {
            BucketScope::Plugin => "plugin",
            BucketScope::Session => "session",
            BucketScope::User => "user",
        }
    }
}

/// `[plugins.NAME.keyvalue]` as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyvalueSpec {
    #[serde(default)]
    buckets: Vec<String>,
    #[serde(default)]
    scope: BucketScope,
    max_key_size: Option<bytesize::ByteSize>,
    max_value_size: Option<bytesize::ByteSize>,
    max_keys: Option<u64>,
    max_bytes: Option<bytesize::ByteSize>,
    max_batch: Option<u64>,
    max_operations: Option<u64>,
}

impl KeyvalueSpec {
    /// Its quotas, each checked against its bounds.
    fn quotas(&self) -> Result<Quotas, KeyProblem> {
        let spec = quota::QuotaSpec {
            max_key_size: self.max_key_size,
            max_value_size: self.max_value_size,
            max_keys: self.max_keys,
            max_bytes: self.max_bytes,
            max_batch: self.max_batch,
            max_operations: self.max_operations,
        };
        spec.quotas()
            .map_err(|(key, problem)| KeyProblem::new(format!("keyvalue.{key}"), problem))
    }
}

/// A plugin's buckets: which it may open, whose data they hold, and its
/// quotas. Without a `keyvalue` section it may open none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyvaluePolicy {
    /// The bucket names it may open.
    pub buckets: Arc<[Arc<str>]>,
    /// Whose data they hold.
    pub scope: BucketScope,
    /// What they may hold, and what a call may do.
    pub quotas: Quotas,
}

impl KeyvaluePolicy {
    /// Whether it grants any bucket.
    pub fn grants_any(&self) -> bool {
        !self.buckets.is_empty()
    }
}

impl Capability for KeyvaluePolicy {
    const NAME: &'static str = "keyvalue";
    const KEYS: &'static [&'static str] = &["keyvalue"];
    type Spec = Option<KeyvalueSpec>;
    type State = KvState;

    fn parse_key<'de, A: MapAccess<'de>>(
        spec: &mut Self::Spec,
        _key: &str,
        map: &mut A,
    ) -> Result<(), A::Error> {
        *spec = Some(map.next_value()?);
        Ok(())
    }

    fn check(spec: &Self::Spec, scope: Scope) -> Result<(), KeyProblem> {
        granted_per_plugin::<Self>(spec, scope)?;
        let Some(spec) = spec else {
            return Ok(());
        };
        for (i, bucket) in spec.buckets.iter().enumerate() {
            let key = format!("keyvalue.buckets[{i}]");
            if bucket.is_empty() {
                return Err(KeyProblem::new(key, "a bucket's name cannot be empty"));
            }
            if bucket.len() > mcp_wasm_host_store::MAX_NAME_LEN {
                return Err(KeyProblem::new(
                    key,
                    format!(
                        "a bucket's name is at most {} bytes",
                        mcp_wasm_host_store::MAX_NAME_LEN
                    ),
                ));
            }
            if spec.buckets[..i].contains(bucket) {
                return Err(KeyProblem::new(key, format!("{bucket:?} is listed twice")));
            }
        }
        spec.quotas().map(|_| ())
    }

    fn resolve(
        _defaults: &Self::Spec,
        spec: Option<&Self::Spec>,
        _ctx: &ResolveCtx<'_>,
        _others: &Others<'_>,
    ) -> Result<Self, KeyProblem> {
        let Some(Some(spec)) = spec else {
            return Ok(KeyvaluePolicy::default());
        };
        let quotas = spec.quotas()?;
        Ok(KeyvaluePolicy {
            buckets: spec.buckets.iter().map(|b| Arc::from(b.as_str())).collect(),
            scope: spec.scope,
            quotas,
        })
    }

    fn state(&self, call: &CallCtx<'_>) -> KvState {
        KvState::new(self, call)
    }

    fn link<T: CapsView>(linker: &mut Linker<T>) -> wasmtime::Result<()> {
        draft2::link(linker, view::<T>)?;
        draft::link(linker, view::<T>)
    }
}

/// What the keyvalue host functions work on: the resource table the
/// buckets live in, and the call's state.
struct KvView<'a> {
    table: &'a mut wasmtime::component::ResourceTable,
    state: &'a mut KvState,
}

/// The [`HasData`] of the keyvalue host functions.
struct KvData;

impl HasData for KvData {
    type Data<'a> = KvView<'a>;
}

impl KvView<'_> {
    /// The bucket a guest's handle names.
    fn bucket(&self, bucket: &wasmtime::component::Resource<Bucket>) -> wasmtime::Result<Bucket> {
        Ok(self.table.get(bucket)?.clone())
    }
}

fn view<T: CapsView>(store: &mut T) -> KvView<'_> {
    let (table, caps) = store.table_and_caps();
    KvView {
        table,
        state: caps.get_mut::<KeyvaluePolicy>(),
    }
}

/// Buckets are no secret; what they hold is the guest's own, which the
/// secrets capability redacts on its way out.
impl Redaction for KeyvaluePolicy {}

impl Report for KeyvaluePolicy {
    fn inspect_json(&self) -> Vec<(&'static str, Value)> {
        let KeyvaluePolicy {
            buckets,
            scope,
            quotas,
        } = self;
        let Quotas {
            key_size,
            value_size,
            keys,
            bytes,
            batch,
            operations,
        } = *quotas;
        vec![(
            "keyvalue",
            json!({
                "buckets": buckets.iter().map(|b| &**b).collect::<Vec<_>>(),
                "scope": scope.name(),
                "max_key_size": key_size,
                "max_value_size": value_size,
                "max_keys": keys,
                "max_bytes": bytes,
                "max_batch": batch,
                "max_operations": operations,
            }),
        )]
    }

    fn inspect_lines(&self) -> Vec<(&'static str, String)> {
        if !self.grants_any() {
            return vec![("keyvalue", "none".into())];
        }
        let q = &self.quotas;
        let names: Vec<String> = self.buckets.iter().map(|b| format!("{b:?}")).collect();
        vec![
            (
                "keyvalue",
                format!("buckets {} (scope {})", names.join(", "), self.scope.name()),
            ),
            (
                "",
                format!(
                    "keys up to {}, values up to {}; per bucket {} keys, {}; {} keys a batch, {} operations a call",
                    bytes(q.key_size),
                    bytes(q.value_size),
                    count(q.keys),
                    bytes(q.bytes),
                    count(q.batch),
                    count(q.operations),
                ),
            ),
        ]
    }

    fn unused(&self, imports: &[ImportKind], section: &str) -> Option<String> {
        (self.grants_any() && !imports.contains(&ImportKind::Keyvalue)).then(|| {
            format!("`{section}.keyvalue` grants buckets, but the component imports no wasi:keyvalue interface")
        })
    }

    fn import_note(policy: Option<&Self>, kind: ImportKind) -> Option<String> {
        if kind != ImportKind::Keyvalue {
            return None;
        }
        Some(match policy {
            Some(p) if p.grants_any() => {
                let names: Vec<String> = p.buckets.iter().map(|b| format!("{b:?}")).collect();
                format!(
                    "may open {} (scope {}); any other bucket is access-denied",
                    names.join(", "),
                    p.scope.name()
                )
            }
            _ => "no bucket is granted: every `open` is access-denied (`keyvalue.buckets` grants them)".into(),
        })
    }
}

#[cfg(test)]
mod tests;
