//! How far the first load of plugins has got, for whatever waits on it
//! (lists, calls, change notices): the cached tool lists listed, every
//! plugin listed, every plugin loaded; each milestone with the catalog's
//! generations at the moment it was reached.

use tokio::sync::watch as channel;

use crate::catalog::Generations;

/// A point in the first load that lists may wait for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FirstLists {
    /// The plugins with a cached tool list are listed from it; nothing has
    /// compiled yet. Plugins with no cached list appear later, with
    /// `list_changed`.
    Cached,
    /// Every plugin is listed: loaded, failed, or listed from its cached
    /// tool list. Only plugins with no cached list are waited for.
    #[default]
    EveryPlugin,
    /// Every plugin has loaded or failed.
    Loaded,
}

/// The generations of the catalog at each milestone reached so far.
#[derive(Debug, Clone, Copy, Default)]
struct Milestones {
    cached: Option<Generations>,
    every_plugin: Option<Generations>,
    loaded: Option<Generations>,
}

impl Milestones {
    fn at(&self, point: FirstLists) -> Option<Generations> {
        match point {
            FirstLists::Cached => self.cached,
            FirstLists::EveryPlugin => self.every_plugin,
            FirstLists::Loaded => self.loaded,
        }
    }
}

/// The milestones of the first load, each reached once: a later load (a
/// reload, a watcher's) reaches none again.
#[derive(Debug)]
pub(crate) struct FirstLoad {
    milestones: channel::Sender<Milestones>,
}

impl Default for FirstLoad {
    fn default() -> Self {
        FirstLoad {
            milestones: channel::Sender::new(Milestones::default()),
        }
    }
}

impl FirstLoad {
    /// Records that the load has reached `point` (and so every earlier
    /// one), with the catalog at `generations`; a milestone already reached
    /// keeps its first record.
    pub(crate) fn reached(&self, point: FirstLists, generations: Generations) {
        self.milestones.send_if_modified(|m| {
            let mut changed = false;
            let mut set = |slot: &mut Option<Generations>| {
                if slot.is_none() {
                    *slot = Some(generations);
                    changed = true;
                }
            };
            set(&mut m.cached);
            if point != FirstLists::Cached {
                set(&mut m.every_plugin);
            }
            if point == FirstLists::Loaded {
                set(&mut m.loaded);
            }
            changed
        });
    }

    /// Whether the load has reached `point`.
    pub(crate) fn has(&self, point: FirstLists) -> bool {
        self.milestones.borrow().at(point).is_some()
    }

    /// Waits until the load has reached `point`, and returns the catalog's
    /// generations at that moment.
    pub(crate) async fn wait(&self, point: FirstLists) -> Generations {
        let mut milestones = self.milestones.subscribe();
        // Fails only if the sender is gone, which it is not while `self` lives.
        match milestones.wait_for(|m| m.at(point).is_some()).await {
            Ok(m) => m.at(point).unwrap_or_default(),
            Err(_) => Generations::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(tools: u64) -> Generations {
        Generations {
            tools,
            ..Generations::default()
        }
    }

    #[test]
    fn a_milestone_implies_the_earlier_ones_and_keeps_its_first_record() {
        let first = FirstLoad::default();
        assert!(!first.has(FirstLists::Cached));
        first.reached(FirstLists::EveryPlugin, at(1));
        assert!(first.has(FirstLists::Cached));
        assert!(first.has(FirstLists::EveryPlugin));
        assert!(!first.has(FirstLists::Loaded));
        first.reached(FirstLists::Loaded, at(3));
        first.reached(FirstLists::Cached, at(7));
        let m = *first.milestones.borrow();
        assert_eq!(m.cached, Some(at(1)));
        assert_eq!(m.every_plugin, Some(at(1)));
        assert_eq!(m.loaded, Some(at(3)));
    }

    #[tokio::test]
    async fn a_wait_ends_when_its_milestone_is_reached_with_its_generations() {
        let first = std::sync::Arc::new(FirstLoad::default());
        let waiter = tokio::spawn({
            let first = first.clone();
            async move { first.wait(FirstLists::Loaded).await }
        });
        first.reached(FirstLists::Cached, at(1));
        first.reached(FirstLists::EveryPlugin, at(2));
        first.reached(FirstLists::Loaded, at(5));
        assert_eq!(waiter.await.unwrap(), at(5));
        assert_eq!(first.wait(FirstLists::EveryPlugin).await, at(2));
    }
}
