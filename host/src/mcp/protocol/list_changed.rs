//! Telling connected clients that a list changed: a registry of the
//! sessions that completed the initialize handshake (each with the profile
//! it is bound to, if any), a task that sends each of them
//! `notifications/tools/list_changed`,
//! `notifications/resources/list_changed` or
//! `notifications/prompts/list_changed` whenever that part of the runtime's
//! catalog changes (on a single server, to a session bound to profiles
//! only when what they show changed), and one that tells the sessions
//! bound to a profile when a reload changed what that profile shows them,
//! and no one else.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, Weak};

use rmcp::RoleServer;
use rmcp::service::Peer;
use tokio::sync::watch;

use crate::config::Profiles;
use crate::config::profiles::{Profile, ProfileMap, bound_for};
use crate::runtime::{Catalog, Generations, Principal, Runtime};

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
    /// The lists changed in both.
    fn and(self, other: ListsChanged) -> ListsChanged {
        ListsChanged {
            tools: self.tools && other.tools,
            resources: self.resources && other.resources,
            prompts: self.prompts && other.prompts,
        }
    }

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
    /// What `profiles` show of `catalog` together (what every one of them
    /// admits); no profile shows everything.
    fn of(profiles: &[Arc<Profile>], catalog: &'c Catalog) -> View<'c> {
        let resources = catalog
            .resources()
            .iter()
            .filter(|r| {
                profiles
                    .iter()
                    .all(|p| p.admits_resource(&r.plugin.name, &r.info.uri))
            })
            .map(|r| r.info.uri.as_str());
        let templates = catalog
            .templates()
            .iter()
            .filter(|t| {
                profiles
                    .iter()
                    .all(|p| p.admits_resource(&t.plugin.name, &t.info.uri_template))
            })
            .map(|t| t.info.uri_template.as_str());
        let mut tools: Vec<&str> = catalog.tools().iter().map(|t| t.name.as_str()).collect();
        for p in profiles {
            let admitted = p.tool_names(catalog);
            tools = admitted
                .into_iter()
                .filter(|t| tools.contains(t))
                .collect::<Vec<_>>();
        }
        View {
            tools,
            resources: resources.chain(templates).collect(),
            prompts: catalog
                .prompts()
                .iter()
                .filter(|e| {
                    profiles
                        .iter()
                        .all(|p| p.admits_prompt(&e.plugin.name, &e.name))
                })
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

/// One initialized session: its peer, the profile of its endpoint, and
/// its OAuth caller (whose subject or scopes may bind it to profiles).
type Registered = (Peer<RoleServer>, Option<Arc<str>>, Option<Principal>);

/// The profiles of `map` a session passes: its endpoint's `name` (one
/// removed admits nothing) and those bound to its caller `who`.
fn passes(map: &ProfileMap, name: &Option<Arc<str>>, who: &Option<Principal>) -> Vec<Arc<Profile>> {
    let mut all: Vec<Arc<Profile>> = name
        .iter()
        .map(|n| {
            map.get(&**n)
                .cloned()
                .unwrap_or_else(|| Arc::new(Profile::nothing(n)))
        })
        .collect();
    all.extend(who.iter().flat_map(|p| bound_for(map, p)));
    all
}

/// Which lists of `changed` (the catalog went from `old` to `new`) a
/// client passing `profiles` is to be told of: those whose view changed;
/// every one when it passes no profile.
pub(super) fn shown(
    changed: ListsChanged,
    profiles: &[Arc<Profile>],
    (old, new): (&Catalog, &Catalog),
) -> ListsChanged {
    if profiles.is_empty() {
        return changed;
    }
    View::of(profiles, old)
        .changed(&View::of(profiles, new))
        .and(changed)
}

/// Sessions that pass the same profiles.
struct Passing {
    profiles: Vec<Arc<Profile>>,
    peers: Vec<Peer<RoleServer>>,
}

/// Sessions that pass the same profiles before and after a reload.
struct Group {
    before: Vec<Arc<Profile>>,
    after: Vec<Arc<Profile>>,
    peers: Vec<Peer<RoleServer>>,
}

/// The initialized sessions to notify. Cheap to clone; clones share the
/// sessions.
#[derive(Debug, Clone, Default)]
pub struct PeerRegistry {
    peers: Arc<Mutex<Vec<Registered>>>,
    forwarder: Arc<OnceLock<()>>,
    profile_forwarder: Arc<OnceLock<()>>,
}

impl PeerRegistry {
    /// Adds a session that completed the handshake, on the endpoint of
    /// the profile `bound` if any, opened by `principal` if any. Closed
    /// sessions are dropped as they are found.
    pub fn register(
        &self,
        peer: Peer<RoleServer>,
        bound: Option<Arc<str>>,
        principal: Option<Principal>,
    ) {
        self.open().push((peer, bound, principal));
    }

    /// The registered sessions, the closed ones dropped.
    fn open(&self) -> MutexGuard<'_, Vec<Registered>> {
        let mut peers = self.peers.lock().unwrap_or_else(PoisonError::into_inner);
        peers.retain(|(p, _, _)| !p.is_transport_closed());
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
        let peers: Vec<_> = self.open().iter().map(|(p, _, _)| p.clone()).collect();
        notify(&peers, changed).await;
    }

    /// Sends the `list_changed` notifications of `changed` (the catalog
    /// went from `old` to `new`) to every open session whose profiles,
    /// under `profiles`, show a difference in that list; a session bound
    /// to no profile hears of every change.
    async fn notify_catalog_changed(
        &self,
        changed: ListsChanged,
        (old, new): (&Catalog, &Catalog),
        profiles: &ProfileMap,
    ) {
        let mut groups: BTreeMap<Vec<String>, Passing> = BTreeMap::new();
        for (peer, name, who) in self.open().iter() {
            let passes = passes(profiles, name, who);
            let key = passes.iter().map(|p| p.name().to_string()).collect();
            groups
                .entry(key)
                .or_insert_with(|| Passing {
                    profiles: passes,
                    peers: Vec::new(),
                })
                .peers
                .push(peer.clone());
        }
        let mut untold = 0;
        for group in groups.into_values() {
            let shown = shown(changed, &group.profiles, (old, new));
            if shown == ListsChanged::default() {
                untold += group.peers.len();
                continue;
            }
            notify(&group.peers, shown).await;
        }
        if untold > 0 {
            tracing::info!(
                sessions = untold,
                ?changed,
                "lists changed; not telling the sessions whose profiles show none of it"
            );
        }
    }

    /// Tells the sessions bound to profiles (by their endpoint or their
    /// OAuth caller) whose view of `catalog` differs between `old` and
    /// `new` which of their lists changed; no other session hears of it.
    async fn notify_views_changed(&self, old: &ProfileMap, new: &ProfileMap, catalog: &Catalog) {
        // Sessions grouped by the names of the profiles they pass before
        // and after, so that each group's views are computed once.
        let mut groups: BTreeMap<(Vec<String>, Vec<String>), Group> = BTreeMap::new();
        for (peer, name, who) in self.open().iter() {
            let (before, after) = (passes(old, name, who), passes(new, name, who));
            if before.is_empty() && after.is_empty() {
                continue;
            }
            let names = |b: &[Arc<Profile>]| b.iter().map(|p| p.name().to_string()).collect();
            let key = (names(&before), names(&after));
            groups
                .entry(key)
                .or_insert_with(|| Group {
                    before,
                    after,
                    peers: Vec::new(),
                })
                .peers
                .push(peer.clone());
        }
        for ((was, is), group) in groups {
            let changed =
                View::of(&group.before, catalog).changed(&View::of(&group.after, catalog));
            if changed != ListsChanged::default() {
                let profile = if is.is_empty() { was } else { is };
                tracing::info!(
                    profile = profile.join("+"),
                    ?changed,
                    sessions = group.peers.len(),
                    "a profile's lists changed; notifying its sessions"
                );
                notify(&group.peers, changed).await;
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
    /// then at once). With `views` (a single server's runtime and
    /// profiles), a session bound to profiles hears only of changes its
    /// profiles show (from the second change on: the catalog at `since` is
    /// not kept). Must be called within a tokio runtime. The task ends
    /// when the sender is dropped.
    pub fn forward(
        &self,
        changes: &watch::Receiver<Generations>,
        since: Generations,
        views: Option<(Weak<Runtime>, Profiles)>,
    ) {
        self.forwarder.get_or_init(|| {
            let mut changes = changes.clone();
            let registry = self.clone();
            tokio::spawn(async move {
                let mut seen = since;
                let mut first = true;
                let mut last: Option<Arc<Catalog>> = None;
                loop {
                    let now = *changes.borrow_and_update();
                    let changed = ListsChanged::between(&seen, &now);
                    seen = now;
                    let catalog = views
                        .as_ref()
                        .and_then(|(runtime, _)| runtime.upgrade())
                        .map(|runtime| runtime.catalog());
                    if changed != ListsChanged::default() {
                        tracing::debug!(?changed, "lists changed; notifying clients");
                        match (&last, &catalog, &views) {
                            (Some(old), Some(new), Some((_, profiles))) => {
                                let map = profiles.subscribe().borrow().clone();
                                registry
                                    .notify_catalog_changed(changed, (old, new), &map)
                                    .await;
                            }
                            _ => registry.notify_lists_changed(changed).await,
                        }
                    }
                    last = catalog;
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
