//! Resource subscriptions: the URIs a client watches, and
//! `notifications/resources/updated` for each of them when the plugin that
//! serves it is reloaded, replaced or removed (a plugin's resources can only
//! change with its file). Up to 2025-11-25 a session subscribes with
//! `resources/subscribe`; at 2026-07-28 a `subscriptions/listen` stream
//! names its URIs (`resourceSubscriptions`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rmcp::RoleServer;
use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::Peer;

use crate::runtime::{Runtime, Sha256Digest};

/// The most URIs one session may watch; more are refused.
pub const MAX_SUBSCRIPTIONS: usize = 1024;

/// Watched URIs, each with the version of the plugin that served it when
/// last seen.
#[derive(Debug, Default)]
pub struct Watched {
    uris: HashMap<String, Option<Sha256Digest>>,
}

/// The digest of the plugin serving `uri` now, if any.
fn server_of(runtime: &Runtime, uri: &str) -> Option<Sha256Digest> {
    runtime.catalog().resource_plugin(uri).map(|p| p.digest)
}

impl Watched {
    /// Watches `uris`, as served now.
    pub fn new<'a>(runtime: &Runtime, uris: impl IntoIterator<Item = &'a String>) -> Self {
        let mut watched = Watched::default();
        for uri in uris.into_iter().take(MAX_SUBSCRIPTIONS) {
            watched.add(runtime, uri);
        }
        watched
    }

    /// Watches `uri`; false when the session already watches the most it
    /// may.
    pub fn add(&mut self, runtime: &Runtime, uri: &str) -> bool {
        if self.uris.len() >= MAX_SUBSCRIPTIONS && !self.uris.contains_key(uri) {
            return false;
        }
        self.uris.insert(uri.to_owned(), server_of(runtime, uri));
        true
    }

    /// Stops watching `uri`.
    pub fn remove(&mut self, uri: &str) {
        self.uris.remove(uri);
    }

    /// The watched URIs whose serving plugin changed since last seen.
    pub fn updated(&mut self, runtime: &Runtime) -> Vec<String> {
        let mut updated = Vec::new();
        for (uri, seen) in &mut self.uris {
            let now = server_of(runtime, uri);
            if now != *seen {
                *seen = now;
                updated.push(uri.clone());
            }
        }
        updated.sort();
        updated
    }
}

/// One session's `resources/subscribe` subscriptions. Cheap to clone;
/// clones share them.
#[derive(Debug, Clone, Default)]
pub struct Subscriptions {
    watched: Arc<Mutex<Watched>>,
    watcher: Arc<OnceLock<()>>,
}

impl Subscriptions {
    /// Subscribes the session of `peer` to `uri`; the first subscription
    /// starts the task that notifies it. False when it watches too many.
    pub fn subscribe(&self, runtime: &Arc<Runtime>, peer: Peer<RoleServer>, uri: &str) -> bool {
        let added = self
            .watched
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .add(runtime, uri);
        self.watcher.get_or_init(|| {
            let (watched, runtime) = (self.watched.clone(), runtime.clone());
            let mut changes = runtime.subscribe_changes();
            changes.mark_unchanged();
            tokio::spawn(async move {
                while changes.changed().await.is_ok() && !peer.is_transport_closed() {
                    let updated = watched
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .updated(&runtime);
                    for uri in updated {
                        tracing::debug!(%uri, "a subscribed resource's plugin changed");
                        let param = ResourceUpdatedNotificationParam::new(uri);
                        if let Err(e) = peer.notify_resource_updated(param).await {
                            tracing::debug!("cannot send notifications/resources/updated: {e}");
                        }
                    }
                }
            });
        });
        added
    }

    /// Unsubscribes the session from `uri`.
    pub fn unsubscribe(&self, uri: &str) {
        self.watched
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(uri);
    }
}
