//! The events of shared sessions' streams, as rmcp's [`EventStore`]: each
//! session's `GET` stream (rmcp's "common" stream) appends its events to a
//! bounded log in the store's `sessions()` namespace, so that a client that
//! resumes with `Last-Event-ID` on another replica is sent what it missed;
//! the events of a request's own response stream stay in this replica's
//! memory (a small ring), as before, with no round trip per call.
//!
//! A session's log is `n/H` (the last sequence number) and `e/H/N` (event
//! N), where H is the SHA-256 of the session id; at most [`MAX_EVENTS`]
//! are kept (appending event N deletes event N − `MAX_EVENTS`), and each
//! expires the idle timeout after it was written. An event id is `H.N`; a
//! resumption whose `Last-Event-ID` has been trimmed replays from the
//! oldest event kept. A store that fails loses the event for resumption
//! only: it is still sent live, with an id of this replica's ring.
//!
//! Each replica holding a copy of a session hears each change (a list
//! change, a subscribed resource's update) and sends its copy the
//! notification; only one of them logs it, so that a resumed stream
//! replays each change once: the replica that last opened the session's
//! `GET` stream (fresh or resumed), named by `g/H` (a random name of the
//! replica process, never the session id). The others keep their copy's
//! notification in their ring. A message one copy alone sends (a log
//! message of a call it ran) is logged by that copy. While the client is
//! away, the replica its stream was on goes on logging; if that replica is
//! gone, the changes made meanwhile are not replayed (the client lists
//! again).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{ServerJsonRpcMessage, ServerNotification};
use rmcp::transport::streamable_http_server::session::{
    EventId, EventStore, EventStoreError, EventStream, ServerSseMessage,
};
use serde::{Deserialize, Serialize};

use super::shared::hash;
use crate::mcp::protocol::replica_name;
use crate::runtime::store::{Namespace, Store, StoreError, Swap};

/// The most events a session's log keeps.
pub const MAX_EVENTS: u64 = 256;

/// The most events of requests' own streams this replica keeps in all.
const MAX_LOCAL_EVENTS: usize = 256;

/// How often appending retries a counter another replica moved.
const MAX_TRIES: usize = 8;

/// An event id this module hands out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventRef {
    /// An event of a session's log.
    Shared {
        /// The SHA-256 (hex) of the session id.
        session: String,
        /// Its sequence number in the log.
        seq: u64,
    },
    /// An event of this replica's ring.
    Local {
        /// Its number in the ring.
        n: u64,
    },
}

impl EventRef {
    /// The id a client sees.
    pub fn id(&self) -> String {
        match self {
            EventRef::Shared { session, seq } => format!("{session}.{seq}"),
            EventRef::Local { n } => format!("l.{n}"),
        }
    }

    /// An id read back; `None` for one this module never made.
    pub fn parse(id: &str) -> Option<EventRef> {
        let (head, number) = id.rsplit_once('.')?;
        let number: u64 = number.parse().ok()?;
        if head == "l" {
            return Some(EventRef::Local { n: number });
        }
        let hex = head.len() == 64 && head.bytes().all(|b| b.is_ascii_hexdigit());
        hex.then(|| EventRef::Shared {
            session: head.to_string(),
            seq: number,
        })
    }
}

/// An event as the log keeps it.
#[derive(Debug, Serialize, Deserialize)]
struct Stored {
    /// The JSON-RPC message (none for a priming event).
    m: Option<ServerJsonRpcMessage>,
    /// The retry hint, in milliseconds.
    r: Option<u64>,
}

fn encode(event: &ServerSseMessage) -> Vec<u8> {
    let stored = Stored {
        m: event.message.as_deref().cloned(),
        r: event
            .retry
            .map(|r| u64::try_from(r.as_millis()).unwrap_or(u64::MAX)),
    };
    serde_json::to_vec(&stored).unwrap_or_default()
}

fn decode(bytes: &[u8], id: String) -> Option<ServerSseMessage> {
    let stored: Stored = serde_json::from_slice(bytes).ok()?;
    let mut event = ServerSseMessage::default();
    event.event_id = Some(id);
    event.message = stored.m.map(Arc::new);
    event.retry = stored.r.map(Duration::from_millis);
    Some(event)
}

