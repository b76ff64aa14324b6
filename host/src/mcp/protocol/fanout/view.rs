//! One replica's view of the cluster's changes, and the rule that keeps a
//! client from hearing one change twice: a list is announced when the
//! newest digest any replica reports (this one included) differs from the
//! one last announced here, so the same change applied by every replica,
//! or heard both from this replica's reload and from another's message,
//! is announced once. Plugin versions other replicas stopped serving are
//! kept, numbered, for the resource watchers to match against what their
//! URIs were served by.

use std::collections::VecDeque;

use super::message::{Change, Lists, Transition};
use crate::runtime::Generations;

/// How many of other replicas' plugin transitions are kept for watchers
/// that have not looked yet; a watcher further behind misses the oldest.
pub const KEPT: usize = 256;

/// The changes announced so far, as counters the watchers follow.
#[derive(Debug)]
pub struct View {
    /// Bumped for each list announced, and for each plugin version change
    /// (here, or heard from another replica).
    generations: Generations,
    /// The digests last announced.
    announced: Lists,
    /// Other replicas' transitions, each with its number.
    heard: VecDeque<(u64, Transition)>,
    /// The number of the next transition heard.
    next: u64,
}

impl View {
    /// Nothing announced yet; this replica's lists are `lists`.
    pub fn new(lists: Lists) -> View {
        View {
            generations: Generations::default(),
            announced: lists,
            heard: VecDeque::new(),
            next: 0,
        }
    }

    /// The counters now.
    pub fn generations(&self) -> Generations {
        self.generations
    }

    /// Bumps the counter of each list whose digest in `lists` was not the
    /// last announced, and notes it as announced.
    fn announce(&mut self, lists: &Lists) {
        let bump = |counter: &mut u64, announced: &mut String, now: &String| {
            if announced != now {
                announced.clone_from(now);
                *counter += 1;
            }
        };
        bump(
            &mut self.generations.tools,
            &mut self.announced.tools,
            &lists.tools,
        );
        bump(
            &mut self.generations.resources,
            &mut self.announced.resources,
            &lists.resources,
        );
        bump(
            &mut self.generations.prompts,
            &mut self.announced.prompts,
            &lists.prompts,
        );
    }

    /// This replica's catalog changed: its lists are now `lists`, and
    /// `plugins` says whether a plugin version changed. The counters if
    /// they moved.
    pub fn local(&mut self, lists: &Lists, plugins: bool) -> Option<Generations> {
        let before = self.generations;
        self.announce(lists);
        self.generations.plugins += u64::from(plugins);
        (self.generations != before).then_some(self.generations)
    }

    /// Another replica's change (the caller drops this replica's own
    /// echo). The counters if they moved.
    pub fn peer(&mut self, change: &Change) -> Option<Generations> {
        let before = self.generations;
        self.announce(&change.lists);
        if !change.plugins.is_empty() {
            for transition in &change.plugins {
                if self.heard.len() == KEPT {
                    self.heard.pop_front();
                }
                self.heard.push_back((self.next, *transition));
                self.next += 1;
            }
            self.generations.plugins += 1;
        }
        (self.generations != before).then_some(self.generations)
    }

    /// The number the next transition heard will have: a new watcher
    /// starts there.
    pub fn cursor(&self) -> u64 {
        self.next
    }

    /// The transitions heard from `cursor` on (those still kept), and the
    /// cursor after them.
    pub fn since(&self, cursor: u64) -> (Vec<Transition>, u64) {
        let heard = self
            .heard
            .iter()
            .filter(|(n, _)| *n >= cursor)
            .map(|(_, t)| *t)
            .collect();
        (heard, self.next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Sha256Digest;

    fn lists(tools: &str) -> Lists {
        Lists {
            tools: tools.into(),
            resources: "r".into(),
            prompts: "p".into(),
        }
    }

    fn change(tools: &str, plugins: Vec<Transition>) -> Change {
        Change {
            replica: "other".into(),
            lists: lists(tools),
            plugins,
        }
    }

    #[test]
    fn a_change_every_replica_applies_is_announced_once() {
        let mut view = View::new(lists("w"));
        // Another replica applies it first: announced.
        let after = view.peer(&change("x", vec![])).unwrap();
        assert_eq!(after.tools, 1);
        // This replica applies the same, then a third replica reports it:
        // nothing more.
        assert_eq!(view.local(&lists("x"), false), None);
        assert_eq!(view.peer(&change("x", vec![])), None);
        // Applied here first, then heard: once.
        assert_eq!(view.local(&lists("y"), false).unwrap().tools, 2);
        assert_eq!(view.peer(&change("y", vec![])), None);
        // Only the list that changed moves.
        let both = Lists {
            prompts: "q".into(),
            ..lists("y")
        };
        let after = view.local(&both, false).unwrap();
        assert_eq!((after.tools, after.resources, after.prompts), (2, 0, 1));
    }

    #[test]
    fn plugin_transitions_are_numbered_and_bounded() {
        let mut view = View::new(lists("w"));
        let start = view.cursor();
        let t = |n: u8| Transition {
            from: Sha256Digest([n; 32]),
            to: None,
        };
        let after = view.peer(&change("w", vec![t(1), t(2)])).unwrap();
        assert_eq!(after.plugins, 1);
        let (heard, cursor) = view.since(start);
        assert_eq!(heard, vec![t(1), t(2)]);
        assert_eq!(view.since(cursor).0, vec![]);
        // A local version change moves the counter but is not "heard":
        // the watchers see it in the catalog.
        assert_eq!(view.local(&lists("w"), true).unwrap().plugins, 2);
        assert_eq!(view.since(cursor).0, vec![]);
        for n in 0..=KEPT {
            view.peer(&change("w", vec![t(n as u8)]));
        }
        let (heard, _) = view.since(start);
        assert_eq!(heard.len(), KEPT, "the oldest are dropped");
    }
}
