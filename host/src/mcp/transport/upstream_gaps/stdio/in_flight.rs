//! The requests of a stdio session still waiting for their responses,
//! bounded: rmcp 3.11.0 spawns a task for every request it reads and bounds
//! neither their number nor the arguments they hold (no upstream issue), so
//! the transport refuses a request past [`MAX_IN_FLIGHT`] before rmcp reads
//! it. The HTTP transport applies the same bound per session
//! ([`http_body`](crate::mcp::transport::http_body)).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, JsonRpcMessage, RequestId,
    ServerJsonRpcMessage,
};

use super::super::jsonrpc::Rejection;

/// Requests of one stdio session that may wait for their responses at once;
/// a request past it is answered at once with JSON-RPC error `-32000`
/// (`ping` is always served), so a client that sends without reading cannot
/// make the host hold an unbounded number of calls and their arguments.
pub const MAX_IN_FLIGHT: usize = 256;

/// The error code of a request refused because too many are in flight.
pub(crate) const TOO_MANY_IN_FLIGHT: i32 = -32000;

/// The ids of a session's requests that have no response yet.
#[derive(Debug, Clone, Default)]
pub(super) struct InFlight(Arc<Mutex<HashSet<RequestId>>>);

impl InFlight {
    fn ids(&self) -> std::sync::MutexGuard<'_, HashSet<RequestId>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Notes that `message` (on its way to rmcp) awaits a response, or says
    /// why it must be refused.
    pub(super) fn admit(&self, message: &ClientJsonRpcMessage) -> Result<(), Rejection> {
        match message {
            JsonRpcMessage::Request(request)
                if !matches!(request.request, ClientRequest::PingRequest(_)) =>
            {
                let mut ids = self.ids();
                if ids.len() >= MAX_IN_FLIGHT && !ids.contains(&request.id) {
                    return Err(Rejection::new(
                        TOO_MANY_IN_FLIGHT,
                        format!(
                            "too many requests in flight: {MAX_IN_FLIGHT} are waiting for their responses; wait for some before sending more"
                        ),
                        Some(request.id.clone()),
                    ));
                }
                ids.insert(request.id.clone());
            }
            JsonRpcMessage::Notification(n) => {
                if let ClientNotification::CancelledNotification(c) = &n.notification
                    && let Some(id) = &c.params.request_id
                {
                    // rmcp sends no response to a cancelled request.
                    self.ids().remove(id);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Notes that `message` (from rmcp) answers a request.
    pub(super) fn answered(&self, message: &ServerJsonRpcMessage) {
        match message {
            JsonRpcMessage::Response(r) => {
                self.ids().remove(&r.id);
            }
            JsonRpcMessage::Error(e) => {
                if let Some(id) = &e.id {
                    self.ids().remove(id);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::jsonrpc;
    use super::*;

    fn parsed(text: &str) -> ClientJsonRpcMessage {
        jsonrpc::check(text.as_bytes()).unwrap()
    }

    fn call(id: usize) -> ClientJsonRpcMessage {
        parsed(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"t"}}}}"#
        ))
    }

    #[test]
    fn requests_past_the_in_flight_limit_are_refused_until_some_are_answered() {
        let in_flight = InFlight::default();
        for id in 0..MAX_IN_FLIGHT {
            assert!(in_flight.admit(&call(id)).is_ok());
        }
        let refused = in_flight.admit(&call(MAX_IN_FLIGHT)).unwrap_err();
        assert_eq!(refused.code, TOO_MANY_IN_FLIGHT);
        assert_eq!(refused.id, Some(RequestId::Number(MAX_IN_FLIGHT as i64)));
        // Ping and notifications always pass.
        assert!(
            in_flight
                .admit(&parsed(r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#))
                .is_ok()
        );
        let note = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#;
        assert!(in_flight.admit(&parsed(note)).is_ok());
        // A response frees its id; so does a cancellation (rmcp answers none).
        let answer: ServerJsonRpcMessage =
            serde_json::from_str(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#).unwrap();
        in_flight.answered(&answer);
        assert!(in_flight.admit(&call(MAX_IN_FLIGHT)).is_ok());
        assert!(in_flight.admit(&call(MAX_IN_FLIGHT + 1)).is_err());
        let cancel =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}"#;
        assert!(in_flight.admit(&parsed(cancel)).is_ok());
        assert!(in_flight.admit(&call(MAX_IN_FLIGHT + 1)).is_ok());
    }
}