/// Which log sequence numbers a replay after `after` reads, when the last
/// is `head`: those after it, at most the [`MAX_EVENTS`] kept.
pub fn replay_range(after: u64, head: u64) -> std::ops::RangeInclusive<u64> {
    let oldest = head.saturating_sub(MAX_EVENTS - 1).max(1);
    (after.saturating_add(1)).max(oldest)..=head
}

/// Whether every replica's copy of a session sends `event`: a list change
/// or a subscribed resource's update, which each copy hears through the
/// notification fan-out. Only the replica holding the session's `GET`
/// stream logs those; a message one copy alone sends (a log message of a
/// call it ran) is logged by that copy.
fn every_copy_sends(event: &ServerSseMessage) -> bool {
    let Some(ServerJsonRpcMessage::Notification(notification)) = event.message.as_deref() else {
        return false;
    };
    matches!(
        notification.notification,
        ServerNotification::ToolListChangedNotification(_)
            | ServerNotification::ResourceListChangedNotification(_)
            | ServerNotification::PromptListChangedNotification(_)
            | ServerNotification::ResourceUpdatedNotification(_)
    )
}

/// This replica's ring of requests' stream events.
#[derive(Debug, Default)]
struct Ring {
    next: u64,
    events: VecDeque<(u64, String, ServerSseMessage)>,
}

/// The session streams' events, in the shared store and this replica.
#[derive(Debug)]
pub struct SharedEvents {
    store: Store,
    namespace: Namespace,
    ttl: Duration,
    ring: Mutex<Ring>,
    /// This replica's name in `g/H`.
    replica: String,
}

impl SharedEvents {
    /// Logs in `store` whose events live `ttl`.
    pub fn new(store: Store, ttl: Duration) -> SharedEvents {
        SharedEvents {
            store,
            namespace: Namespace::sessions(),
            ttl,
            ring: Mutex::default(),
            replica: replica_name(),
        }
    }

    /// This replica holds the `GET` stream of session `id` from now on:
    /// it alone logs the stream's events.
    pub async fn hold(&self, id: &str) -> Result<(), StoreError> {
        let key = format!("g/{}", hash(id));
        self.store
            .set(
                &self.namespace,
                key,
                self.replica.as_bytes(),
                Some(self.ttl),
            )
            .await
    }

    /// Whether this replica logs the events of the session whose id
    /// hashes to `session` (it holds, or last held, its `GET` stream).
    async fn logs(&self, session: &str) -> Result<bool, StoreError> {
        let holder = self
            .store
            .get(&self.namespace, format!("g/{session}"))
            .await?;
        Ok(holder.as_deref() == Some(self.replica.as_bytes()))
    }

    fn ring(&self) -> std::sync::MutexGuard<'_, Ring> {
        self.ring.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn keep_locally(&self, stream: &str, event: &ServerSseMessage) -> EventRef {
        let mut ring = self.ring();
        ring.next += 1;
        let n = ring.next;
        if ring.events.len() >= MAX_LOCAL_EVENTS {
            ring.events.pop_front();
        }
        let mut kept = event.clone();
        kept.event_id = Some(EventRef::Local { n }.id());
        ring.events.push_back((n, stream.to_string(), kept));
        EventRef::Local { n }
    }

    /// Appends `event` to the log of the session whose id hashes to
    /// `session`; its sequence number.
    async fn append(&self, session: &str, event: &ServerSseMessage) -> Result<u64, StoreError> {
        let counter = format!("n/{session}");
        let mut seq = None;
        for _ in 0..MAX_TRIES {
            let current = self.store.get(&self.namespace, &counter).await?;
            let last: u64 = current
                .as_deref()
                .and_then(|b| std::str::from_utf8(b).ok())
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            let next = last + 1;
            let swap = self
                .store
                .compare_and_swap(
                    &self.namespace,
                    &counter,
                    current.as_deref(),
                    next.to_string(),
                    Some(self.ttl),
                )
                .await?;
            if swap == Swap::Swapped {
                seq = Some(next);
                break;
            }
        }
        let Some(seq) = seq else {
            return Ok(0);
        };
        let key = format!("e/{session}/{seq}");
        self.store
            .set(&self.namespace, key, encode(event), Some(self.ttl))
            .await?;
        if seq > MAX_EVENTS {
            let trimmed = format!("e/{session}/{}", seq - MAX_EVENTS);
            self.store.delete(&self.namespace, trimmed).await?;
        }
        Ok(seq)
    }

