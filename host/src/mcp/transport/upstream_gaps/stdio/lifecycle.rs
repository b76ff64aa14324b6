//! Whether a stdio session's lifecycle has started, and what the
//! transport keeps back from rmcp until it has: rmcp 3.11.0's handshake
//! ends the session on the first notification or response that comes
//! before it (`ServerInitializeError::ExpectedInitializeRequest`). No
//! upstream issue asks otherwise; modelcontextprotocol/rust-sdk#788 dropped
//! the like rule for what comes after `initialize`.

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, GetMeta, JsonRpcMessage, ProtocolVersion};

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
