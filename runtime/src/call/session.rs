//! A client of the runtime, as [`reuse_instances = "session"`] and
//! `scope = "session"` buckets see it: an opaque identity that ends the
//! instances kept for it, and drops its data in the state store, when it is
//! dropped.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use crate::state::{Owner, SessionState};

/// What a pool must do when a session ends.
pub(crate) trait SessionEnds: Send + Sync {
    fn end_session(&self, session: u64);
}

/// One client of the runtime for `reuse_instances = "session"`: the stdio
/// client, or one HTTP session. Opaque: the runtime knows no MCP sessions;
/// whoever serves a client makes one (in its [`Caller`](crate::Caller)) and
/// drops it when the client goes, which drops the instances kept for it.
pub struct Session {
    id: u64,
    /// The pools that keep instances for it.
    pools: Mutex<Vec<Weak<dyn SessionEnds>>>,
    /// Its data in the state store (`scope = "session"`), dropped with it.
    state: SessionState,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("id", &self.id).finish()
    }
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

impl Session {
    /// A session no other has been, nor will be.
    pub fn new() -> Session {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Session {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            pools: Mutex::new(Vec::new()),
            state: SessionState::new(),
        }
    }

    /// Its data in the state store: its key there, and the namespaces it
    /// wrote, which go when it does.
    pub(crate) fn state(&self) -> &SessionState {
        &self.state
    }

    /// Its identity, for the pools that key instances by it.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// Records that `pool` keeps instances for this session, so they go
    /// when it does.
    pub(crate) fn joined(&self, pool: Arc<dyn SessionEnds>) {
        let mut pools = self.pools.lock().unwrap_or_else(PoisonError::into_inner);
        if !pools
            .iter()
            .any(|p| std::ptr::addr_eq(p.as_ptr(), Arc::as_ptr(&pool)))
        {
            pools.push(Arc::downgrade(&pool));
        }
    }
}

impl Drop for Session {
    /// The client is gone: so are the instances kept for it.
    fn drop(&mut self) {
        let pools = std::mem::take(self.pools.get_mut().unwrap_or_else(PoisonError::into_inner));
        for pool in pools.iter().filter_map(Weak::upgrade) {
            pool.end_session(self.id);
        }
        self.state.end();
    }
}

/// Whom a call is for: the client's session, if it has one, and the user it
/// authenticated as, if any.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Whose<'a> {
    /// The client's session (`None`: a stateless request).
    pub session: Option<&'a Session>,
    /// The OAuth subject it authenticated as.
    pub user: Option<&'a Arc<str>>,
}

impl Whose<'_> {
    /// Who owns the data a call's `scope = "session"` and `scope = "user"`
    /// buckets hold.
    pub(crate) fn owner(&self) -> Owner {
        Owner::new(self.session.map(|s| s.state().clone()), self.user.cloned())
    }
}
