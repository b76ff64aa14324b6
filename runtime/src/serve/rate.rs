//! Call-rate quotas: per tool for all clients together (`rate_limit`), and
//! per tool for each client (`client_rate_limit`), both in calls per minute
//! (GCRA, bursts up to the whole minute's worth). A client is a [`Caller`],
//! which also keeps the subject it authenticated as, for the audit log.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};

use crate::call::session::{Session, Whose};
use crate::policy::limits::spec::key;
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};

/// The names the rate limiters of a plugin know these requests by, next to
/// its tools' names.
pub(crate) const REQUESTS: [&str; 3] = ["resources/read", "prompts/get", "completion/complete"];

/// Whose quota a refused call ran out of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateScope {
    /// The tool's quota, shared by every client (`rate_limit`).
    AllClients,
    /// The calling client's own quota for the tool (`client_rate_limit`).
    EachClient,
}

impl RateScope {
    /// The policy key that sets this quota.
    pub fn key(self) -> &'static str {
        match self {
            RateScope::AllClients => key::RATE_LIMIT,
            RateScope::EachClient => key::CLIENT_RATE_LIMIT,
        }
    }
}

/// A refused call: how long until the quota allows the next one.
fn refused(not_until: governor::NotUntil<<DefaultClock as Clock>::Instant>) -> Duration {
    not_until.wait_time_from(DefaultClock::default().now())
}

fn limiter(per_minute: NonZeroU32) -> DefaultDirectRateLimiter {
    RateLimiter::direct(Quota::per_minute(per_minute))
}

/// The quotas of one loaded plugin's tools, shared by all clients.
#[derive(Debug, Default)]
pub struct ToolRates(HashMap<String, DefaultDirectRateLimiter>);

impl ToolRates {
    /// A quota of `per_minute` calls for each of `tools` (none when 0).
    pub fn new<'a>(per_minute: u32, tools: impl Iterator<Item = &'a str>) -> ToolRates {
        match NonZeroU32::new(per_minute) {
            Some(n) => ToolRates(tools.map(|t| (t.to_string(), limiter(n))).collect()),
            None => ToolRates::default(),
        }
    }

    /// Takes one call from `tool`'s quota, or says how long to wait.
    pub fn check(&self, tool: &str) -> Result<(), Duration> {
        match self.0.get(tool) {
            Some(limiter) => limiter.check().map_err(refused),
            None => Ok(()),
        }
    }
}

/// One client of the runtime (an MCP session, or the one client over
/// stdio): what it has used of its per-client quotas. The runtime knows no
/// sessions; whoever serves a client makes one of these for it and passes it
/// with each call. Its quotas are kept per tool name, so they hold across
/// reloads of the plugin.
#[derive(Debug)]
pub struct Caller {
    quotas: Mutex<HashMap<String, (NonZeroU32, DefaultDirectRateLimiter)>>,
    /// Who the client authenticated as, once it has: the audit log's
    /// `subject`. Set once; a client cannot become someone else.
    subject: OnceLock<Arc<str>>,
    /// The client's session, whose calls a plugin with
    /// `reuse_instances = "session"` serves from instances of their own;
    /// `None` for a client without one (a stateless HTTP request).
    session: Option<Session>,
}

impl Default for Caller {
    fn default() -> Self {
        Caller::new()
    }
}

impl Caller {
    /// A client that has made no call yet, with a session of its own
    /// (dropping the caller ends it).
    pub fn new() -> Caller {
        Caller {
            quotas: Mutex::default(),
            subject: OnceLock::new(),
            session: Some(Session::new()),
        }
    }

    /// A client without a session (one stateless HTTP request): no
    /// instance is ever kept for it, so a plugin with
    /// `reuse_instances = "session"` serves it a fresh instance per call.
    pub fn without_session() -> Caller {
        Caller {
            session: None,
            ..Caller::new()
        }
    }

    /// The client's session, if it has one.
    pub fn session(&self) -> Option<&Session> {
        self.session.as_ref()
    }

    /// Binds this client to `subject` on its first authenticated request;
    /// later requests must come from the same subject, or this returns the
    /// one it is bound to.
    pub fn bind_subject(&self, subject: &Arc<str>) -> Result<(), Arc<str>> {
        let bound = self.subject.get_or_init(|| subject.clone());
        if bound == subject {
            Ok(())
        } else {
            Err(bound.clone())
        }
    }

    /// Whom its calls are for: its session and its subject (for the state
    /// a plugin keeps per session or per user).
    pub(crate) fn whose(&self) -> Whose<'_> {
        Whose {
            session: self.session(),
            user: self.subject(),
        }
    }

    /// The subject this client authenticated as, if any.
    pub fn subject(&self) -> Option<&Arc<str>> {
        self.subject.get()
    }

    /// Takes one call of `tool` from this client's quota of `per_minute`
    /// (none when 0), or says how long to wait. A changed quota (the policy
    /// was reloaded) starts afresh.
    pub fn check(&self, tool: &str, per_minute: u32) -> Result<(), Duration> {
        let Some(n) = NonZeroU32::new(per_minute) else {
            return Ok(());
        };
        let mut quotas = self.quotas.lock().unwrap_or_else(|e| e.into_inner());
        match quotas.get(tool) {
            Some((quota, limiter)) if *quota == n => limiter.check().map_err(refused),
            _ => {
                let limiter = limiter(n);
                let checked = limiter.check().map_err(refused);
                quotas.insert(tool.to_string(), (n, limiter));
                checked
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tools_quota_is_shared_and_a_clients_quota_is_its_own() {
        let rates = ToolRates::new(2, ["t", "u"].into_iter());
        assert!(rates.check("t").is_ok() && rates.check("t").is_ok());
        assert!(rates.check("t").unwrap_err() > Duration::ZERO);
        assert!(rates.check("u").is_ok(), "each tool has its own quota");
        assert!(ToolRates::new(0, ["t"].into_iter()).check("t").is_ok());

        let (a, b) = (Caller::new(), Caller::new());
        assert!(a.check("t", 2).is_ok() && a.check("t", 2).is_ok());
        assert!(a.check("t", 2).is_err());
        assert!(b.check("t", 2).is_ok(), "another client is not held back");
        assert!(a.check("u", 2).is_ok(), "nor another tool");
        assert!(a.check("t", 3).is_ok(), "a new quota starts afresh");
        assert!((0..100).all(|_| a.check("t", 0).is_ok()), "0 is no limit");
    }
}
