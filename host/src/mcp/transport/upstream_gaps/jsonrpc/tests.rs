//! Unit tests of `mcp::transport::upstream_gaps::jsonrpc`.
use super::*;

fn code(text: &[u8]) -> Option<i32> {
    check(text).err().map(|r| r.code)
}

fn rejected(text: &[u8]) -> Rejection {
    check(text).expect_err(&String::from_utf8_lossy(text))
}

fn request(method: &str, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":7,"method":"{method}","params":{params}}}"#)
}

/// The two promises of [`check`], for any bytes: an accepted message is
/// rmcp's, and never a known method read as a custom request; a refused
/// one names the id whenever rmcp could read it.
fn assert_contract(bytes: &[u8]) {
    match check(bytes) {
        Ok(_) => {
            let message = serde_json::from_slice::<ClientJsonRpcMessage>(bytes)
                .expect("rmcp parses what check accepts");
            if let JsonRpcMessage::Request(r) = message
                && let ClientRequest::CustomRequest(c) = r.request
            {
                assert!(!KNOWN.iter().any(|k| k.method == c.method), "{}", c.method);
            }
        }
        Err(rejection) => {
            let id = serde_json::from_slice::<Value>(bytes)
                .ok()
                .and_then(|v| v.get("id").cloned())
                .and_then(|id| serde_json::from_value::<RequestId>(id).ok());
            if id.is_some() {
                assert_eq!(rejection.id, id, "{}", String::from_utf8_lossy(bytes));
            }
        }
    }
}

#[test]
fn well_formed_messages_of_every_kind_are_accepted() {
    for ok in [
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{"cursor":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{"a":[1,"\ud83d\ude00"]}}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"vendor/anything","params":{"a":[1]}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":5}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":4,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"x"}}"#,
    ] {
        assert_eq!(code(ok.as_bytes()), None, "{ok}");
    }
}

#[test]
fn text_that_is_not_one_json_value_is_a_parse_error() {
    for bad in [
        "not json",
        "",
        "   ",
        r#"{"jsonrpc":"2.0","id":1,"#,
        "{} {}",
        "1e999",
    ] {
        assert_eq!(code(bad.as_bytes()), Some(PARSE_ERROR), "{bad}");
    }
}

#[test]
fn invalid_utf8_anywhere_is_a_parse_error_naming_a_readable_id() {
    for bad in [
        &b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"\xff\"}}"
            [..],
        b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\",\"params\":{\"\xc3\x28\":1}}",
        b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"x\",\"params\":[[[\"\xed\xa0\x80\"]]]}",
    ] {
        let r = rejected(bad);
        assert_eq!((r.code, r.id), (PARSE_ERROR, Some(RequestId::Number(7))));
    }
}

#[test]
fn lone_surrogate_escapes_are_a_parse_error() {
    for bad in [
        r#"{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":"\ud800"}}"#,
        r#"{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":"\udc00x"}}"#,
        r#"{"jsonrpc":"2.0","id":7,"method":"x","params":{"\ud800":1}}"#,
        r#"{"jsonrpc":"2.0","id":7,"method":"x\ud800"}"#,
    ] {
        let r = rejected(bad.as_bytes());
        assert_eq!(
            (r.code, r.id),
            (PARSE_ERROR, Some(RequestId::Number(7))),
            "{bad}"
        );
    }
}

#[test]
fn nesting_deeper_than_the_parser_allows_is_a_parse_error() {
    let nested = |depth: usize| {
        request(
            "x",
            &format!("{{\"a\":{}1{}}}", "[".repeat(depth), "]".repeat(depth)),
        )
    };
    assert_eq!(code(nested(120).as_bytes()), None);
    for depth in [130, 10_000] {
        let r = rejected(nested(depth).as_bytes());
        assert_eq!((r.code, r.id), (PARSE_ERROR, Some(RequestId::Number(7))));
    }
    let r = rejected(format!("{}1{}", "[".repeat(500), "]".repeat(500)).as_bytes());
    assert_eq!((r.code, r.id), (PARSE_ERROR, None));
}