    /// The events of the log of the session whose id hashes to `session`
    /// after `after`, in order.
    pub async fn replay(
        &self,
        session: &str,
        after: u64,
    ) -> Result<Vec<ServerSseMessage>, StoreError> {
        let head = self
            .store
            .get(&self.namespace, format!("n/{session}"))
            .await?
            .as_deref()
            .and_then(|b| std::str::from_utf8(b).ok())
            .and_then(|s| s.parse::<u64>().ok())
            .unwrap_or(0);
        let seqs: Vec<u64> = replay_range(after, head).collect();
        if seqs.is_empty() {
            return Ok(Vec::new());
        }
        let keys: Vec<String> = seqs.iter().map(|n| format!("e/{session}/{n}")).collect();
        let values = self.store.get_many(&self.namespace, &keys).await?;
        Ok(seqs
            .into_iter()
            .zip(values)
            .filter_map(|(seq, value)| {
                let id = EventRef::Shared {
                    session: session.to_string(),
                    seq,
                }
                .id();
                decode(&value?, id)
            })
            .collect())
    }

    fn replay_locally(&self, after: u64) -> Vec<ServerSseMessage> {
        let ring = self.ring();
        let Some(stream) = ring
            .events
            .iter()
            .find(|(n, _, _)| *n == after)
            .map(|(_, s, _)| s.clone())
        else {
            return Vec::new();
        };
        ring.events
            .iter()
            .filter(|(n, s, _)| *n > after && *s == stream)
            .map(|(_, _, e)| e.clone())
            .collect()
    }
}

#[async_trait::async_trait]
impl EventStore for SharedEvents {
    async fn store_event(
        &self,
        stream_id: &str,
        event: &ServerSseMessage,
    ) -> Result<EventId, EventStoreError> {
        let Some(session) = stream_id.strip_suffix(":common") else {
            return Ok(self.keep_locally(stream_id, event).id());
        };
        let session = hash(session);
        if every_copy_sends(event) {
            match self.logs(&session).await {
                Ok(true) => {}
                // Another replica's copy logs this change.
                Ok(false) => return Ok(self.keep_locally(stream_id, event).id()),
                Err(e) => {
                    tracing::warn!(error = %e, "cannot tell which replica logs a session stream's events; this one keeps its own");
                    return Ok(self.keep_locally(stream_id, event).id());
                }
            }
        }
        match self.append(&session, event).await {
            Ok(seq) if seq > 0 => Ok(EventRef::Shared { session, seq }.id()),
            Ok(_) => Ok(self.keep_locally(stream_id, event).id()),
            Err(e) => {
                tracing::warn!(error = %e, "a session stream's event was not logged in the shared store; it is sent, but cannot be resumed on another replica");
                Ok(self.keep_locally(stream_id, event).id())
            }
        }
    }

