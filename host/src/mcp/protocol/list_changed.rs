//! Telling connected clients that a list changed: a registry of the
//! sessions that completed the initialize handshake (each with the profile
//! it is bound to, if any), a task that sends each of them
//! `notifications/tools/list_changed`,
//! `notifications/resources/list_changed` or
//! `notifications/prompts/list_changed` whenever that part of the runtime's
//! catalog changes, and one that tells the sessions bound to a profile
//! when a reload changed what that profile shows them, and no one else.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, Weak};

use rmcp::RoleServer;
use rmcp::service::Peer;
use tokio::sync::watch;

use crate::config::Profiles;
use crate::config::profiles::{Profile, ProfileMap};
use crate::runtime::{Catalog, Generations, Runtime};

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

/// What a profile shows of a catalog: the names of its tools, the URIs of
/// its resources and templates, and the names of its prompts.
#[derive(Debug, PartialEq, Eq)]
struct View<'c> {
    tools: Vec<&'c str>,
    resources: Vec<&'c str>,
    prompts: Vec<&'c str>,
}

impl<'c> View<'c> {
    /// What `profile` shows of `catalog` (a profile removed shows nothing).
    fn of(profile: Option<&Profile>, catalog: &'c Catalog) -> View<'c> {
        let Some(p) = profile else {
            return View {
                tools: Vec::new(),
                resources: Vec::new(),
                prompts: Vec::new(),
            };
        };
        let resources = catalog
            .resources()
            .iter()
            .filter(|r| p.admits_resource(&r.plugin.name, &r.info.uri))
            .map(|r| r.info.uri.as_str());
        let templates = catalog
            .templates()
            .iter()
            .filter(|t| p.admits_resource(&t.plugin.name, &t.info.uri_template))
            .map(|t| t.info.uri_template.as_str());
        View {
            tools: p.tool_names(catalog),
            resources: resources.chain(templates).collect(),
            prompts: catalog
                .prompts()
                .iter()
                .filter(|e| p.admits_prompt(&e.plugin.name, &e.name))
                .map(|e| e.name.as_str())
                .collect(),
        }
    }

    /// Which lists differ between two views.
    fn changed(&self, new: &View<'_>) -> ListsChanged {
        ListsChanged {
            tools: self.tools != new.tools,
            resources: self.resources != new.resources,
            prompts: self.prompts != new.prompts,
        }
    }
}

/// One initialized session: its peer, and the profile it is bound to.
type Registered = (Peer<RoleServer>, Option<Arc<str>>);

/// The initialized sessions to notify. Cheap to clone; clones share the
/// sessions.
#[derive(Debug, Clone, Default)]
pub struct PeerRegistry {
    peers: Arc<Mutex<Vec<Registered>>>,
    forwarder: Arc<OnceLock<()>>,
    profile_forwarder: Arc<OnceLock<()>>,
}

impl PeerRegistry {
    /// Adds a session that completed the handshake, bound to the profile
    /// `bound` if any. Closed sessions are dropped as they are found.
    pub fn register(&self, peer: Peer<RoleServer>, bound: Option<Arc<str>>) {
        self.open().push((peer, bound));
    }

    /// The registered sessions, the closed ones dropped.
    fn open(&self) -> MutexGuard<'_, Vec<Registered>> {
        let mut peers = self.peers.lock().unwrap_or_else(PoisonError::into_inner);
        peers.retain(|(p, _)| !p.is_transport_closed());
        peers
    }

    /// How many sessions are registered and still open.
    pub fn len(&self) -> usize {
        self.open().len()
    }

    /// Whether no open session is registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sends the `list_changed` notification of each list in `changed` to
    /// every open session.
    pub async fn notify_lists_changed(&self, changed: ListsChanged) {
        let peers: Vec<_> = self.open().iter().map(|(p, _)| p.clone()).collect();
        notify(&peers, changed).await;
    }

    /// Tells the sessions bound to each profile whose view of `catalog`
    /// differs between `old` and `new` which of their lists changed; no
    /// other session hears of it.
    async fn notify_views_changed(&self, old: &ProfileMap, new: &ProfileMap, catalog: &Catalog) {
        let mut bound: BTreeMap<Arc<str>, Vec<Peer<RoleServer>>> = BTreeMap::new();
        for (peer, name) in self.open().iter() {
            if let Some(name) = name {
                bound.entry(name.clone()).or_default().push(peer.clone());
            }
        }
        for (name, peers) in bound {
            let view = |map: &ProfileMap| View::of(map.get(&*name).map(|p| &**p), catalog);
            let changed = view(old).changed(&view(new));
            if changed != ListsChanged::default() {
                tracing::info!(
                    profile = &*name,
                    ?changed,
                    sessions = peers.len(),
                    "a profile's lists changed; notifying its sessions"
                );
                notify(&peers, changed).await;
            }
        }
    }

    /// Starts (once per registry) the task that, each time `profiles` is
    /// replaced (a policy reload), tells the sessions whose profile now
    /// shows other tools, resources or prompts of the catalog. The task
    /// ends when the profiles' sender is dropped or the runtime is gone.
    pub fn forward_profiles(&self, profiles: &Profiles, runtime: Weak<Runtime>) {
        self.profile_forwarder.get_or_init(|| {
            let mut changes = profiles.subscribe();
            // The set now: a replacement from here on is a change.
            let mut old = changes.borrow_and_update().clone();
            let registry = self.clone();
            tokio::spawn(async move {
                while changes.changed().await.is_ok() {
                    let new = changes.borrow_and_update().clone();
                    let Some(runtime) = runtime.upgrade() else {
                        break;
                    };
                    let catalog = runtime.catalog();
                    registry.notify_views_changed(&old, &new, &catalog).await;
                    old = new;
                }
            });
        });
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

/// Sends the `list_changed` notification of each list in `changed` to
/// `peers`.
async fn notify(peers: &[Peer<RoleServer>], changed: ListsChanged) {
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
