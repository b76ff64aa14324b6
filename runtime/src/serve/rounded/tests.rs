//! Unit tests of the rounded-number finder and its schema probe.

use serde_json::json;

use super::*;
use crate::definitions::schema::Schema;

fn side(written: &str) -> Option<Side> {
    RoundedNumber::of("/n".into(), written).map(|n| n.side)
}

#[test]
fn finds_literals_a_double_rounds_to_an_integer_they_are_not() {
    // Rounded to an integer: fractions beyond a double's precision, tiny
    // exponents, and integers past 2^53 in float form.
    assert_eq!(side("5.0000000000000001"), Some(Side::Above));
    assert_eq!(side("4.99999999999999999"), Some(Side::Below));
    assert_eq!(side("-5.0000000000000001"), Some(Side::Below));
    assert_eq!(side("1e-400"), Some(Side::Above));
    assert_eq!(side("-1e-400"), Some(Side::Below));
    assert_eq!(side("1.7976931348623157e308"), Some(Side::Below)); // f64::MAX is ...7081e308
    assert_eq!(side("9007199254740993.0"), Some(Side::Above));
    assert_eq!(side("9007199254740993"), Some(Side::Above));
    assert_eq!(side("9.007199254740993e15"), Some(Side::Above));
    assert_eq!(side("-9223372036854775809.0"), Some(Side::Below));
    assert_eq!(side("18446744073709551617"), Some(Side::Above));
    assert_eq!(side("1e23"), Some(Side::Above)); // 1e23 reads as 99999999999999991611392
}

#[test]
fn leaves_exact_literals_and_fractions_alone() {
    for exact in [
        "0",
        "-0",
        "0.0",
        "-0.0",
        "0e5",
        "5",
        "5.0",
        "5.000000000000000000000",
        "50e-1",
        "0.5e1",
        "-7",
        "9007199254740992",
        "9007199254740992.0",
        "9.007199254740992E15",
        "1e22",
        "1E+2",
        "18446744073709551616",
    ] {
        assert_eq!(side(exact), None, "{exact} is exact");
    }
    // Read as a fraction: no integer parameter takes it, and a number
    // parameter is meant to get the nearest double.
    for fraction in [
        "0.1",
        "5.5",
        "5.0000000000001",
        "-2.5e-3",
        "1e-300",
        "1e-22",
    ] {
        assert_eq!(side(fraction), None, "{fraction} reads as a fraction");
    }
    // Not a finite JSON number.
    for bad in ["", "-", "1e", "1.", ".5", "1e400", "NaN", "0x10", "1,0"] {
        assert_eq!(side(bad), None, "{bad:?}");
    }
}

fn schema(json: Value) -> Schema {
    Schema::compile_object("test", &json.to_string()).expect("a valid schema")
}

fn rounded(numbers: &[(&str, &str)]) -> RoundedNumbers {
    RoundedNumbers(
        numbers
            .iter()
            .filter_map(|(p, w)| RoundedNumber::of((*p).into(), w))
            .collect(),
    )
}

#[test]
fn an_integer_parameter_refuses_what_was_written_and_names_it() {
    let schema = schema(json!({
        "type": "object",
        "properties": {"count": {"type": "integer"}, "ratio": {"type": "number"}}
    }));
    // As read, both pass: 5 is an integer.
    let args = json!({"count": 5.0, "ratio": 5.0});
    assert!(schema.violations(&args).is_empty());

    let problems = rounded(&[("/count", "5.0000000000000001")]).violations(&args, &schema);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("/count"), "{}", problems[0]);
    assert!(
        problems[0].contains("5.0000000000000001"),
        "{}",
        problems[0]
    );
    assert!(problems[0].contains("integer"), "{}", problems[0]);
    assert!(
        !problems[0].contains("5.000000000000001 "),
        "{}",
        problems[0]
    );

    // A number parameter takes the nearest double.
    let problems = rounded(&[("/ratio", "5.0000000000000001")]).violations(&args, &schema);
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn bounds_hold_for_the_written_value() {
    let schema = schema(json!({
        "type": "object",
        "properties": {
            "at_most": {"type": "number", "maximum": 5},
            "above": {"type": "number", "exclusiveMinimum": -3},
            "small": {"type": "integer", "minimum": 0}
        }
    }));
    let args = json!({"at_most": 5.0, "above": -2.0, "small": 0.0});
    assert!(schema.violations(&args).is_empty());
    let check = |p: &str, w: &str| rounded(&[(p, w)]).violations(&args, &schema);
    assert_eq!(check("/at_most", "5.0000000000000001").len(), 1);
    assert!(check("/at_most", "4.9999999999999999").is_empty());
    assert!(check("/above", "-2.0000000000000001").is_empty());
    // Negative zero and beyond: an integer parameter refuses both.
    assert!(!check("/small", "-1e-400").is_empty());
    assert_eq!(check("/small", "1e-400").len(), 1);
}

#[test]
fn a_fraction_from_2_to_the_52_up_is_held_to_the_type() {
    let schema = schema(json!({
        "type": "object",
        "properties": {"i": {"type": "integer"}, "x": {"type": ["number", "null"]}}
    }));
    // 2^52 + 0.3 reads as 2^52, whose neighbours are integers.
    let args = json!({"i": 4503599627370496.0, "x": 4503599627370496.0});
    assert!(schema.violations(&args).is_empty());
    let problems = rounded(&[("/i", "4503599627370496.3"), ("/x", "4503599627370496.3")])
        .violations(&args, &schema);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("at /i: 4503599627370496.3 is not of type"),
        "{}",
        problems[0]
    );
    // Written as an integer, it is left to the readers that take it exactly.
    let problems = rounded(&[("/i", "9007199254740993.0")])
        .violations(&json!({"i": 9007199254740992.0}), &schema);
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn nested_pointers_and_several_numbers() {
    let schema = schema(json!({
        "type": "object",
        "properties": {
            "rows": {"type": "array", "items": {
                "type": "object", "properties": {"n": {"type": "integer"}}
            }},
            "a~b/c": {"type": "integer"}
        }
    }));
    let args = json!({"rows": [{"n": 1}, {"n": 2.0}], "a~b/c": 7.0});
    let problems = rounded(&[("/rows/1/n", "2.00000000000000001"), ("/a~0b~1c", "7e-0")])
        .violations(&args, &schema);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("/rows/1/n"), "{}", problems[0]);
    assert!(
        problems[0].contains("2.00000000000000001"),
        "{}",
        problems[0]
    );
}

#[test]
fn none_costs_nothing_and_a_stale_pointer_is_ignored() {
    let schema = schema(json!({"type": "object", "properties": {"n": {"type": "integer"}}}));
    assert!(
        RoundedNumbers::default()
            .violations(&json!({"n": 0.0}), &schema)
            .is_empty()
    );
    let problems = rounded(&[("/gone", "1e-400")]).violations(&json!({}), &schema);
    assert!(problems.is_empty());
    // A pointer whose value is not the one read from that text (a later
    // duplicate key replaced it) is left alone.
    let problems = rounded(&[("/n", "1e-400")]).violations(&json!({"n": 0}), &schema);
    assert!(problems.is_empty());
}
