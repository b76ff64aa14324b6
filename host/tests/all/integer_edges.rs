//! A generic component's integer parameters, through the real binary: for
//! every width, each value at and beside its bounds (and at 2^53 for 64
//! bits), written in every JSON spelling a client may use, is sent as raw
//! JSON-RPC text to a component that echoes what it got. Each either
//! arrives exactly (the echo is the value, every digit) or is refused with
//! text that names the bound; none is rounded or clamped. A number that is
//! not the integer but that a double rounds to it (`5.00000000000000000001`,
//! `1e-400`) is refused, naming the number as written. The JavaScript
//! SDK's integers go through the same edges (`js_plugins.rs`).
#![allow(clippy::unwrap_used)]

use crate::common::revision::R4;
use serde_json::Value;

use crate::common::Server;

/// Each width: its WIT name, the core type it is passed as, its bounds.
const WIDTHS: [(&str, &str, i128, i128); 8] = [
    ("s8", "i32", i8::MIN as i128, i8::MAX as i128),
    ("u8", "i32", 0, u8::MAX as i128),
    ("s16", "i32", i16::MIN as i128, i16::MAX as i128),
    ("u16", "i32", 0, u16::MAX as i128),
    ("s32", "i32", i32::MIN as i128, i32::MAX as i128),
    ("u32", "i32", 0, u32::MAX as i128),
    ("s64", "i64", i64::MIN as i128, i64::MAX as i128),
    ("u64", "i64", 0, u64::MAX as i128),
];

/// 2^53: from here on a double no longer holds every integer.
const TWO_53: i128 = 1 << 53;

/// A component exporting `echo-WIDTH: func(n: WIDTH) -> WIDTH` for every
/// width, each returning its argument as the core function received it.
fn echo_component() -> Vec<u8> {
    let mut wit = String::from("package test:edges;\nworld edges {\n");
    let mut core = String::from("(module\n");
    for (name, core_type, _, _) in WIDTHS {
        wit.push_str(&format!(
            "  export echo-{name}: func(n: {name}) -> {name};\n"
        ));
        core.push_str(&format!(
            "  (func (export \"echo-{name}\") (param {core_type}) (result {core_type}) local.get 0)\n"
        ));
    }
    wit.push_str("}\n");
    core.push(')');
    test_artifacts::component_of_wit(&wit, "edges", &core)
}

/// The values to send for bounds `min..=max`.
fn values(min: i128, max: i128) -> Vec<i128> {
    let mut values = vec![min - 1, min, 0, max, max + 1];
    if max > TWO_53 {
        for n in [TWO_53 - 1, TWO_53, TWO_53 + 1] {
            values.extend([n, -n]);
        }
    }
    values
}

/// `n` as a client may write it, each spelling with whether the host reads
/// it as written (serde_json keeps only integers within 64 bits so; it
/// reads every other spelling as the nearest double).
fn spellings(n: i128) -> Vec<(String, bool)> {
    let digits = n.unsigned_abs().to_string();
    let sign = if n < 0 { "-" } else { "" };
    let as_written = i64::try_from(n).is_ok() || u64::try_from(n).is_ok();
    let mut out = vec![
        (n.to_string(), as_written),
        (format!("{n}.0"), false),
        (format!("{n}e0"), false),
        (
            format!(
                "{sign}{}.{}0e{}",
                &digits[..1],
                &digits[1..],
                digits.len() - 1
            ),
            false,
        ),
    ];
    if n == 0 {
        out.extend([
            ("-0".into(), false),
            ("-0.0".into(), false),
            ("-0e3".into(), false),
        ]);
    }
    out
}

/// Spellings of numbers that are not `n` but that a double rounds to `n`:
/// `n` plus or minus less than half a unit in a double's last place. No
/// integer parameter may take them.
fn near_misses(n: i128) -> Vec<String> {
    if n == 0 {
        return vec!["1e-400".into(), "-1e-400".into(), "0.1e-330".into()];
    }
    vec![
        format!("{n}.00000000000000000001"),
        format!("{n}.000000000000000000000000000000000000000000000000000000001e0"),
        format!("{}.99999999999999999999", n - n.signum()),
    ]
}

