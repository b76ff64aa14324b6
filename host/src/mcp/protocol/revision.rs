//! What each protocol revision asks of an answer: the predicates on the
//! session's protocol version that the handler and the other requests
//! branch on, and the server's identity (`serverInfo`) that 2026-07-28
//! results carry in `_meta`.

use rmcp::model::{Implementation, MetaObject, ProtocolVersion};

/// Who this server is, for `initialize`, `server/discover` and the
/// 2026-07-28 `_meta` of results.
pub(super) fn implementation() -> Implementation {
    Implementation::new("mcp-wasm-host", env!("CARGO_PKG_VERSION")).with_title("mcp-wasm-host")
}

/// `_meta` with `io.modelcontextprotocol/serverInfo`, which 2026-07-28
/// results carry.
pub(super) fn server_info_meta(meta: &mut Option<MetaObject>) {
    if let Ok(info) = serde_json::to_value(implementation()) {
        meta.get_or_insert_default()
            .0
            .insert("io.modelcontextprotocol/serverInfo".into(), info);
    }
}

/// From revision 2025-11-25 on, arguments that break the input schema are a
/// tool result with `isError: true` (SEP-1303), so the model can correct
/// them; earlier revisions answer with JSON-RPC error -32602.
pub(super) fn schema_errors_are_results(version: Option<&ProtocolVersion>) -> bool {
    from_2025_11_25(version)
}

/// The session speaks revision 2025-11-25 or later (or did not say).
fn from_2025_11_25(version: Option<&ProtocolVersion>) -> bool {
    version.is_none_or(|v| v.as_str() >= ProtocolVersion::V_2025_11_25.as_str())
}

/// Tools have `icons` from revision 2025-11-25 on (SEP-973); earlier
/// revisions' schemas have no such field, so their clients get none.
pub(super) fn tools_have_icons(version: Option<&ProtocolVersion>) -> bool {
    from_2025_11_25(version)
}

/// From revision 2026-07-28 on there is no session-wide logging level: each
/// request opts in to log messages in its `_meta` (SEP-2575).
pub(super) fn logging_is_per_request(version: Option<&ProtocolVersion>) -> bool {
    is_2026_07_28_or_later(version)
}

/// From revision 2026-07-28 on a guest's requests to the client go through
/// `InputRequiredResult` (SEP-2322), not server-to-client requests.
pub(super) fn is_2026_07_28_or_later(version: Option<&ProtocolVersion>) -> bool {
    version.is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revisions_map_schema_errors_as_the_spec_says() {
        for (v, as_result) in [
            (ProtocolVersion::V_2024_11_05, false),
            (ProtocolVersion::V_2025_03_26, false),
            (ProtocolVersion::V_2025_06_18, false),
            (ProtocolVersion::V_2025_11_25, true),
            (ProtocolVersion::V_2026_07_28, true),
        ] {
            assert_eq!(schema_errors_are_results(Some(&v)), as_result, "{v:?}");
        }
        assert!(schema_errors_are_results(None));
    }

    #[test]
    fn only_2026_07_28_asks_for_logs_per_request() {
        assert!(logging_is_per_request(Some(&ProtocolVersion::V_2026_07_28)));
        assert!(!logging_is_per_request(Some(
            &ProtocolVersion::V_2025_11_25
        )));
        assert!(!logging_is_per_request(None));
    }
}