    async fn replay_events_after(
        &self,
        last_event_id: &str,
    ) -> Result<EventStream, EventStoreError> {
        let events = match EventRef::parse(last_event_id) {
            Some(EventRef::Local { n }) => self.replay_locally(n),
            Some(EventRef::Shared { session, seq }) => self.replay(&session, seq).await?,
            None => Vec::new(),
        };
        Ok(Box::pin(futures::stream::iter(events)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_ids_read_back_and_others_are_refused() {
        let shared = EventRef::Shared {
            session: hash("a session"),
            seq: 42,
        };
        assert_eq!(EventRef::parse(&shared.id()), Some(shared));
        assert_eq!(EventRef::parse("l.7"), Some(EventRef::Local { n: 7 }));
        for other in ["", "3", "0/1", "abc.1", "l.x", &format!("{}.", hash("s"))] {
            assert_eq!(EventRef::parse(other), None, "{other:?}");
        }
    }

    #[test]
    fn a_replay_reads_at_most_the_events_kept() {
        assert_eq!(replay_range(3, 5), 4..=5);
        assert!(replay_range(5, 5).is_empty());
        assert!(replay_range(0, 0).is_empty());
        // Trimmed: from the oldest kept.
        let range = replay_range(1, 1000);
        assert_eq!(*range.start(), 1000 - MAX_EVENTS + 1);
        assert_eq!(range.count() as u64, MAX_EVENTS);
    }

    #[test]
    fn an_event_reads_back_as_stored() {
        let message: ServerJsonRpcMessage = serde_json::from_value(serde_json::json!({
            "jsonrpc": "2.0", "method": "notifications/tools/list_changed"
        }))
        .unwrap();
        let event = ServerSseMessage::from_message(message);
        let back = decode(&encode(&event), "h.1".into()).unwrap();
        assert_eq!(back.event_id.as_deref(), Some("h.1"));
        assert_eq!(
            serde_json::to_value(back.message.as_deref()).unwrap()["method"],
            "notifications/tools/list_changed"
        );
        let priming = ServerSseMessage::retry(Duration::from_secs(3));
        let back = decode(&encode(&priming), "h.2".into()).unwrap();
        assert_eq!(back.retry, Some(Duration::from_secs(3)));
        assert!(back.message.is_none());
    }

    #[test]
    fn only_changes_every_copy_hears_are_left_to_the_stream_holder() {
        let event = |message: serde_json::Value| {
            ServerSseMessage::from_message(serde_json::from_value(message).unwrap())
        };
        for method in [
            "notifications/tools/list_changed",
            "notifications/resources/list_changed",
            "notifications/prompts/list_changed",
        ] {
            let change = event(serde_json::json!({"jsonrpc": "2.0", "method": method}));
            assert!(every_copy_sends(&change), "{method}");
        }
        let updated = event(serde_json::json!({"jsonrpc": "2.0",
            "method": "notifications/resources/updated", "params": {"uri": "a://b"}}));
        assert!(every_copy_sends(&updated));
        let log = event(
            serde_json::json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "info", "data": "x"}}),
        );
        assert!(!every_copy_sends(&log));
        assert!(!every_copy_sends(&ServerSseMessage::retry(
            Duration::from_secs(1)
        )));
    }

    #[tokio::test]
    async fn a_local_replay_is_of_its_own_stream_only() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::embedded(dir.path()).await.unwrap();
        let events = SharedEvents::new(store, Duration::from_secs(60));
        let event = ServerSseMessage::retry(Duration::from_secs(1));
        let first = events.keep_locally("a", &event);
        events.keep_locally("b", &event);
        events.keep_locally("a", &event);
        let EventRef::Local { n } = first else {
            panic!("{first:?}")
        };
        let replayed = events.replay_locally(n);
        assert_eq!(replayed.len(), 1);
        assert_eq!(replayed[0].event_id.as_deref(), Some("l.3"));
    }

    #[tokio::test]
    async fn the_log_keeps_the_last_events_of_its_session() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::embedded(dir.path()).await.unwrap();
        let events = SharedEvents::new(store, Duration::from_secs(60));
        let session = hash("one session");
        let event = ServerSseMessage::retry(Duration::from_secs(1));
        for n in 1..=MAX_EVENTS + 3 {
            assert_eq!(events.append(&session, &event).await.unwrap(), n);
        }
        let all = events.replay(&session, 0).await.unwrap();
        assert_eq!(all.len() as u64, MAX_EVENTS);
        let oldest = EventRef::Shared {
            session: session.clone(),
            seq: 4,
        };
        assert_eq!(all[0].event_id, Some(oldest.id()));
        let tail = events.replay(&session, MAX_EVENTS + 1).await.unwrap();
        assert_eq!(tail.len(), 2);
        assert!(events.replay(&hash("another"), 0).await.unwrap().is_empty());
    }
}
