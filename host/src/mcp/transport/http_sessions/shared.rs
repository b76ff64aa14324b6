//! Sessions shared by replicas through the Redis store (2025-11-25 and
//! earlier): each session's record in the store's `sessions()` namespace,
//! which any replica reads to take a session over, and rmcp's
//! [`SessionStore`] over it.
//!
//! A record holds what a replica needs to re-create the session locally
//! (rmcp replays the client's `initialize` and `notifications/initialized`
//! into a fresh local session and discards the answer): the client's
//! `initialize` params, its protocol version, the owner's OAuth subject
//! (as SHA-256, never the subject itself), and when the session began. It
//! is keyed by the SHA-256 of the session id, which is a credential and so
//! never goes into the store. It lives for the idle timeout and each
//! request renews it (a compare-and-swap with the same bytes, so that a
//! session deleted on another replica is never brought back); a replica
//! that finds it gone drops its local copy and answers `404`. The record
//! also holds the session's [`SharedState`] (its subscriptions and logging
//! level), changed by compare-and-swap; a renewal reads it back when it
//! changed, so each request carries it as of then ([`SharedSessions::link`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::model::InitializeRequestParams;
use rmcp::transport::streamable_http_server::session::{
    SessionState, SessionStore, SessionStoreError,
};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::Registry;
use crate::mcp::protocol::{Edit, SessionLink, SharedState, StateStore};
use crate::runtime::store::{Namespace, Store, StoreError, Swap};

/// The version of the record's encoding.
const VERSION: u32 = 1;

/// The most records whose bytes a replica keeps to renew them.
const MAX_CACHED: usize = 100_000;

/// A session's record in the store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The encoding's version.
    pub v: u32,
    /// SHA-256 (hex) of the OAuth subject that opened the session, if any.
    pub subject: Option<String>,
    /// The protocol version the client asked for in `initialize`.
    pub protocol: String,
    /// The client's `initialize` params, replayed by a replica that takes
    /// the session over.
    pub initialize: serde_json::Value,
    /// When the session began (milliseconds since the Unix epoch).
    pub created_ms: u64,
    /// Its subscriptions and logging level, which every copy shares.
    #[serde(default)]
    pub state: SharedState,
}

/// A record that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// Not a record of this encoding.
    #[error("a shared session record that cannot be read: {0}")]
    Malformed(#[from] serde_json::Error),
    /// A record of another version of the encoding.
    #[error("a shared session record of version {0}, not {VERSION}")]
    Version(u32),
}

impl Record {
    /// The record of a session opened by `subject` with `params`.
    pub fn new(subject: Option<&str>, params: &InitializeRequestParams) -> Record {
        let created_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        Record {
            v: VERSION,
            subject: subject.map(hash),
            protocol: params.protocol_version.to_string(),
            initialize: serde_json::to_value(params).unwrap_or_default(),
            created_ms,
            state: SharedState::default(),
        }
    }

    /// The stored bytes.
    pub fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// A record from its stored bytes.
    pub fn decode(bytes: &[u8]) -> Result<Record, RecordError> {
        let record: Record = serde_json::from_slice(bytes)?;
        if record.v != VERSION {
            return Err(RecordError::Version(record.v));
        }
        Ok(record)
    }

    /// Whether `subject` (none without OAuth) owns the session.
    pub fn owned_by(&self, subject: Option<&str>) -> bool {
        self.subject.as_deref() == subject.map(hash).as_deref()
    }

    /// The `initialize` params to replay.
    pub fn params(&self) -> Result<InitializeRequestParams, RecordError> {
        Ok(serde_json::from_value(self.initialize.clone())?)
    }
}

