//! Who a session's or listen stream's resource notifications are for,
//! judged when each is sent, off any request: the profile of its endpoint
//! and those bound to its OAuth caller, as they are now. A client hears
//! `notifications/resources/updated` for a URI only while what serves it
//! is in its view, and of its going away only if it was in view before:
//! a profile reveals nothing of what it hides through its subscriptions
//! either. A listen stream's `list_changed` is judged the same way.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use super::list_changed::ListsChanged;
use crate::config::{Profile, Profiles};
use crate::runtime::{Catalog, Principal};

/// What a session (or one listen stream) may hear of. Cheap to clone;
/// clones share the caller and what was in view.
#[derive(Debug, Clone)]
pub struct Audience {
    profiles: Profiles,
    /// The profile of the endpoint, by name.
    bound: Option<Arc<str>>,
    /// The OAuth caller, once a request or the handshake has shown it.
    principal: Arc<OnceLock<Principal>>,
    /// Whether each watched URI was in view when last judged.
    seen: Arc<Mutex<HashMap<String, bool>>>,
}

impl Audience {
    /// The audience of a connection on the endpoint of `bound` (if any),
    /// judged by the `profiles` of the time.
    pub fn new(profiles: Profiles, bound: Option<Arc<str>>) -> Self {
        Audience {
            profiles,
            bound,
            principal: Arc::default(),
            seen: Arc::default(),
        }
    }

    /// Notes the caller (the first one shown is kept: a session belongs to
    /// one subject).
    pub fn meet(&self, principal: Option<&Principal>) {
        if let Some(principal) = principal {
            let _ = self.principal.set(principal.clone());
        }
    }

    /// Which lists of `changed` (the catalog went from `old` to `new`) the
    /// audience is to be told of: those its profiles show a change of.
    pub fn shown(&self, changed: ListsChanged, catalogs: (&Catalog, &Catalog)) -> ListsChanged {
        super::list_changed::shown(changed, &self.judges(), catalogs)
    }

    /// The profiles that judge now; none: everything is in view.
    fn judges(&self) -> Vec<Arc<Profile>> {
        let mut all: Vec<Arc<Profile>> = self
            .bound
            .iter()
            .map(|name| {
                self.profiles
                    .get(name)
                    .unwrap_or_else(|| Arc::new(Profile::nothing(name)))
            })
            .collect();
        if let Some(principal) = self.principal.get() {
            all.extend(self.profiles.bound_for(principal));
        }
        all
    }

    /// Whether an update of `uri` (its plugin changed in `catalog`) is to
    /// be told: it is served now and in view, or served by nothing now and
    /// was in view when last judged.
    pub fn hears(&self, catalog: &Catalog, uri: &str) -> bool {
        let judges = self.judges();
        if judges.is_empty() {
            return true;
        }
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        match catalog.resource_plugin(uri) {
            Some(plugin) => {
                let in_view = judges.iter().all(|p| p.admits_resource(&plugin.name, uri));
                seen.insert(uri.to_owned(), in_view);
                in_view
            }
            None => seen.insert(uri.to_owned(), false).unwrap_or(false),
        }
    }

    /// Forgets every URI but those `watched` keeps.
    pub fn retain(&self, watched: impl Fn(&str) -> bool) {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|uri, _| watched(uri));
    }

    /// Forgets `uri` (no longer watched).
    pub fn forget(&self, uri: &str) {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(uri);
    }
}
