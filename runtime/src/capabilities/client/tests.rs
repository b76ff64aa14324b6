//! Unit tests of `runtime::capabilities::client`.
use super::*;
use crate::call::events::{Elicitation, ElicitationAction, IncludeContext, SamplingRole};
use crate::load::bindings::mcp_wasm_host::plugin::types;

#[test]
fn nothing_is_granted_by_default_and_the_hint_names_the_key() {
    let policy = ClientPolicy::default();
    assert!(!policy.allows(ClientRequestKind::Sampling));
    assert!(!policy.allows(ClientRequestKind::Elicitation));
    let both = ClientPolicy {
        sampling: true,
        elicitation: false,
        roots: false,
    };
    assert!(both.allows(ClientRequestKind::Sampling));
    assert!(!both.allows(ClientRequestKind::Elicitation));
    let hint = ClientPolicy::hint(
        ClientRequestKind::Elicitation,
        "plugins.p",
        "mcp-wasm-host.toml",
    );
    assert!(
        hint.contains("`elicitation = true` in `[plugins.p.client]`")
            && hint.contains("mcp-wasm-host.toml"),
        "{hint}"
    );
}

#[test]
fn guest_requests_are_checked_and_converted() {
    let request = wit::CreateMessageRequest {
        messages: vec![wit::SamplingMessage {
            role: types::Role::User,
            content: vec![
                wit::SamplingContent::Text("hi".into()),
                wit::SamplingContent::Image(wit::Media {
                    data: vec![1, 2],
                    mime_type: "image/png".into(),
                }),
            ],
        }],
        system_prompt: Some("be brief".into()),
        max_tokens: 100,
        temperature: Some(0.5),
        stop_sequences: vec!["END".into()],
        model_preferences: Some(wit::ModelPreferences {
            hints: vec!["claude".into()],
            cost_priority: None,
            speed_priority: Some(0.2),
            intelligence_priority: None,
        }),
        include_context: Some(wit::IncludeContext::ThisServer),
    };
    let converted = sampling_request(request.clone()).unwrap();
    assert_eq!(converted.messages[0].role, SamplingRole::User);
    assert_eq!(
        converted.messages[0].content,
        [
            SamplingContent::Text("hi".into()),
            SamplingContent::Image {
                data: vec![1, 2],
                mime_type: "image/png".into()
            }
        ]
    );
    assert_eq!(converted.max_tokens, 100);
    assert_eq!(converted.include_context, Some(IncludeContext::ThisServer));
    assert_eq!(
        converted.model_preferences.unwrap().hints,
        ["claude".to_string()]
    );

    let mut empty = request.clone();
    empty.messages.clear();
    assert!(sampling_request(empty).is_err());
    let mut blank = request;
    blank.messages[0].content.clear();
    assert_eq!(
        sampling_request(blank).unwrap_err().to_string(),
        "sampling message 0 has no content"
    );

    assert!(elicitation_request("m".into(), "{not json").is_err());
    assert!(elicitation_request("m".into(), "[1]").is_err());
    let schema = r#"{"type":"object","properties":{"a":{"type":"string","enumNames":["A"]}}}"#;
    let ok = elicitation_request("m".into(), schema).unwrap();
    assert_eq!(
        ok.requested_schema,
        serde_json::from_str::<Value>(schema).unwrap()
    );
}

#[test]
fn answers_and_errors_reach_the_guest_intact() {
    let answer = elicit_result(Elicitation {
        action: ElicitationAction::Accept,
        content: Some(serde_json::json!({"name": "Ada"})),
    });
    assert_eq!(answer.action, wit::ElicitAction::Accept);
    assert_eq!(answer.content.as_deref(), Some(r#"{"name":"Ada"}"#));
    let rejected = request_error(ClientRequestError::Rejected {
        code: -1,
        message: "user refused".into(),
        data: Some(serde_json::json!({"why": "no"})),
    });
    let wit::RequestError::Rejected(r) = rejected else {
        panic!("not a rejection")
    };
    assert_eq!(
        (r.code, r.message.as_str(), r.data.as_deref()),
        (-1, "user refused", Some(r#"{"why":"no"}"#))
    );
}
