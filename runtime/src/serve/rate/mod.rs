//! Call-rate quotas: per tool for all clients together (`rate_limit`), and
//! per tool for each client (`client_rate_limit`), both in calls per minute.
//! A client is a [`Caller`], which also keeps the subject it authenticated
//! as: a caller with a subject counts against that subject's quota, shared
//! by all its sessions and stateless requests; one without counts against
//! its session's. Where they count is the runtime's [`Counting`]: in this
//! process (GCRA, bursts up to the whole minute's worth; `subjects`), or
//! in a store replicas share (`shared`: a fixed window of a minute).

mod shared;
mod subjects;

use std::collections::{HashMap, HashSet};
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use governor::clock::{Clock, DefaultClock};
use mcp_wasm_host_store::Store;

use crate::call::session::{Session, Whose};
use crate::error::FailureCause;
pub use crate::policy::limits::RateScope;
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use shared::{Counter, SharedCounts};
use subjects::SubjectQuotas;

pub use shared::Unavailable;

/// The names the rate limiters of a plugin know these requests by, next to
/// its tools' names.
pub(crate) const REQUESTS: [&str; 3] = ["resources/read", "prompts/get", "completion/complete"];

/// A refused call: how long until the quota allows the next one.
fn refused(not_until: governor::NotUntil<<DefaultClock as Clock>::Instant>) -> Duration {
    not_until.wait_time_from(DefaultClock::default().now())
}

fn limiter(per_minute: NonZeroU32) -> DefaultDirectRateLimiter {
    RateLimiter::direct(Quota::per_minute(per_minute))
}

/// Where the runtime's rate limits count: in this process (the default),
/// or in a store the replicas share. Cloning it is cheap; every plugin
/// holds a clone.
#[derive(Debug, Clone, Default)]
pub struct Counting {
    /// Each subject's quotas, when they count in this process.
    subjects: Arc<SubjectQuotas>,
    /// The shared store, when they count there.
    shared: Option<SharedCounts>,
}

impl Counting {
    /// Counting in `store`, which the replicas of a cluster share.
    pub fn shared(store: Store) -> Counting {
        Counting {
            subjects: Arc::default(),
            shared: Some(SharedCounts::new(store)),
        }
    }
}

/// The quotas of one loaded plugin's tools.
#[derive(Debug, Default)]
pub struct ToolRates {
    plugin: Arc<str>,
    /// `rate_limit`: calls per minute of each tool, all clients together.
    per_minute: u32,
    /// The names counted: the plugin's tools and [`REQUESTS`].
    counted: HashSet<String>,
    /// Each tool's limiter, when the limits count in this process.
    local: HashMap<String, DefaultDirectRateLimiter>,
    counting: Counting,
}

impl ToolRates {
    /// A quota of `per_minute` calls for each of `plugin`'s `tools` (none
    /// when 0), counted as `counting` says; its clients' quotas count
    /// there too.
    pub fn new<'a>(
        plugin: Arc<str>,
        per_minute: u32,
        tools: impl Iterator<Item = &'a str>,
        counting: Counting,
    ) -> ToolRates {
        let counted: HashSet<String> = tools.map(str::to_string).collect();
        let local = match (NonZeroU32::new(per_minute), &counting.shared) {
            (Some(n), None) => counted.iter().map(|t| (t.clone(), limiter(n))).collect(),
            _ => HashMap::new(),
        };
        ToolRates {
            plugin,
            per_minute,
            counted,
            local,
            counting,
        }
    }

    /// Takes one call of `tool` from its quota, then from `caller`'s share
    /// of `client_per_minute`; the cause that refuses it, if one does. A
    /// shared store that fails, or does not answer by `deadline`, refuses
    /// it too ([`FailureCause::LimitUnavailable`]).
    pub(crate) async fn check(
        &self,
        tool: &str,
        caller: &Caller,
        client_per_minute: u32,
        deadline: Instant,
    ) -> Result<(), FailureCause> {
        if !self.counted.contains(tool) {
            return Ok(());
        }
        self.check_scope(
            RateScope::AllClients,
            tool,
            caller,
            self.per_minute,
            deadline,
        )
        .await?;
        self.check_scope(
            RateScope::EachClient,
            tool,
            caller,
            client_per_minute,
            deadline,
        )
        .await
    }

    async fn check_scope(
        &self,
        scope: RateScope,
        tool: &str,
        caller: &Caller,
        per_minute: u32,
        deadline: Instant,
    ) -> Result<(), FailureCause> {
        let Some(n) = NonZeroU32::new(per_minute) else {
            return Ok(());
        };
        let subject = caller.subject().map(|s| &**s);
        let checked = match (scope, subject, &self.counting.shared) {
            (RateScope::AllClients, _, None) => match self.local.get(tool) {
                Some(limiter) => limiter.check().map_err(refused),
                None => Ok(()),
            },
            (RateScope::EachClient, None, _) => caller.check(tool, per_minute),
            (RateScope::EachClient, Some(subject), None) => {
                self.counting.subjects.check(&self.plugin, tool, subject, n)
            }
            (_, subject, Some(shared)) => {
                let counter = Counter {
                    key: scope.key(),
                    plugin: &self.plugin,
                    tool,
                    subject: match scope {
                        RateScope::AllClients => None,
                        RateScope::EachClient => subject,
                    },
                };
                shared.check(&counter, per_minute, deadline).await.map_err(
                    |Unavailable(reason)| FailureCause::LimitUnavailable { scope, reason },
                )?
            }
        };
        checked.map_err(|retry_after| FailureCause::RateLimited {
            scope,
            per_minute,
            retry_after,
        })
    }
}