#[test]
fn every_integer_edge_in_every_spelling_arrives_exactly_or_is_refused_naming_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("edges.wasm"), echo_component()).unwrap();
    let mut server = Server::initialized(dir.path(), &[], R4);
    let widths = WIDTHS.map(|(name, _, min, max)| (name, min, max));
    let (exact, refused) = every_edge(&mut server, &widths);
    eprintln!("{exact} values arrived exactly, {refused} were refused");
    assert!(exact > 0 && refused > 0);
}

#[test]
fn over_http_a_number_a_double_rounds_to_an_integer_is_refused_as_written() {
    // HTTP bodies are checked, then read again by rmcp: what the text showed
    // must reach admission that way too.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("edges.wasm"), echo_component()).unwrap();
    let server = crate::common::HttpServer::start(dir.path(), &["--no-watch", "--stateless"]);
    let mut client = crate::common::http::Client::new(&server.url);
    let mut call = |text: &str| {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo-s32","arguments":{{"n":{text}}}}}}}"#
        );
        client.post_bytes(body.as_bytes()).response(7).clone()
    };
    for text in [
        "5.00000000000000000001",
        "-1e-400",
        "2147483646.99999999999999",
    ] {
        let answer = call(text);
        let refused = answer.get("error").is_some() || answer["result"]["isError"] == true;
        assert!(refused, "accepted {text}: {answer}");
        assert!(answer.to_string().contains(text), "{text}: {answer}");
    }
    let answer = call("5.0");
    assert_eq!(
        answer["result"]["structuredContent"]["result"], 5,
        "{answer}"
    );
}

/// Sends each edge of each width `(NAME, min, max)` in every spelling to
/// the tool `echo-NAME` of `server`, which answers `{"result": n}` as
/// structured content. Each must arrive exactly (the echo is the value,
/// every digit) if it is in range and either written as an integer or
/// below 2^53; else be refused with text naming the bound it passed, or
/// for one in range, the schema's bound or the 2^53 limit and `NAME takes
/// MIN to MAX`. Returns how many arrived and how many were refused.
pub(crate) fn every_edge(server: &mut Server, widths: &[(&str, i128, i128)]) -> (usize, usize) {
    let (mut exact, mut refused) = (0, 0);
    for &(name, min, max) in widths {
        for n in values(min, max) {
            for (text, as_written) in spellings(n) {
                let id = server.id();
                server.send_line(&format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo-{name}","arguments":{{"n":{text}}}}}}}"#
                ));
                let resp = server.response(id);
                let case = format!("echo-{name}({text}): {resp}");
                let result = &resp["result"];
                let ok = resp.get("error").is_none() && result["isError"] != Value::Bool(true);
                let in_range = (min..=max).contains(&n);
                if in_range && (as_written || n.abs() < TWO_53) {
                    assert!(ok, "{case}");
                    let echoed = &result["structuredContent"]["result"];
                    assert_eq!(echoed.to_string(), n.to_string(), "{case}");
                    exact += 1;
                    continue;
                }
                assert!(!ok, "accepted: {case}");
                let said = resp.to_string();
                if n < min {
                    assert!(said.contains(&min.to_string()), "{case}");
                }
                if n > max {
                    assert!(said.contains(&max.to_string()), "{case}");
                }
                if in_range {
                    // The double it reads as is past a bound (the schema
                    // says which), or exact only up to 2^53 - 1 and the
                    // conversion says so, with the type's range.
                    let conversion = said.contains("9007199254740991")
                        && said.contains(&format!("{name} takes {min} to {max}"));
                    let schema = said.contains(&format!("maximum of {max}"))
                        || said.contains(&format!("minimum of {min}"));
                    assert!(conversion || schema, "{case}");
                }
                refused += 1;
            }
            for text in near_misses(n) {
                let id = server.id();
                server.send_line(&format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo-{name}","arguments":{{"n":{text}}}}}}}"#
                ));
                let resp = server.response(id);
                let case = format!("echo-{name}({text}): {resp}");
                let ok =
                    resp.get("error").is_none() && resp["result"]["isError"] != Value::Bool(true);
                assert!(!ok, "accepted a number that is not an integer: {case}");
                if (min..=max).contains(&n) && n.abs() < TWO_53 {
                    // Refused as written, not as the integer it reads as.
                    assert!(resp.to_string().contains(&text), "{case}");
                }
                refused += 1;
            }
        }
    }
    (exact, refused)
}
