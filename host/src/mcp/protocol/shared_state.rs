//! A session's state that its copies on every replica share (issue 46):
//! its `resources/subscribe` URIs, each with the plugin version that
//! served it when subscribed, and its `logging/setLevel` level. The
//! transport keeps it with the session's record in the store and hands
//! each request a [`SessionLink`] to it; the handler writes it on
//! subscribe, unsubscribe and setLevel, and each copy's watcher reads it
//! when a change comes, so the copy holding the `GET` stream notifies of
//! subscriptions made through any replica.
#![allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577)

use std::collections::BTreeMap;
use std::sync::Arc;

use rmcp::model::LoggingLevel;
use serde::{Deserialize, Serialize};

use crate::runtime::store::StoreError;

/// What a session's copies share.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SharedState {
    /// The subscribed URIs, each with the hex digest of the plugin that
    /// served it when it was subscribed (none if nothing did).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub uris: BTreeMap<String, Option<String>>,
    /// The level `logging/setLevel` set, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<LoggingLevel>,
}

/// An edit of a session's [`SharedState`].
pub type Edit<'a> = &'a (dyn Fn(&mut SharedState) + Send + Sync);

/// Where a session's shared state is kept (the transport's store).
#[async_trait::async_trait]
pub trait StateStore: std::fmt::Debug + Send + Sync {
    /// The state now; `None` when the session has ended everywhere.
    async fn load(&self) -> Result<Option<SharedState>, StoreError>;
    /// Applies `edit` to the state; false when the session has ended.
    async fn update(&self, edit: Edit<'_>) -> Result<bool, StoreError>;
}

/// The link a request of a shared session carries (an HTTP extension):
/// its state's store, and the state as the transport last read it.
#[derive(Debug, Clone)]
pub struct SessionLink {
    /// The store of the session's state.
    pub store: Arc<dyn StateStore>,
    /// The state when the request came in, if the transport read it.
    pub snapshot: Option<SharedState>,
}

/// The link of the request whose rmcp extensions are `extensions`, if
/// its session is shared.
pub fn session_link(extensions: &rmcp::model::Extensions) -> Option<SessionLink> {
    extensions
        .get::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<SessionLink>())
        .cloned()
}

/// The error a client gets when the shared state cannot be written.
pub fn store_failed(error: &StoreError) -> rmcp::ErrorData {
    rmcp::ErrorData::internal_error(
        format!(
            "the replicas' shared session store failed, so this session's subscriptions and logging level cannot be saved; retry shortly: {error}"
        ),
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_state_is_small_and_reads_back() {
        assert_eq!(
            serde_json::to_string(&SharedState::default()).unwrap(),
            "{}"
        );
        let mut state = SharedState::default();
        state.uris.insert("a://x".into(), None);
        state.level = Some(LoggingLevel::Debug);
        let text = serde_json::to_string(&state).unwrap();
        assert_eq!(serde_json::from_str::<SharedState>(&text).unwrap(), state);
    }
}