/// One client of the runtime (an MCP session, or the one client over
/// stdio): what it has used of its per-client quotas while it has no
/// subject (with one, the subject's quotas count instead). The runtime knows no
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

    /// Its session is shared by the replicas, its data under `key` on
    /// every one (see [`SessionDataKey`](crate::state::SessionDataKey)).
    pub fn share_session(&self, key: &crate::state::SessionDataKey) {
        if let Some(session) = &self.session {
            session.state().share(key);
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

    fn tool_rates(per_minute: u32, tools: &[&str]) -> ToolRates {
        let tools = tools.iter().copied();
        ToolRates::new("p".into(), per_minute, tools, Counting::default())
    }

    /// A stateless caller that authenticated as `subject`.
    fn caller_of(subject: &str) -> Caller {
        let caller = Caller::without_session();
        caller.bind_subject(&subject.into()).unwrap();
        caller
    }

    fn refused_by_client(refused: &FailureCause) -> bool {
        matches!(
            refused,
            FailureCause::RateLimited {
                scope: RateScope::EachClient,
                ..
            }
        )
    }

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(5)
    }

    #[tokio::test]
    async fn a_subject_counts_against_its_own_quota_across_callers() {
        let rates = tool_rates(0, &["t"]);
        let (a, b) = (caller_of("alice"), Caller::new());
        b.bind_subject(&"alice".into()).unwrap();
        assert!(rates.check("t", &a, 2, soon()).await.is_ok());
        assert!(rates.check("t", &b, 2, soon()).await.is_ok());
        let refused = rates.check("t", &a, 2, soon()).await.unwrap_err();
        assert!(refused_by_client(&refused), "{refused:?}");
        let c = Caller::new();
        assert!(
            rates.check("t", &c, 2, soon()).await.is_ok(),
            "another caller"
        );
        assert!(
            rates.check("x", &a, 2, soon()).await.is_ok(),
            "a name not counted"
        );
    }

    #[tokio::test]
    async fn in_a_shared_store_every_replica_counts_against_one_quota() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::embedded(dir.path()).await.unwrap();
        let counting = Counting::shared(store);
        // Two loads of the plugin sharing the store, as two replicas would.
        let load = |per_minute| {
            ToolRates::new("p".into(), per_minute, ["t"].into_iter(), counting.clone())
        };
        let (a, b) = (load(2), load(2));
        let anyone = Caller::without_session();
        assert!(a.check("t", &anyone, 0, soon()).await.is_ok());
        assert!(b.check("t", &anyone, 0, soon()).await.is_ok());
        let refused = a.check("t", &anyone, 0, soon()).await.unwrap_err();
        let FailureCause::RateLimited {
            scope: RateScope::AllClients,
            per_minute: 2,
            retry_after,
        } = refused
        else {
            panic!("{refused:?}");
        };
        assert!(retry_after <= Duration::from_secs(60), "{retry_after:?}");

        // A subject's quota is its own, whichever replica it calls.
        let (c, d) = (load(0), load(0));
        let (alice, bob) = (caller_of("alice"), caller_of("bob"));
        assert!(c.check("t", &alice, 1, soon()).await.is_ok());
        let refused = d.check("t", &alice, 1, soon()).await.unwrap_err();
        assert!(refused_by_client(&refused), "{refused:?}");
        assert!(d.check("t", &bob, 1, soon()).await.is_ok());
    }

    #[tokio::test]
    async fn a_store_that_fails_or_answers_too_late_refuses_the_call() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let url = format!("redis://127.0.0.1:{port}/0");
        let config = mcp_wasm_host_store::RedisConfig::from_url(&url).unwrap();
        let store = Store::redis(config).unwrap();
        let rates = ToolRates::new("p".into(), 5, ["t"].into_iter(), Counting::shared(store));
        let anyone = Caller::without_session();
        for deadline in [soon(), Instant::now()] {
            let refused = rates.check("t", &anyone, 0, deadline).await.unwrap_err();
            let FailureCause::LimitUnavailable {
                scope: RateScope::AllClients,
                reason,
            } = &refused
            else {
                panic!("{refused:?}");
            };
            assert!(reason.contains(&format!("127.0.0.1:{port}")), "{reason}");
            assert_eq!(refused.limit(), Some("rate_limit"));
            assert_eq!(refused.kind(), "limit_unavailable");
        }
        // A tool without a limit needs no store.
        let free = ToolRates::new("p".into(), 0, ["t"].into_iter(), rates.counting.clone());
        assert!(free.check("t", &anyone, 0, soon()).await.is_ok());
    }

    #[test]
    fn a_tools_quota_is_shared_and_a_clients_quota_is_its_own() {
        let rates = tool_rates(2, &["t", "u"]);
        assert!(rates.local["t"].check().is_ok() && rates.local["t"].check().is_ok());
        assert!(rates.local["t"].check().is_err());
        assert!(
            rates.local["u"].check().is_ok(),
            "each tool has its own quota"
        );
        assert!(tool_rates(0, &["t"]).local.is_empty());

        let (a, b) = (Caller::new(), Caller::new());
        assert!(a.check("t", 2).is_ok() && a.check("t", 2).is_ok());
        assert!(a.check("t", 2).is_err());
        assert!(b.check("t", 2).is_ok(), "another client is not held back");
        assert!(a.check("u", 2).is_ok(), "nor another tool");
        assert!(a.check("t", 3).is_ok(), "a new quota starts afresh");
        assert!((0..100).all(|_| a.check("t", 0).is_ok()), "0 is no limit");
    }
}
