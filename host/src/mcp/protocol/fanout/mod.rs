//! Notifications across replicas (issue 46): with a store the replicas
//! share, each replica publishes what changed in its catalog (a
//! [`message::Change`]: digests and plugin versions, never a payload) on
//! the store's `notifications()` topic, and follows the others'. The
//! session registry, the `resources/subscribe` watchers and the
//! `subscriptions/listen` streams follow [`Notices`] instead of the
//! runtime alone, so a client hears a change whichever replica applied it
//! first, once ([`view`] says how). Without a shared store, [`Notices`] is
//! the runtime's own changes, as on a single server.

pub mod message;
pub mod view;

use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::watch;

use crate::runtime::store::{Heard, Namespace, Store};
use crate::runtime::{Generations, Runtime};
use message::{Change, Lists, Versions, replica_name, transitions, versions};
use view::View;

pub use message::Transition;

/// The topic of catalog changes in the `notifications()` namespace.
const TOPIC: &[u8] = b"catalog";

/// The changes this replica's clients are told of. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Notices {
    inner: Inner,
}

#[derive(Debug, Clone)]
enum Inner {
    /// A single server: the runtime's own changes.
    Local(Arc<Runtime>),
    /// A replica: its own changes and the others', merged.
    Cluster(Arc<Cluster>),
}

#[derive(Debug)]
struct Cluster {
    replica: String,
    store: Store,
    view: Mutex<View>,
    sender: watch::Sender<Generations>,
}

impl Cluster {
    fn view(&self) -> std::sync::MutexGuard<'_, View> {
        self.view.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn moved(&self, moved: Option<Generations>) {
        if let Some(generations) = moved {
            self.sender.send_replace(generations);
        }
    }
}

impl Notices {
    /// The runtime's own changes (no store, or one the replicas do not
    /// share).
    pub fn local(runtime: Arc<Runtime>) -> Notices {
        Notices {
            inner: Inner::Local(runtime),
        }
    }

    /// This replica's changes and those `store`'s other replicas publish.
    /// Starts the tasks that publish and follow them: call it within a
    /// tokio runtime (without one, the changes stay local).
    pub fn cluster(runtime: Arc<Runtime>, store: Store) -> Notices {
        let Ok(handle) = tokio::runtime::Handle::try_current() else {
            tracing::warn!("no async runtime: notifications stay on this replica");
            return Notices::local(runtime);
        };
        let catalog = runtime.catalog();
        let cluster = Arc::new(Cluster {
            replica: replica_name(),
            store,
            view: Mutex::new(View::new(Lists::of(&catalog))),
            sender: watch::Sender::new(Generations::default()),
        });
        tracing::info!(
            replica = cluster.replica,
            store = %cluster.store.name(),
            "notifications are shared with the other replicas through the store"
        );
        handle.spawn(publish(
            cluster.clone(),
            runtime.clone(),
            versions(&catalog),
        ));
        handle.spawn(follow(cluster.clone()));
        Notices {
            inner: Inner::Cluster(cluster),
        }
    }

    /// The counters the watchers follow: what each list's `list_changed`
    /// and the resource watchers' refresh go by.
    pub fn subscribe(&self) -> watch::Receiver<Generations> {
        match &self.inner {
            Inner::Local(runtime) => runtime.subscribe_changes(),
            Inner::Cluster(cluster) => cluster.sender.subscribe(),
        }
    }

    /// The counters a watcher starts from, given the runtime's `local`
    /// ones it waited for.
    pub fn since(&self, local: Generations) -> Generations {
        match &self.inner {
            Inner::Local(_) => local,
            Inner::Cluster(cluster) => *cluster.sender.borrow(),
        }
    }

    /// Where a new resource watcher starts reading other replicas' plugin
    /// transitions.
    pub fn cursor(&self) -> u64 {
        match &self.inner {
            Inner::Local(_) => 0,
            Inner::Cluster(cluster) => cluster.view().cursor(),
        }
    }

    /// Other replicas' plugin transitions from `cursor` on; moves it past
    /// them.
    pub fn heard(&self, cursor: &mut u64) -> Vec<Transition> {
        match &self.inner {
            Inner::Local(_) => Vec::new(),
            Inner::Cluster(cluster) => {
                let (heard, next) = cluster.view().since(*cursor);
                *cursor = next;
                heard
            }
        }
    }
}

