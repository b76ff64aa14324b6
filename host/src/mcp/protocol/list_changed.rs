//! Telling connected clients that a list changed: a registry of the
//! sessions that completed the initialize handshake, and a task that sends
//! each of them `notifications/tools/list_changed`,
//! `notifications/resources/list_changed` or
//! `notifications/prompts/list_changed` whenever that part of the runtime's
//! catalog changes.

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rmcp::RoleServer;
use rmcp::service::Peer;
use tokio::sync::watch;

use crate::runtime::Generations;

/// Which of the catalog's lists changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ListsChanged {
    /// The tools.
    pub tools: bool,
    /// The resources or templates.
    pub resources: bool,
    /// The prompts.
    pub prompts: bool,
}

impl ListsChanged {
    /// What differs between two generations.
    pub fn between(old: &Generations, new: &Generations) -> Self {
        ListsChanged {
            tools: old.tools != new.tools,
            resources: old.resources != new.resources,
            prompts: old.prompts != new.prompts,
        }
    }
}

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

    /// Sends the `list_changed` notification of each list in `changed` to
    /// every open session.
    pub async fn notify_lists_changed(&self, changed: ListsChanged) {
        let peers = {
            let mut peers = self.peers.lock().unwrap_or_else(PoisonError::into_inner);
            peers.retain(|p| !p.is_transport_closed());
            peers.clone()
        };
        for peer in peers {
            if changed.tools
                && let Err(e) = peer.notify_tool_list_changed().await
            {
                tracing::debug!("cannot send notifications/tools/list_changed: {e}");
            }
            if changed.resources
                && let Err(e) = peer.notify_resource_list_changed().await
            {
                tracing::debug!("cannot send notifications/resources/list_changed: {e}");
            }
            if changed.prompts
                && let Err(e) = peer.notify_prompt_list_changed().await
            {
                tracing::debug!("cannot send notifications/prompts/list_changed: {e}");
            }
        }
    }

    /// Starts (once per registry) the task that notifies every session of
    /// each change `changes` sees after `since` (one already made since
    /// then at once). Must be called within a tokio runtime. The task ends
    /// when the sender is dropped.
    pub fn forward(&self, changes: &watch::Receiver<Generations>, since: Generations) {
        self.forwarder.get_or_init(|| {
            let mut changes = changes.clone();
            let registry = self.clone();
            tokio::spawn(async move {
                let mut seen = since;
                let mut first = true;
                loop {
                    let now = *changes.borrow_and_update();
                    let changed = ListsChanged::between(&seen, &now);
                    seen = now;
                    if changed != ListsChanged::default() {
                        tracing::debug!(?changed, "lists changed; notifying clients");
                        registry.notify_lists_changed(changed).await;
                    }
                    if std::mem::take(&mut first) {
                        tracing::info!("clients are told of list changes from now on");
                    }
                    if changes.changed().await.is_err() {
                        break;
                    }
                }
            });
        });
    }
}
