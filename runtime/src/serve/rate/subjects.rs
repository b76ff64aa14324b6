//! Each OAuth subject's own quotas (`client_rate_limit`) in this process,
//! when no shared store counts them: one limiter per plugin, tool and
//! subject, shared by every session and stateless request of that subject.
//! A limiter unused for a minute has refilled, so it is forgotten then
//! (when the map has grown), and the map stays as large as the subjects
//! active in the last minute.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use governor::DefaultDirectRateLimiter;

use super::{limiter, refused};

/// After this long unused, a limiter is full again: the quotas are per
/// minute, with bursts of the whole minute.
const REFILLED: Duration = Duration::from_secs(60);

/// The map is swept of refilled limiters when it reaches this size (and
/// then when it has doubled since).
const FIRST_SWEEP: usize = 1024;

/// (plugin, tool, subject).
type Key = (String, String, String);

struct Quota {
    per_minute: NonZeroU32,
    limiter: DefaultDirectRateLimiter,
    used: Instant,
}

#[derive(Default)]
struct Map {
    quotas: HashMap<Key, Quota>,
    sweep_at: usize,
}

/// Every subject's quotas, for the whole runtime (they hold across
/// reloads of a plugin).
#[derive(Default)]
pub(crate) struct SubjectQuotas(Mutex<Map>);

impl std::fmt::Debug for SubjectQuotas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SubjectQuotas")
    }
}

impl SubjectQuotas {
    /// Takes one call of `plugin`'s `tool` from `subject`'s quota of
    /// `per_minute`, or says how long to wait. A changed quota (the policy
    /// was reloaded) starts afresh.
    pub(crate) fn check(
        &self,
        plugin: &str,
        tool: &str,
        subject: &str,
        per_minute: NonZeroU32,
    ) -> Result<(), Duration> {
        let now = Instant::now();
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if map.quotas.len() >= map.sweep_at.max(FIRST_SWEEP) {
            map.quotas
                .retain(|_, q| now.duration_since(q.used) < REFILLED);
            map.sweep_at = map.quotas.len() * 2;
        }
        let key = (plugin.to_string(), tool.to_string(), subject.to_string());
        let quota = map
            .quotas
            .entry(key)
            .and_modify(|q| {
                if q.per_minute != per_minute {
                    q.per_minute = per_minute;
                    q.limiter = limiter(per_minute);
                }
            })
            .or_insert_with(|| Quota {
                per_minute,
                limiter: limiter(per_minute),
                used: now,
            });
        quota.used = now;
        quota.limiter.check().map_err(refused)
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .quotas
            .len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subject_has_one_quota_per_tool_and_another_subject_its_own() {
        let quotas = SubjectQuotas::default();
        let two = NonZeroU32::new(2).unwrap();
        assert!(quotas.check("p", "t", "alice", two).is_ok());
        assert!(quotas.check("p", "t", "alice", two).is_ok());
        assert!(quotas.check("p", "t", "alice", two).unwrap_err() > Duration::ZERO);
        assert!(
            quotas.check("p", "t", "bob", two).is_ok(),
            "bob has his own"
        );
        assert!(
            quotas.check("p", "u", "alice", two).is_ok(),
            "so has each tool"
        );
        assert!(
            quotas.check("q", "t", "alice", two).is_ok(),
            "and each plugin"
        );
        let three = NonZeroU32::new(3).unwrap();
        assert!(
            quotas.check("p", "t", "alice", three).is_ok(),
            "a new quota starts afresh"
        );
    }

    #[test]
    fn the_map_is_swept_only_of_limiters_unused_for_a_minute() {
        let quotas = SubjectQuotas::default();
        let one = NonZeroU32::new(1).unwrap();
        for i in 0..FIRST_SWEEP + 10 {
            let _ = quotas.check("p", "t", &format!("s{i}"), one);
        }
        // All were used just now: none is forgotten, so each is still spent.
        assert_eq!(quotas.len(), FIRST_SWEEP + 10);
        assert!(quotas.check("p", "t", "s0", one).is_err());
    }
}
