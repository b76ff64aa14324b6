//! Fuzzing the check every incoming message passes before rmcp reads it
//! (`mcp::transport::upstream_gaps::jsonrpc::check`, for stdio lines and HTTP bodies alike), against
//! what it promises: an accepted message is one rmcp deserializes, and a
//! request for a known MCP method is never rmcp's custom request; a refused
//! message whose top-level `id` can be read is answered with that id.

use mcp_wasm_host::mcp::transport::upstream_gaps::jsonrpc;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, RequestId};
use serde_json::Value;

/// The methods of rmcp's typed `ClientRequest` variants, written out here
/// so the check is not its own oracle.
const KNOWN_METHODS: &[&str] = &[
    "ping",
    "initialize",
    "server/discover",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "subscriptions/listen",
    "resources/subscribe",
    "resources/unsubscribe",
    "tools/call",
    "tools/list",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "skills/list",
    "skills/get",
    "resources/directory/read",
];

/// Runs `bytes` through the check and panics if its answer breaks a promise.
pub fn check(bytes: &[u8]) {
    match jsonrpc::check(bytes) {
        Ok(message) => {
            let again = match serde_json::from_slice::<ClientJsonRpcMessage>(bytes) {
                Ok(again) => again,
                Err(e) => panic!("accepted a message rmcp does not deserialize: {e}"),
            };
            assert_eq!(
                serde_json::to_value(&message).ok(),
                serde_json::to_value(&again).ok(),
                "the accepted message is not the one rmcp reads"
            );
            // Every field, including what serializing skips: `check` reads
            // a known request as its own type, not through rmcp's enum.
            assert_eq!(
                format!("{message:?}"),
                format!("{again:?}"),
                "the accepted message is not the one rmcp reads"
            );
            if let JsonRpcMessage::Request(request) = &message
                && let ClientRequest::CustomRequest(custom) = &request.request
            {
                assert!(
                    !KNOWN_METHODS.contains(&custom.method.as_str()),
                    "accepted a {} request that rmcp reads as a custom request",
                    custom.method
                );
            }
        }
        Err(rejection) => {
            let Some(id) = top_level_id(bytes) else {
                return;
            };
            assert_eq!(
                rejection.id,
                Some(id),
                "the rejection ({} {}) does not name the message's id",
                rejection.code,
                rejection.message
            );
        }
    }
}

/// The top-level `id` as rmcp reads one, when the text is a JSON object.
fn top_level_id(text: &[u8]) -> Option<RequestId> {
    let Ok(Value::Object(mut object)) = serde_json::from_slice::<Value>(text) else {
        return None;
    };
    serde_json::from_value(object.remove("id")?).ok()
}