/// Follows this replica's catalog: announces each change to its own
/// watchers and, once its first load is done, publishes it for the other
/// replicas (a replica starting up in a rolling update does not make the
/// others announce each plugin as it loads). A change that cannot be
/// published (the store is down) reaches the others' clients when their
/// own replica applies it.
async fn publish(cluster: Arc<Cluster>, runtime: Arc<Runtime>, mut before: Versions) {
    let mut changes = runtime.subscribe_changes();
    let mut seen = *changes.borrow_and_update();
    let loaded = runtime.wait_until_loaded();
    tokio::pin!(loaded);
    let mut ready = false;
    loop {
        tokio::select! {
            () = &mut loaded, if !ready => {
                ready = true;
                continue;
            }
            changed = changes.changed() => if changed.is_err() {
                return;
            },
        }
        let now = *changes.borrow_and_update();
        let (lists, after) = {
            let catalog = runtime.catalog();
            (Lists::of(&catalog), versions(&catalog))
        };
        let plugins = transitions(&before, &after);
        cluster.moved(cluster.view().local(&lists, now.plugins != seen.plugins));
        (before, seen) = (after, now);
        if !ready {
            continue;
        }
        let change = Change {
            replica: cluster.replica.clone(),
            lists,
            plugins,
        };
        if let Err(e) = cluster
            .store
            .publish(&Namespace::notifications(), TOPIC, change.encode())
            .await
        {
            tracing::warn!(error = %e, "a catalog change was not told to the other replicas; their clients hear of it when their replica applies it");
        }
    }
}

/// Follows the other replicas' changes for as long as the server runs,
/// subscribing again after the store's connection drops. Changes
/// published while it is down are not delivered later: their clients hear
/// of them when this replica applies them itself.
async fn follow(cluster: Arc<Cluster>) {
    let store = cluster.store.clone();
    store
        .follow(&Namespace::notifications(), TOPIC, "the other replicas' catalog changes", |heard| match heard {
            Heard::Message(bytes) => heard_change(&cluster, bytes),
            Heard::Gap(e) => {
                tracing::info!(error = %e, "missed other replicas' catalog changes; clients hear of them when this replica applies them");
            }
        })
        .await
}

/// Acts on one message: another replica's change (this replica's own
/// echo is dropped: its watchers heard it from the catalog).
fn heard_change(cluster: &Cluster, bytes: &[u8]) {
    match Change::decode(bytes) {
        Ok(change) if change.replica == cluster.replica => {}
        Ok(change) => {
            tracing::debug!(
                replica = change.replica,
                "another replica's catalog changed"
            );
            cluster.moved(cluster.view().peer(&change));
        }
        Err(e) => tracing::debug!(error = %e, "a catalog change this server cannot read"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Sha256Digest;

    fn cluster(store: Store) -> Cluster {
        Cluster {
            replica: "me".into(),
            store,
            view: Mutex::new(View::new(Lists::default())),
            sender: watch::Sender::new(Generations::default()),
        }
    }

    #[tokio::test]
    async fn a_replicas_own_echo_is_dropped_and_anothers_change_delivered_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::embedded(dir.path()).await.unwrap();
        let me = cluster(store);
        let mut watcher = me.sender.subscribe();
        let change = |replica: &str| Change {
            replica: replica.into(),
            lists: Lists {
                tools: "new".into(),
                ..Lists::default()
            },
            plugins: vec![Transition {
                from: Sha256Digest([7; 32]),
                to: None,
            }],
        };
        heard_change(&me, &change("me").encode());
        assert!(!watcher.has_changed().unwrap(), "its own echo");
        heard_change(&me, &change("other").encode());
        assert!(watcher.has_changed().unwrap());
        let after = *watcher.borrow_and_update();
        assert_eq!((after.tools, after.plugins), (1, 1));
        // The same list again (a third replica applied it): no list
        // announced again.
        let mut again = change("third");
        again.plugins.clear();
        heard_change(&me, &again.encode());
        assert!(!watcher.has_changed().unwrap());
        heard_change(&me, b"not json");
        assert!(!watcher.has_changed().unwrap());
    }
}
