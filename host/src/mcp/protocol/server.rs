//! The MCP server's state, shared by every request it answers: the
//! runtime, the options, the sessions to notify, the session's logging
//! level, client and profile, the rounds' key, the task store and the
//! subscriptions; and what every guest run and list result sets up from it
//! (its events and round, the lists' caching hints).

use std::sync::Arc;

use rmcp::model::{CacheScope, JsonObject, MetaObject};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};

use super::audience::Audience;
use super::fanout::Notices;
use super::list_changed::PeerRegistry;
use super::revision::{is_2026_07_28_or_later, logging_is_per_request, server_info_meta};
use super::shared_state::session_link;
use super::subscriptions::{Subscriptions, WatchBudget};
use super::tasks::Tasks;
use super::to_client::notifications::{Forwarder, SessionLevel};
use super::to_client::rounds::{Binding, Round, Rounds};
use crate::config::{Profile, Profiles, ServedBounds, TaskSettings};
use crate::runtime::{CallEvents, Caller, FirstLists, Runtime};

/// How the server presents its tools.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// The most tools one `tools/list` page holds.
    pub page_size: usize,
    /// How long a 2026-07-28 client may cache a list result (`ttlMs`).
    pub list_ttl: std::time::Duration,
    /// How tasks are kept.
    pub tasks: TaskSettings,
    /// The bounds on URIs, subscriptions and listen streams.
    pub served: ServedBounds,
    /// How far the first load must have got before the lists are
    /// answered: by default every plugin listed (loaded, failed or listed
    /// from its cached tool list), for the many clients that list once and
    /// ignore `list_changed`.
    pub lists_after: FirstLists,
    /// The Redis store the replicas share, if any: tasks are kept there, so
    /// that any replica reads, updates and cancels any task, and catalog
    /// changes are told to every replica through it.
    pub task_store: Option<crate::runtime::store::Store>,
    /// The policy file's profiles, which connections may be bound to
    /// ([`McpServer::bound_to`]); replaced on reload.
    pub profiles: Profiles,
}

/// The `ttlMs` of list results unless the policy file's `[server]
/// list_ttl` says otherwise: a client that does not listen for changes sees
/// a plugin's new tools within a minute.
pub const DEFAULT_LIST_TTL: std::time::Duration = std::time::Duration::from_secs(60);

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            page_size: 50,
            list_ttl: DEFAULT_LIST_TTL,
            tasks: TaskSettings::default(),
            served: ServedBounds::default(),
            lists_after: FirstLists::default(),
            task_store: None,
            profiles: Profiles::default(),
        }
    }
}

/// Serves a [`Runtime`]'s tools over MCP. Cheap to clone: every session of a
/// transport shares the runtime. The logging level is shared by the clones;
/// [`McpServer::session`] makes a server for a new session, with its own.
#[derive(Debug, Clone)]
pub struct McpServer {
    pub(super) runtime: Arc<Runtime>,
    pub(super) options: ServerOptions,
    pub(super) peers: PeerRegistry,
    pub(super) level: SessionLevel,
    /// This session's client, for its per-client rate limits.
    pub(super) caller: Arc<Caller>,
    /// The 2026-07-28 multi round-trip flow's key and limits.
    pub(super) rounds: Arc<Rounds>,
    /// The tasks of every session.
    pub(super) tasks: Tasks,
    /// This session's `resources/subscribe` subscriptions.
    pub(super) subscriptions: Subscriptions,
    /// What every session's subscriptions and listen streams hold.
    pub(super) watch: WatchBudget,
    /// The catalog changes its clients hear of: this replica's, and with
    /// a shared store the other replicas' too.
    pub(super) notices: Notices,
    /// The profile this connection is bound to, by name (looked up on each
    /// request, so that a reload's change applies at once); `None`: the
    /// whole catalog.
    pub(super) bound: Option<Arc<str>>,
}

/// `serve --profile` or an HTTP path named a profile the policy file does
/// not define.
#[derive(Debug, Clone, thiserror::Error)]
#[error("unknown profile {name:?}: {}", known_profiles(.known))]
pub struct UnknownProfile {
    /// The name asked for.
    pub name: String,
    /// The profiles the policy file defines.
    pub known: Vec<String>,
}

fn known_profiles(known: &[String]) -> String {
    if known.is_empty() {
        "the policy file defines no profile ([profiles.NAME])".into()
    } else {
        format!("the policy file defines {}", known.join(", "))
    }
}

impl McpServer {
    /// A server for `runtime`; `rounds` signs the 2026-07-28 request state.
    pub fn new(runtime: Arc<Runtime>, options: ServerOptions, rounds: Rounds) -> Self {
        let watch = WatchBudget::new(options.served.clone());
        let notices = match &options.task_store {
            Some(store) => Notices::cluster(runtime.clone(), store.clone()),
            None => Notices::local(runtime.clone()),
        };
        McpServer {
            runtime,
            peers: PeerRegistry::default(),
            level: SessionLevel::default(),
            caller: Arc::default(),
            rounds: Arc::new(rounds),
            tasks: match &options.task_store {
                Some(store) => Tasks::shared(options.tasks, store.clone()),
                None => Tasks::new(options.tasks),
            },
            subscriptions: Subscriptions::new(
                watch.clone(),
                Audience::new(options.profiles.clone(), None),
            ),
            watch,
            notices,
            options,
            bound: None,
        }
    }

    /// This server bound to the profile `name`: every session made from it
    /// is served only what the profile admits.
    pub fn bound_to(&self, name: &str) -> Result<McpServer, UnknownProfile> {
        if self.options.profiles.get(name).is_none() {
            return Err(UnknownProfile {
                name: name.to_string(),
                known: self.options.profiles.names(),
            });
        }
        let bound = McpServer {
            bound: Some(name.into()),
            ..self.clone()
        };
        // Its own subscriptions, told to the profile's audience.
        Ok(bound.session())
    }

