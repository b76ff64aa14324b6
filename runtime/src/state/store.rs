//! The state store a plugin's calls reach through `wasi:keyvalue`: the
//! runtime's one store, shared by every plugin, carried in each plugin's
//! [`Policy`](crate::Policy) so that a call's capabilities find it. A store
//! may be opened on first use (the embedded file, which one process at a
//! time holds: a server whose plugins never use a bucket never takes it),
//! and an opening that fails is tried again by the next operation.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};

use mcp_wasm_host_store::Store;

/// Opens a store, or says why it cannot.
type Opener =
    Box<dyn Fn() -> Pin<Box<dyn Future<Output = Result<Store, String>> + Send>> + Send + Sync>;

/// The runtime's state store, or none (a runtime embedded without one:
/// every bucket is unavailable, and says so).
#[derive(Clone, Default)]
pub struct StateStore(Option<Arc<Shared>>);

struct Shared {
    opened: OnceLock<Store>,
    /// Held while opening, so that one caller opens.
    opening: tokio::sync::Mutex<()>,
    open: Option<Opener>,
}

impl fmt::Debug for StateStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.as_ref().and_then(|s| s.opened.get()) {
            Some(store) => write!(f, "StateStore({})", store.name()),
            None => f.write_str("StateStore(not open)"),
        }
    }
}

impl StateStore {
    /// The store `store`, open.
    pub fn new(store: Store) -> StateStore {
        let opened = OnceLock::new();
        let _ = opened.set(store);
        StateStore(Some(Arc::new(Shared {
            opened,
            opening: tokio::sync::Mutex::new(()),
            open: None,
        })))
    }

    /// A store `open` opens when a call first needs it (and again after
    /// an opening that failed).
    pub fn on_first_use<F, Fut>(open: F) -> StateStore
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Store, String>> + Send + 'static,
    {
        StateStore(Some(Arc::new(Shared {
            opened: OnceLock::new(),
            opening: tokio::sync::Mutex::new(()),
            open: Some(Box::new(move || Box::pin(open()))),
        })))
    }

    /// The store, opened if need be, or why there is none.
    pub async fn get(&self) -> Result<Store, String> {
        let Some(shared) = &self.0 else {
            return Err("this server has no state store".into());
        };
        if let Some(store) = shared.opened.get() {
            return Ok(store.clone());
        }
        let _opening = shared.opening.lock().await;
        if let Some(store) = shared.opened.get() {
            return Ok(store.clone());
        }
        let Some(open) = &shared.open else {
            return Err("this server has no state store".into());
        };
        let store = open().await?;
        Ok(shared.opened.get_or_init(|| store).clone())
    }
}

/// Two policies are the same when they reach the same store (a reload that
/// changes nothing else changes nothing).
impl PartialEq for StateStore {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}
