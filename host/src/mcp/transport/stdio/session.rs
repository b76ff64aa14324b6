//! What the stdio transport keeps about one session: the requests still
//! waiting for their responses, and whether the lifecycle has started.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, GetMeta, JsonRpcMessage,
    ProtocolVersion, RequestId, ServerJsonRpcMessage,
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

/// Where the session is, as far as the transport must know: rmcp's handshake
/// ends the session on a notification or a response that comes before the
/// lifecycle starts, so the transport keeps those back (JSON-RPC answers
/// neither) and logs them. Requests go to rmcp, which answers `ping` and
/// refuses the others until the lifecycle starts: with `initialize`, or with
/// a request that carries the complete per-request metadata of 2026-07-28 for
/// a supported revision.
#[derive(Debug)]
pub(super) struct Lifecycle {
    started: bool,
    supported: Vec<ProtocolVersion>,
}

impl Lifecycle {
    pub(super) fn new(supported: Vec<ProtocolVersion>) -> Lifecycle {
        Lifecycle {
            started: false,
            supported,
        }
    }

    /// Whether rmcp gets `message`; notes when the lifecycle starts.
    pub(super) fn admits(&mut self, message: &ClientJsonRpcMessage) -> bool {
        if self.started {
            return true;
        }
        match message {
            JsonRpcMessage::Request(request) => {
                self.started = match &request.request {
                    ClientRequest::InitializeRequest(_) => true,
                    ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => false,
                    other => {
                        let meta = other.get_meta();
                        meta.missing_required_keys(&ProtocolVersion::V_2026_07_28)
                            .is_empty()
                            && meta
                                .protocol_version()
                                .is_some_and(|v| self.supported.contains(&v))
                    }
                };
                true
            }
            JsonRpcMessage::Notification(_)
            | JsonRpcMessage::Response(_)
            | JsonRpcMessage::Error(_) => {
                tracing::warn!("ignored a notification or response that came before initialize");
                false
            }
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

    fn message(text: &str) -> ClientJsonRpcMessage {
        jsonrpc::check(text.as_bytes()).unwrap()
    }

    #[test]
    fn before_initialize_notifications_and_responses_are_kept_back_and_requests_pass() {
        let mut lifecycle = Lifecycle::new(ProtocolVersion::KNOWN_VERSIONS.to_vec());
        let initialized = message(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        let response = message(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        let error = message(r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}"#);
        let ping = message(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
        let list = message(r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#);
        let initialize = message(
            r#"{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
        );
        for m in [&initialized, &response, &error] {
            assert!(!lifecycle.admits(m));
        }
        assert!(lifecycle.admits(&ping) && lifecycle.admits(&list));
        assert!(
            !lifecycle.admits(&initialized),
            "ping and a refused request start nothing"
        );
        assert!(lifecycle.admits(&initialize));
        for m in [&initialized, &response, &error, &ping, &list] {
            assert!(lifecycle.admits(m));
        }
    }

    #[test]
    fn a_request_with_complete_inline_metadata_starts_the_lifecycle() {
        let mut lifecycle = Lifecycle::new(ProtocolVersion::KNOWN_VERSIONS.to_vec());
        let inline = message(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}}}"#,
        );
        assert!(lifecycle.admits(&inline));
        assert!(lifecycle.admits(&message(r#"{"jsonrpc":"2.0","method":"notifications/x"}"#)));
    }
}