    /// Whether the policy file defines the profile `name` now.
    pub fn has_profile(&self, name: &str) -> bool {
        self.options.profiles.get(name).is_some()
    }

    /// The profile this connection is bound to as it is now: one that a
    /// reload removed admits nothing. `None` if it is bound to none.
    pub(super) fn profile(&self) -> Option<Arc<Profile>> {
        let name = self.bound.as_deref()?;
        Some(
            self.options
                .profiles
                .get(name)
                .unwrap_or_else(|| Arc::new(Profile::nothing(name))),
        )
    }

    /// A new audience for this connection's notifications: its profile
    /// (and, once shown, its OAuth caller's).
    pub(super) fn audience(&self) -> Audience {
        Audience::new(self.options.profiles.clone(), self.bound.clone())
    }

    /// Waits until tools may be listed: until the first load has got as
    /// far as the options say.
    pub(super) async fn lists_ready(&self) {
        self.runtime.wait_for_lists(self.options.lists_after).await;
    }

    /// Waits until resources, resource templates and prompts may be
    /// listed. The cached lists hold tools only, so where tools wait for
    /// every plugin to be listed, these wait for every plugin to load.
    pub(super) async fn other_lists_ready(&self) {
        self.runtime.wait_for_lists(self.other_lists_after()).await;
    }

    /// The point of the first load resources, resource templates and
    /// prompts are listed after (see [`McpServer::other_lists_ready`]).
    pub(super) fn other_lists_after(&self) -> FirstLists {
        match self.options.lists_after {
            FirstLists::EveryPlugin => FirstLists::Loaded,
            point => point,
        }
    }

    /// A server for one more session: the same runtime, options and
    /// registry of sessions to notify, and its own logging level and client
    /// (for per-client rate limits).
    pub fn session(&self) -> McpServer {
        McpServer {
            level: SessionLevel::default(),
            caller: Arc::default(),
            subscriptions: Subscriptions::new(self.watch.clone(), self.audience()),
            ..self.clone()
        }
    }

    /// A server for one request without a session (stateless HTTP): as
    /// [`McpServer::session`], with a client the runtime keeps no instance
    /// for, so that nothing of one request's instance reaches another's.
    pub fn sessionless(&self) -> McpServer {
        McpServer {
            caller: Arc::new(Caller::without_session()),
            ..self.session()
        }
    }

    /// The sessions told about tool list changes.
    pub fn peers(&self) -> &PeerRegistry {
        &self.peers
    }

    /// The tasks of every session, for the shutdown's hand-over.
    pub fn tasks(&self) -> &Tasks {
        &self.tasks
    }
}

impl McpServer {
    /// A 2026-07-28 list result's caching hints (SEP-2549) and the server's
    /// identity: the lists are the same for every client, so any cache may
    /// keep them for the policy's `list_ttl`. Older revisions get neither.
    pub(super) fn list_hints(
        &self,
        context: &RequestContext<RoleServer>,
        ttl_ms: &mut Option<u64>,
        scope: &mut Option<CacheScope>,
        meta: &mut Option<MetaObject>,
    ) {
        if is_2026_07_28_or_later(context.protocol_version().as_ref()) {
            *ttl_ms = Some(u64::try_from(self.options.list_ttl.as_millis()).unwrap_or(u64::MAX));
            *scope = Some(CacheScope::Public);
            server_info_meta(meta);
        }
    }
}

/// A guest run's events, and its round at 2026-07-28.
pub(super) struct Run {
    /// Where the guest's events go: the round, or the forwarder.
    pub events: Arc<dyn CallEvents>,
    /// The client's log messages and progress.
    pub forwarder: Arc<Forwarder>,
    /// The 2026-07-28 round, if the request is at that revision.
    pub round: Option<Arc<Round>>,
}

impl McpServer {
    /// Sets up a guest run's events (a tool call, a read, a prompt): its log
    /// messages and progress go to the client; at 2026-07-28 its requests
    /// are answered from the client's `inputResponses` and `requestState`,
    /// bound to `what` and the digest of the plugin serving it (looked up
    /// only then).
    pub(super) fn run_events(
        &self,
        context: &RequestContext<RoleServer>,
        what: &str,
        plugin_digest: impl FnOnce() -> String,
        arguments: Option<&JsonObject>,
        request_state: Option<&str>,
        responses: Option<rmcp::model::InputResponses>,
    ) -> Result<Run, McpError> {
        let version = context.protocol_version();
        let level = if logging_is_per_request(version.as_ref()) {
            SessionLevel::for_request(context.meta.log_level())
        } else {
            // Another replica's copy of the session may have set it.
            if let Some(level) = session_link(&context.extensions)
                .and_then(|link| link.snapshot)
                .and_then(|state| state.level)
            {
                self.level.set(level);
            }
            self.level.clone()
        };
        let forwarder = Forwarder::start(
            context.peer.clone(),
            context.meta.get_progress_token(),
            level,
        );
        let round = if is_2026_07_28_or_later(version.as_ref()) {
            let digest = plugin_digest();
            let binding = Binding {
                tool: what,
                plugin_digest: &digest,
                arguments,
            };
            Some(Arc::new(self.rounds.begin(
                binding,
                request_state,
                responses,
                context.client_capabilities(),
                forwarder.clone(),
            )?))
        } else {
            None
        };
        let events: Arc<dyn CallEvents> = match &round {
            Some(round) => round.clone(),
            None => forwarder.clone(),
        };
        Ok(Run {
            events,
            forwarder,
            round,
        })
    }
}
