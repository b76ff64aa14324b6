//! Whose data a call's state is: the [`Owner`] of a call (its client's
//! session and user), which the keyvalue capability builds its `session`
//! and `user` namespaces from, and a session's [`SessionState`], whose
//! namespaces are dropped from the store when the session ends. Here, not
//! in the capability, so that sessions and calls name no capability.

use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use mcp_wasm_host_store::{Namespace, Store};

/// How long a `scope = "session"` entry outlives its last write when the
/// server could not drop it at the session's end (it stopped first).
pub const SESSION_DATA_TTL: Duration = Duration::from_secs(24 * 3600);

/// Whose call it is, for buckets whose scope is a session or a user.
#[derive(Debug, Clone, Default)]
pub struct Owner {
    session: Option<SessionState>,
    user: Option<Arc<str>>,
}

impl Owner {
    /// The owner of a call from `session` (none: a stateless request), made
    /// by `user` (none: not authenticated).
    pub fn new(session: Option<SessionState>, user: Option<Arc<str>>) -> Owner {
        Owner { session, user }
    }

    /// The client's session.
    pub fn session(&self) -> Option<&SessionState> {
        self.session.as_ref()
    }

    /// The user, by OAuth subject.
    pub fn user(&self) -> Option<&Arc<str>> {
        self.user.as_ref()
    }
}

/// The key of a session's data that every replica of a cluster gives it
/// (the HTTP layer derives it from the MCP session id, which cannot be
/// told from it), for a session the replicas share through the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionDataKey(Arc<str>);

impl SessionDataKey {
    /// The key `key`.
    pub fn new(key: impl Into<Arc<str>>) -> SessionDataKey {
        SessionDataKey(key.into())
    }
}

/// A client session's data in the state store: its key there (random, never
/// the MCP session id, which is a credential; or the [`SessionDataKey`] of
/// a session the replicas share) and the namespaces it wrote.
#[derive(Clone)]
pub struct SessionState(Arc<Inner>);

struct Inner {
    key: Arc<str>,
    /// The key every replica gives the session, when they share it.
    shared: OnceLock<Arc<str>>,
    written: Mutex<Vec<(Store, Namespace)>>,
}

impl std::fmt::Debug for SessionState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionState").finish_non_exhaustive()
    }
}

impl Default for SessionState {
    fn default() -> Self {
        SessionState::new()
    }
}

impl SessionState {
    /// A session's state under a fresh random key.
    pub fn new() -> SessionState {
        SessionState(Arc::new(Inner {
            key: uuid::Uuid::new_v4().simple().to_string().into(),
            shared: OnceLock::new(),
            written: Mutex::new(Vec::new()),
        }))
    }

    /// Its key in the store's namespaces.
    pub fn key(&self) -> &str {
        self.0.shared.get().unwrap_or(&self.0.key)
    }

    /// The session is shared by the replicas under `key`: its data is
    /// kept under that key from now on (set once; a session keeps its
    /// key), and this replica's end of it drops none of it, as other
    /// replicas go on serving the session.
    pub fn share(&self, key: &SessionDataKey) {
        let _ = self.0.shared.set(key.0.clone());
    }

    /// Records that the session wrote into `namespace` of `store`, which
    /// its end drops.
    pub fn wrote(&self, store: &Store, namespace: &Namespace) {
        let mut written = self
            .0
            .written
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if !written
            .iter()
            .any(|(s, ns)| ns == namespace && s.same(store))
        {
            written.push((store.clone(), namespace.clone()));
        }
    }

    /// The session ended: drops what it wrote, off the caller's path (on
    /// the tokio runtime, when there is one; otherwise its entries expire
    /// [`SESSION_DATA_TTL`] after their last write).
    pub fn end(&self) {
        if self.0.shared.get().is_some() {
            // Its entries expire [`SESSION_DATA_TTL`] after their last write.
            return;
        }
        let written = std::mem::take(
            &mut *self
                .0
                .written
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        if written.is_empty() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            for (store, namespace) in written {
                if let Err(e) = store.drop_namespace(&namespace).await {
                    tracing::warn!(error = %e, "could not drop an ended session's bucket; its entries expire within a day");
                }
            }
        });
    }
}