/// SHA-256 of `text`, in hex.
pub(super) fn hash(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// The record's key: `r/` and the SHA-256 of the session id.
fn record_key(id: &str) -> String {
    format!("r/{}", hash(id))
}

/// The key of a session's `scope = "session"` data, the same on every
/// replica: derived from the session id, from which it cannot be told.
pub fn data_key(id: &str) -> String {
    hash(&format!("mcp-wasm-host session data {id}"))
}

/// The sessions' records in the shared store.
#[derive(Debug)]
pub struct SharedSessions {
    store: Store,
    namespace: Namespace,
    idle: Duration,
    registry: Arc<Registry>,
    /// The bytes of the records this replica holds, to renew them.
    known: Mutex<HashMap<Arc<str>, Vec<u8>>>,
}

impl SharedSessions {
    /// Records in `store` that live `idle` past their last use; owners
    /// are read from `registry` when a session is stored.
    pub fn new(store: Store, idle: Duration, registry: Arc<Registry>) -> SharedSessions {
        SharedSessions {
            store,
            namespace: Namespace::sessions(),
            idle,
            registry,
            known: Mutex::default(),
        }
    }

    /// Which store holds them, as errors name it.
    pub fn store_name(&self) -> String {
        self.store.name().to_string()
    }

    fn known(&self) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, Vec<u8>>> {
        self.known.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn remember(&self, id: &str, bytes: Vec<u8>) {
        let mut known = self.known();
        if known.len() >= MAX_CACHED && !known.contains_key(id) {
            known.clear();
        }
        known.insert(id.into(), bytes);
    }

    /// The record of session `id`, if the store has one.
    pub async fn record(&self, id: &str) -> Result<Option<Record>, StoreError> {
        let Some(bytes) = self.store.get(&self.namespace, record_key(id)).await? else {
            return Ok(None);
        };
        match Record::decode(&bytes) {
            Ok(record) => {
                self.remember(id, bytes);
                Ok(Some(record))
            }
            Err(e) => {
                tracing::warn!(error = %e, "ignored a shared session record");
                Ok(None)
            }
        }
    }

    /// Renews session `id`'s record for another idle timeout; false when
    /// it is gone (ended on another replica, or expired).
    pub async fn renew(&self, id: &str) -> Result<bool, StoreError> {
        let cached = self.known().get(id).cloned();
        let bytes = match cached {
            Some(bytes) => bytes,
            None => match self.store.get(&self.namespace, record_key(id)).await? {
                Some(bytes) => bytes,
                None => return Ok(false),
            },
        };
        let swap = self
            .store
            .compare_and_swap(
                &self.namespace,
                record_key(id),
                Some(&bytes),
                &bytes,
                Some(self.idle),
            )
            .await?;
        match swap {
            Swap::Swapped => {
                self.remember(id, bytes);
                Ok(true)
            }
            Swap::Conflict { current: None } => {
                self.forget(id);
                Ok(false)
            }
            // Another replica wrote it meanwhile: renew what is there now.
            Swap::Conflict {
                current: Some(current),
            } => {
                let swap = self
                    .store
                    .compare_and_swap(
                        &self.namespace,
                        record_key(id),
                        Some(&current),
                        &current,
                        Some(self.idle),
                    )
                    .await?;
                self.remember(id, current);
                Ok(swap == Swap::Swapped)
            }
        }
    }

    /// The link a request of session `id` carries: its shared state as
    /// this replica last read the record, and where to change it.
    pub fn link(self: &Arc<Self>, id: &str) -> SessionLink {
        let snapshot = self
            .known()
            .get(id)
            .and_then(|bytes| Record::decode(bytes).ok())
            .map(|record| record.state);
        SessionLink {
            store: Arc::new(Link {
                sessions: self.clone(),
                id: id.into(),
            }),
            snapshot,
        }
    }

    /// Applies `edit` to session `id`'s shared state; false when the
    /// record is gone (the session ended). A record another replica wrote
    /// meanwhile is read again and edited.
    pub async fn edit(&self, id: &str, edit: Edit<'_>) -> Result<bool, StoreError> {
        let key = record_key(id);
        let mut current = self.store.get(&self.namespace, &key).await?;
        for _ in 0..MAX_EDIT_TRIES {
            let Some(bytes) = current else {
                return Ok(false);
            };
            let mut record = match Record::decode(&bytes) {
                Ok(record) => record,
                Err(e) => {
                    tracing::warn!(error = %e, "ignored a shared session record");
                    return Ok(false);
                }
            };
            edit(&mut record.state);
            let next = record.encode();
            let swap = self
                .store
                .compare_and_swap(&self.namespace, &key, Some(&bytes), &next, Some(self.idle))
                .await?;
            match swap {
                Swap::Swapped => {
                    self.remember(id, next);
                    return Ok(true);
                }
                Swap::Conflict { current: now } => current = now,
            }
        }
        Err(StoreError {
            store: self.store.name().clone(),
            op: crate::runtime::store::Op::CompareAndSwap,
            kind: crate::runtime::store::ErrorKind::Backend(
                "the session's shared record kept changing under other replicas' writes".into(),
            ),
        })
    }

    /// Ends session `id` on every replica: its record goes.
    pub async fn end(&self, id: &str) -> Result<bool, StoreError> {
        self.forget(id);
        self.store.delete(&self.namespace, record_key(id)).await
    }

    /// This replica no longer holds session `id`.
    pub fn forget(&self, id: &str) {
        self.known().remove(id);
    }
}

/// How often an edit retries a record another replica changed.
const MAX_EDIT_TRIES: usize = 8;

/// One session's shared state, for its handler.
#[derive(Debug)]
struct Link {
    sessions: Arc<SharedSessions>,
    /// Held in memory only: the store sees its hash.
    id: Arc<str>,
}

#[async_trait::async_trait]
impl StateStore for Link {
    async fn load(&self) -> Result<Option<SharedState>, StoreError> {
        Ok(self.sessions.record(&self.id).await?.map(|r| r.state))
    }

    async fn update(&self, edit: Edit<'_>) -> Result<bool, StoreError> {
        self.sessions.edit(&self.id, edit).await
    }
}

#[async_trait::async_trait]
impl SessionStore for SharedSessions {
    async fn load(&self, session_id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let Some(record) = self.record(session_id).await? else {
            return Ok(None);
        };
        Ok(Some(SessionState::new(record.params()?)))
    }

    async fn store(&self, session_id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        let subject = self.registry.subject_of(session_id);
        let record = Record::new(subject.as_deref(), &state.initialize_params);
        let bytes = record.encode();
        self.store
            .set(
                &self.namespace,
                record_key(session_id),
                &bytes,
                Some(self.idle),
            )
            .await?;
        self.remember(session_id, bytes);
        tracing::debug!("HTTP session recorded in the shared store");
        Ok(())
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        self.end(session_id).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{ClientCapabilities, Implementation, ProtocolVersion};

    fn params() -> InitializeRequestParams {
        InitializeRequestParams::new(
            ClientCapabilities::default(),
            Implementation::new("client", "1.0"),
        )
        .with_protocol_version(ProtocolVersion::V_2025_06_18)
    }

    #[test]
    fn a_record_reads_back_as_written_and_holds_no_subject_or_id() {
        let record = Record::new(Some("alice@example.com"), &params());
        let bytes = record.encode();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(!text.contains("alice"), "{text}");
        let back = Record::decode(&bytes).unwrap();
        assert_eq!(back, record);
        assert_eq!(back.protocol, "2025-06-18");
        assert_eq!(back.params().unwrap().client_info.name, "client");
        assert!(back.owned_by(Some("alice@example.com")));
        assert!(!back.owned_by(Some("bob")));
        assert!(!back.owned_by(None));
        let anonymous = Record::new(None, &params());
        assert!(anonymous.owned_by(None));
        assert!(!anonymous.owned_by(Some("alice@example.com")));
    }

    #[test]
    fn another_version_or_garbage_is_refused() {
        let mut record = Record::new(None, &params());
        record.v = 2;
        assert!(matches!(
            Record::decode(&record.encode()),
            Err(RecordError::Version(2))
        ));
        assert!(matches!(
            Record::decode(b"{\"v\": 1"),
            Err(RecordError::Malformed(_))
        ));
    }

    #[test]
    fn keys_name_neither_the_session_id_nor_each_other() {
        let id = "0b7c1b62-5a4e-4f4e-9b43-1f0c1b2a3d4e";
        assert!(!record_key(id).contains(id));
        assert!(!data_key(id).contains(id));
        assert_ne!(record_key(id)[2..], data_key(id));
        assert_eq!(data_key(id), data_key(id));
        assert_ne!(data_key(id), data_key("another"));
    }
}
