//! Telling connected clients that the tool list changed: a registry of the
//! sessions that completed the initialize handshake, and a task that sends
//! each of them `notifications/tools/list_changed` whenever the runtime's
//! catalog changes.

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rmcp::RoleServer;
use rmcp::service::Peer;
use tokio::sync::watch;

/// The initialized sessions to notify. Cheap to clone; clones share the
/// sessions.
#[derive(Debug, Clone, Default)]
pub struct PeerRegistry {
    peers: Arc<Mutex<Vec<Peer<RoleServer>>>>,
    forwarder: Arc<OnceLock<()>>,
}

impl PeerRegistry {
    /// Adds a session that completed the handshake. Closed sessions are
    /// dropped as they are found.
    pub fn register(&self, peer: Peer<RoleServer>) {
        let mut peers = self.peers.lock().unwrap_or_else(PoisonError::into_inner);
        peers.retain(|p| !p.is_transport_closed());
        peers.push(peer);
    }

    /// How many sessions are registered and still open.
    pub fn len(&self) -> usize {
        let mut peers = self.peers.lock().unwrap_or_else(PoisonError::into_inner);
        peers.retain(|p| !p.is_transport_closed());
        peers.len()
    }

    /// Whether no open session is registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sends `notifications/tools/list_changed` to every open session.
    pub async fn notify_tool_list_changed(&self) {
        let peers = {
            let mut peers = self.peers.lock().unwrap_or_else(PoisonError::into_inner);
            peers.retain(|p| !p.is_transport_closed());
            peers.clone()
        };
        for peer in peers {
            if let Err(e) = peer.notify_tool_list_changed().await {
                tracing::debug!("cannot send notifications/tools/list_changed: {e}");
            }
        }
    }

    /// Starts (once per registry) the task that notifies every session each
    /// time `changes` sees a new value. Must be called within a tokio
    /// runtime. The task ends when the sender is dropped.
    pub fn forward(&self, changes: &watch::Receiver<u64>) {
        self.forwarder.get_or_init(|| {
            let mut changes = changes.clone();
            changes.mark_unchanged();
            let registry = self.clone();
            tokio::spawn(async move {
                while changes.changed().await.is_ok() {
                    tracing::debug!("the tool list changed; notifying clients");
                    registry.notify_tool_list_changed().await;
                }
            });
        });
    }
}