#[test]
fn json_that_is_not_a_json_rpc_message_is_an_invalid_request() {
    for (bad, id) in [
        (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, None),
        ("[]", None),
        ("42", None),
        (r#""ping""#, None),
        ("null", None),
        (r#"{"jsonrpc":"1.0","id":9,"method":"ping"}"#, Some(9)),
        (r#"{"id":9,"method":"ping"}"#, Some(9)),
        (r#"{"jsonrpc":2,"id":9,"method":"ping"}"#, Some(9)),
        (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, None),
        (r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, None),
        (r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#, None),
        (r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#, None),
        (r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#, None),
        (
            r#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}"#,
            None,
        ),
        (r#"{"jsonrpc":"2.0","id":9,"method":7}"#, Some(9)),
        (r#"{"jsonrpc":"2.0","id":9,"method":null}"#, Some(9)),
        (r#"{"jsonrpc":"2.0","id":9}"#, Some(9)),
        (
            r#"{"jsonrpc":"2.0","id":9,"method":"ping","result":{}}"#,
            Some(9),
        ),
        (
            r#"{"jsonrpc":"2.0","id":9,"result":{},"error":{"code":1,"message":"x"}}"#,
            Some(9),
        ),
        (r#"{}"#, None),
    ] {
        let r = rejected(bad.as_bytes());
        assert_eq!(r.code, INVALID_REQUEST, "{bad}: {}", r.message);
        assert_eq!(r.id, id.map(RequestId::Number), "{bad}");
    }
}

#[test]
fn ids_are_read_as_rmcp_reads_them() {
    for (id, read) in [
        ("1.0", Some(RequestId::Number(1))),
        ("-3", Some(RequestId::Number(-3))),
        ("1e2", Some(RequestId::Number(100))),
        (r#""abc""#, Some(RequestId::String("abc".into()))),
        ("1.5", None),
        ("18446744073709551615", None),
        ("null", None),
    ] {
        let text = format!(r#"{{"jsonrpc":"1.0","id":{id},"method":"ping"}}"#);
        assert_eq!(rejected(text.as_bytes()).id, read, "{id}");
    }
}

#[test]
fn every_known_method_with_misshapen_params_is_invalid_params_with_the_id() {
    for Known { method, .. } in KNOWN {
        for params in [r#""text""#, "[1]", "42"] {
            let text = request(method, params);
            let r = rejected(text.as_bytes());
            assert_eq!(r.code, INVALID_PARAMS, "{text}: {}", r.message);
            assert_eq!(r.id, Some(RequestId::Number(7)));
            assert!(r.message.contains(method), "{}", r.message);
        }
    }
}

#[test]
fn tools_call_and_tools_list_params_are_checked_against_their_shapes() {
    for text in [
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call"}"#.to_string(),
        request("tools/call", "{}"),
        request("tools/call", r#"{"name":5}"#),
        request("tools/call", r#"{"name":"t","arguments":[1]}"#),
        request("tools/call", r#"{"name":"t","arguments":"a"}"#),
        request("tools/list", r#"{"cursor":5}"#),
        request("tools/list", r#"{"cursor":{}}"#),
        request("initialize", r#"{"protocolVersion":"2025-06-18"}"#),
    ] {
        let r = rejected(text.as_bytes());
        assert_eq!(r.code, INVALID_PARAMS, "{text}: {}", r.message);
        assert_eq!(r.id, Some(RequestId::Number(7)), "{text}");
    }
}

#[test]
fn a_request_for_an_unknown_method_with_params_rmcp_cannot_read_is_method_not_found() {
    for params in ["[1]", r#""text""#, "42"] {
        let r = rejected(request("vendor/anything", params).as_bytes());
        assert_eq!(
            (r.code, r.id),
            (METHOD_NOT_FOUND, Some(RequestId::Number(7)))
        );
        assert!(!r.notification);
    }
}

#[test]
fn a_notification_with_params_rmcp_cannot_read_is_refused_as_a_notification() {
    for method in ["notifications/cancelled", "notifications/vendor"] {
        let text = format!(r#"{{"jsonrpc":"2.0","method":"{method}","params":[1]}}"#);
        let r = rejected(text.as_bytes());
        assert_eq!(
            (r.code, r.id, r.notification),
            (INVALID_PARAMS, None, true),
            "{text}"
        );
    }
}

#[test]
fn the_id_of_a_message_too_long_to_read_comes_from_its_start() {
    let head = r#"{"jsonrpc":"2.0","id":"big-1","method":"tools/call","params":{"name":"t","arguments":{"s":"aaaa"#;
    let r = Rejection::too_long(head.as_bytes(), MAX_MESSAGE_BYTES);
    assert_eq!(r.code, INVALID_REQUEST);
    assert_eq!(r.id, Some(RequestId::String("big-1".into())));
    let tail_id =
        r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t","arguments":{"s":"aaaa"#;
    assert_eq!(Rejection::too_long(tail_id.as_bytes(), 10).id, None);
    assert_eq!(
        recover_id(br#"{"id":3,"method":"#),
        Some(RequestId::Number(3))
    );
    assert_eq!(recover_id(br#"{"id":3"#), None, "the number may go on");
    assert_eq!(
        recover_id(br#"{"id":3,"#),
        None,
        "the key after it is not read yet"
    );
    assert_eq!(
        recover_id(br#"{"id":"3""#),
        Some(RequestId::String("3".into()))
    );
}

#[test]
fn rejections_serialize_as_json_rpc_errors() {
    let r = rejected(b"nope");
    let v = r.to_json();
    assert_eq!(v["jsonrpc"], "2.0");
    assert!(v["id"].is_null());
    assert_eq!(v["error"]["code"], PARSE_ERROR);
    let r = rejected(request("tools/call", "[]").as_bytes());
    assert_eq!(r.to_json()["id"], 7);
}

#[test]
fn the_contract_holds_for_every_truncation_and_byte_flip_of_sample_messages() {
    let samples = [
        request(
            "tools/call",
            r#"{"name":"t","arguments":{"a":"\u00e9\ud83d\ude00","b":[1.5,null,true]}}"#,
        ),
        request("tools/list", r#"{"cursor":"abc"}"#),
        request(
            "initialize",
            r#"{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#,
        ),
        r#"{"jsonrpc":"2.0","id":"s","result":{"x":[]}}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#
            .to_string(),
    ];
    let replacements = [
        b'"', b'\\', b'[', b'{', b'}', b'1', b'.', 0xff, 0xed, b'u', b' ', b':',
    ];
    for sample in &samples {
        let bytes = sample.as_bytes();
        assert_contract(bytes);
        for cut in 0..bytes.len() {
            assert_contract(&bytes[..cut]);
            for r in replacements {
                let mut flipped = bytes.to_vec();
                flipped[cut] = r;
                assert_contract(&flipped);
            }
        }
    }
}

/// The first pass of `check` for `bytes`.
fn scanned(bytes: &[u8]) -> TopLevel {
    let mut top = TopLevel::default();
    (&mut top)
        .deserialize(&mut serde_json::Deserializer::from_slice(bytes))
        .unwrap();
    top
}

/// A request for a method rmcp knows is read as its type alone, and that
/// reading is rmcp's own (`check` asserts so in debug builds, over every
/// message the tests send); what is not a plain request, or does not fit
/// its method's type, is left to rmcp's reading.
#[test]
fn known_requests_are_read_as_their_type_as_rmcp_reads_them() {
    let mut methods: Vec<&str> = KNOWN.iter().map(|k| k.method).collect();
    methods.sort_unstable();
    methods.dedup();
    assert_eq!(methods.len(), KNOWN.len(), "one variant per method");
    for (text, typed) in [
        (
            request("tools/call", r#"{"name":"t","arguments":{"a":1}}"#),
            true,
        ),
        (
            request(
                "tools/call",
                r#"{"name":"t","arguments":{},"_meta":{"progressToken":3,"x":[1]},"task":{"ttl":5},"extra":true}"#,
            ),
            true,
        ),
        (
            r#"{"id":"q","params":{"name":"t"},"method":"tools/call","jsonrpc":"2.0"}"#.into(),
            true,
        ),
        (request("tools/list", r#"{"cursor":"abc"}"#), true),
        (request("tools/list", r#"{"cursor":5}"#), true),
        (request("resources/read", r#"{"uri":"file:///a"}"#), true),
        (r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.into(), true),
        (
            request(
                "initialize",
                r#"{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#,
            ),
            true,
        ),
        // Not plain requests, or not of the method's type: rmcp decides.
        (request("tools/call", r#"{"arguments":{}}"#), false),
        (request("vendor/thing", r#"{"a":1}"#), false),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"},"result":{}}"#
                .into(),
            false,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t"}}"#.into(),
            false,
        ),
    ] {
        let bytes = text.as_bytes();
        let read = scanned(bytes).typed(bytes);
        assert_eq!(read.is_some(), typed, "{text}");
        if let Some(request) = read {
            assert!(
                reads_as_rmcp_does(bytes, &JsonRpcMessage::Request(request)),
                "{text}"
            );
        }
        assert_contract(bytes);
    }
}
