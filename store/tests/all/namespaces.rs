//! The namespace encoding is injective: every encoding decodes back to its
//! parts (a property test over arbitrary names), holds no `}` nor glob
//! character, and no two (namespace, key) pairs share a stored key (every
//! pair over an alphabet of separators and escapes, where a naive encoding
//! collides).

use std::collections::HashMap;

use mcp_wasm_host_store::{MAX_NAME_LEN, Namespace, decode_namespace};
use proptest::prelude::*;

/// Names rich in what an encoding can trip on.
fn name() -> impl Strategy<Value = String> {
    let tricky = prop::sample::select(vec![
        ':',
        '}',
        '{',
        '%',
        '*',
        '?',
        '[',
        ']',
        '\\',
        '/',
        '\0',
        ' ',
        'A',
        '3',
        'a',
        '-',
        '_',
        'é',
        '\u{10FFFF}',
    ]);
    let any_char = any::<char>();
    prop::collection::vec(prop_oneof![tricky, any_char], 0..24)
        .prop_map(|chars| chars.into_iter().collect())
}

/// A namespace of any kind from up to three names.
fn build(kind: u8, a: &str, b: &str, c: &str) -> (Namespace, char, Vec<Vec<u8>>) {
    let bytes = |parts: &[&str]| parts.iter().map(|p| p.as_bytes().to_vec()).collect();
    match kind % 7 {
        0 => (Namespace::plugin(a, b).unwrap(), 'p', bytes(&[a, b])),
        1 => (Namespace::session(a, b, c).unwrap(), 's', bytes(&[a, b, c])),
        2 => (Namespace::user(a, b, c).unwrap(), 'u', bytes(&[a, b, c])),
        3 => (Namespace::tasks(), 't', Vec::new()),
        4 => (Namespace::limits(), 'l', Vec::new()),
        5 => (Namespace::sessions(), 'm', Vec::new()),
        _ => (Namespace::notifications(), 'n', Vec::new()),
    }
}

proptest! {
    #[test]
    fn every_encoding_decodes_to_its_parts(kind in 0u8..7, a in name(), b in name(), c in name()) {
        let (ns, letter, parts) = build(kind, &a, &b, &c);
        prop_assert_eq!(decode_namespace(ns.encoded()), Some((letter, parts)));
        for special in ['{', '}', '*', '?', '[', ']', '\\'] {
            prop_assert!(!ns.encoded().contains(special), "{} in {}", special, ns.encoded());
        }
    }

    #[test]
    fn a_stored_key_splits_at_its_first_brace(kind in 0u8..7, a in name(), b in name(), key in name()) {
        let (ns, ..) = build(kind, &a, &b, "s");
        let stored = ns.stored_key(key.as_bytes());
        let brace = stored.iter().position(|&byte| byte == b'}').unwrap();
        prop_assert_eq!(&stored[..brace], ns.encoded().as_bytes());
        prop_assert_eq!(&stored[brace + 1..], key.as_bytes());
    }

    #[test]
    fn names_up_to_the_limit_are_taken_and_longer_ones_refused(extra in 0usize..4) {
        let at_limit = "%".repeat(MAX_NAME_LEN);
        prop_assert!(Namespace::plugin(&at_limit, &at_limit).is_ok());
        let over = "x".repeat(MAX_NAME_LEN + 1 + extra);
        prop_assert!(Namespace::plugin("p", &over).is_err());
        prop_assert!(Namespace::user(&over, "b", "u").is_err());
    }
}

/// Every string of up to two tokens of an alphabet of separators, braces
/// and escapes.
fn words() -> Vec<String> {
    let tokens = ["", ":", "}", "a", "%3A", "%7D", "*"];
    let mut words = vec![String::new()];
    for first in tokens.iter().skip(1) {
        words.push(first.to_string());
        for second in tokens.iter().skip(1) {
            words.push(format!("{first}{second}"));
        }
    }
    words
}

#[test]
fn no_two_pairs_of_namespace_and_key_share_a_stored_key() {
    let words = words();
    let short: Vec<&String> = words.iter().filter(|w| w.len() <= 1).collect();
    let mut seen: HashMap<Vec<u8>, String> = HashMap::new();
    let mut naive: HashMap<String, String> = HashMap::new();
    let mut naive_collisions = 0;
    let mut check = |ns: Namespace, parts: &[&str], key: &str| {
        let what = format!("{ns:?} / {key:?}");
        if let Some(before) = seen.insert(ns.stored_key(key.as_bytes()), what.clone()) {
            panic!("{before} and {what} share a stored key");
        }
        // The encoding a careless store might use, to show this test can
        // tell: names joined by `:`.
        if naive
            .insert(format!("{}}}{key}", parts.join(":")), what)
            .is_some()
        {
            naive_collisions += 1;
        }
    };
    for plugin in &words {
        for bucket in &words {
            for key in &short {
                check(
                    Namespace::plugin(plugin, bucket).unwrap(),
                    &["p", plugin.as_str(), bucket.as_str()],
                    key.as_str(),
                );
            }
        }
    }
    for a in &short {
        for b in &short {
            for c in &short {
                for key in &short {
                    check(
                        Namespace::session(a, b, c).unwrap(),
                        &["s", a.as_str(), b.as_str(), c.as_str()],
                        key.as_str(),
                    );
                    check(
                        Namespace::user(a, b, c).unwrap(),
                        &["u", a.as_str(), b.as_str(), c.as_str()],
                        key.as_str(),
                    );
                }
            }
        }
    }
    for key in &words {
        check(Namespace::tasks(), &["t"], key.as_str());
        check(Namespace::limits(), &["l"], key.as_str());
    }
    assert!(
        naive_collisions > 500,
        "the alphabet should trip a naive encoding ({naive_collisions} collisions)"
    );
}
